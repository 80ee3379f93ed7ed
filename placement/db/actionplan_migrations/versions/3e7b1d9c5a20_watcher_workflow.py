"""Watcher's workflow: audit templates, the audit runner's lease, services.

Revision ID: 3e7b1d9c5a20
Revises: 8a4f2c6e1d93
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "3e7b1d9c5a20"
down_revision = "8a4f2c6e1d93"
branch_labels = None
depends_on = None


def _precise() -> sa.types.TypeEngine:
    return sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
    ]


def upgrade() -> None:
    with op.batch_alter_table("audits") as batch:
        batch.add_column(sa.Column("runner_id", sa.String(255), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", _precise(), nullable=True))
    op.create_table(
        "audit_templates",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.String(63), nullable=False),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("goal_id", sa.Integer(), sa.ForeignKey("goals.id"), nullable=False),
        sa.Column("strategy_id", sa.Integer(), sa.ForeignKey("strategies.id"), nullable=True),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("default_parameters", sa.JSON(), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint("uuid", name="uniq_audit_templates0uuid"),
        sa.UniqueConstraint("name", "deleted", name="uniq_audit_templates0name0deleted"),
    )
    op.create_index("audit_templates_goal_id_idx", "audit_templates", ["goal_id"])
    op.create_table(
        "services",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("last_seen_up", _precise(), nullable=True),
        sa.Column("deleted", sa.Integer(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("host", "name", "deleted", name="uniq_services0host0name0deleted"),
    )
