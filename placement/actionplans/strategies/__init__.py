"""Strategies: turn an audit's parameters (and, for some, a world) into a solution.

``solve`` is the one entry point. It validates the parameters with the strategy's
``parameters_spec`` first (idempotent for parameters already stored that way), so a
strategy always sees its defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from placement.actionplans.catalog import STRATEGIES_BY_NAME
from placement.actionplans.errors import NotFound, StrategyNotRunnable
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import (
    actuator,
    dummy,
    host_maintenance,
    node_resource_consolidation,
)
from placement.actionplans.world import World

__all__ = ["ALGORITHMS", "WORLD_ALGORITHMS", "solve"]

#: Strategy name -> its algorithm, for the strategies that need no world.
ALGORITHMS: dict[str, Callable[[dict[str, Any]], Solution]] = {
    "actuator": actuator.solve,
    "dummy": dummy.solve,
}

#: Strategy name -> its algorithm, for the strategies that read a capacity snapshot.
WORLD_ALGORITHMS: dict[str, Callable[[dict[str, Any], World], Solution]] = {
    "host_maintenance": host_maintenance.solve,
    "node_resource_consolidation": node_resource_consolidation.solve,
}


def solve(
    strategy_name: str, parameters: Mapping[str, Any], world: World | None = None
) -> Solution:
    """The solution of ``strategy_name`` for ``parameters``.

    Raises NotFound for a name outside the catalog, InvalidAuditParameters (and
    subclasses) for parameters the spec refuses, ReservedWord from the actuator, and
    StrategyNotRunnable for a catalog strategy without an algorithm here, or one that
    reads capacity called without a ``world`` (actuator and dummy ignore it); the
    capacity strategies raise NodeNotFound and ConsumersCannotBePlaced.
    """
    spec = STRATEGIES_BY_NAME.get(strategy_name)
    if spec is None:
        raise NotFound("Strategy", strategy_name)
    checked = apply_strategy_parameters(spec.parameters_spec, parameters)
    if strategy_name in WORLD_ALGORITHMS and world is not None:
        solution = WORLD_ALGORITHMS[strategy_name](checked, world)
    elif strategy_name in ALGORITHMS:
        solution = ALGORITHMS[strategy_name](checked)
    else:
        raise StrategyNotRunnable(strategy_name)
    if solution.planner is None:
        solution.planner = spec.planner
    return solution
