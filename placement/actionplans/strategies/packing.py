"""Free capacity being handed out while a strategy decides where consumers go.

Every placement takes its amounts from the working copy, so two moves never
count on the same free capacity: what the strategy plans fits all at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from placement.actionplans.world import Amounts, Consumer, Node, fits


class FreeCapacity:
    """What each node can still take, per class, as moves are planned."""

    def __init__(self, nodes: Iterable[Node]) -> None:
        self._capacity = {node.uuid: dict(node.capacity) for node in nodes}
        self._free = {node.uuid: node.free() for node in nodes}

    def copy(self) -> FreeCapacity:
        twin = FreeCapacity(())
        twin._capacity = self._capacity
        twin._free = {uuid: dict(free) for uuid, free in self._free.items()}
        return twin

    def fits(self, node: Node, amounts: Amounts) -> bool:
        return fits(amounts, self._free[node.uuid])

    def take(self, node: Node, amounts: Amounts) -> None:
        free = self._free[node.uuid]
        for rc, amount in amounts.items():
            free[rc] -= amount

    def left_after(self, node: Node, amounts: Amounts) -> float:
        """The share of the node's capacity still free once ``amounts`` is taken (0 to 1
        per class, averaged over its classes): small means a tightly packed node."""
        capacity, free = self._capacity[node.uuid], self._free[node.uuid]
        shares = [
            (free[rc] - amounts.get(rc, 0)) / capacity[rc] for rc in capacity if capacity[rc] > 0
        ]
        return sum(shares) / len(shares) if shares else 0.0


def size(consumer: Consumer, nodes: Iterable[Node]) -> float:
    """How big a consumer is against the whole cloud (sum of its shares per class)."""
    totals: dict[str, int] = {}
    for node in nodes:
        for rc, amount in node.capacity.items():
            totals[rc] = totals.get(rc, 0) + amount
    return sum(amount / totals[rc] for rc, amount in consumer.amounts.items() if totals.get(rc))


def largest_first(consumers: Iterable[Consumer], nodes: tuple[Node, ...]) -> list[Consumer]:
    """Consumers biggest first (placing those first packs best), ties by uuid."""
    return sorted(consumers, key=lambda c: (-size(c, nodes), c.uuid))


def choose(
    free: FreeCapacity, consumer: Consumer, destinations: Iterable[Node], *, spread: bool
) -> Node | None:
    """Where ``consumer`` goes among the destinations with room, or None.

    ``spread`` picks the node left emptiest (drains spread the load); otherwise the
    node left fullest (consolidation packs). Ties go to the earlier node.
    """
    best: Node | None = None
    best_score = 0.0
    for node in destinations:
        if not free.fits(node, consumer.amounts):
            continue
        left = free.left_after(node, consumer.amounts)
        score = left if spread else -left
        if best is None or score > best_score:
            best, best_score = node, score
    if best is not None:
        free.take(best, consumer.amounts)
    return best
