"""The ``dummy`` strategy: two messages and a sleep, for trying plans out."""

from __future__ import annotations

from typing import Any

from placement.actionplans.solution import Solution


def solve(parameters: dict[str, Any]) -> Solution:
    """``nop "hello World"``, ``nop para2``, ``sleep para1`` (a repeated nop is dropped)."""
    solution = Solution()
    solution.add("nop", {"message": "hello World"})
    solution.add("nop", {"message": parameters["para2"]})
    solution.add("sleep", {"duration": parameters["para1"]})
    return solution
