"""Refuse to continue while any resource provider lacks a root provider id.

Later code assumes every provider row knows its tree root. Rows written by
very old releases may not; ``placement-manage db online_data_migrations``
fills them in. No schema change.

Revision ID: 611cd6dffd7b
Revises: b4ed3a175331
"""

import sqlalchemy as sa
from alembic import op

from placement.db.migration import MigrationBlocked

revision = "611cd6dffd7b"
down_revision = "b4ed3a175331"
branch_labels = None
depends_on = None


def upgrade() -> None:
    providers = sa.table("resource_providers", sa.column("root_provider_id"))
    count = (
        op.get_bind()
        .execute(
            sa.select(sa.func.count())
            .select_from(providers)
            .where(providers.c.root_provider_id.is_(None))
        )
        .scalar()
    )
    if count:
        raise MigrationBlocked(
            f"{count} resource provider(s) have no root_provider_id. Run "
            "'placement-manage db online_data_migrations' with the previous release "
            "until it reports nothing left to migrate, then run 'db sync' again."
        )
