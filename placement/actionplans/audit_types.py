"""The audit types, declared once: how an audit is run (doc/watcher-api.md §3.8).

A ONESHOT audit is planned in the request that creates it; a CONTINUOUS one is
run by the audit runner on its interval; an EVENT one each time its webhook
is called. Code compares types by these constants only.
"""

from __future__ import annotations

from typing import Final

ONESHOT: Final = "ONESHOT"
CONTINUOUS: Final = "CONTINUOUS"
EVENT: Final = "EVENT"

#: Every type, in upstream's order (an unknown one is refused by name).
ALL: Final = (ONESHOT, CONTINUOUS, EVENT)
