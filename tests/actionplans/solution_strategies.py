"""Hypothesis strategies drawing solutions and planner options for the property tests.

Instances and hosts come from small pools so that actions often touch the same
instance or host, which is where the planners' links matter.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from placement.actionplans.model import ProposedAction
from placement.actionplans.planners.options import DEFAULT_WEIGHTS

INSTANCES = [f"00000000-0000-4000-8000-{n:012d}" for n in range(4)]
HOSTS = ["h1", "h2", "h3"]

instances = st.sampled_from(INSTANCES)
hosts = st.sampled_from(HOSTS)


def _action(action_type: str, params: st.SearchStrategy) -> st.SearchStrategy[ProposedAction]:
    return params.map(lambda p: ProposedAction(action_type, p))


migrates = _action(
    "migrate",
    st.fixed_dictionaries(
        {
            "resource_id": instances,
            "migration_type": st.sampled_from(["live", "cold"]),
            "source_node": hosts,
        }
    ),
)
resizes = _action(
    "resize", st.fixed_dictionaries({"resource_id": instances, "flavor": st.sampled_from("ab")})
)
service_states = _action(
    "change_nova_service_state",
    st.fixed_dictionaries(
        {"resource_id": hosts, "state": st.sampled_from(["enabled", "disabled", "up", "down"])}
    ),
)
power_downs = _action("turn_host_to_acpi_s3_state", st.fixed_dictionaries({"resource_id": hosts}))
sleeps = _action("sleep", st.fixed_dictionaries({"duration": st.integers(0, 3)}))
nops = _action("nop", st.fixed_dictionaries({"message": st.sampled_from(["a", "b", None])}))

#: Actions the workload_stabilization planner accepts.
stabilization_actions = st.one_of(migrates, resizes, service_states, power_downs, sleeps, nops)
#: Actions the node_resource_consolidation planner accepts.
consolidation_actions = st.one_of(migrates, service_states)
#: Actions of every type the weight planner knows (parameters do not matter to it).
weight_actions = st.builds(
    ProposedAction, st.sampled_from(sorted(DEFAULT_WEIGHTS)), st.fixed_dictionaries({})
)

#: Where each instance lives before the plan runs.
current_hosts = st.fixed_dictionaries({instance: hosts for instance in INSTANCES})


@st.composite
def weight_tables(draw: st.DrawFn) -> dict[str, int]:
    """Weights for every known type, drawn from few values so that ties are common."""
    return {name: draw(st.integers(0, 4)) for name in sorted(DEFAULT_WEIGHTS)}


#: Parallelizations for some types (missing ones count as 1), including values below 1.
parallelizations = st.dictionaries(st.sampled_from(sorted(DEFAULT_WEIGHTS)), st.integers(-1, 4))


@dataclass(frozen=True)
class StabilizationCase:
    """A solution for workload_stabilization with its weights and current hosts."""

    actions: list[ProposedAction]
    weights: dict[str, int]
    hosts: dict[str, str]


stabilization_weights = st.fixed_dictionaries(
    {
        name: st.integers(0, 5)
        for name in [
            "turn_host_to_acpi_s3_state",
            "resize",
            "migrate",
            "sleep",
            "change_nova_service_state",
            "nop",
        ]
    }
)

stabilization_cases = st.builds(
    StabilizationCase,
    st.lists(stabilization_actions, max_size=12),
    stabilization_weights,
    current_hosts,
)
