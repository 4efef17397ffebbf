"""Duplicate play (issue 56): the same seeded boards for everyone, each result compared
with the others who held the same cards (docs/duplicate.md)."""
