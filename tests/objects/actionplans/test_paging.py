"""Every sortable key of every list, both directions: pages of one follow each other exactly."""

from __future__ import annotations

from dataclasses import fields

import pytest

from placement.objects.actionplans import actions, audits, goals, plans, strategies
from placement.objects.actionplans.paging import Page

LISTS = [
    (goals.LISTING, goals.list_goals),
    (strategies.LISTING, strategies.list_strategies),
    (audits.LISTING, audits.list_audits),
    (plans.LISTING, plans.list_plans),
    (actions.LISTING, actions.list_actions),
]


@pytest.fixture(scope="module")
def filled(store):
    """Audits with and without a strategy, started and not, so keys repeat and go NULL."""
    store.audit(goal="dummy", strategy=None, parameters={})
    plans.start_plan(store.engine, store.plan_of(store.audit()).uuid)
    store.audit(auto_trigger=True)
    return store


@pytest.mark.parametrize(("listing", "list_rows"), LISTS, ids=lambda v: getattr(v, "kind", ""))
def test_pages_of_one_row_rebuild_the_whole_list(filled, listing, list_rows):
    for key in sorted(listing.sortable):
        for direction in ("asc", "desc"):
            whole = list_rows(filled.engine, Page(sort_key=key, sort_dir=direction))
            assert len({row.id for row in whole}) == len(whole) > 0
            rebuilt, marker = [], None
            while got := list_rows(filled.engine, Page(1, marker, key, direction)):
                rebuilt.extend(row.id for row in got)
                marker = got[-1].uuid
            assert rebuilt == [row.id for row in whole], (key, direction)


@pytest.mark.parametrize("listing", [listing for listing, _ in LISTS], ids=lambda v: v.kind)
def test_each_row_type_has_exactly_the_listed_columns(listing):
    assert {field.name for field in fields(listing.row)} == set(listing.columns)
