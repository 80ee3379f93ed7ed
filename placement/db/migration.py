"""Schema migrations: alembic, configured in code, scripts inside the package.

The alembic environment lives in ``placement/db/migrations`` (not at the
repository root) so an installed, non-editable package can still migrate,
and there is no ``alembic.ini``: :func:`_config` builds the ``Config``. The
revision ids and their order are upstream Placement's, so a database created
by upstream reads the same in ``alembic_version`` and we can take it over.

The action-plan tables have a second environment,
``placement/db/actionplan_migrations``, recorded in its own version table
(``actionplan_alembic_version``): :func:`upgrade_actionplans` runs it,
:func:`upgrade_all` runs both (``db sync``). Everything else here, notably
:func:`current_revision` (``db version``), is about Placement's schema only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from placement.db.actionplan_tables import VERSION_TABLE as ACTIONPLAN_VERSION_TABLE
from placement.db.engine import SQLITE_BEGIN_OPTION

SCRIPT_LOCATION = Path(__file__).resolve().parent / "migrations"
ACTIONPLAN_SCRIPT_LOCATION = Path(__file__).resolve().parent / "actionplan_migrations"


class MigrationBlocked(RuntimeError):
    """A revision found data it cannot migrate; the message says what to do."""


def _config(location: Path = SCRIPT_LOCATION) -> Config:
    config = Config()
    config.set_main_option("script_location", str(location))
    return config


def _run(
    engine: Engine, action: Callable[..., object], *args: str, location: Path = SCRIPT_LOCATION
) -> None:
    """Run an alembic command with a connection from our own engine.

    On SQLite the transactions take the write lock up front (``BEGIN
    IMMEDIATE``) like any other writer.
    """
    config = _config(location)
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


def upgrade_actionplans(engine: Engine) -> None:
    """Bring the action-plan tables to their newest revision (never touches Placement's)."""
    _run(engine, command.upgrade, "head", location=ACTIONPLAN_SCRIPT_LOCATION)


def upgrade_all(engine: Engine) -> None:
    """Upgrade Placement's schema, then the action-plan tables (what ``db sync`` does)."""
    upgrade(engine)
    upgrade_actionplans(engine)


def stamp_actionplans(engine: Engine) -> None:
    """Record the action-plan head revision without running its migrations."""
    _run(engine, command.stamp, "head", location=ACTIONPLAN_SCRIPT_LOCATION)


def actionplan_revision(engine: Engine) -> str | None:
    """The revision in ``actionplan_alembic_version``, or ``None`` before the first sync."""
    return _current(engine, ACTIONPLAN_VERSION_TABLE)


def actionplan_head_revision() -> str:
    """The newest action-plan revision these scripts know."""
    return _head(ACTIONPLAN_SCRIPT_LOCATION)


def stamp(engine: Engine, revision: str) -> None:
    """Record ``revision`` in ``alembic_version`` without running migrations."""
    _run(engine, command.stamp, revision)


def current_revision(engine: Engine) -> str | None:
    """The revision in ``alembic_version``, or ``None`` if it has none."""
    return _current(engine, "alembic_version")


def head_revision() -> str:
    """The newest revision these scripts know (what ``db sync`` upgrades to)."""
    return _head(SCRIPT_LOCATION)


def _current(engine: Engine, version_table: str) -> str | None:
    with engine.connect() as conn:
        opts = {"version_table": version_table}
        return MigrationContext.configure(conn, opts=opts).get_current_revision()


def _head(location: Path) -> str:
    head = ScriptDirectory.from_config(_config(location)).get_current_head()
    assert head is not None
    return head


def revisions() -> list[str]:
    """All revision ids, oldest first."""
    script = ScriptDirectory.from_config(_config())
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]
