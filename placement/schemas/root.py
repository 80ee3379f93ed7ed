"""The answer of ``GET /``: the version document."""

from __future__ import annotations

from placement.schemas import LINKS, Versioned, closed

_TEXT = {"type": "string"}

VERSIONS = Versioned(
    closed(
        versions={
            "type": "array",
            "items": closed(
                id=_TEXT, max_version=_TEXT, min_version=_TEXT, status=_TEXT, links=LINKS
            ),
        }
    )
)
