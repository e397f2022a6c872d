"""Browsers that have logged in to an account: failed guesses from elsewhere do not lock them out.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_devices",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("last_used", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_login_devices_player_id", "login_devices", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_login_devices_player_id", table_name="login_devices")
    op.drop_table("login_devices")
