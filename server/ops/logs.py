"""Structured JSON log lines (structlog) on stderr, bound with table and player ids."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


def configure(level: str = "info", stream: TextIO | None = None) -> None:
    """One JSON object per line on ``stream`` (stderr): timestamp, level, event, bound ids.

    An embedding program (``cardavia play`` runs a server in-process) calls
    this with ``"warning"`` or ``"error"`` to keep the terminal clean.
    """
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level.lower(), 20)),
        logger_factory=structlog.WriteLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)


def get_logger(**ids: Any) -> Any:
    """A logger that adds ``ids`` (e.g. ``table=..., player=...``) to every line."""
    return structlog.get_logger("cardavia").bind(**ids)
