"""``stop``, ``shelve`` and ``delete`` done by Nova: ask once, wait for the server's state.

Nova sets the server's task state before it answers, so after a crash the
next run tells a request Nova took (busy, or already in the wanted state)
from one it never saw (idle, not there): :func:`reconcile.decide_server_state`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from placement.actionplans.action_types import names
from placement.effects import base
from placement.effects.nova import client, common, reconcile

_ASK: dict[str, Callable[[client.Nova, str], object]] = {
    "stop": client.Nova.stop,
    "shelve": client.Nova.shelve,
    "delete": client.Nova.delete,
}


def _operation(operation: str) -> common.Run:
    def run(nova: client.Nova, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
        return _carry_out(nova, params["resource_id"], operation, env)

    run.__doc__ = f"``{operation}`` server ``resource_id`` through Nova, then wait for it."
    return run


def _begin(
    nova: client.Nova, server_id: str, operation: str, env: base.RunEnv
) -> base.Outcome | None:
    """Reconcile with an earlier run, and ask Nova unless it took a request already;
    an outcome when there is nothing to wait for."""
    asked = env.recorded is not None
    decision = reconcile.decide_server_state(asked, nova.server_state(server_id), operation)
    if decision.step == reconcile.DONE and not asked:
        return base.skipped(f"server {server_id}: {decision.reason}")
    if decision.step == reconcile.FAILED and not asked:
        return base.failed_pre_condition(f"server {server_id}: {decision.reason}")
    if decision.step == reconcile.START:
        now = datetime.datetime.now(datetime.timezone.utc).isoformat()
        env.record(reconcile.ServerRequest(server_id, operation, now).to_record())
        _ASK[operation](nova, server_id)
    return None


def _carry_out(nova: client.Nova, server_id: str, operation: str, env: base.RunEnv) -> base.Outcome:
    begun = _begin(nova, server_id, operation, env)
    if begun is not None:
        return begun

    def look() -> reconcile.Decision | None:
        seen = reconcile.decide_server_state(True, nova.server_state(server_id), operation)
        if seen.step == reconcile.START:
            return reconcile.Decision(reconcile.FAILED, f"Nova did not {operation} the server")
        return None if seen.step == reconcile.WAIT else seen

    what = f"{operation} server {server_id}"
    try:
        decision = common.until(env, common.timeout_of(env, "server_state_timeout"), look, what)
    except common.TimedOut as exc:
        return base.failed_execute(str(exc))
    except common.Cancelled:
        return common.cancelled_while(what)
    if decision.step == reconcile.DONE:
        return base.succeeded()
    return base.failed_execute(f"server {server_id}: {decision.reason}")


STOP = common.NovaType(names.STOP, _operation("stop"))
SHELVE = common.NovaType(names.SHELVE, _operation("shelve"))
DELETE = common.NovaType(names.DELETE, _operation("delete"))
