"""The SQL database: durable facts about people (accounts, API tokens; game records next).

SQLAlchemy 2 (async) on SQLite by default (one file in ``data_dir``) or on
PostgreSQL (``database_url``, asyncpg): one schema (:mod:`server.persist.db.models`),
one code path, migrated by Alembic at start (:mod:`server.persist.db.engine`).
Live tables stay in the table store (memory or Redis).
"""
