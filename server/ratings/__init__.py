"""Ratings (issue 55): OpenSkill per game and account, leaderboards, rated matchmaking."""
