"""Match secrets, the chance generator's version, seeded matches, owners, and idempotent joins.

``secret`` is the match's 256-bit secret (hex): the game's seed and the bots' randomness derive from
it.  Matches made before have none; one is drawn for each here, so that retried joins work for them
too (their game and bots keep their recorded seed and generator, ``chance`` = 1).

Revision ID: 0003
Revises: 0002
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("secret", sa.String(64), nullable=True))
        batch.add_column(sa.Column("game_seed", sa.String(80), nullable=True))
        batch.add_column(sa.Column("chance", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("seeded", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("owner", sa.String(40), nullable=True))
        batch.create_index("ix_matches_owner_status", ["owner", "status"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("join_key", sa.String(64), nullable=True))
    bind = op.get_bind()
    matches = sa.table("matches", sa.column("id", sa.String), sa.column("secret", sa.String))
    for (match_id,) in bind.execute(sa.select(matches.c.id)).all():
        bind.execute(matches.update().where(matches.c.id == match_id).values(secret=secrets.token_hex(32)))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("join_key")
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_owner_status")
        for column in ("owner", "seeded", "chance", "game_seed", "secret"):
            batch.drop_column(column)
