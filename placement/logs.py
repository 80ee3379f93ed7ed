"""Logging set-up: every line names the request it belongs to."""

from __future__ import annotations

import contextvars
import logging
import sys

from oslo_config import cfg

current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar(
    "placement_request_id", default="-"
)

_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s [%(request_id)s] %(message)s"


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True


def setup(conf: cfg.ConfigOpts) -> None:
    """Send our logs to stderr, at DEBUG when ``[DEFAULT] debug`` is set."""
    logger = logging.getLogger("placement")
    if any(getattr(h, "_placement", False) for h in logger.handlers):
        logger.setLevel(logging.DEBUG if conf.debug else logging.INFO)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler._placement = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(_RequestIdFilter())
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if conf.debug else logging.INFO)
    logger.propagate = False
