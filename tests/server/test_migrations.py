"""The Alembic migrations carry a database made by an earlier version forward, on SQLite and
PostgreSQL: migration 0004 (players, sessions, seats held by players, how matches end) keeps every
match, and goes back down and up again."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import masques_server_support as support
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect, text

from masques.server.storage import MIGRATIONS, Storage


def migrate(url: str, revision: str, *, down: bool = False) -> None:
    """Move the schema to ``revision`` as the server would (its engine: SQLite checks foreign keys)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = Storage(url).engine
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0004_keeps_earlier_matches_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0003")
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO matches (id, game, rules_version, options, seed, status, created, turn_seconds,"
                " secret, chance, seeded) VALUES ('00000000000000aa', 'masker', '2', '{\"players\": 2}', 3,"
                " 'finished', :t, 0, :s, 2, false)"
            ),
            {"t": datetime(2026, 1, 2, tzinfo=UTC), "s": "ab" * 32},
        )
        for seat in (0, 1):
            connection.execute(
                text(
                    "INSERT INTO seats (match_id, seat, kind, name)"
                    " VALUES ('00000000000000aa', :n, 'human', :m)"
                ),
                {"n": seat, "m": f"p{seat}"},
            )
    engine.dispose()

    storage = Storage(url)
    storage.migrate()  # to head, as the server does on start
    tables = set(inspect(storage.engine).get_table_names())
    assert {"players", "auth_sessions"} <= tables
    [(row, seats, version)] = storage.listing(("finished",))
    assert (row.id, row.private, row.end, row.finished, version) == ("00000000000000aa", False, None, None, 0)
    assert [(s.name, s.player_id) for s in seats] == [("p0", None), ("p1", None)]
    storage.engine.dispose()

    migrate(url, "0003", down=True)
    engine = create_engine(url)
    assert "players" not in set(inspect(engine).get_table_names())
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM seats")).scalar() == 2
    engine.dispose()
    migrate(url, "head")
