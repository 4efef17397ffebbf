"""A table: its sans-I/O core, the actor that drives it, its values, updates, options and chat."""
