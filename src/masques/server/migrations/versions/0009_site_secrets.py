"""The site's own secrets, made once per database: every server process on it reads the same ones.
The first is the key of the clients' names (a keyed hash of each address in logs and storage).

Revision ID: 0009
Revises: 0008
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "site_secrets",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    op.bulk_insert(table, [{"name": "client_key", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("site_secrets")
