"""Schema migrations: alembic, configured in code, scripts inside the package.

The alembic environment lives in ``placement/db/migrations`` (not at the
repository root) so an installed, non-editable package can still migrate,
and there is no ``alembic.ini``: :func:`_config` builds the ``Config``. The
revision ids and their order are upstream Placement's, so a database created
by upstream reads the same in ``alembic_version`` and we can take it over.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from placement.db.engine import SQLITE_BEGIN_OPTION

SCRIPT_LOCATION = Path(__file__).resolve().parent / "migrations"


class MigrationBlocked(RuntimeError):
    """A revision found data it cannot migrate; the message says what to do."""


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    return config


def _run(engine: Engine, action: Callable[..., object], *args: str) -> None:
    """Run an alembic command with a connection from our own engine.

    On SQLite the transactions take the write lock up front (``BEGIN
    IMMEDIATE``) like any other writer.
    """
    config = _config()
    with engine.connect() as conn:
        conn.execution_options(**{SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        config.attributes["connection"] = conn
        action(config, *args)
        if conn.in_transaction():
            conn.commit()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Upgrade the schema to ``revision``; one transaction per revision.

    Raises :class:`MigrationBlocked` when a revision refuses the data it finds;
    the database then stays at the revision before it.
    """
    _run(engine, command.upgrade, revision)


def stamp(engine: Engine, revision: str) -> None:
    """Record ``revision`` in ``alembic_version`` without running migrations."""
    _run(engine, command.stamp, revision)


def current_revision(engine: Engine) -> str | None:
    """The revision in ``alembic_version``, or ``None`` if it has none."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str:
    """The newest revision these scripts know (what ``db sync`` upgrades to)."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def revisions() -> list[str]:
    """All revision ids, oldest first."""
    script = ScriptDirectory.from_config(_config())
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]
