"""The scoring engines ``/v1/scoring_engines`` lists.

Revision ID: 9b3d7f1e2c64
Revises: 3e7b1d9c5a20
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "9b3d7f1e2c64"
down_revision = "3e7b1d9c5a20"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scoring_engines",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.String(63), nullable=False),
        sa.Column("description", sa.String(255), nullable=True),
        sa.Column("metainfo", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.UniqueConstraint("uuid", name="uniq_scoring_engines0uuid"),
        sa.UniqueConstraint("name", name="uniq_scoring_engines0name"),
    )
