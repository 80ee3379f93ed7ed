"""The goal, strategy and scoring engine rows: written at start-up, idempotent, race-safe,
addressable."""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest
import sqlalchemy as sa

from placement.actionplans import catalog as specs
from placement.actionplans.errors import Invalid, NotFound
from placement.db import actionplan_tables as t
from placement.db import engine_from_url
from placement.objects.actionplans import catalog, goals, scoring_engines, strategies
from placement.objects.actionplans.paging import Page
from tests import rig


def test_start_up_wrote_the_catalog_in_its_order(store):
    listed = goals.list_goals(store.engine, Page())
    assert [goal.name for goal in listed] == [goal.name for goal in specs.GOALS]
    assert [goal.id for goal in listed] == sorted(goal.id for goal in listed)
    assert listed[0].efficacy_specification == list(specs.GOALS[0].efficacy_specification)
    listed = strategies.list_strategies(store.engine, Page())
    assert [(s.name, s.goal_name) for s in listed] == [(s.name, s.goal) for s in specs.STRATEGIES]
    actuator = strategies.get_strategy(store.engine, "actuator")
    assert actuator.parameters_spec == specs.STRATEGIES_BY_NAME["actuator"].parameters_spec
    listed = scoring_engines.list_scoring_engines(store.engine, Page())
    assert [(e.name, e.description, e.metainfo) for e in listed] == [
        (e.name, e.description, e.metainfo) for e in specs.SCORING_ENGINES
    ]


def test_sync_again_changes_nothing_and_repairs_stale_rows(store):
    before = goals.list_goals(store.engine, Page())
    with store.engine.begin() as conn:
        conn.execute(
            t.goals.update().where(t.goals.c.name == "dummy").values(display_name="changed")
        )
    engines_before = scoring_engines.list_scoring_engines(store.engine, Page())
    with store.engine.begin() as conn:
        conn.execute(
            t.scoring_engines.update()
            .where(t.scoring_engines.c.name == "dummy_scorer")
            .values(metainfo="changed")
        )
    catalog.sync_catalog(store.engine)
    catalog.sync_catalog(store.engine)
    engines_after = scoring_engines.list_scoring_engines(store.engine, Page())
    assert [replace(e, updated_at=None) for e in engines_after] == [
        replace(e, updated_at=None) for e in engines_before
    ]
    after = goals.list_goals(store.engine, Page())
    assert [goal.updated_at is not None for goal in after] == [
        goal.updated_at is not None or goal.name == "dummy" for goal in before
    ]
    assert [replace(goal, updated_at=None) for goal in after] == [
        replace(goal, updated_at=None) for goal in before
    ]


@pytest.mark.parametrize("backend", rig.backends())
def test_concurrent_syncs_write_each_row_once(backend):
    with rig.migrated_database(backend) as url:
        engine = engine_from_url(url)
        try:
            results = rig.run_together(4, lambda _i: catalog.sync_catalog(engine))
            assert results == [None] * 4
            with engine.connect() as conn:
                names = conn.execute(sa.select(t.goals.c.name)).scalars().all()
                strategy_names = conn.execute(sa.select(t.strategies.c.name)).scalars().all()
                engine_names = conn.execute(sa.select(t.scoring_engines.c.name)).scalars().all()
        finally:
            engine.dispose()
    assert sorted(names) == sorted(goal.name for goal in specs.GOALS)
    assert sorted(strategy_names) == sorted(s.name for s in specs.STRATEGIES)
    assert sorted(engine_names) == sorted(e.name for e in specs.SCORING_ENGINES)


def test_goal_by_id_uuid_or_name(store):
    dummy = goals.get_goal(store.engine, "dummy")
    assert goals.get_goal(store.engine, str(dummy.id)) == dummy
    assert goals.get_goal(store.engine, dummy.uuid) == dummy
    assert goals.get_goal(store.engine, dummy.uuid.upper()) == dummy
    assert goals.get_goal(store.engine, dummy.uuid.replace("-", "")) == dummy
    with pytest.raises(NotFound, match="^Goal nosuch could not be found$"):
        goals.get_goal(store.engine, "nosuch")
    for missing in ("99999", "9" * 30, "-1"):
        with pytest.raises(NotFound):
            goals.get_goal(store.engine, missing)


def test_strategies_filtered_by_goal_uuid_or_name(store):
    goal = goals.get_goal(store.engine, "unclassified")
    by_name = strategies.list_strategies(store.engine, Page(), goal="unclassified")
    assert [s.name for s in by_name] == ["actuator"]
    assert strategies.list_strategies(store.engine, Page(), goal=goal.uuid) == by_name
    assert strategies.list_strategies(store.engine, Page(), goal="nosuch") == []
    with pytest.raises(NotFound, match="^Strategy nosuch could not be found$"):
        strategies.get_strategy(store.engine, "nosuch")


def _collated(backend: str, value: object) -> object:
    """How ``backend`` orders ``value``: MySQL's default collation ignores case in text
    ("Dummy strategy" before "Dummy Strategy using…"), the others compare code points."""
    return value.casefold() if backend == "mysql" and isinstance(value, str) else value


def test_pages_follow_markers_in_every_order(store):
    for key in ("id", "name", "display_name", "goal_name", "goal_uuid", "uuid"):
        for direction in ("asc", "desc"):
            whole = strategies.list_strategies(store.engine, Page(sort_key=key, sort_dir=direction))
            values = [getattr(s, key) for s in whole]
            collated = functools.partial(_collated, store.backend)
            assert values == sorted(values, key=collated, reverse=direction == "desc")
            pages, marker = [], None
            while True:
                page = Page(limit=1, marker=marker, sort_key=key, sort_dir=direction)
                got = strategies.list_strategies(store.engine, page)
                if not got:
                    break
                pages.extend(got)
                marker = got[-1].uuid
            assert pages == whole


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (Page(sort_key="bogus"), "Invalid sort key: bogus"),
        (Page(sort_key="parameters_spec"), "Invalid sort key: parameters_spec"),
        (
            Page(sort_dir="up"),
            "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'",
        ),
        (Page(limit=0), "Limit must be positive"),
    ],
)
def test_bad_pages_are_refused(store, page, message):
    with pytest.raises(Invalid) as caught:
        strategies.list_strategies(store.engine, page)
    assert str(caught.value) == message


def test_unknown_marker_is_not_found(store):
    marker = "6f1c3e5a-7c43-4a52-9a36-0d2f0b9b1e11"
    with pytest.raises(NotFound, match=f"^Goal {marker} could not be found$"):
        goals.list_goals(store.engine, Page(marker=marker))
    with pytest.raises(NotFound, match="^Strategy dummy could not be found$"):
        strategies.list_strategies(store.engine, Page(marker="dummy"))


def test_scoring_engine_by_id_uuid_or_name(store):
    scorer = scoring_engines.get_scoring_engine(store.engine, "dummy_avg_scorer")
    assert scoring_engines.get_scoring_engine(store.engine, str(scorer.id)) == scorer
    assert scoring_engines.get_scoring_engine(store.engine, scorer.uuid.upper()) == scorer
    assert scorer.metainfo == ""
    with pytest.raises(NotFound, match="^ScoringEngine nosuch could not be found$"):
        scoring_engines.get_scoring_engine(store.engine, "nosuch")


def test_scoring_engines_sort_on_every_column(store):
    for key in ("id", "uuid", "name", "description", "metainfo"):
        whole = scoring_engines.list_scoring_engines(store.engine, Page(sort_key=key))
        values = [getattr(e, key) for e in whole]
        assert values == sorted(values, key=functools.partial(_collated, store.backend))
