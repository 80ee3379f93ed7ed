"""``resize``: the consumer's amounts on its current tree become those of a flavor.

The flavor is a name from ``[flavors]`` in placement.conf or an inline
``CLASS:AMOUNT,...``. Each class goes to the provider of the tree that holds it
now, or else to the first provider of the tree with an inventory of it; classes
the flavor does not name leave the tree; allocations outside it stay. If the
tree cannot hold the new amounts nothing changes and the action fails.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from placement import flavor_opts
from placement.actionplans.action_types import names
from placement.db import tables
from placement.effects import base, holdings
from placement.effects.builtin import BuiltinType
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj


def _current_root(conn: Connection, held: holdings.Holdings) -> rp_obj.Provider:
    """The root of the consumer's tree (the lowest id when it spans several)."""
    roots = rp_obj.get_by_uuids(conn, set(held.roots.values()))
    return min(roots.values(), key=lambda p: p.id)


def _placement(
    conn: Connection, root: rp_obj.Provider, on_tree: holdings.Allocations, wanted: dict[str, int]
) -> holdings.Allocations | str:
    """Where each wanted class goes in the tree, or the name of a class no provider has."""
    holder = {rc: provider for provider, resources in on_tree.items() for rc in resources}
    rp, inv, rc_table = tables.resource_providers, tables.inventories, tables.resource_classes
    stocked = conn.execute(
        select(rc_table.c.name, rp.c.uuid)
        .join(inv, inv.c.resource_provider_id == rp.c.id)
        .join(rc_table, rc_table.c.id == inv.c.resource_class_id)
        .where(rp.c.root_provider_id == root.id, rc_table.c.name.in_(list(wanted)))
        .order_by(rp.c.id)
    ).all()
    for rc, provider in stocked:
        holder.setdefault(rc, provider)
    placed: holdings.Allocations = {}
    for rc, amount in wanted.items():
        if rc not in holder:
            return rc
        placed.setdefault(holder[rc], {})[rc] = amount
    return placed


def resize(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Give consumer ``resource_id`` the amounts of ``flavor`` on its tree."""
    consumer, flavor = params["resource_id"], params["flavor"]
    try:
        wanted = flavor_opts.flavor_resources(env.conf, flavor)
    except flavor_opts.InvalidFlavor as exc:
        return base.failed_pre_condition(str(exc))
    held = holdings.read(conn, consumer)
    if held is None:
        return base.skipped(f"consumer {consumer} has no allocations")
    root = _current_root(conn, held)
    on_tree = held.on_tree(root.uuid)
    if holdings.totals(on_tree) == wanted:
        return base.skipped(f"consumer {consumer} already has flavor {flavor}")
    placed = _placement(conn, root, on_tree, wanted)
    if isinstance(placed, str):
        return base.failed_pre_condition(f"node {root.name} has no inventory of {placed}")
    try:
        holdings.rewrite(conn, held, holdings.merge(held.elsewhere(root.uuid), placed))
    except exceptions.InvalidAllocation as exc:
        return base.failed_execute(exc.message)
    return base.succeeded()


RESIZE = BuiltinType(names.RESIZE, resize)
