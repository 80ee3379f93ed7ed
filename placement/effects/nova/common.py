"""What the Nova effects share: the node a plan names as Nova's host, bounded waits,
and the shape of a blocking type."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.engine import Connection

from placement import actionplan_opts
from placement.actionplans.action_types import BUILTIN
from placement.db.transaction import reader
from placement.effects import base, nodes
from placement.effects.nova import client

LOG = logging.getLogger(__name__)

T = TypeVar("T")

Run = Callable[[client.Nova, dict[str, Any], base.RunEnv], base.Outcome]


class NovaType:
    """A built-in action type done by Nova: the same declaration as the ``placement``
    executor's, blocking, and given the applier's one client of the configured Nova.
    A refusal fails the action; so does a Nova still unreachable once the call's
    retries are spent, saying so."""

    blocking = True

    def __init__(self, name: str, run: Run) -> None:
        self.declaration = BUILTIN[name]
        self._run = run

    def run(
        self, conn: Connection | None, params: dict[str, Any], env: base.RunEnv
    ) -> base.Outcome:
        return settled(lambda: self._run(client.shared(env.conf), params, env))


def settled(run: Callable[[], base.Outcome]) -> base.Outcome:
    """``run``'s outcome; a refusal by Nova, or Nova still out of reach once a call's
    retries are spent, fails the action with what Nova said."""
    try:
        return run()
    except client.NovaError as exc:
        return base.failed_execute(str(exc))


class NodeNotFound(Exception):
    """The plan's node is no provider of ours."""


def hypervisor_of(nova: client.Nova, env: base.RunEnv, ident: str) -> client.Hypervisor:
    """The Nova compute node a plan's node names (a provider uuid or name): the
    hypervisor whose uuid is the node's root provider's (never guessed from names)."""
    with reader(env.engine) as conn:
        node = nodes.find_node(conn, ident)
    if node is None:
        raise NodeNotFound(f"node {ident} not found")
    return nova.hypervisor(node.root_provider_uuid)


def timeout_of(env: base.RunEnv, option: str) -> float:
    return float(env.conf[actionplan_opts.APPLIER_GROUP][option])


def poll_interval(env: base.RunEnv) -> float:
    return float(env.conf[actionplan_opts.APPLIER_GROUP].nova_poll_interval)


class TimedOut(Exception):
    """Nova did not get there within the configured bound."""


class Cancelled(Exception):
    """The plan was cancelled (or left) while the action waited for Nova."""


@dataclass
class _Reach:
    """Whether Nova answered the last look: a warning when it stops, a word when it is
    back (once each, however many looks in between)."""

    what: str
    unreachable: client.Unreachable | None = None

    def look(self, look: Callable[[], T | None]) -> T | None:
        try:
            found = look()
        except client.Unreachable as exc:
            if self.unreachable is None:
                LOG.warning("%s; looking again while waiting for it to %s", exc, self.what)
            self.unreachable = exc
            return None
        if self.unreachable is not None:
            LOG.info("Nova answers again; waiting for it to %s", self.what)
        self.unreachable = None
        return found


def until(env: base.RunEnv, timeout: float, look: Callable[[], T | None], what: str) -> T:
    """Call ``look`` every poll interval until it returns something; TimedOut after
    ``timeout`` seconds, Cancelled as soon as the plan is cancelled.

    A look that finds Nova unreachable (a restart, a failover, Keystone down) is
    no answer: the next looks again, up to the deadline, and a deadline reached
    while Nova cannot be reached says so rather than that Nova did nothing.
    """
    deadline = time.monotonic() + timeout
    interval = poll_interval(env)
    reach = _Reach(what)
    while True:
        found = reach.look(look)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            if reach.unreachable is not None:
                raise TimedOut(
                    f"Nova could not be reached to {what} within {timeout:g} seconds"
                    f" (the server may have moved: Nova's records will tell): {reach.unreachable}"
                )
            raise TimedOut(f"Nova did not {what} within {timeout:g} seconds")
        if env.cancelled.wait(interval):
            raise Cancelled(what)


def cancelled_while(what: str) -> base.Outcome:
    """Cancelled while Nova worked: Nova finishes on its own, the plan does not wait."""
    return base.Outcome(
        base.cancelled().state,
        f"Action cancelled: the action plan was cancelled while waiting for Nova to {what}.",
    )
