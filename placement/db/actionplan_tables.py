"""The action-plan schema (Watcher's goals, strategies, audits, plans, actions).

These tables live in the same database as Placement's but on their own
``MetaData`` and their own alembic environment (``actionplan_migrations``,
version table ``actionplan_alembic_version``), so adding or changing them never
moves the revision upstream Placement reads from ``alembic_version``; nothing
here references a Placement table.

Facts worth knowing before writing queries:

* every table has an integer autoincrement ``id`` (the API's default sort key
  and what an integer path identifier addresses) and a unique ``uuid``;
* audits, plans and actions are soft-deleted: ``deleted_at`` is set and the
  row stays. ``audits.deleted`` is 0 while the audit is live and takes the
  row's id when it is deleted, so the unique ``(name, deleted)`` key makes
  names unique among live audits on every backend (MySQL has no partial
  unique index);
* ``actions.parents`` is a JSON list of action uuids; ``actions.position`` is
  the action's place in its plan's order (ids are assigned in that order too);
* JSON columns use SQLAlchemy's ``JSON`` type (a native JSON type on
  PostgreSQL and MySQL, text on SQLite and MariaDB);
* timestamps are naive UTC, filled in on the Python side.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql

from placement.db.tables import utcnow

#: Where alembic records this schema's revision (Placement's is ``alembic_version``).
VERSION_TABLE = "actionplan_alembic_version"


def _timestamps() -> list[Column]:
    """Creation, update and soft-delete times."""
    return [
        Column("created_at", DateTime, nullable=True, default=utcnow),
        Column("updated_at", DateTime, nullable=True, onupdate=utcnow),
        Column("deleted_at", DateTime, nullable=True),
    ]


def _identity(table: str) -> list[Column | UniqueConstraint]:
    """The integer id, the uuid and the uuid's named unique key."""
    return [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("uuid", String(36), nullable=False),
        UniqueConstraint("uuid", name=f"uniq_{table}0uuid"),
    ]


#: Timestamps the applier compares or orders by: microseconds on every backend
#: (MySQL's plain DATETIME keeps whole seconds).
PreciseDateTime = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")

metadata = MetaData()

goals = Table(
    "goals",
    metadata,
    *_identity("goals"),
    Column("name", String(63), nullable=False),
    Column("display_name", String(63), nullable=False),
    Column("efficacy_specification", JSON, nullable=False),
    *_timestamps(),
    UniqueConstraint("name", name="uniq_goals0name"),
)

strategies = Table(
    "strategies",
    metadata,
    *_identity("strategies"),
    Column("name", String(63), nullable=False),
    Column("display_name", String(63), nullable=False),
    Column("goal_id", Integer, ForeignKey("goals.id"), nullable=False),
    Column("parameters_spec", JSON, nullable=False),
    *_timestamps(),
    UniqueConstraint("name", name="uniq_strategies0name"),
    Index("strategies_goal_id_idx", "goal_id"),
)

#: The scoring engines ``/v1/scoring_engines`` lists, written at start-up from
#: ``placement.actionplans.scoring`` as goals and strategies are (uuids stay).
scoring_engines = Table(
    "scoring_engines",
    metadata,
    *_identity("scoring_engines"),
    Column("name", String(63), nullable=False),
    Column("description", String(255), nullable=True),
    Column("metainfo", Text, nullable=True),
    *_timestamps(),
    UniqueConstraint("name", name="uniq_scoring_engines0name"),
)

audits = Table(
    "audits",
    metadata,
    *_identity("audits"),
    Column("name", String(63), nullable=False),
    Column("deleted", Integer, nullable=False, default=0),
    Column("audit_type", String(20), nullable=False),
    Column("state", String(20), nullable=False),
    Column("goal_id", Integer, ForeignKey("goals.id"), nullable=False),
    Column("strategy_id", Integer, ForeignKey("strategies.id"), nullable=True),
    Column("parameters", JSON, nullable=False),
    Column("interval", String(36), nullable=True),
    Column("scope", JSON, nullable=False),
    Column("auto_trigger", Boolean, nullable=False, default=False),
    Column("next_run_time", DateTime, nullable=True),
    Column("hostname", String(255), nullable=True),
    Column("start_time", DateTime, nullable=True),
    Column("end_time", DateTime, nullable=True),
    Column("force", Boolean, nullable=False, default=False),
    Column("status_message", Text, nullable=True),
    # The audit runner holding a CONTINUOUS or EVENT audit's run and until when
    # (it renews the lease while the strategy runs; another runner may take the
    # audit over once it has passed). ``hostname`` shows the runner's host.
    Column("runner_id", String(255), nullable=True),
    Column("lease_expires_at", PreciseDateTime, nullable=True),
    *_timestamps(),
    UniqueConstraint("name", "deleted", name="uniq_audits0name0deleted"),
    Index("audits_goal_id_idx", "goal_id"),
    Index("audits_strategy_id_idx", "strategy_id"),
)

#: Saved audit settings (``audit create -a``): goal, optional strategy, scope
#: and, from microversion 1.7, default parameters. Soft-deleted like audits, with
#: the same ``deleted`` trick keeping names unique among live templates.
audit_templates = Table(
    "audit_templates",
    metadata,
    *_identity("audit_templates"),
    Column("name", String(63), nullable=False),
    Column("deleted", Integer, nullable=False, default=0),
    Column("description", String(255), nullable=True),
    Column("goal_id", Integer, ForeignKey("goals.id"), nullable=False),
    Column("strategy_id", Integer, ForeignKey("strategies.id"), nullable=True),
    Column("scope", JSON, nullable=False),
    Column("default_parameters", JSON, nullable=True),
    *_timestamps(),
    UniqueConstraint("name", "deleted", name="uniq_audit_templates0name0deleted"),
    Index("audit_templates_goal_id_idx", "goal_id"),
)

#: Every applier and audit runner sharing the database, by host and name, with
#: its last heartbeat (``/v1/services`` derives ACTIVE or FAILED from it).
services = Table(
    "services",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255), nullable=False),
    Column("host", String(255), nullable=False),
    Column("last_seen_up", PreciseDateTime, nullable=True),
    Column("deleted", Integer, nullable=False, default=0),
    *_timestamps(),
    UniqueConstraint("host", "name", "deleted", name="uniq_services0host0name0deleted"),
)

action_plans = Table(
    "action_plans",
    metadata,
    *_identity("action_plans"),
    Column("audit_id", Integer, ForeignKey("audits.id"), nullable=False),
    Column("strategy_id", Integer, ForeignKey("strategies.id"), nullable=False),
    Column("state", String(20), nullable=False),
    Column("efficacy_indicators", JSON, nullable=False),
    Column("global_efficacy", JSON, nullable=False),
    Column("hostname", String(255), nullable=True),
    Column("status_message", Text, nullable=True),
    # The applier executing the plan and until when its claim holds (it renews
    # it; another applier may take an ONGOING plan over once it has passed).
    Column("applier_id", String(255), nullable=True),
    Column("lease_expires_at", PreciseDateTime, nullable=True),
    *_timestamps(),
    Index("action_plans_audit_id_idx", "audit_id"),
    Index("action_plans_strategy_id_idx", "strategy_id"),
    Index("action_plans_state_idx", "state"),
)

actions = Table(
    "actions",
    metadata,
    *_identity("actions"),
    Column("action_plan_id", Integer, ForeignKey("action_plans.id"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("action_type", String(255), nullable=False),
    Column("description", Text, nullable=True),
    Column("input_parameters", JSON, nullable=False),
    Column("state", String(20), nullable=False),
    Column("parents", JSON, nullable=False),
    Column("status_message", Text, nullable=True),
    # Execution record: when the last run started and finished, and how many
    # runs were started (a run's final write checks it, fencing stale runs).
    Column("started_at", PreciseDateTime, nullable=True),
    Column("finished_at", PreciseDateTime, nullable=True),
    Column("attempts", Integer, nullable=False, default=0, server_default="0"),
    # What a run asked of an outside service (Nova), written before asking and
    # guarded by the run's attempt: the next owner reconciles from it.
    Column("request", JSON, nullable=True),
    *_timestamps(),
    Index("actions_action_plan_id_position_idx", "action_plan_id", "position"),
)

#: The ``reserved`` of each inventory of a node powered off by an action plan
#: (which set reserved = total so the tree serves no candidates); powering on
#: puts these values back and deletes the rows. Ids are Placement's provider and
#: class ids (no foreign key: the two schemas stay independent).
powered_off_inventories = Table(
    "powered_off_inventories",
    metadata,
    Column("resource_provider_id", Integer, primary_key=True, autoincrement=False),
    Column("resource_class_id", Integer, primary_key=True, autoincrement=False),
    Column("reserved", Integer, nullable=False),
    Column("created_at", DateTime, nullable=True, default=utcnow),
)
