"""Custom resource class ids, concurrent creates, and the name → id lookups."""

from __future__ import annotations

import os_resource_classes
import pytest
from sqlalchemy import event, insert

from placement.db import tables, writer
from placement.objects import exceptions
from placement.objects import resource_class as rc_obj
from tests.rig import call, run_together


def _ids(engine) -> dict[str, int]:
    return {rc.name: rc.id for rc in rc_obj.list_all(engine)}


def test_standard_classes_keep_their_library_positions(engine):
    classes = rc_obj.list_all(engine)
    standard = [rc for rc in classes if rc.is_standard]
    assert [rc.name for rc in standard] == list(os_resource_classes.STANDARDS)
    assert [rc.id for rc in standard] == list(range(len(os_resource_classes.STANDARDS)))


def test_custom_ids_start_at_10000_and_follow_the_highest(engine):
    rc_obj.create(engine, "CUSTOM_A")
    rc_obj.create(engine, "CUSTOM_B")
    assert _ids(engine)["CUSTOM_A"] == 10000
    assert _ids(engine)["CUSTOM_B"] == 10001
    rc_obj.delete_custom(engine, "CUSTOM_A")
    rc_obj.create(engine, "CUSTOM_C")
    assert _ids(engine)["CUSTOM_C"] == 10002  # max + 1, holes are not reused
    rc_obj.delete_custom(engine, "CUSTOM_C")
    rc_obj.create(engine, "CUSTOM_D")
    assert _ids(engine)["CUSTOM_D"] == 10002  # the highest went, so its id is free


def test_custom_ids_continue_above_existing_large_ids(engine):
    with writer(engine) as conn:
        conn.execute(insert(tables.resource_classes).values(id=12345, name="CUSTOM_OLD"))
    rc_obj.create(engine, "CUSTOM_NEW")
    assert _ids(engine)["CUSTOM_NEW"] == 12346


def test_listing_is_by_id_standards_first(engine):
    rc_obj.create(engine, "CUSTOM_ZED")
    rc_obj.create(engine, "CUSTOM_ALPHA")
    names = [rc.name for rc in rc_obj.list_all(engine)]
    assert names[-2:] == ["CUSTOM_ZED", "CUSTOM_ALPHA"]


def test_rename_keeps_the_id(engine):
    created = rc_obj.create(engine, "CUSTOM_OLD_NAME")
    renamed = rc_obj.rename(engine, "CUSTOM_OLD_NAME", "CUSTOM_NEW_NAME")
    assert renamed.id == created.id
    assert renamed.updated_at is not None
    assert "CUSTOM_OLD_NAME" not in _ids(engine)


def test_exhausted_create_attempts_are_a_conflict(engine, monkeypatch):
    monkeypatch.setattr(rc_obj, "CREATE_ATTEMPTS", 0)
    with pytest.raises(
        exceptions.TooManyRetries,
        match="Max retries of DB transaction exceeded "
        "attempting to create resource class: CUSTOM_X, please try again.",
    ):
        rc_obj.create(engine, "CUSTOM_X")


def test_concurrent_creates_of_different_classes_all_succeed(app, engine):
    threads, per_thread = 6, 4

    def create_some(i: int) -> list[int]:
        return [
            call(app, "POST", "/resource_classes", {"name": f"CUSTOM_T{i}_{n}"})[0]
            for n in range(per_thread)
        ]

    results = run_together(threads, create_some)
    assert results == [[201] * per_thread] * threads
    custom = sorted(rc_id for name, rc_id in _ids(engine).items() if name.startswith("CUSTOM_"))
    assert custom == list(range(10000, 10000 + threads * per_thread))


def test_concurrent_put_of_one_class_creates_it_once(app, engine):
    results = run_together(6, lambda i: call(app, "PUT", "/resource_classes/CUSTOM_SAME")[0])
    assert sorted(results) == [201] + [204] * 5
    assert _ids(engine)["CUSTOM_SAME"] == 10000


def test_lookups_map_names_to_ids(engine):
    rc_obj.create(engine, "CUSTOM_LOOKED_UP")
    with writer(engine) as conn:
        ids = rc_obj.resource_class_ids(conn, ["VCPU", "CUSTOM_LOOKED_UP", "VCPU"])
        single = rc_obj.resource_class_id(conn, "DISK_GB")
    assert ids == {"VCPU": 0, "CUSTOM_LOOKED_UP": 10000}
    assert single == os_resource_classes.STANDARDS.index("DISK_GB")


def test_lookups_report_unknown_names_with_the_callers_message(engine):
    with writer(engine) as conn:
        with pytest.raises(
            exceptions.ResourceClassNotFound, match=r"^No such resource class CUSTOM_NOPE\.$"
        ):
            rc_obj.resource_class_id(conn, "CUSTOM_NOPE")
        with pytest.raises(
            exceptions.ResourceClassNotFound, match="^Unknown: vcpu, CUSTOM_NOPE$"
        ) as caught:
            rc_obj.resource_class_ids(
                conn, ["VCPU", "vcpu", "CUSTOM_NOPE"], message="Unknown: {names}"
            )
        assert caught.value.names == ("vcpu", "CUSTOM_NOPE")


def test_standard_names_need_no_query(engine):
    """Standard ids are fixed by the start-up sync, so a lookup of standard
    names alone does not touch the database (custom names still do)."""
    statements: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        with writer(engine) as conn:
            before = len(statements)
            assert rc_obj.resource_class_ids(conn, ["MEMORY_MB", "VCPU"]) == {
                "MEMORY_MB": 1,
                "VCPU": 0,
            }
            assert len(statements) == before
            with pytest.raises(exceptions.ResourceClassNotFound):
                rc_obj.resource_class_ids(conn, ["VCPU", "CUSTOM_NOPE"])
            assert len(statements) == before + 1
    finally:
        event.remove(engine, "before_cursor_execute", record)
