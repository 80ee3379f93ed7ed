"""The strategies upstream serves that cannot run here: listed, refusing to solve,
and saying why in ``strategy state``."""

from __future__ import annotations

import pytest

from placement.actionplans.errors import AuditParameterNotAllowed, CannotRunHere
from placement.actionplans.requirements import CANNOT_RUN, NO_DATASOURCE, strategy_state
from placement.actionplans.strategies import STRATEGIES_BY_NAME, cannot_run, solve
from placement.actionplans.world import Node, World

UNRUNNABLE = ("noisy_neighbor", "outlet_temperature", "storage_capacity_balance", "uniform_airflow")
WORLD = World((Node("n1-uuid", "n1", {"VCPU": 4}, {}),))


@pytest.mark.parametrize("name", UNRUNNABLE)
def test_solving_refuses_with_the_reason(name):
    reason = cannot_run(name)
    assert reason
    with pytest.raises(CannotRunHere) as caught:
        solve(name, {}, WORLD)
    assert str(caught.value) == f"Strategy {name} cannot run in this service: {reason}"


def test_the_metric_ones_name_the_metrics_they_read():
    assert "host_outlet_temp" in cannot_run("outlet_temperature")
    assert "host_airflow, host_inlet_temp, host_power" in cannot_run("uniform_airflow")
    assert "instance_l3_cache_usage" in cannot_run("noisy_neighbor")
    assert "Cinder" in cannot_run("storage_capacity_balance")


def test_parameters_are_still_checked_first():
    """A wrong parameter is refused as for any strategy, before the reason."""
    with pytest.raises(AuditParameterNotAllowed):
        solve("outlet_temperature", {"nosuch": 1})


def test_they_read_no_capacity_and_measure_nothing():
    for name in UNRUNNABLE:
        assert not STRATEGIES_BY_NAME[name].needs_world
        assert STRATEGIES_BY_NAME[name].measures is None


def test_the_runnable_ones_and_unknown_names_have_no_reason():
    assert cannot_run("basic") is None
    assert cannot_run("nosuch") is None


@pytest.mark.parametrize("name", UNRUNNABLE)
def test_strategy_state_says_why_in_its_datasource_row(name):
    rows = {row["type"]: row for row in strategy_state(name)}
    assert rows["Datasource"]["state"] == f"{CANNOT_RUN}: {cannot_run(name)}"
    assert rows["Datasource"]["mandatory"] is True
    assert rows["Metrics"]["state"] == []
    assert rows["CDM"]["state"][1] == {"storage_model": "not available"}
    assert rows["Name"]["state"] == name


def test_strategy_state_of_the_others_is_unchanged():
    assert strategy_state("dummy")[0]["state"] == NO_DATASOURCE
    assert strategy_state("host_maintenance")[0]["state"] == "Placement: available"
