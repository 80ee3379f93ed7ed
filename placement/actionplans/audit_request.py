"""What ``POST /v1/audits`` asks for, as one typed value (doc/watcher-api.md §3.1).

The handler builds an :class:`AuditRequest` once, from the body its schema
accepted, after its own checks; the object layer turns it into rows
(``placement/objects/actionplans/from_template.py`` resolves its template,
``placement/objects/actionplans/planning.py`` its goal and strategy). Two
rules live here and nowhere else:

* **null is "not given"**: upstream's types read a JSON ``null`` as an unset
  attribute (watcher-tempest-plugin posts ``"interval": null, "parameters":
  null, "name": null`` with every audit), so :func:`given` drops them before
  anything reads the body;
* **the defaults** of what is not given are this dataclass's: no name (one is
  made from the strategy or goal), no parameters, neither ``auto_trigger`` nor
  ``force``, no interval, no time window, the whole cloud as scope.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


def given(body: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes ``body`` gives: those whose value is not ``null``."""
    return {key: value for key, value in body.items() if value is not None}


@dataclass(frozen=True)
class AuditRequest:
    """A checked audit request; ``goal``, ``strategy`` and ``audit_template_uuid`` are
    identifiers still to resolve (id, uuid or name), ``interval`` a checked interval
    text (seconds or cron), the times parsed."""

    audit_type: str
    goal: str | None = None
    strategy: str | None = None
    audit_template_uuid: str | None = None
    name: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    interval: str | None = None
    auto_trigger: bool = False
    force: bool = False
    start_time: datetime.datetime | None = None
    end_time: datetime.datetime | None = None
    #: Only an audit template gives one; empty is the whole cloud.
    scope: Sequence[Any] = ()

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> AuditRequest:
        """The request a body's attributes make, ``null`` ones not given (their default)."""
        return cls(**given(body))
