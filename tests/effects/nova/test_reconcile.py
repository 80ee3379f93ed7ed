"""Reconciling a move asked of Nova from Nova's own state: the decisions, case by case,
and the property that a request Nova took is never asked again."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.effects.nova import reconcile as r

ASKED = r.Request("vm", "live", source_host="compute1", migrations_before=4, target_host="compute2")
ACTIVE_ON_SOURCE = r.Server(host="compute1", status="ACTIVE", task_state=None)
ACTIVE_ON_TARGET = r.Server(host="compute2", status="ACTIVE", task_state=None)
OLD_LIVE = r.Migration(4, "completed", "live-migration", "compute3", "compute1")


def live(status: str, migration_id: int = 5) -> r.Migration:
    return r.Migration(migration_id, status, "live-migration", "compute1", "compute2")


def cold(status: str, migration_id: int = 5) -> r.Migration:
    return r.Migration(migration_id, status, "migration", "compute1", "compute2")


def test_nothing_recorded_starts():
    assert r.decide(None, ACTIVE_ON_SOURCE, [OLD_LIVE], "live").step == r.START


@pytest.mark.parametrize(
    "server,migrations,step",
    [
        # Nova took it and finished: never asked again.
        (ACTIVE_ON_TARGET, [OLD_LIVE, live("completed")], r.DONE),
        # Still running, or completed but the server still busy: wait.
        (r.Server("compute1", "MIGRATING", "migrating"), [live("running")], r.WAIT),
        (r.Server("compute2", "ACTIVE", "migrating"), [live("completed")], r.WAIT),
        # Accepted (task state set), its record not written yet: wait.
        (r.Server("compute1", "MIGRATING", "migrating"), [OLD_LIVE], r.WAIT),
        # Ended badly: failed, with the record.
        (ACTIVE_ON_SOURCE, [live("error")], r.FAILED),
        (ACTIVE_ON_SOURCE, [live("failed")], r.FAILED),
        # Only older records, server where it was, idle: Nova never saw it.
        (ACTIVE_ON_SOURCE, [OLD_LIVE], r.START),
        (ACTIVE_ON_SOURCE, [], r.START),
        # Moved off the recorded host without a record we can see: done.
        (ACTIVE_ON_TARGET, [], r.DONE),
        (r.Server("compute1", "ERROR", None, "No valid host"), [], r.FAILED),
    ],
)
def test_live_migration_after_a_crash(server, migrations, step):
    decision = r.decide(ASKED, server, migrations, "live")
    assert decision.step == step, decision


def test_a_failed_migration_says_what_nova_says():
    server = r.Server("compute1", "ERROR", None, "Compute host compute2 could not be found.")
    decision = r.decide(ASKED, server, [live("error", 9)], "live")
    assert decision.reason == (
        "Nova's migration 9 ended error: Compute host compute2 could not be found."
    )
    assert decision.migration == live("error", 9)


@pytest.mark.parametrize(
    "server,migration,step",
    [
        (r.Server("compute1", "RESIZE", "resize_migrating"), cold("migrating"), r.WAIT),
        (r.Server("compute2", "VERIFY_RESIZE", None), cold("finished"), r.CONFIRM),
        (r.Server("compute2", "VERIFY_RESIZE", "resize_finish"), cold("finished"), r.WAIT),
        (r.Server("compute2", "VERIFY_RESIZE", None), cold("confirming"), r.WAIT),
        (ACTIVE_ON_TARGET, cold("confirmed"), r.DONE),
        (ACTIVE_ON_SOURCE, cold("reverted"), r.FAILED),
        (ACTIVE_ON_SOURCE, cold("error"), r.FAILED),
    ],
)
def test_cold_migration_is_confirmed_once_then_done(server, migration, step):
    assert r.decide(ASKED, server, [migration], "cold").step == step


def test_a_record_of_another_kind_of_move_is_not_this_one():
    assert r.decide(ASKED, ACTIVE_ON_SOURCE, [live("completed")], "cold").step == r.START
    resize = r.Migration(5, "confirmed", "resize", "compute1", "compute1")
    assert r.decide(ASKED, ACTIVE_ON_SOURCE, [resize], "resize").step == r.DONE
    # A resize on the same host never counts as "moved": only its record ends it.
    assert r.decide(ASKED, ACTIVE_ON_SOURCE, [], "resize").step == r.START


@pytest.mark.parametrize(
    "asked,server,operation,step",
    [
        (False, r.Server("compute1", "SHUTOFF", None), "stop", r.DONE),
        (False, ACTIVE_ON_SOURCE, "stop", r.START),
        (True, r.Server("compute1", "ACTIVE", "powering-off"), "stop", r.WAIT),
        (True, ACTIVE_ON_SOURCE, "stop", r.START),
        (True, r.Server(None, "SHELVED_OFFLOADED", None), "shelve", r.DONE),
        (True, r.Server("compute1", "ACTIVE", "shelving"), "shelve", r.WAIT),
        (True, None, "delete", r.DONE),
        (True, r.Server("compute1", "ACTIVE", "deleting"), "delete", r.WAIT),
        (True, None, "stop", r.FAILED),
        (False, None, "stop", r.DONE),  # deleted before the run: nothing to stop (skipped)
        (False, None, "shelve", r.DONE),
        (True, r.Server("compute1", "ERROR", None, "boom"), "shelve", r.FAILED),
    ],
)
def test_server_state_operations(asked, server, operation, step):
    assert r.decide_server_state(asked, server, operation).step == step


_STATUSES = st.sampled_from(
    ["accepted", "queued", "preparing", "running", "completed", "error", "failed", "cancelled"]
)
_MIGRATIONS = st.lists(
    st.builds(r.Migration, st.integers(1, 10), _STATUSES, st.just("live-migration")),
    max_size=4,
)
_SERVERS = st.builds(
    r.Server,
    st.sampled_from(["compute1", "compute2", None]),
    st.sampled_from(["ACTIVE", "MIGRATING", "ERROR"]),
    st.sampled_from([None, "migrating"]),
)


@given(migrations=_MIGRATIONS, server=_SERVERS)
def test_a_request_nova_took_is_never_asked_again(migrations, server):
    """Once Nova holds a record of the move, or is busy with the server, or the server
    has left its host, the decision is never START."""
    decision = r.decide(ASKED, server, migrations, "live")
    took = r.newest_move(ASKED, migrations, "live") is not None
    if took or server.task_state is not None or server.host != ASKED.source_host:
        assert decision.step != r.START
