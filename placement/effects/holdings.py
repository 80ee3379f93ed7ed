"""What one consumer holds, read and rewritten inside the applier's transaction.

Rewriting goes through :func:`placement.objects.claim.write`, the attempt
``PUT /allocations`` makes: providers row-locked in id order, inventory and
capacity checked against current usage, then a compare-and-swap of every
touched provider's and the consumer's generation. So a scheduler claiming at
the same moment either waits for us or makes our swap fail; nothing is ever
overcommitted. A lost swap becomes :class:`RunAgain` (the applier rolls back
and runs the action again); a refused allocation raises
:class:`placement.objects.exceptions.InvalidAllocation` before anything is
written.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection

from placement.effects.races import run_again_on_race
from placement.objects import allocation, claim, claim_consumers

Allocations = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Holdings:
    """A consumer's allocations (provider uuid → class → amount) and what owns them."""

    consumer: str
    project_id: str
    user_id: str
    owner: claim_consumers.Owner
    generation: int
    allocations: Allocations
    #: provider uuid → uuid of the root of its tree
    roots: dict[str, str]

    def on_tree(self, root_uuid: str) -> Allocations:
        """The part held on the tree rooted at ``root_uuid``."""
        return {p: dict(r) for p, r in self.allocations.items() if self.roots[p] == root_uuid}

    def elsewhere(self, root_uuid: str) -> Allocations:
        """The part held outside the tree rooted at ``root_uuid``."""
        return {p: dict(r) for p, r in self.allocations.items() if self.roots[p] != root_uuid}


def read(conn: Connection, consumer_uuid: str) -> Holdings | None:
    """What ``consumer_uuid`` holds now, or None when it holds nothing."""
    rows = allocation.consumer_rows(conn, consumer_uuid, with_roots=True)
    if not rows:
        return None
    held: Allocations = {}
    for row in rows:
        held.setdefault(row.uuid, {})[row.class_name] = row.used
    first = rows[0]
    return Holdings(
        consumer=consumer_uuid,
        project_id=first.project,
        user_id=first.user,
        owner=claim_consumers.Owner(first.project_id, first.user_id, None),
        generation=first.consumer_generation,
        allocations=held,
        roots={row.uuid: row.root_uuid for row in rows},
    )


def merge(*parts: Allocations) -> Allocations:
    """The sum of several allocation maps (a class on one provider adds up)."""
    total: Allocations = {}
    for part in parts:
        for provider, resources in part.items():
            mine = total.setdefault(provider, {})
            for rc, amount in resources.items():
                mine[rc] = mine.get(rc, 0) + amount
    return total


def totals(part: Allocations) -> dict[str, int]:
    """How much of each class ``part`` holds, whatever the provider."""
    summed: dict[str, int] = {}
    for resources in part.values():
        for rc, amount in resources.items():
            summed[rc] = summed.get(rc, 0) + amount
    return summed


def rewrite(conn: Connection, holdings: Holdings, new: Allocations) -> None:
    """Make ``new`` everything the consumer holds (empty: it holds nothing and goes).

    Raises InvalidAllocation (nothing written) when a provider cannot take its
    part, and RunAgain when a generation moved under us.
    """
    wanted = claim_consumers.ConsumerWrite(
        holdings.consumer,
        holdings.project_id,
        holdings.user_id,
        new,
        generation=holdings.generation,
    )
    with run_again_on_race():
        claim.write(conn, [wanted], {holdings.consumer: holdings.owner})
