"""The AI levels that play rated games, each rated as a system account (issue 55).

A person can earn a rating against the AI alone only if the AI's levels are rated
like anyone: each of ``easy``, ``normal`` and ``hard`` is a bot account (no
password, no owner, no token: nobody can sign in as it) created by migration
0004, and an AI seat at a rated table plays as that account.  The weaker
policies (``random``, ``greedy``) are not offered at rated tables: they exist to
test, and a rating farmed against them would mean little.
"""

from __future__ import annotations

RATED_LEVELS = ("easy", "normal", "hard")
"""The AI levels allowed at a rated table, weakest first."""

AI_ACCOUNT_PREFIX = "ai-"
"""What starts the id of an AI level's system account (``ai-hard``)."""


def ai_account(level: str) -> str:
    """The system account id of AI ``level`` (``ai-normal``)."""
    return AI_ACCOUNT_PREFIX + level


def ai_name(level: str) -> str:
    """The name AI ``level``'s account shows on leaderboards (``AI normal``)."""
    return f"AI {level}"


AI_ACCOUNTS = tuple(ai_account(level) for level in RATED_LEVELS)
"""The ids of the rated AI levels' system accounts."""
