"""Tournaments (issue 56): Swiss, arena and Duplicate Swiss pairing, the director, seating."""
