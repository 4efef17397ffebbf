"""AI seats: the pool that runs policies off the event loop, and the pace of AI-only tables."""
