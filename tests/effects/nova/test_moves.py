"""Which migration the nova executor asks: a stopped server goes cold, a recorded
request keeps its kind. The moves themselves run against a real Nova in
``tests/nova/test_executor.py``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from placement.effects.nova import moves, reconcile


def _server(status: str) -> reconcile.Server:
    return reconcile.Server(host="compute1", status=status, task_state=None)


@pytest.mark.parametrize(
    ("planned", "status", "expected"),
    [
        ("live", "ACTIVE", "live"),
        ("live", "SHUTOFF", "cold"),  # Nova refuses to live-migrate a stopped server
        ("cold", "ACTIVE", "cold"),
        ("cold", "SHUTOFF", "cold"),
    ],
)
def test_a_new_request_follows_the_plan_except_for_a_stopped_server(planned, status, expected):
    env = SimpleNamespace(recorded=None, as_written=False)
    kind = moves._migration_kind({"migration_type": planned}, env, _server(status))
    assert kind == expected


@pytest.mark.parametrize("status", ["ACTIVE", "SHUTOFF"])
def test_actions_written_by_hand_are_asked_as_written(status):
    """An actuator plan's live migration of a stopped server is asked live, and Nova's
    refusal fails it, as upstream (watcher-tempest-plugin's
    test_migrate_live_instance_shutoff)."""
    env = SimpleNamespace(recorded=None, as_written=True)
    assert moves._migration_kind({"migration_type": "live"}, env, _server(status)) == "live"


@pytest.mark.parametrize("recorded", ["live", "cold"])
def test_a_recorded_request_keeps_its_kind_whatever_nova_shows_now(recorded):
    # After a crash the server is RESIZE or VERIFY_RESIZE mid-move: only the record
    # says what was asked.
    record = reconcile.Request("vm", recorded, source_host="compute1", migrations_before=3)
    env = SimpleNamespace(recorded=record.to_record(), as_written=False)
    assert moves._migration_kind({"migration_type": "live"}, env, None) == recorded
    assert moves._migration_kind({"migration_type": "cold"}, env, None) == recorded
