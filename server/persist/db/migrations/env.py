"""Alembic's environment: run on the connection :class:`server.persist.db.engine.Database`
hands over (``config.attributes["connection"]``), never a URL of its own."""

from __future__ import annotations

from alembic import context

from server.persist.db.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the scripts run only through Database.open
    raise RuntimeError("run the migrations through server.persist.db.engine.Database.open")
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying
)
with context.begin_transaction():
    context.run_migrations()
