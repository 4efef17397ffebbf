"""Where tables and sessions are kept: the store interface, in memory and on Redis."""
