"""``db.causal_reads``: the session's wsrep_sync_wait read bit for a block only."""

from __future__ import annotations

from placement import db


def test_the_read_bit_is_set_for_the_block_and_the_old_value_put_back(engine, backend):
    with db.readers_of(engine).connect() as conn:
        if backend != "mysql":
            with db.causal_reads(conn):  # nothing to set: reads are causal already
                assert conn.exec_driver_sql("SELECT 1").scalar() == 1
            return
        conn.exec_driver_sql("SET SESSION wsrep_sync_wait = 4")
        with db.causal_reads(conn):
            inside = conn.exec_driver_sql("SELECT @@SESSION.wsrep_sync_wait").scalar()
        after = conn.exec_driver_sql("SELECT @@SESSION.wsrep_sync_wait").scalar()
    assert (inside, after) == (5, 4)
