"""A capacity snapshot for the strategies that read the cloud: nodes, what they can
hold, what they hold, and who holds it.

A *node* is a provider tree (a compute node with its children), named by its root.
Amounts are summed over the tree per resource class; capacity is
``(total - reserved) * allocation_ratio`` per inventory, as Placement counts it.
Sharing providers (shared storage) are not nodes: what consumers hold there stays
where it is when they move. Pure values: the object layer reads them from the
database, tests write them by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from placement.actionplans import measured

Amounts = Mapping[str, int]


def fits(amounts: Amounts, free: Amounts) -> bool:
    """Whether every class of ``amounts`` is within ``free``."""
    return all(amount <= free.get(rc, 0) for rc, amount in amounts.items())


#: The consumer type Nova gives its servers' allocations (since microversion 1.38).
INSTANCE = "INSTANCE"


@dataclass(frozen=True)
class Consumer:
    """A consumer and what it holds on one node's tree.

    ``consumer_type`` is the type Placement recorded for it (microversion 1.38 and
    later), or None when it has none (written by an older microversion: the API's
    ``unknown``). ``project`` (the external project id) and ``created_at`` (when
    Placement first saw it) are what ``zone_migration`` orders servers by.
    """

    uuid: str
    amounts: Amounts
    consumer_type: str | None = None
    project: str | None = None
    created_at: datetime | None = None

    @property
    def movable(self) -> bool:
        """Whether a strategy may plan this consumer as a server to migrate or stop.

        A consumer of type ``INSTANCE`` is; one of any other known type (``MIGRATION``:
        what Nova holds on the source while it moves a server) is not, as Nova's
        own bookkeeping is not a server. A consumer with no type (``unknown``: older
        microversions, clouds that do not type their consumers) stays movable, as
        every consumer was before types existed.
        """
        return self.consumer_type is None or self.consumer_type == INSTANCE


@dataclass(frozen=True)
class Node:
    """A provider tree: its root's uuid and name, and its capacity and usage per class.

    ``powered_off``: a ``change_node_power_state`` off left it serving nothing (its
    capacity is then 0: every inventory's reserved is its total).
    ``totals``: its inventories' totals per class, before reserved and overcommit:
    the host's own size (Nova's ``vcpus``, ``memory_mb``), which measured load is a
    share of.
    """

    uuid: str
    name: str
    capacity: Amounts
    usage: Amounts
    disabled: bool = False
    consumers: tuple[Consumer, ...] = ()
    powered_off: bool = False
    totals: Amounts = field(default_factory=dict)

    def free(self) -> dict[str, int]:
        """Capacity not used yet, per class (never below zero)."""
        return {rc: max(0, cap - self.usage.get(rc, 0)) for rc, cap in self.capacity.items()}


@dataclass(frozen=True)
class World:
    """Every node, in a stable order (the database's provider ids), and what a
    datasource measured for the strategy's queries (none unless it declares any)."""

    nodes: tuple[Node, ...]
    measurements: measured.Measurements = measured.NONE
    _by_key: dict[str, Node] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keys = {node.name: node for node in self.nodes}
        keys.update((node.uuid, node) for node in self.nodes)
        object.__setattr__(self, "_by_key", keys)

    def node(self, ident: str) -> Node | None:
        """The node whose root has uuid or name ``ident``."""
        return self._by_key.get(ident)
