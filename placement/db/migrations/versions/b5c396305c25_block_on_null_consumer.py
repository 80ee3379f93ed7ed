"""Refuse to continue while any allocation's consumer has no consumers row.

Allocations written before consumers were tracked may reference a consumer
uuid that ``consumers`` does not know; ``placement-manage db
online_data_migrations`` creates the missing rows. No schema change.

Revision ID: b5c396305c25
Revises: 611cd6dffd7b
"""

import sqlalchemy as sa
from alembic import op

from placement.db.migration import MigrationBlocked

revision = "b5c396305c25"
down_revision = "611cd6dffd7b"
branch_labels = None
depends_on = None


def upgrade() -> None:
    allocations = sa.table("allocations", sa.column("consumer_id"))
    consumers = sa.table("consumers", sa.column("uuid"))
    orphans = (
        sa.select(sa.func.count(sa.distinct(allocations.c.consumer_id)))
        .select_from(
            allocations.outerjoin(consumers, allocations.c.consumer_id == consumers.c.uuid)
        )
        .where(consumers.c.uuid.is_(None))
    )
    count = op.get_bind().execute(orphans).scalar()
    if count:
        raise MigrationBlocked(
            f"{count} consumer(s) with allocations have no row in the consumers table. "
            "Run 'placement-manage db online_data_migrations' with the previous release "
            "until it reports nothing left to migrate, then run 'db sync' again."
        )
