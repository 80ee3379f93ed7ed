"""Strategies: turn an audit's parameters (and, for some, a world) into a solution.

Each strategy is one module declaring its ``STRATEGY`` (see ``declaration.py``);
``STRATEGIES`` lists them, which is all the catalog and ``solve`` know of them. A
new strategy is a new module plus its line here, in alphabetical order: the order
the catalog's rows are written in, and so the default list order of the API.

``solve`` is the one entry point. It validates the parameters with the strategy's
``parameters_spec`` first, so a strategy always sees its defaults, and the solution
carries the parameters as checked (what an audit stores): nothing validates them
again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from placement.actionplans.errors import NotFound, StrategyNotRunnable
from placement.actionplans.measured import Query
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import (
    actuator,
    basic,
    dummy,
    dummy_with_resize,
    dummy_with_scorer,
    host_maintenance,
    node_resource_consolidation,
    noisy_neighbor,
    outlet_temperature,
    saving_energy,
    storage_capacity_balance,
    uniform_airflow,
    vm_workload_consolidation,
    workload_balance,
    workload_stabilization,
    zone_migration,
)
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import World

__all__ = [
    "STRATEGIES",
    "STRATEGIES_BY_NAME",
    "Strategy",
    "cannot_run",
    "measures_optional",
    "needs_world",
    "queries",
    "solve",
]

#: Every strategy this service lists, alphabetically (those upstream serves that
#: cannot run here declare ``cannot_run``: see ``cannot_run.py``).
STRATEGIES: tuple[Strategy, ...] = (
    actuator.STRATEGY,
    basic.STRATEGY,
    dummy.STRATEGY,
    dummy_with_resize.STRATEGY,
    dummy_with_scorer.STRATEGY,
    host_maintenance.STRATEGY,
    node_resource_consolidation.STRATEGY,
    noisy_neighbor.STRATEGY,
    outlet_temperature.STRATEGY,
    saving_energy.STRATEGY,
    storage_capacity_balance.STRATEGY,
    uniform_airflow.STRATEGY,
    vm_workload_consolidation.STRATEGY,
    workload_balance.STRATEGY,
    workload_stabilization.STRATEGY,
    zone_migration.STRATEGY,
)

STRATEGIES_BY_NAME: dict[str, Strategy] = {strategy.name: strategy for strategy in STRATEGIES}

#: What a strategy that reads no capacity is given in place of a snapshot.
_NO_WORLD = World(())


def needs_world(strategy_name: str) -> bool:
    """Whether ``solve`` needs a capacity snapshot for ``strategy_name`` (False for a
    name it does not know: ``solve`` then raises NotFound without one)."""
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    return strategy is not None and strategy.needs_world


def cannot_run(strategy_name: str) -> str | None:
    """Why this service cannot run ``strategy_name`` (None: it can, or the name is
    outside the catalog and ``solve`` refuses it)."""
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    return None if strategy is None else strategy.cannot_run


def solve(
    strategy_name: str, parameters: Mapping[str, Any], world: World | None = None
) -> Solution:
    """The solution of ``strategy_name`` for ``parameters``.

    Raises NotFound for a name outside the catalog, InvalidAuditParameters (and
    subclasses) for parameters the spec refuses, ReservedWord from the actuator, and
    StrategyNotRunnable for a strategy that reads capacity called without a
    ``world`` (the others ignore it); the capacity strategies raise NodeNotFound and
    ConsumersCannotBePlaced, and those that cannot run here CannotRunHere.
    """
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    if strategy is None:
        raise NotFound("Strategy", strategy_name)
    checked = apply_strategy_parameters(strategy.parameters_spec, parameters)
    if world is None:
        if strategy.needs_world:
            raise StrategyNotRunnable(strategy_name)
        world = _NO_WORLD
    solution = strategy.solve(checked, world)
    if solution.planner is None:
        solution.planner = strategy.planner
    solution.parameters = checked
    return solution


def queries(strategy_name: str, parameters: Mapping[str, Any], world: World) -> tuple[Query, ...]:
    """What ``strategy_name`` must have measured before it solves on ``world`` with
    ``parameters`` (checked first, as :func:`solve` checks them); () for a strategy
    that reads no measured load, or a name outside the catalog (``solve`` refuses it)."""
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    if strategy is None or strategy.measures is None:
        return ()
    checked = apply_strategy_parameters(strategy.parameters_spec, parameters)
    return tuple(strategy.measures(checked, world))


def measures_optional(strategy_name: str) -> bool:
    """Whether ``strategy_name`` solves without measurements when no datasource is
    configured (``Strategy.measures_optional``) rather than failing its audit."""
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    return strategy is not None and strategy.measures_optional
