"""The applier's lease on a plan and its execution record of each action.

Revision ID: 5d2c0a9e41b7
Revises: 5c1e0f3a9b27
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "5d2c0a9e41b7"
down_revision = "5c1e0f3a9b27"
branch_labels = None
depends_on = None


def _precise() -> sa.types.TypeEngine:
    return sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


def upgrade() -> None:
    with op.batch_alter_table("action_plans") as batch:
        batch.add_column(sa.Column("applier_id", sa.String(255), nullable=True))
        batch.add_column(sa.Column("lease_expires_at", _precise(), nullable=True))
    op.create_index("action_plans_state_idx", "action_plans", ["state"])
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("started_at", _precise(), nullable=True))
        batch.add_column(sa.Column("finished_at", _precise(), nullable=True))
        batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
