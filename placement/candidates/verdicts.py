"""Per request group, why each provider that could have served it does not.

One statement per group reads, for every provider with an inventory of one
of the group's classes, each of the group's rules as a column of its own:
the very conditions the group queries of :mod:`placement.candidates.query`
put in their ``WHERE`` (``conditions.fit_checks``, ``has_traits``,
``in_aggregates``, ``query.tree_member_of``, ``query.tree_not_in``), so a
verdict here cannot disagree with what the engine found. The first rule a
provider fails, in :data:`PROVIDER_RULES` order, is reported with the
numbers behind it.

The unsuffixed group of a deployment with nested or sharing providers is
served class by class (each class from one provider, the required traits by
the tree as a whole): there a provider is judged per class it has, on that
class's capacity rules and the group's rules that apply to one provider;
required traits are left to the tree (``explain``'s tree rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import sqlalchemy
from sqlalchemy import and_, case, or_, select, true
from sqlalchemy.engine import Connection
from sqlalchemy.sql.selectable import NamedFromClause

from placement.candidates import query
from placement.candidates.model import AggregateIds, ResolvedGroup, TraitIds
from placement.candidates.request import RequestGroup
from placement.db import tables
from placement.objects import conditions

_RP = tables.resource_providers
_INV = tables.inventories

#: A provider's rules for one group, in the order they are tried: per class,
#: in the request's order, its inventory, then capacity, min_unit, max_unit
#: and step_size (``conditions.fit_checks``'s order); then the group's
#: required traits (each set), forbidden traits, ``member_of`` (each set),
#: forbidden aggregates and ``in_tree``.
PROVIDER_RULES = (
    "no_inventory",
    "capacity",
    "min_unit",
    "max_unit",
    "step_size",
    "missing_trait",
    "forbidden_trait",
    "not_in_aggregate",
    "forbidden_aggregate",
    "outside_tree",
)


@dataclass(frozen=True)
class Explanation:
    """Why a provider, a tree or the whole request has no candidate.

    ``level`` is ``request``, ``tree`` (``provider`` is then the root) or
    ``provider``; ``group`` is the suffix of the group the rule belongs to
    (``None`` for the request's own rules).
    """

    level: str
    rule: str
    detail: str
    group: str | None = None
    provider: int | None = None
    resource_class: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)


class _Check(NamedTuple):
    """One rule of a group as a SQL condition, with what to say when it fails."""

    rule: str
    #: The class's index in the group for the class rules, else -1.
    class_index: int
    condition: sqlalchemy.ColumnElement
    detail: str = ""
    numbers: dict[str, Any] = {}


#: Inventory columns read per class, for the numbers of the class rules.
_INVENTORY = ("total", "reserved", "allocation_ratio", "min_unit", "max_unit", "step_size")


def explain_group(
    conn: Connection, group: ResolvedGroup, wanted: RequestGroup, *, by_class: bool
) -> list[Explanation]:
    """Providers that have a class of ``group`` but cannot serve it in their
    own tree, each with the first rule it fails, by provider id.

    ``by_class``: the unsuffixed group served one class at a time (module
    docstring). A group without resources judges every provider on its
    traits and aggregates.
    """
    invs = [_INV.alias(f"inv{index}") for index in range(len(group.amounts))]
    source, numbers, per_class = _class_rules(group, invs)
    wide = _group_checks(group, wanted, by_class=by_class)
    every = [check for checks in per_class for check in checks] + wide
    has_some = or_(*(inv.c.resource_provider_id.is_not(None) for inv in invs)) if invs else true()
    statement = (
        select(_RP.c.id, *numbers, *(case((check.condition, 1), else_=0) for check in every))
        .select_from(source)
        .where(has_some)
        .order_by(_RP.c.id)
    )
    found: list[Explanation] = []
    for row in conn.execute(statement):
        provider, facts, passed = _read_row(row, len(invs), every)
        for check in _failures(per_class, wide, every, passed, by_class=by_class):
            found.append(_explained(check, group, wanted, provider, facts))
    return found


def _class_rules(
    group: ResolvedGroup, invs: Sequence[NamedFromClause]
) -> tuple[sqlalchemy.FromClause, list, list[list[_Check]]]:
    """Per class of the group, in its order: the providers outer-joined to
    the class's inventory (``invs``, one alias each), the columns read for
    the numbers of its rules, and its rules (the inventory first, then
    ``conditions.fit_checks``, the group queries' own conditions)."""
    source: sqlalchemy.FromClause = _RP
    numbers: list = []
    per_class: list[list[_Check]] = []
    for index, ((class_id, amount), inv) in enumerate(zip(group.amounts, invs, strict=True)):
        taken = conditions.used(_RP.c.id, class_id)
        source = source.outerjoin(
            inv, and_(inv.c.resource_provider_id == _RP.c.id, inv.c.resource_class_id == class_id)
        )
        numbers += [*(inv.c[name] for name in _INVENTORY), taken]
        present = _Check("no_inventory", index, inv.c.resource_provider_id.is_not(None))
        fit = conditions.fit_checks(inv, taken, amount)
        per_class.append([present, *(_Check(rule, index, c) for rule, c in fit.items())])
    return source, numbers, per_class


def _read_row(
    row: sqlalchemy.Row, classes: int, every: list[_Check]
) -> tuple[int, list[tuple], dict[int, int]]:
    """A row's provider id, its inventory and usage per class (the numbers
    of the class rules) and whether it passes each of ``every``, by check id."""
    width = len(_INVENTORY) + 1
    provider = row[0]
    facts = [tuple(row[1 + i * width : 1 + (i + 1) * width]) for i in range(classes)]
    passed = {id(check): row[1 + width * classes + i] for i, check in enumerate(every)}
    return provider, facts, passed


def _failures(
    per_class: list[list[_Check]],
    wide: list[_Check],
    every: list[_Check],
    passed: dict[int, int],
    *,
    by_class: bool,
) -> list[_Check]:
    """The rules a provider is reported for: by class, the first failed of each
    class it has an inventory of (that class's rules, then the group's that
    apply to one provider); else the first failed of all the group's rules."""
    if by_class:
        firsts = [
            _first_failed(checks[1:] + wide, passed)
            for checks in per_class
            if passed[id(checks[0])]
        ]
    else:
        firsts = [_first_failed(every, passed)]
    return [check for check in firsts if check is not None]


def _first_failed(checks: list[_Check], passed: dict[int, int]) -> _Check | None:
    """The first of ``checks`` whose column (``passed``, by check id) is 0."""
    return next((check for check in checks if not passed[id(check)]), None)


def _group_checks(group: ResolvedGroup, wanted: RequestGroup, *, by_class: bool) -> list[_Check]:
    """The group's rules that are not about one class, in
    :data:`PROVIDER_RULES` order, in the terms of the group queries."""
    checks: list[_Check] = []
    if not by_class:
        for any_of, names in zip(group.traits.required, wanted.traits.required, strict=True):
            listed = sorted(names)
            checks.append(
                _Check(
                    "missing_trait",
                    -1,
                    conditions.has_traits(_RP.c.id, TraitIds((any_of,)))[0],
                    f"has none of the required traits {', '.join(listed)}",
                    {"required": listed},
                )
            )
    if group.traits.forbidden:
        listed = sorted(wanted.traits.forbidden)
        checks.append(
            _Check(
                "forbidden_trait",
                -1,
                conditions.has_traits(_RP.c.id, TraitIds(forbidden=group.traits.forbidden))[0],
                f"has a forbidden trait (one of {', '.join(listed)})",
                {"forbidden": listed},
            )
        )
    checks += _aggregate_checks(group, wanted, by_class=by_class)
    if group.tree is not None and (group.amounts or by_class):
        checks.append(
            _Check(
                "outside_tree",
                -1,
                _RP.c.root_provider_id == group.tree,
                f"is outside the tree of the in_tree provider {wanted.in_tree}",
                {"in_tree": wanted.in_tree},
            )
        )
    return checks


def _aggregate_checks(
    group: ResolvedGroup, wanted: RequestGroup, *, by_class: bool
) -> list[_Check]:
    checks: list[_Check] = []
    positive = AggregateIds(group.aggregates.member_of)
    asked = [sorted(any_of) for any_of in wanted.aggregates.member_of]
    if by_class and positive.member_of:
        checks.append(
            _Check(
                "not_in_aggregate",
                -1,
                and_(*query.tree_member_of(positive)),
                "neither it nor its root is in an aggregate of each member_of set",
                {"member_of": asked},
            )
        )
    elif positive.member_of:
        for any_of, uuids in zip(positive.member_of, asked, strict=True):
            checks.append(
                _Check(
                    "not_in_aggregate",
                    -1,
                    conditions.in_aggregates(_RP.c.id, AggregateIds((any_of,)))[0],
                    f"is in none of the aggregates {', '.join(uuids)}",
                    {"member_of": uuids},
                )
            )
    if group.aggregates.forbidden:
        negative = AggregateIds(forbidden=group.aggregates.forbidden)
        listed = sorted(wanted.aggregates.forbidden)
        whose = "it or its root is" if by_class else "it is"
        checks.append(
            _Check(
                "forbidden_aggregate",
                -1,
                and_(*query.tree_not_in(negative))
                if by_class
                else conditions.in_aggregates(_RP.c.id, negative)[0],
                f"{whose} in a forbidden aggregate (one of {', '.join(listed)})",
                {"forbidden": listed},
            )
        )
    return checks


def _explained(
    check: _Check,
    group: ResolvedGroup,
    wanted: RequestGroup,
    provider: int,
    facts: list[tuple],
) -> Explanation:
    if check.class_index < 0:
        return Explanation(
            "provider", check.rule, check.detail, group.suffix, provider, numbers=check.numbers
        )
    name = list(wanted.resources)[check.class_index]
    amount = group.amounts[check.class_index][1]
    if check.rule == "no_inventory":
        return Explanation(
            "provider",
            check.rule,
            f"has no {name} inventory",
            group.suffix,
            provider,
            name,
            {"resource_class": name, "requested": amount},
        )
    total, reserved, ratio, min_unit, max_unit, step_size, taken = facts[check.class_index]
    capacity = int(conditions.capacity(total, reserved, ratio))
    used = int(taken)
    numbers = {
        "resource_class": name,
        "requested": amount,
        "total": total,
        "reserved": reserved,
        "allocation_ratio": ratio,
        "capacity": capacity,
        "used": used,
        "free": capacity - used,
        "min_unit": min_unit,
        "max_unit": max_unit,
        "step_size": step_size,
    }
    detail = {
        "capacity": f"{name}: {amount} requested, {capacity - used} free (capacity {capacity} "
        f"= ({total} - {reserved}) x {ratio}, {used} used)",
        "min_unit": f"{name}: {amount} requested, below min_unit {min_unit}",
        "max_unit": f"{name}: {amount} requested, above max_unit {max_unit}",
        "step_size": f"{name}: {amount} requested, not a multiple of step_size {step_size}",
    }[check.rule]
    return Explanation("provider", check.rule, detail, group.suffix, provider, name, numbers)
