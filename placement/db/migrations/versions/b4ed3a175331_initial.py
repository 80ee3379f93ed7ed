"""Initial schema: every base table.

Everything except ``consumer_types`` and ``consumers.consumer_type_id``
(added by 422ece571366). It also creates five indexes that duplicate unique
constraints or other indexes; a082b8bb98d0 drops them again, but they must
exist here because databases created by upstream Placement have them.

Revision ID: b4ed3a175331
Revises:
Create Date: 2018-10-19
"""

import sqlalchemy as sa
from alembic import op

revision = "b4ed3a175331"
down_revision = None
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
    ]


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), nullable=False, autoincrement=True)


# Upstream's initial schema, one create_table or create_index a statement,
# read as the DDL it is: split, it would no longer match upstream's revision.
def upgrade() -> None:  # noqa: PLR0915
    op.create_table(
        "resource_providers",
        *_timestamps(),
        _id(),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.Unicode(200), nullable=True),
        sa.Column("generation", sa.Integer(), nullable=True),
        sa.Column("root_provider_id", sa.Integer(), nullable=True),
        sa.Column("parent_provider_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.ForeignKeyConstraint(["root_provider_id"], ["resource_providers.id"]),
        sa.ForeignKeyConstraint(["parent_provider_id"], ["resource_providers.id"]),
        sa.UniqueConstraint("uuid", name="uniq_resource_providers0uuid"),
        sa.UniqueConstraint("name", name="uniq_resource_providers0name"),
    )
    op.create_index("resource_providers_name_idx", "resource_providers", ["name"])
    op.create_index("resource_providers_uuid_idx", "resource_providers", ["uuid"])
    op.create_index(
        "resource_providers_root_provider_id_idx", "resource_providers", ["root_provider_id"]
    )
    op.create_index(
        "resource_providers_parent_provider_id_idx", "resource_providers", ["parent_provider_id"]
    )

    op.create_table(
        "inventories",
        *_timestamps(),
        _id(),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in ("total", "reserved", "min_unit", "max_unit", "step_size")
        ),
        sa.Column("allocation_ratio", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "resource_provider_id",
            "resource_class_id",
            name="uniq_inventories0resource_provider_resource_class",
        ),
    )
    op.create_index("inventories_resource_class_id_idx", "inventories", ["resource_class_id"])
    op.create_index("inventories_resource_provider_id_idx", "inventories", ["resource_provider_id"])
    op.create_index(
        "inventories_resource_provider_resource_class_idx",
        "inventories",
        ["resource_provider_id", "resource_class_id"],
    )

    op.create_table(
        "allocations",
        *_timestamps(),
        _id(),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("consumer_id", sa.String(36), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "allocations_resource_provider_class_used_idx",
        "allocations",
        ["resource_provider_id", "resource_class_id", "used"],
    )
    op.create_index("allocations_resource_class_id_idx", "allocations", ["resource_class_id"])
    op.create_index("allocations_consumer_id_idx", "allocations", ["consumer_id"])

    op.create_table(
        "consumers",
        *_timestamps(),
        _id(),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("uuid", name="uniq_consumers0uuid"),
    )
    op.create_index("consumers_project_id_uuid_idx", "consumers", ["project_id", "uuid"])
    op.create_index(
        "consumers_project_id_user_id_uuid_idx", "consumers", ["project_id", "user_id", "uuid"]
    )

    for name in ("projects", "users"):
        op.create_table(
            name,
            *_timestamps(),
            _id(),
            sa.Column("external_id", sa.String(255), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("external_id", name=f"uniq_{name}0external_id"),
        )

    op.create_table(
        "resource_classes",
        *_timestamps(),
        # Ids are chosen by the application (standard classes start at 0).
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", name="uniq_resource_classes0name"),
    )

    op.create_table(
        "traits",
        *_timestamps(),
        _id(),
        sa.Column("name", sa.Unicode(255), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", name="uniq_traits0name"),
    )

    op.create_table(
        "resource_provider_traits",
        *_timestamps(),
        sa.Column("trait_id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("trait_id", "resource_provider_id"),
        sa.ForeignKeyConstraint(["trait_id"], ["traits.id"]),
        sa.ForeignKeyConstraint(["resource_provider_id"], ["resource_providers.id"]),
    )
    op.create_index(
        "resource_provider_traits_resource_provider_trait_idx",
        "resource_provider_traits",
        ["resource_provider_id", "trait_id"],
    )

    op.create_table(
        "placement_aggregates",
        *_timestamps(),
        _id(),
        sa.Column("uuid", sa.String(36), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("uuid", name="uniq_placement_aggregates0uuid"),
    )
    op.create_index("ix_placement_aggregates_uuid", "placement_aggregates", ["uuid"])

    op.create_table(
        "resource_provider_aggregates",
        *_timestamps(),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("aggregate_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("resource_provider_id", "aggregate_id"),
    )
    op.create_index(
        "resource_provider_aggregates_aggregate_id_idx",
        "resource_provider_aggregates",
        ["aggregate_id"],
    )
