"""Who plays: sessions and their tokens, display names, quotas and rate limits."""
