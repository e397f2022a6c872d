"""One player, one seat in a match, kept by the database: a partial unique index on the seats'
(match, player).  A match where a player already holds several seats keeps the player on the first;
the others keep their names and tokens (their tokens still play them) but no player.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

HELD = sa.text("player_id IS NOT NULL")


def upgrade() -> None:
    op.execute(
        "UPDATE seats SET player_id = NULL WHERE player_id IS NOT NULL AND EXISTS ("
        "SELECT 1 FROM seats AS first WHERE first.match_id = seats.match_id"
        " AND first.player_id = seats.player_id AND first.seat < seats.seat)"
    )
    op.create_index(
        "uq_seats_match_player",
        "seats",
        ["match_id", "player_id"],
        unique=True,
        sqlite_where=HELD,
        postgresql_where=HELD,
    )


def downgrade() -> None:
    op.drop_index("uq_seats_match_player", table_name="seats")
