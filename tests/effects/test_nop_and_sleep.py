"""nop's switches, and sleep's wait outside any transaction."""

from __future__ import annotations

import threading
import time

import pytest

from placement.effects.base import RunEnv, is_blocking
from placement.effects.nop import NOP
from placement.effects.sleep import SLEEP


@pytest.mark.parametrize(
    "switch,state,message",
    [
        (None, "SUCCEEDED", None),
        (
            "skip_pre_condition",
            "SKIPPED",
            "Action was skipped automatically: Skipped in pre_condition",
        ),
        ("fail_pre_condition", "FAILED", "Action failed in pre_condition: Failed in pre_condition"),
        ("fail_execute", "FAILED", "Action failed in execute: Failed in execute"),
        (
            "fail_post_condition",
            "FAILED",
            "Action failed in post_condition: Failed in post_condition",
        ),
    ],
)
def test_nop_switches(cloud, switch, state, message):
    params = {"message": "hello"} | ({switch: True} if switch else {})
    outcome = cloud.run(NOP, params)
    assert (outcome.state, outcome.message) == (state, message)


def test_sleep_waits_outside_a_transaction_until_cancelled(cloud):
    assert is_blocking(SLEEP) and not is_blocking(NOP)
    env = RunEnv(cloud.conf, cloud.engine, threading.Event())
    started = time.monotonic()
    assert SLEEP.run(None, {"duration": 0.2}, env).state == "SUCCEEDED"
    assert time.monotonic() - started >= 0.2
    threading.Timer(0.1, env.cancelled.set).start()
    started = time.monotonic()
    cut_short = SLEEP.run(None, {"duration": 60}, env)
    assert cut_short.state == "CANCELLED"
    assert cut_short.message == "Action cancelled: the action plan was cancelled while it ran."
    assert time.monotonic() - started < 5


def test_types_inside_a_transaction_refuse_to_run_without_one(cloud):
    with pytest.raises(TypeError, match="^action type nop runs inside a transaction$"):
        NOP.run(None, {"message": None}, cloud.env)
