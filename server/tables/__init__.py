"""A table: its sans-I/O core, the actor that drives it, its commands, values, updates,
options and chat (docs/architecture.md, The path of a move)."""
