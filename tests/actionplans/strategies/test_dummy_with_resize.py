"""dummy_with_resize: upstream's six fixed actions, whatever the parameters."""

from __future__ import annotations

from placement.actionplans.model import ProposedAction
from placement.actionplans.strategies import solve

MOVE = {"migration_type": "live", "source_node": "compute2", "destination_node": "compute3"}


def test_six_fixed_actions():
    solution = solve("dummy_with_resize", {"para1": 9, "para2": "ignored"})
    assert solution.actions == [
        ProposedAction("nop", {"message": "hello World"}),
        ProposedAction("nop", {"message": "Welcome"}),
        ProposedAction("sleep", {"duration": 5.0}),
        ProposedAction("migrate", {**MOVE, "resource_id": "b199db0c-1408-4d52-b5a5-5ca14de0ff36"}),
        ProposedAction("migrate", {**MOVE, "resource_id": "8db1b3c1-7938-4c34-8c03-6de14b874f8f"}),
        ProposedAction(
            "resize", {"resource_id": "8db1b3c1-7938-4c34-8c03-6de14b874f8f", "flavor": "x2"}
        ),
    ]
    assert solution.planner == "weight"
    assert solution.parameters == {"para1": 9, "para2": "ignored"}
