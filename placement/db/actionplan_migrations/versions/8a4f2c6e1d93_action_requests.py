"""What an action asked of an outside service (Nova), recorded before asking.

Revision ID: 8a4f2c6e1d93
Revises: 5d2c0a9e41b7
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "8a4f2c6e1d93"
down_revision = "5d2c0a9e41b7"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("request", sa.JSON(), nullable=True))
