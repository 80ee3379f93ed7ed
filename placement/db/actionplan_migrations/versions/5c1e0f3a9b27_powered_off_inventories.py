"""Remember the reserved amounts of nodes powered off by action plans.

Revision ID: 5c1e0f3a9b27
Revises: 07373b9fd027
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "5c1e0f3a9b27"
down_revision = "07373b9fd027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "powered_off_inventories",
        sa.Column("resource_provider_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("resource_class_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("reserved", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
    )
