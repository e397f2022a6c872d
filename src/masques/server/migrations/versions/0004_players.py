"""Players (accounts and guests), their sign-in sessions, seats held by players, and how matches end.

``players`` holds accounts (a username and an Argon2id hash) and guests (a cookie only);
``auth_sessions`` the signed-in browsers (the cookie's token hashed).  A seat may now be held by a
player.  A match records whether it is private, when it finished, how it ended (``end``: the reason
and the winners) and its one rematch offer.  Matches finished before keep ``end`` empty.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("username_key", sa.String(40), nullable=True, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "auth_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=False, index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_id", sa.String(16), nullable=True))
        batch.create_foreign_key("fk_seats_player", "players", ["player_id"], ["id"])
        batch.create_index("ix_seats_player_id", ["player_id"])
    # Plain ALTERs, not a batch: SQLite would copy ``matches``, which seats and actions reference.
    op.add_column("matches", sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("matches", sa.Column("finished", sa.DateTime(timezone=True), nullable=True))
    op.add_column("matches", sa.Column("end", sa.JSON(), nullable=True))
    op.add_column("matches", sa.Column("rematch", sa.JSON(), nullable=True))
    op.create_index("ix_matches_status_created", "matches", ["status", "created"])


def downgrade() -> None:
    op.drop_index("ix_matches_status_created", "matches")
    for column in ("rematch", "end", "finished", "private"):
        op.drop_column("matches", column)
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_player_id")
        batch.drop_constraint("fk_seats_player", type_="foreignkey")
        batch.drop_column("player_id")
    op.drop_table("auth_sessions")
    op.drop_table("players")
