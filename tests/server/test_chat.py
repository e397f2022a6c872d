"""Match chat: the players' channel and the spectators' (kept from the players while the match is
played), plain text, limits, refusals that store nothing, history on connect, and the operator's
commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest
from masques_server_support import browser, signed, signup, unique  # type: ignore[import-not-found]
from typer.testing import CliRunner

from masques.cli.main import app as cli
from masques.server.accounts import COOKIE
from masques.server.errors import ServerError
from masques.server.limits import RATE_DEFAULTS, Limits
from masques.server.matches import Client, Registry
from masques.server.storage import ChatRow, Storage, hash_token


def say(conn: support.Conn, text: Any) -> None:
    conn.send({"type": "chat", "text": text})


def next_chat(conn: support.Conn) -> dict[str, Any]:
    return conn.recv_type("chat")


def chats(conn: support.Conn) -> list[dict[str, Any]]:
    """The chat messages that came by now: for a check that none came, not to wait for one."""
    return [m for m in conn.drain(0.3) if m["type"] == "chat"]


def next_chat_on(conn: support.Conn, channel: str) -> dict[str, Any]:
    """The next chat message of ``channel`` (waited for: a loaded server may be slow to send it)."""
    while (message := next_chat(conn))["channel"] != channel:
        pass
    return message


def session_conn(server: Any, client: httpx.Client, match_id: str, seat: int | None = None) -> support.Conn:
    headers = {"cookie": f"{COOKIE}={client.cookies[COOKIE]}", "origin": server.base_url}
    conn = support.Conn(server.ws_url, match_id, seat=seat, headers=headers)
    conn.first_state()
    return conn


@pytest.fixture
def table(server: Any, api: httpx.Client) -> Iterator[tuple[str, list[support.Conn], support.Conn]]:
    """A running two-player match: its two seats' connections and a signed-in spectator's."""
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    tokens = {seat: support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 1)}
    players = support.seat_conns(server.ws_url, match_id, tokens)
    with browser(server) as watcher:
        signed(watcher, watcher.post("/api/guest", json={"name": "Wes"}))
        spectator = session_conn(server, watcher, match_id)
        yield match_id, players, spectator
    for conn in (*players, spectator):
        conn.close()


def test_players_talk_to_each_other_and_the_spectators_read_them(table: Any, api: httpx.Client) -> None:
    match_id, (ann, bob), spectator = table
    say(ann, "  good luck <b>bob</b> & co  ")
    for conn in (ann, bob, spectator):
        message = next_chat(conn)
        assert message["channel"] == "players" and message["history"] is False
        (line,) = message["lines"]
        assert line["text"] == "good luck <b>bob</b> & co"  # plain text, kept as said, trimmed
        assert line["seat"] == 0 and line["name"] == "p0" and line["version"] == 0
    read = api.get(f"/api/matches/{match_id}/chat").json()
    assert [line["text"] for line in read["players"]] == ["good luck <b>bob</b> & co"]
    assert read["spectators"] is None  # a reader without a session: only the players' chat


def test_the_spectators_chat_stays_away_from_the_players_until_the_end(
    server: Any, table: Any, api: httpx.Client
) -> None:
    match_id, (ann, bob), spectator = table
    say(spectator, "seat 1 holds the red mask")
    message = next_chat(spectator)
    assert message["channel"] == "spectators" and message["lines"][0]["name"] == "Wes"
    assert message["lines"][0]["seat"] is None
    for player in (ann, bob):
        assert chats(player) == []
    token = ann.token
    read = api.get(f"/api/matches/{match_id}/chat", headers={"X-Seat-Token": token}).json()
    assert read["spectators"] is None and read["players"] == []
    late = support.Conn(server.ws_url, match_id, token, 0)  # a player connecting later: no history of it
    late.first_state()
    assert chats(late) == []
    late.close()

    assert api.post(f"/api/matches/{match_id}/resign", headers={"X-Seat-Token": token}).status_code == 200
    for player in (ann, bob):  # told once the match is over (after a read of the chat: not at once)
        shown = next_chat_on(player, "spectators")
        assert shown["history"] is True
        assert [line["text"] for line in shown["lines"]] == ["seat 1 holds the red mask"]
    read = api.get(f"/api/matches/{match_id}/chat", headers={"X-Seat-Token": token}).json()
    assert [line["text"] for line in read["spectators"]] == ["seat 1 holds the red mask"]


def test_a_spectator_who_takes_a_seat_stops_reading_the_spectators_chat(
    server: Any, api: httpx.Client
) -> None:
    """A signed-in spectator's connection is closed (seat_changed, 4409) once its player takes a
    seat, before any more of the spectators' chat reaches it; connecting again finds the seat."""
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    support.join(api, match_id, "Ann", 0)
    with support.browser(server) as dan, support.browser(server) as wes:
        signed(dan, dan.post("/api/guest", json={"name": "Dan"}))
        signed(wes, wes.post("/api/guest", json={"name": "Wes"}))
        watching = session_conn(server, dan, match_id)
        other = session_conn(server, wes, match_id)
        assert watching.state is not None and watching.state["seat"] is None
        assert dan.post(f"/api/matches/{match_id}/join", json={"seat": 1}).status_code == 200
        assert watching.recv_type("error")["code"] == "seat_changed"
        assert watching.closed_code() == 4409
        say(other, "the spectators only")
        assert next_chat(other)["lines"][0]["text"] == "the spectators only"
        assert not any(
            m.get("channel") == "spectators" and m.get("history") is False for m in watching.messages
        )
        again = session_conn(server, dan, match_id)
        assert again.state is not None and again.state["seat"] == 1
        assert chats(again) == [] or all(m["channel"] == "players" for m in chats(again))
        for conn in (other, again):
            conn.close()


def test_history_on_connect_and_sync(server: Any, table: Any) -> None:
    match_id, (ann, _bob), _spectator = table
    for text in ("one", "two"):
        say(ann, text)
        next_chat(ann)
    again = support.Conn(server.ws_url, match_id)
    again.first_state()
    history = next_chat(again)
    assert history["history"] is True and [line["text"] for line in history["lines"]] == ["one", "two"]
    again.send({"type": "sync"})
    again.recv_type("state")
    assert [line["text"] for line in next_chat(again)["lines"]] == ["one", "two"]
    again.close()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "chat_empty"),
        ("   \n ", "chat_empty"),
        ("x" * 501, "chat_too_long"),
        ("ring\x07", "chat_bad_text"),
        ("abc\u202edef", "chat_bad_text"),  # a right-to-left override
        ("zero\u200bwidth", "chat_bad_text"),
        ("new\nline", "chat_bad_text"),
        ("\u200d", "chat_empty"),  # characters drawn as nothing, or as blank space alone
        ("\u3164 \u3164", "chat_empty"),
        ("\u2800", "chat_empty"),
        ("e" + "\u0301" * 60, "chat_bad_text"),  # marks that spill over the lines around
        (42, "bad_message"),
        (None, "bad_message"),
    ],
)
def test_bad_lines_are_refused_with_a_code_and_stored_nowhere(
    table: Any, api: httpx.Client, text: Any, code: str
) -> None:
    match_id, (ann, bob), _spectator = table
    error = ann.refused({"type": "chat", "text": text})
    assert error["code"] == code and error["message"]
    assert chats(bob) == []
    assert api.get(f"/api/matches/{match_id}/chat").json()["players"] == []


def test_unknown_fields_and_oversize_messages_are_refused(table: Any) -> None:
    _match_id, (ann, _bob), _spectator = table
    assert ann.refused({"type": "chat", "text": "hi", "channel": "spectators"})["code"] == "bad_message"
    assert ann.refused({"type": "chat", "text": "x" * 5000})["code"] == "too_large"


def test_a_line_of_500_characters_in_any_script_with_emoji_sequences_is_kept(table: Any) -> None:
    _match_id, (ann, bob), _spectator = table
    text = ("émoji 🎭 👩‍💻 🏴󠁧󠁢󠁳󠁣󠁴󠁿 مرحبا 你好 " * 40)[:500]
    say(ann, text)
    assert next_chat(bob)["lines"][0]["text"] == text


def test_a_spectator_without_a_session_reads_the_players_only_and_may_not_write(
    server: Any, table: Any
) -> None:
    match_id, (ann, _bob), watcher = table
    anonymous = support.Conn(server.ws_url, match_id)  # a player's private window, say
    anonymous.first_state()
    assert anonymous.refused({"type": "chat", "text": "hello"})["code"] == "sign_in_to_chat"
    say(ann, "hi all")
    assert next_chat(anonymous)["lines"][0]["text"] == "hi all"
    say(watcher, "psst, seat 0")  # the signed-in spectators' chat: not for anonymous eyes in play
    assert [next_chat(watcher)["channel"] for _ in range(2)] == ["players", "spectators"]
    assert chats(watcher) == []
    assert chats(anonymous) == []
    anonymous.close()


@pytest.fixture(params=support.BACKENDS[:1])
def chatty(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[support.ThreadServer]:
    """A server with the default chat limit (the shared test server relaxes every limit)."""
    rates = {**support.RELAXED.rates, "chat": RATE_DEFAULTS["chat"]}
    limits = Limits(**{**support.RELAXED.__dict__, "rates": rates})
    server = support.ThreadServer(support.fresh_database_url(request.param, tmp_path), limits=limits).start()
    yield server
    server.stop()


def test_a_flood_of_lines_is_refused_with_429(chatty: Any) -> None:
    with browser(chatty) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "random"])["id"]
        token = support.join(api, match_id, "ann", 0)["token"]
        conn = support.Conn(chatty.ws_url, match_id, token, 0)
        conn.first_state()
        say(conn, "first")
        next_chat(conn)
        error = conn.refused({"type": "chat", "text": "second, at once"})
        assert error["code"] == "rate_limited"
        assert [line["text"] for line in api.get(f"/api/matches/{match_id}/chat").json()["players"]] == [
            "first"
        ]
        conn.close()


def test_a_disabled_account_may_not_chat_and_the_operator_deletes_a_line(server: Any) -> None:
    runner = CliRunner()
    database = ["--database", server.database_url]
    name = unique("Dan")
    with browser(server) as dan:
        signup(dan, name)
        match_id = support.create_match(dan, "masker", {"players": 2}, ["human", "random"])["id"]
        assert dan.post(f"/api/matches/{match_id}/join", json={"seat": 0}).status_code == 200
        conn = session_conn(server, dan, match_id, 0)
        say(conn, "rude words")
        line_id = next_chat(conn)["lines"][0]["id"]
        listed = runner.invoke(cli, ["chat", "list", match_id, *database])
        assert listed.exit_code == 0 and "rude words" in listed.output and str(line_id) in listed.output
        deleted = runner.invoke(cli, ["chat", "delete", str(line_id), *database])
        assert deleted.exit_code == 0, deleted.output
        assert dan.get(f"/api/matches/{match_id}/chat").json()["players"] == []
        assert runner.invoke(cli, ["chat", "delete", "99999999", *database]).exit_code == 2
        assert runner.invoke(cli, ["users", "disable", name, *database]).exit_code == 0
        assert conn.refused({"type": "chat", "text": "still here"})["code"] == "account_disabled"
        conn.close()


def _reading(registry: Registry, reads: list[str], before_return: Any = None) -> None:
    """Count the registry's reads of a match's chat in storage (``before_return`` runs in each)."""
    storage = registry.storage

    def chat(match_id: str) -> list[Any]:
        reads.append(match_id)
        rows = Storage.chat(storage, match_id)
        if before_return is not None:
            before_return()
        return rows

    registry.storage.chat = chat  # type: ignore[method-assign]


def _outbox(client: Client) -> list[dict[str, Any]]:
    messages = []
    while not client.outbox.empty():
        item = client.outbox.get_nowait()
        assert item is not None
        messages.append(json.loads(item if isinstance(item, str) else item[0]))
    return messages


async def _nothing(_text: str) -> None:
    return None


def test_a_new_tables_connections_read_no_chat_until_a_line_is_said(tmp_path: Path) -> None:
    """A match made by this process has no chat: its connections get none without reading storage
    for it; once a line is said, the next connection reads it and gets it as history."""

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            reads: list[str] = []
            _reading(registry, reads)
            first = Client(None, _nothing)
            await registry.connect(match, first)
            assert reads == [] and not [m for m in _outbox(first) if m["type"] == "chat"]

            _, token = await registry.join(match, "Ann", 0)
            await registry.say(match, Client(0, _nothing, seat_token=hash_token(token)), "hello")
            later = Client(None, _nothing)
            await registry.connect(match, later)
            history = [m for m in _outbox(later) if m["type"] == "chat"]
            assert reads == [match.id]
            assert [line["text"] for m in history for line in m["lines"]] == ["hello"]

    support.run_async(scenario())


def test_a_chat_read_empty_while_a_line_came_is_read_again_next_time(tmp_path: Path) -> None:
    """A match loaded from storage is read once and, found empty, not again; but a read that found it
    empty while a line was said or announced meanwhile proves nothing, and the next connection reads
    again, as it does after a line another process announced."""

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            made = await registry.create("masker", {"players": 2}, ["human", "human"])
            registry.matches.clear()  # as if another process had made it
            match = await registry.get(made.id)
            reads: list[str] = []
            _reading(registry, reads)
            for _ in range(2):
                await registry.connect(match, Client(None, _nothing))
            assert reads == [match.id]

            match.chat_empty = False
            _reading(registry, reads, before_return=lambda: setattr(match, "chat_news", match.chat_news + 1))
            await registry.connect(match, Client(None, _nothing))
            assert reads == [match.id] * 2 and not match.chat_empty

            line = ChatRow(match_id=match.id, channel="players", seat=1, name="Bo", text="hi", version=0)
            registry.storage.add_chat(line)
            _reading(registry, reads)
            await registry.connect(match, Client(None, _nothing))  # still told nothing: no read
            await registry._on_remote_chat(match.id, line.id)
            told = Client(None, _nothing)
            await registry.connect(match, told)
            history = [m for m in _outbox(told) if m["type"] == "chat"]
            assert [line["text"] for m in history for line in m["lines"]] == ["hi"]

    support.run_async(scenario())


def test_a_line_said_as_the_seat_changes_hands_is_refused_and_not_stored(tmp_path: Path) -> None:
    """A line from a seat's connection that reaches the match's lock after the seat was left and
    taken by someone else is refused (the connection is told its seat changed): it is stored under
    nobody's name, least of all the newcomer's."""

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            _, token = await registry.join(match, "Xavier", 0)
            xavier = Client(0, _nothing, seat_token=hash_token(token))
            await registry.connect(match, xavier)
            await registry.check_allowed(match, xavier)  # checked while the seat is his
            await registry.leave(match, 0, token=token)
            await registry.join(match, "Yolanda", 0)
            with pytest.raises(ServerError) as refused:
                await registry.say(match, xavier, "hello from Xavier")
            assert refused.value.code == "seat_changed"
            assert registry.storage.chat(match.id) == []
            assert xavier not in match.clients

    support.run_async(scenario())


def test_a_line_said_while_a_connections_history_is_read_is_not_lost_to_it(tmp_path: Path) -> None:
    """A line said after the history was read, but sent before it, was replaced by that history
    (a client takes a history as the channel's whole): it now comes after the history."""
    import asyncio

    async def scenario() -> list[str]:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await registry.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]
            speaker = Client(1, _nothing, seat_token=hash_token(tokens[1]))
            await registry.connect(match, speaker)
            await registry.say(match, speaker, "before")
            loop = asyncio.get_running_loop()

            def said_meanwhile() -> None:  # in the read's thread, once the history is read
                asyncio.run_coroutine_threadsafe(registry.say(match, speaker, "meanwhile"), loop).result(10)

            _reading(registry, [], before_return=said_meanwhile)
            newcomer = Client(0, _nothing, seat_token=hash_token(tokens[0]))
            await registry.connect(match, newcomer)
            shown: list[str] = []  # as the web client keeps a channel: a history replaces it
            for message in _outbox(newcomer):
                if message["type"] == "chat" and message["channel"] == "players":
                    texts = [line["text"] for line in message["lines"]]
                    shown = texts if message["history"] else [*shown, *texts]
            return shown

    assert support.run_async(scenario()) == ["before", "meanwhile"]
