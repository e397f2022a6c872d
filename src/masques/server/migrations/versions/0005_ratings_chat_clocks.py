"""Rated matches and ratings, match chat, and clocks kept in the database.

``matches`` gains ``rated``, the running ``clock`` (its time control, each seat's time and when the
current turn started), the ``deadline`` of the seat to move (so that a restart, or another process,
finds every clock that must run out), ``to_move`` (whose move it is: "your turn" lists need no
replay) and ``ratings`` (each seat's rating before and after, once a rated match ended).  ``ratings``
holds each player's and bot level's rating per game and family, ``rating_history`` one row per rated
match and rater, ``chat_lines`` the players' and spectators' chat of every match.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTERs, as in 0004 (a SQLite batch would copy ``matches``, which others reference).
    op.add_column("matches", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("matches", sa.Column("clock", sa.JSON(), nullable=True))
    op.add_column("matches", sa.Column("deadline", sa.Float(), nullable=True))
    op.add_column("matches", sa.Column("to_move", sa.Integer(), nullable=True))
    op.add_column("matches", sa.Column("ratings", sa.JSON(), nullable=True))
    op.create_index("ix_matches_deadline", "matches", ["deadline"])
    op.create_table(
        "ratings",
        sa.Column("player_key", sa.String(24), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "family"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("player_key", sa.String(24), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("change", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_history_player", "rating_history", ["player_key", "game", "family"])
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), nullable=False, index=True),
        sa.Column("channel", sa.String(12), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("chat_lines")
    op.drop_index("ix_rating_history_player", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", "ratings")
    op.drop_table("ratings")
    op.drop_index("ix_matches_deadline", "matches")
    for column in ("ratings", "to_move", "deadline", "clock", "rated"):
        op.drop_column("matches", column)
