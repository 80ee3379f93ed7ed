"""Initial action-plan schema: goals, strategies, audits, action plans, actions.

Revision ID: 07373b9fd027
Revises:
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "07373b9fd027"
down_revision = None
branch_labels = None
depends_on = None


def _identity(table: str) -> list[sa.Column | sa.UniqueConstraint]:
    return [
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.UniqueConstraint("uuid", name=f"uniq_{table}0uuid"),
    ]


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "goals",
        *_identity("goals"),
        sa.Column("name", sa.String(63), nullable=False),
        sa.Column("display_name", sa.String(63), nullable=False),
        sa.Column("efficacy_specification", sa.JSON(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("name", name="uniq_goals0name"),
    )
    op.create_table(
        "strategies",
        *_identity("strategies"),
        sa.Column("name", sa.String(63), nullable=False),
        sa.Column("display_name", sa.String(63), nullable=False),
        sa.Column("goal_id", sa.Integer(), sa.ForeignKey("goals.id"), nullable=False),
        sa.Column("parameters_spec", sa.JSON(), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("name", name="uniq_strategies0name"),
    )
    op.create_index("strategies_goal_id_idx", "strategies", ["goal_id"])
    op.create_table(
        "audits",
        *_identity("audits"),
        sa.Column("name", sa.String(63), nullable=False),
        sa.Column("deleted", sa.Integer(), nullable=False),
        sa.Column("audit_type", sa.String(20), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("goal_id", sa.Integer(), sa.ForeignKey("goals.id"), nullable=False),
        sa.Column("strategy_id", sa.Integer(), sa.ForeignKey("strategies.id"), nullable=True),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("interval", sa.String(36), nullable=True),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("auto_trigger", sa.Boolean(), nullable=False),
        sa.Column("next_run_time", sa.DateTime(), nullable=True),
        sa.Column("hostname", sa.String(255), nullable=True),
        sa.Column("start_time", sa.DateTime(), nullable=True),
        sa.Column("end_time", sa.DateTime(), nullable=True),
        sa.Column("force", sa.Boolean(), nullable=False),
        sa.Column("status_message", sa.Text(), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint("name", "deleted", name="uniq_audits0name0deleted"),
    )
    op.create_index("audits_goal_id_idx", "audits", ["goal_id"])
    op.create_index("audits_strategy_id_idx", "audits", ["strategy_id"])
    op.create_table(
        "action_plans",
        *_identity("action_plans"),
        sa.Column("audit_id", sa.Integer(), sa.ForeignKey("audits.id"), nullable=False),
        sa.Column("strategy_id", sa.Integer(), sa.ForeignKey("strategies.id"), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("efficacy_indicators", sa.JSON(), nullable=False),
        sa.Column("global_efficacy", sa.JSON(), nullable=False),
        sa.Column("hostname", sa.String(255), nullable=True),
        sa.Column("status_message", sa.Text(), nullable=True),
        *_timestamps(),
    )
    op.create_index("action_plans_audit_id_idx", "action_plans", ["audit_id"])
    op.create_index("action_plans_strategy_id_idx", "action_plans", ["strategy_id"])
    op.create_table(
        "actions",
        *_identity("actions"),
        sa.Column("action_plan_id", sa.Integer(), sa.ForeignKey("action_plans.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("action_type", sa.String(255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("input_parameters", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("parents", sa.JSON(), nullable=False),
        sa.Column("status_message", sa.Text(), nullable=True),
        *_timestamps(),
    )
    op.create_index(
        "actions_action_plan_id_position_idx", "actions", ["action_plan_id", "position"]
    )
