"""Structured JSON log lines (structlog) on stderr, bound with table and player ids."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

_LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


def configure(level: str = "info") -> None:
    """One JSON object per line: timestamp, level, event and the bound ids."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level.lower(), 20)),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)


def get_logger(**ids: Any) -> Any:
    """A logger that adds ``ids`` (e.g. ``table=..., player=...``) to every line."""
    return structlog.get_logger("cardavia").bind(**ids)
