"""The ``saving_energy`` strategy: keep just enough empty nodes powered on.

Upstream asks Ironic or MAAS which nodes are on, and Nova which run servers.
Here both come from Placement: a node is *in use* while its tree holds any
allocation, *free* when it holds none, and *off* when a ``change_node_power_state``
off left it serving nothing (``powered_off_inventories``). Upstream's rule: keep
``max(in-use nodes × free_used_percent / 100, min_free_hosts_num)`` free nodes
powered on (rounded down); power off the free nodes beyond that, or power on off
nodes while fewer are free. Upstream picks the nodes at random; here the choice is
deterministic: disabled free nodes are powered off first (a scheduler cannot use
them as standby), then the others from the last in snapshot order; enabled off
nodes are powered on first, in snapshot order (doc/planner.md §9).
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import CHANGE_NODE_POWER_STATE
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import Node, World


def _power(solution: Solution, node: Node, state: str) -> None:
    solution.add(
        CHANGE_NODE_POWER_STATE,
        {"state": state, "resource_name": node.name, "resource_id": node.uuid},
    )


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The power changes that leave the wanted number of free nodes on."""
    in_use = [n for n in world.nodes if n.consumers]
    free_on = [n for n in world.nodes if not n.consumers and not n.powered_off]
    off = [n for n in world.nodes if n.powered_off and not n.consumers]
    wanted = int(
        max(len(in_use) * parameters["free_used_percent"] / 100, parameters["min_free_hosts_num"])
    )
    solution = Solution()
    if len(free_on) > wanted:
        surplus = sorted(reversed(free_on), key=lambda n: not n.disabled)
        for node in surplus[: len(free_on) - wanted]:
            _power(solution, node, "off")
    else:
        for node in sorted(off, key=lambda n: n.disabled)[: wanted - len(free_on)]:
            _power(solution, node, "on")
    return solution


STRATEGY = Strategy(
    name="saving_energy",
    display_name="Saving Energy Strategy",
    goal="saving_energy",
    # Upstream's schema and defaults.
    parameters_spec={
        "properties": {
            "free_used_percent": {
                "description": "a rational number, which describes the quotient of "
                "min_free_hosts_num/nodes_with_VMs_num where nodes_with_VMs_num is the number "
                "of nodes with VMs",
                "type": "number",
                "default": 10.0,
            },
            "min_free_hosts_num": {
                "description": "minimum number of hosts without VMs but still powered on",
                "type": "number",
                "default": 1,
            },
        }
    },
    planner=weight.NAME,
    needs_world=True,
    solve=solve,
)
