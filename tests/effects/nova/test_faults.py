"""The nova executor's wait and ask against a scripted Nova (``scripted.py``): a refusal
fails at once, a Nova out of reach is looked at again, a lost answer is reconciled from
Nova's records, a cancel aborts a live migration."""

from __future__ import annotations

import threading

import pytest
from keystoneauth1 import exceptions as ksa_exceptions

from placement import conf as placement_conf
from placement.effects import base
from placement.effects.nova import client, common, moving, reconcile
from tests.effects.nova.scripted import SERVER, ScriptedNova, answer

NEVER_CONNECTED = ksa_exceptions.ConnectFailure(
    "NewConnectionError: [Errno 111] Connection refused"
)
LOST_ANSWER = ksa_exceptions.ConnectTimeout("Read timed out")
LIVE = moving.Move(SERVER, "live", "compute1", "compute2", "migration_timeout", "live migrate")
COLD = moving.Move(SERVER, "cold", "compute1", None, "migration_timeout", "cold migrate")


@pytest.fixture
def conf(tmp_path):
    path = tmp_path / "placement.conf"
    path.write_text(
        "[watcher_applier]\nexecutor = nova\nnova_poll_interval = 0.05\n"
        "migration_timeout = 1\nnova_retries = 2\nnova_retry_backoff = 0\n"
    )
    return placement_conf.load([], default_config_files=[str(path)])


class Run:
    """One run of a move: its environment (cancel it with ``cancel``) and its records."""

    def __init__(self, conf) -> None:
        self.records: list[dict] = []
        self.cancel = threading.Event()
        self.env = base.RunEnv(
            conf=conf,
            engine=None,  # type: ignore[arg-type]  # moves read no database
            cancelled=self.cancel,
            record=lambda record: self.records.append(dict(record)),
        )


def _run(nova: ScriptedNova, conf, move=LIVE, run=None):
    run = run or Run(conf)
    scripted = client.Nova(nova, client.Retries.from_conf(conf))
    outcome = common.settled(lambda: moving.carry_out(scripted, run.env, move))
    return outcome, run.records


def test_a_refusal_fails_at_once_with_nova_s_message(conf):
    nova = ScriptedNova()
    nova.fail("POST", "/servers/", answer(400, "No valid host was found. "))
    outcome, _ = _run(nova, conf)
    assert outcome.state == "FAILED"
    assert outcome.message.endswith("Nova refused to live migrate: No valid host was found.")


def _blips(nova: ScriptedNova) -> None:
    """Nova's API restarts: more failed looks than one call's retries."""
    nova.fail("GET", f"/servers/{SERVER}", answer(503, "restarting"), times=5)
    nova.fail("GET", f"/servers/{SERVER}", LOST_ANSWER, times=3)


def test_a_blip_while_waiting_is_looked_at_again(conf):
    nova = ScriptedNova(at_look={2: lambda: _blips(nova), 4: lambda: nova.finish(host="compute2")})
    outcome, records = _run(nova, conf)
    assert outcome == base.succeeded()
    assert nova.asked("POST", "/servers/") == 1
    assert records[-1]["migration_id"] == 7


def test_a_request_that_never_connected_is_sent_again(conf):
    nova = ScriptedNova(at_look={3: lambda: nova.finish(host="compute2")})
    nova.fail("POST", "/servers/", NEVER_CONNECTED)
    outcome, records = _run(nova, conf)
    assert outcome == base.succeeded()
    assert nova.asked("POST", "/servers/") == 2
    assert records[-1]["answered"] is True


def test_a_lost_answer_nova_acted_on_is_not_asked_again(conf):
    """The POST reached Nova (the server is migrating) but its answer was lost: the
    request is recorded unanswered and Nova's records finish the story."""
    nova = ScriptedNova(at_look={3: lambda: nova.finish(host="compute2")})
    nova.fail("POST", "/servers/", lambda: (nova._action({"os-migrateLive": {}}), answer(504)())[1])
    outcome, records = _run(nova, conf)
    assert outcome == base.succeeded()
    assert nova.asked("POST", "/servers/") == 1
    assert [r["answered"] for r in records] == [True, False, False]


def test_a_lost_answer_nova_never_saw_is_asked_again_once_its_records_say_so(conf):
    nova = ScriptedNova(at_look={4: lambda: nova.finish(host="compute2")})
    nova.fail("POST", "/servers/", answer(504, "gateway timeout"))
    outcome, records = _run(nova, conf)
    assert outcome == base.succeeded()
    assert nova.asked("POST", "/servers/") == 2
    assert records[-1]["answered"] is True


def test_a_409_on_asking_again_means_nova_has_it(conf):
    """The first answer was lost while Nova had not yet marked the server; asked again,
    Nova answers 409 (busy with it): waited for, never failed."""
    nova = ScriptedNova(at_look={5: lambda: nova.finish(host="compute2")})
    nova.fail("POST", "/servers/", answer(504))
    nova.fail("POST", "/servers/", lambda: (nova._action({"os-migrateLive": {}}), answer(409)())[1])
    outcome, _ = _run(nova, conf)
    assert outcome == base.succeeded()


def test_nova_out_of_reach_past_the_bound_fails_saying_so(conf):
    """Asked and answered, then Nova's API is gone for longer than the move's bound."""
    nova = ScriptedNova(
        at_look={2: lambda: nova.fail("GET", f"/servers/{SERVER}", answer(503), times=10_000)}
    )
    outcome, _ = _run(nova, conf)
    assert outcome.state == "FAILED"
    assert "Nova could not be reached to live migrate within 1 seconds" in outcome.message
    assert "the server may have moved" in outcome.message


def test_a_cancel_aborts_the_live_migration_and_says_the_server_stayed(conf):
    run = Run(conf)
    nova = ScriptedNova(at_look={3: run.cancel.set})
    outcome, records = _run(nova, conf, run=run)
    assert nova.asked("DELETE", f"/servers/{SERVER}/migrations/7") == 1
    assert records[-1]["aborted"] == 7
    assert outcome.state == "CANCELLED"
    assert "was aborted" in outcome.message and "stays on compute1" in outcome.message


def test_a_migration_that_completes_before_the_abort_took_succeeded(conf):
    run = Run(conf)
    nova = ScriptedNova(at_look={3: run.cancel.set, 4: lambda: nova.finish(host="compute2")})
    outcome, _ = _run(nova, conf, run=run)
    assert nova.asked("DELETE", "/servers/") == 0
    assert outcome.state == "SUCCEEDED"
    assert "completed the live migration" in outcome.message and "compute2" in outcome.message


def test_a_cancelled_cold_migration_says_nova_finishes_it(conf):
    run = Run(conf)
    nova = ScriptedNova(at_look={3: run.cancel.set})
    outcome, _ = _run(nova, conf, move=COLD, run=run)
    assert nova.asked("DELETE", "/servers/") == 0
    assert outcome.state == "CANCELLED"
    assert "Nova cannot abort it and finishes it on its own" in outcome.message


def test_the_request_record_reads_back_as_written():
    request = reconcile.Request(SERVER, "cold", "compute1", 3, "compute2", request_id="req-1")
    assert reconcile.Request.from_record(request.to_record()) == request
    assert reconcile.Request.from_record(None) is None
    assert reconcile.Request.from_record({"server": SERVER, "operation": "stop"}) is None
