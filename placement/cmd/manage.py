"""``placement-manage``: database administration from the command line.

Usage: ``placement-manage [--config-file F] [--config-dir D] db sync|version|stamp <rev>|
online_data_migrations [--max-count N]`` and ``placement-manage api-spec``, which
prints the API's OpenAPI description (the one ``/openapi.json`` serves) and
needs no database.

Commands are oslo.config sub-commands, so ``--config-file`` / ``--config-dir``
and the default config file search behave exactly as in upstream's tool. Each
``db`` command is one entry in :data:`DB_COMMANDS`; a new command (e.g.
``online_data_migrations``) is a function taking ``(conf, args)`` plus an
``add_arguments`` callable, appended there.

Every ``db`` command names the database it acts on, on stderr (password
masked; stdout stays upstream's), and refuses to run without
``[placement_database] connection``, as upstream's does.

Errors a user can fix (bad configuration, unreachable database, a migration
refusing the data it found) are reported as one line on stderr with exit
status 1, not as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import alembic.util
import prettytable
import sqlalchemy
from oslo_config import cfg

from placement import cmd, db
from placement import conf as placement_conf
from placement.db import migration
from placement.objects import online_migrations
from placement.objects.actionplans import catalog
from placement.wsgi import openapi

PROG = "placement-manage"
LOG = logging.getLogger(__name__)


class CommandError(Exception):
    """A failure to report as one line on stderr (exit status 1)."""


@contextlib.contextmanager
def _engine(conf: cfg.ConfigOpts) -> Iterator[sqlalchemy.Engine]:
    """The configured database's engine for one command (none configured:
    ConfigError), named on stderr, disposed of after it."""
    cmd.announce_database(PROG, conf)
    engine = db.create_engine(conf, url=placement_conf.database_url(conf))
    try:
        yield engine
    finally:
        engine.dispose()


def db_sync(conf: cfg.ConfigOpts, args: Any) -> int:
    """Upgrade Placement's schema and the action-plan tables, then write the goal catalog."""
    with _engine(conf) as engine:
        migration.upgrade_all(engine)
        catalog.sync_catalog(engine)
    return 0


def db_version(conf: cfg.ConfigOpts, args: Any) -> int:
    """Print the database's current schema revision, or ``None``."""
    with _engine(conf) as engine:
        print(db.current_revision(engine))
    return 0


def db_stamp(conf: cfg.ConfigOpts, args: Any) -> int:
    """Record a revision in ``alembic_version`` without running migrations."""
    with _engine(conf) as engine:
        db.stamp(engine, args.version)
    return 0


def _stamp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("version", help="Revision to record, e.g. 'head' or 'a082b8bb98d0'.")


def db_online_data_migrations(conf: cfg.ConfigOpts, args: Any) -> int:
    """Run upstream's online data migrations, in batches, reporting as upstream does.

    Exit status: 0 nothing (more) to do; 1 ``--max-count`` given and rows were
    migrated (run again); 2 a migration failed (unless a limited run still made
    progress); 127 a ``--max-count`` that is not a positive integer.
    """
    limited = args.max_count is not None
    max_count = _batch_size(args.max_count)
    if max_count is None:
        print("Must supply a positive value for max_count")
        return 127
    if not limited:
        print(f"Running batches of {max_count} until complete")
    owner = online_migrations.IncompleteOwner(
        conf.placement.incomplete_consumer_project_id, conf.placement.incomplete_consumer_user_id
    )
    totals: dict[str, list[int]] = {}
    with _engine(conf) as engine:
        while True:
            ran, failed = _online_migration_batch(
                engine, online_migrations.migrations(owner), max_count, totals
            )
            if limited or not ran:
                break
    _print_totals(totals)
    if failed and not (limited and ran):
        print("Some migrations failed unexpectedly. Check log for details.")
        return 2
    return 1 if ran else 0


def _batch_size(max_count: str | None) -> int | None:
    """Rows per batch: ``--max-count`` (None unless a positive integer), else 50."""
    if max_count is None:
        return 50
    try:
        size = int(max_count)
    except ValueError:
        return None
    return size if size >= 1 else None


def _print_totals(totals: dict[str, list[int]]) -> None:
    """Each migration's rows found and migrated, as upstream's table."""
    table = prettytable.PrettyTable(["Migration", "Total Found", "Completed"])
    for name, (found, done) in totals.items():
        table.add_row([name, found, done])
    print(table)


def _online_migration_batch(
    engine: sqlalchemy.Engine,
    migrations: Sequence[online_migrations.OnlineMigration],
    max_count: int,
    totals: dict[str, list[int]],
) -> tuple[int, bool]:
    """Each migration in turn until ``max_count`` rows were migrated in this batch.

    Returns the rows migrated and whether a migration raised; adds each
    migration's ``(found, done)`` to ``totals``.
    """
    ran, failed = 0, False
    for step in migrations:
        try:
            found, done = step.run(engine, max_count - ran)
        except Exception:  # reported, and the exit status says so
            LOG.exception("Error attempting to run %s", step.name)
            print(f"Error attempting to run {step.name}")
            failed, found, done = True, 0, 0
        if found:
            print(f"{found} rows matched query {step.name}, {done} migrated")
        total = totals.setdefault(step.name, [0, 0])
        total[0] += found
        total[1] += done
        ran += done
        if ran >= max_count:
            break
    return ran, failed


def _online_migrations_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-count", metavar="<number>", help="Maximum number of objects to consider"
    )


def api_spec(conf: cfg.ConfigOpts, args: Any) -> int:
    """Print the OpenAPI 3.1 description of the API (no database is opened)."""
    print(json.dumps(openapi.document(), indent=2))
    return 0


@dataclass(frozen=True)
class DbCommand:
    name: str
    help: str
    run: Callable[[cfg.ConfigOpts, Any], int]
    add_arguments: Callable[[argparse.ArgumentParser], None] = field(default=lambda parser: None)


DB_COMMANDS: list[DbCommand] = [
    DbCommand("sync", "Upgrade the database schema to the most recent version.", db_sync),
    DbCommand("version", "Print the current database schema version.", db_version),
    DbCommand(
        "stamp",
        "Stamp the database with a schema version without migrating.",
        db_stamp,
        _stamp_arguments,
    ),
    DbCommand(
        "online_data_migrations",
        "Run the online data migrations.",
        db_online_data_migrations,
        _online_migrations_arguments,
    ),
]


def _command_opt(parsers: dict[str, argparse.ArgumentParser]) -> cfg.SubCommandOpt:
    """The ``db <command>`` sub-command tree; remembers the ``db`` parser for help."""

    def add_parsers(subparsers: Any) -> None:
        db_parser = subparsers.add_parser("db", help="Database schema commands.")
        parsers["db"] = db_parser
        commands = db_parser.add_subparsers(title="db commands", dest="db_command")
        for command in DB_COMMANDS:
            parser = commands.add_parser(command.name, help=command.help)
            command.add_arguments(parser)
            parser.set_defaults(run=command.run)
        spec_parser = subparsers.add_parser(
            "api-spec", help="Print the API's OpenAPI 3.1 description (JSON)."
        )
        spec_parser.set_defaults(run=api_spec)

    return cfg.SubCommandOpt(
        "category", title="Command categories", handler=add_parsers, help="Available categories"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``placement-manage``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parsers: dict[str, argparse.ArgumentParser] = {}
    try:
        conf = placement_conf.load(argv, cli_opts=[_command_opt(parsers)], prog=PROG)
    except placement_conf.ConfigError as exc:
        return _fail(f"configuration error: {exc}")

    try:
        run = conf.category.run
    except (cfg.NoSuchOptError, AttributeError):
        if "db" in parsers:
            parsers["db"].print_help()
        return 1

    try:
        return run(conf, conf.category)
    except placement_conf.ConfigError as exc:
        return _fail(f"configuration error: {exc}")
    except migration.MigrationBlocked as exc:
        return _fail(f"migration blocked: {exc}")
    except sqlalchemy.exc.SQLAlchemyError as exc:
        return _fail(_describe_db_error(conf, exc))
    except (CommandError, alembic.util.CommandError, ValueError) as exc:
        return _fail(str(exc))


def _describe_db_error(conf: cfg.ConfigOpts, exc: sqlalchemy.exc.SQLAlchemyError) -> str:
    where = cmd.masked_database_url(conf)
    orig = getattr(exc, "orig", None) or exc
    reason = " ".join(str(orig).split())  # drivers like multi-line messages
    return f"database error ({where}): {reason}"


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
