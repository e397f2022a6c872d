"""Usernames unique by how they look: "paul" and "pauI" (capital i) read as one name.

Each account gets the skeleton of its username (``security.skeleton``) in a unique column.  Two
accounts made before this revision may already share a skeleton: the older keeps it and the newer
is left without one, so both still log in and no new name can take that look.

Revision ID: 0007
Revises: 0006
"""

import logging

import sqlalchemy as sa
from alembic import op

from masques.server.security import skeleton

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

log = logging.getLogger("masques.migrations")


def upgrade() -> None:
    op.add_column("players", sa.Column("username_look", sa.String(40), nullable=True))
    op.create_index("ix_players_username_look", "players", ["username_look"], unique=True)
    connection = op.get_bind()
    accounts = connection.execute(
        sa.text(
            "SELECT id, name FROM players WHERE kind = 'account' AND username_key IS NOT NULL"
            " ORDER BY created, id"
        )
    )
    holders: dict[str, str] = {}
    for player_id, name in list(accounts):
        look = skeleton(name)
        if look in holders:
            log.warning(
                "account %s (%r) reads as the older account %s: it keeps its name, without a look of its own",
                player_id,
                name,
                holders[look],
            )
            continue
        holders[look] = player_id
        connection.execute(
            sa.text("UPDATE players SET username_look = :look WHERE id = :id"),
            {"look": look, "id": player_id},
        )


def downgrade() -> None:
    op.drop_index("ix_players_username_look", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("username_look")
