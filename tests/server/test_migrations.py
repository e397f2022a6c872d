"""The Alembic migrations carry a database made by an earlier version forward, on SQLite and
PostgreSQL: migration 0004 (players, sessions, seats held by players, how matches end) keeps every
match, and goes back down and up again; 0005 (ratings, chat, clocks), 0006 (analyses), 0007
(how usernames look), 0008 (known browsers), 0009 (the site's secrets) and 0010 (one seat per
player) too."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import masques_server_support as support
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import IntegrityError

from masques.server.matches import Registry
from masques.server.storage import MIGRATIONS, AnalysisRow, Storage


def migrate(url: str, revision: str, *, down: bool = False) -> None:
    """Move the schema to ``revision`` as the server would (its engine: SQLite checks foreign keys)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = Storage(url).engine
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


def old_match(url: str, match_id: str, status: str) -> None:
    """A two-player Masker match with its seats, written with the columns of migration 0003."""
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO matches (id, game, rules_version, options, seed, status, created, turn_seconds,"
                " secret, chance, seeded) VALUES (:id, 'masker', '2', '{\"players\": 2}', 3,"
                " :status, :t, 0, :s, 2, false)"
            ),
            {"id": match_id, "status": status, "t": datetime(2026, 1, 2, tzinfo=UTC), "s": "ab" * 32},
        )
        for seat in (0, 1):
            connection.execute(
                text(
                    "INSERT INTO seats (match_id, seat, kind, name, token_hash)"
                    " VALUES (:id, :n, 'human', :m, :h)"
                ),
                {"id": match_id, "n": seat, "m": f"p{seat}", "h": f"{seat}" * 64},
            )
    engine.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0004_keeps_earlier_matches_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0003")
    old_match(url, "00000000000000aa", "finished")

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


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0005_keeps_a_running_match_which_learns_whose_move_it_is_when_loaded(
    backend: str, tmp_path: Path
) -> None:
    """A match running before 0005 has no stored turn: it is casual, without a clock, and the first
    load writes whose move it is (so "your turn" lists find it); 0005 also goes down and up."""
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0004")
    old_match(url, "00000000000000bb", "running")

    storage = Storage(url)
    storage.migrate()
    row = storage.match("00000000000000bb")
    assert row is not None and (row.rated, row.clock, row.deadline, row.to_move, row.ratings) == (
        False,
        None,
        None,
        None,
        None,
    )
    registry = Registry(storage, limits=support.RELAXED, bot_workers=1)
    try:
        match = registry._load("00000000000000bb")
        assert match.to_move is not None
        row = storage.match("00000000000000bb")
        assert row is not None and row.to_move == match.to_move
    finally:
        registry.close()
    assert {"ratings", "rating_history", "chat_lines"} <= set(inspect(storage.engine).get_table_names())
    storage.engine.dispose()

    migrate(url, "0004", down=True)
    engine = create_engine(url)
    assert "chat_lines" not in set(inspect(engine).get_table_names())
    assert "to_move" not in {c["name"] for c in inspect(engine).get_columns("matches")}
    engine.dispose()
    migrate(url, "head")


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0006_keeps_analyses_of_earlier_matches_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    """A match finished before 0006 can be analysed after it; 0006 goes down (its analyses with it)
    and up again."""
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0005")
    old_match(url, "00000000000000cc", "finished")
    storage = Storage(url)
    storage.migrate()
    kept = AnalysisRow(match_id="00000000000000cc", seat=1, level="hard", body={"points": []})
    storage.save_analysis(kept)
    assert not storage.share_analysis("00000000000000cc", 0)  # seat 0 has none
    assert storage.share_analysis("00000000000000cc", 1)
    row = storage.analysis("00000000000000cc", 1)
    assert row is not None and (row.level, row.body, row.shared) == ("hard", {"points": []}, True)
    storage.engine.dispose()

    migrate(url, "0005", down=True)
    engine = create_engine(url)
    assert "analyses" not in set(inspect(engine).get_table_names())
    engine.dispose()
    migrate(url, "head")
    storage = Storage(url)
    assert storage.match("00000000000000cc") is not None
    assert storage.analysis("00000000000000cc", 1) is None
    storage.engine.dispose()


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0007_gives_each_username_its_look_and_the_older_of_two_look_alikes_keeps_it(
    backend: str, tmp_path: Path
) -> None:
    """Accounts made before 0007 get their username's look; of two that already look alike
    ("paul", then "pauI"), the older holds it and the newer keeps its name and log-in without one.
    0007 goes down and up again."""
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0006")
    engine = create_engine(url)
    with engine.begin() as connection:
        for player_id, name, day in (("p-pauI", "pauI", 3), ("p-paul", "paul", 2), ("p-ann", "Ann", 4)):
            connection.execute(
                text(
                    "INSERT INTO players (id, kind, name, username_key, password_hash, disabled, created)"
                    " VALUES (:id, 'account', :name, :key, 'x', false, :t)"
                ),
                {
                    "id": player_id,
                    "name": name,
                    "key": name.casefold(),
                    "t": datetime(2026, 1, day, tzinfo=UTC),
                },
            )
        connection.execute(
            text(
                "INSERT INTO players (id, kind, name, disabled, created)"
                " VALUES ('p-guest', 'guest', 'Ann', false, :t)"
            ),
            {"t": datetime(2026, 1, 5, tzinfo=UTC)},
        )
    engine.dispose()

    storage = Storage(url)
    storage.migrate()
    looks = {row.id: row.username_look for row in storage.players()}
    assert looks == {"p-paul": "paul", "p-pauI": None, "p-ann": "ann"}
    assert storage.player("p-guest").username_look is None  # type: ignore[union-attr]
    assert storage.player_by_username("paui").id == "p-pauI"  # type: ignore[union-attr]
    assert storage.player_by_look("paul").id == "p-paul"  # type: ignore[union-attr]
    assert storage.account_looks_like("paul") and storage.account_looks_like("ann")
    assert not storage.account_looks_like("nobody")
    with pytest.raises(IntegrityError):
        storage.create_player("p-new", "account", "PauI", username_key="paui-new", username_look="paul")
    storage.engine.dispose()

    migrate(url, "0006", down=True)
    engine = create_engine(url)
    assert "username_look" not in {c["name"] for c in inspect(engine).get_columns("players")}
    engine.dispose()
    migrate(url, "head")


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0008_adds_the_known_browsers_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0007")
    storage = Storage(url)
    storage.migrate()
    storage.create_player(
        "p-kim", "account", "kim", username_key="kim", username_look="klm", password_hash="x"
    )
    storage.remember_device("d" * 64, "p-kim", keep_seconds=60, most=2)
    assert storage.known_device("d" * 64, "p-kim", keep_seconds=60)
    assert not storage.known_device("d" * 64, "p-other", keep_seconds=60)
    for n in range(3):  # two kept at most: the last used
        storage.remember_device(str(n) * 64, "p-kim", keep_seconds=60, most=2)
    assert not storage.known_device("d" * 64, "p-kim", keep_seconds=60)
    assert storage.known_device("2" * 64, "p-kim", keep_seconds=60)
    storage.engine.dispose()

    migrate(url, "0007", down=True)
    engine = create_engine(url)
    assert "login_devices" not in set(inspect(engine).get_table_names())
    engine.dispose()
    migrate(url, "head")


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0009_makes_each_database_its_own_client_key_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    urls = [support.fresh_database_url(backend, tmp_path) for _ in range(2)]
    keys = []
    for url in urls:
        migrate(url, "0008")
        storage = Storage(url)
        storage.migrate()
        keys.append(storage.site_secret("client_key"))
        storage.migrate()  # again: the secret stays
        assert storage.site_secret("client_key") == keys[-1]
        with pytest.raises(KeyError):
            storage.site_secret("nothing")
        storage.engine.dispose()
    assert len(keys[0]) == 32 and keys[0] != keys[1]

    migrate(urls[0], "0008", down=True)
    engine = create_engine(urls[0])
    assert "site_secrets" not in set(inspect(engine).get_table_names())
    engine.dispose()
    migrate(urls[0], "head")


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_0010_keeps_one_seat_per_player_and_goes_both_ways(backend: str, tmp_path: Path) -> None:
    """A match where a player held two seats (a log-in that raced a join) keeps them on the first;
    the second keeps its name and token, without the player.  After it, the database refuses a
    second seat for one player."""
    url = support.fresh_database_url(backend, tmp_path)
    migrate(url, "0009")
    old_match(url, "m" * 16, "open")
    storage = Storage(url)
    storage.create_player(
        "p-kim", "account", "kim", username_key="kim", username_look="klm", password_hash="x"
    )
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE seats SET player_id = 'p-kim' WHERE match_id = :m"), {"m": "m" * 16})
    engine.dispose()
    storage.migrate()
    seats = storage.seats("m" * 16)
    assert [s.player_id for s in seats] == ["p-kim", None]
    assert [s.token_hash for s in seats] == ["0" * 64, "1" * 64]
    with pytest.raises(IntegrityError), storage.engine.begin() as connection:
        connection.execute(text("UPDATE seats SET player_id = 'p-kim' WHERE seat = 1"))
    storage.engine.dispose()

    migrate(url, "0009", down=True)
    engine = create_engine(url)
    assert "uq_seats_match_player" not in {i["name"] for i in inspect(engine).get_indexes("seats")}
    engine.dispose()
    migrate(url, "head")


def test_processes_started_together_on_a_new_postgresql_database_all_start(tmp_path: Path) -> None:
    """Each process migrates its database as it starts; started together on a new one they take
    turns, and every one of them finds the schema made (at once, all but one failed)."""
    import threading

    url = support.fresh_database_url("postgresql", tmp_path)
    together = threading.Barrier(4)
    failures: list[BaseException] = []

    def start() -> None:
        storage = Storage(url)
        try:
            together.wait(10)
            storage.migrate()
        except BaseException as exc:
            failures.append(exc)
        finally:
            storage.engine.dispose()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    storage = Storage(url)
    current, head, _ = storage.schema()
    storage.engine.dispose()
    assert current == head
