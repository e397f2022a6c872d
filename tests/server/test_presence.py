"""Connecting, presence and reconnecting: a new connection with the same token gets the current view
and carries on; every connection is told who is connected."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support

from masques.engine import game_class
from masques.engine.chance import CHANCE_VERSION
from masques.server.matches import OUTBOX, OUTBOX_BYTES, Client
from masques.server.storage import hash_token


def _connected(message: dict[str, Any]) -> list[bool]:
    return [s["connected"] for s in message["match"]["seats"]]


async def _never_read(text: str) -> None:
    """A connection's writer held up for ever (its client reads nothing)."""
    await asyncio.Event().wait()


async def _read(text: str) -> None:
    return None


def test_presence_shows_who_is_connected(server: Any, api: httpx.Client) -> None:
    created = support.create_match(api, "mascarade", {"players": 3}, ["human", "human", "random"], seed=5)
    match_id = created["id"]
    tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 1)}

    alice = support.Conn(server.ws_url, match_id, tokens[0], 0)
    state = alice.first_state()
    assert state["seat"] == 0
    presence = alice.recv_type("presence")
    assert _connected(presence) == [True, False, False]
    assert presence["match"]["spectators"] == 0

    bob = support.Conn(server.ws_url, match_id, tokens[1], 1)
    assert bob.first_state()["seat"] == 1
    assert _connected(bob.recv_type("presence")) == [True, True, False]
    assert _connected(alice.recv_type("presence")) == [True, True, False]

    watcher = support.Conn(server.ws_url, match_id)
    assert watcher.first_state()["seat"] is None
    for conn in (alice, bob, watcher):
        presence = conn.recv_type("presence")
        assert presence["match"]["spectators"] == 1
        assert _connected(presence) == [True, True, False]
    assert support.summary(api, match_id)["spectators"] == 1

    bob.close()
    for conn in (alice, watcher):
        assert _connected(conn.recv_type("presence")) == [True, False, False]
    assert [s["connected"] for s in support.summary(api, match_id)["seats"]] == [True, False, False]
    watcher.close()
    assert alice.recv_type("presence")["match"]["spectators"] == 0
    alice.close()
    replay = support.Replay(_replayable(api, match_id, seed=5))
    support.check_messages(replay, [alice, bob, watcher], ["human", "human", "random"], tokens.values())


def _replayable(api: httpx.Client, match_id: str, seed: int) -> dict[str, Any]:
    """The match's record so far, rebuilt from the public moves (the full record waits for the end)."""
    summary = support.summary(api, match_id)
    spectator = api.get(f"/api/matches/{match_id}/record").json()
    moves = spectator["observations"][-1]["moves"]
    cls = game_class(summary["game"])
    return {
        "game": summary["game"],
        "rules_version": cls.rules_version,
        "options": summary["options"],
        "seed": seed,
        "chance": CHANCE_VERSION,  # the server deals with the current generator
        "actions": moves,
    }


def _wait_for_a_human(conn: support.Conn, seats: list[str]) -> dict[str, Any]:
    """Receive until a human seat is to move (or the game is over)."""
    for _ in range(1000):
        state = conn.state
        if state is not None and (state["to_move"] is None or seats[state["to_move"]] == "human"):
            return state
        conn.recv_type("state")
    raise AssertionError("no human turn")


def test_reconnect_resumes_with_the_current_view(server: Any, api: httpx.Client) -> None:
    seats = ["human", "greedy", "human"]
    created = support.create_match(api, "maske", {"players": 3, "masks": 2}, seats, seed=8)
    match_id = created["id"]
    tokens = {s: support.join(api, match_id, f"p{s}", s)["token"] for s in (0, 2)}
    conns = support.seat_conns(server.ws_url, match_id, tokens)
    rng = random.Random(8)
    support.play_to_end(conns, rng, stop_after=4)
    old = conns[0]
    for _ in range(10):  # leave when it is someone else's turn
        assert old.state is not None
        if not old.state["your_turn"]:
            break
        old.act(old.state["legal"][0]["id"], old.state["version"])
        old.wait_version(old.state["version"] + 1)
    assert old.state is not None
    left_at = old.state["version"]
    old.close()
    closed = [old]

    # the other seat plays on while seat 0 is away (and the bot too)
    rest = conns[1]
    rest.wait_version(left_at)
    for _ in range(3):
        state = _wait_for_a_human(rest, seats)
        if not state["your_turn"]:
            break
        rest.act(rng.choice(state["legal"])["id"], state["version"])
        rest.wait_version(state["version"] + 1)

    back = support.Conn(server.ws_url, match_id, tokens[0], 0)
    view = back.first_state()
    rest.wait_version(view["version"])
    assert rest.state is not None
    assert view["version"] <= support.summary(api, match_id)["version"]
    assert view["seat"] == 0
    assert view["version"] > left_at, "the match went on while seat 0 was away"
    assert view["observation"]["seat"] == 0
    assert view["observation"]["moves"] == rest.state["observation"]["moves"][: view["version"]]
    # two connections of one seat both get its view
    twin = support.Conn(server.ws_url, match_id, tokens[0], 0)
    assert twin.first_state()["version"] >= view["version"]
    twin.send({"type": "sync"})
    assert twin.recv_type("state")["seat"] == 0
    twin.send({"type": "ping"})
    twin.close()
    closed.append(twin)

    conns = [back, rest]
    support.play_to_end(conns, rng)
    full = support.full_record(server.database_url, match_id)
    replay = support.Replay(full)
    support.check_messages(replay, [*conns, *closed], seats, tokens.values())
    for conn in conns:
        conn.close()


def test_a_connection_dropped_for_falling_behind_leaves_its_seat_away(tmp_path: Path) -> None:
    """A connection that reads nothing is dropped once its outbox is full; its seat is then away,
    as if it had closed, so the grace period runs and the others are not held up for ever."""

    async def scenario() -> None:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await registry.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]

            slow = Client(0, _never_read, seat_token=hash_token(tokens[0]))  # its pump never runs
            await registry.connect(match, slow)
            assert match.seats[0].away_since is None
            for _ in range(OUTBOX + 1):
                registry.deliver_views(match)
            assert slow.dropped and slow not in match.clients
            assert match.seats[0].away_since is not None
            assert match.away_task is not None and not match.away_task.done()

    support.run_async(scenario())


def test_a_connection_with_megabytes_waiting_unread_is_dropped_before_its_outbox_is_full() -> None:
    """Few messages, but big ones (the whole chat, asked for again and again): the outbox is
    bounded in bytes too, so a client that reads nothing cannot pin megabytes per request.  What
    has been sent does not count."""

    async def scenario() -> tuple[bool, bool, int]:

        slow, reader = Client(None, _never_read), Client(None, _read)
        pump = asyncio.get_running_loop().create_task(reader.pump())
        big = "x" * (OUTBOX_BYTES // 3)
        for _ in range(3):
            assert slow.deliver(big)
        dropped = not slow.deliver(big) and slow.dropped
        for _ in range(6):  # one at a time, each sent by the pump: never more than one waiting
            assert reader.deliver(big)
            await asyncio.sleep(0)
        pump.cancel()
        return dropped, reader.dropped, slow.waiting_bytes

    dropped, reader_dropped, left = support.run_async(scenario())
    assert dropped and not reader_dropped and left == 0


def test_who_is_connected_waits_in_the_outbox_once_and_newest() -> None:
    """A presence message still waiting last in the outbox is replaced by the next one; behind
    another message, the next is queued after it, so what a client reads stays in order."""

    async def scenario() -> tuple[list[str], int, int]:
        sent: list[str] = []

        async def read(text: str) -> None:
            sent.append(text)

        client = Client(0, read)
        for n in range(OUTBOX * 3):  # far more than the outbox holds
            assert client.deliver(f"presence {n}", newest_only=True)
        assert client.deliver("state 1")
        assert client.deliver("presence after", newest_only=True)
        assert client.deliver("presence newest", newest_only=True)
        waiting = client.outbox.qsize(), client.waiting_bytes
        pump = asyncio.get_running_loop().create_task(client.pump())
        for _ in range(10):
            await asyncio.sleep(0)
        assert client.deliver("presence later", newest_only=True)  # the one before was sent
        for _ in range(10):
            await asyncio.sleep(0)
        pump.cancel()
        return sent, *waiting

    sent, queued, waiting_bytes = support.run_async(scenario())
    assert sent == [f"presence {OUTBOX * 3 - 1}", "state 1", "presence newest", "presence later"]
    assert queued == 3
    assert waiting_bytes == len(f"presence {OUTBOX * 3 - 1}") + len("state 1") + len("presence newest")


def test_seats_coming_and_going_do_not_drop_a_connection_that_reads_slowly(tmp_path: Path) -> None:
    """Each seat that connects or leaves tells everyone who is connected: a burst of them, while
    a connection's writer is held up, replaces the one waiting instead of filling its outbox."""

    async def scenario() -> tuple[bool, bool]:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await registry.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]

            slow = Client(0, _never_read, seat_token=hash_token(tokens[0]))  # its pump never runs
            await registry.connect(match, slow)
            for _ in range(OUTBOX * 2):
                other = Client(1, _read, seat_token=hash_token(tokens[1]))
                await registry.connect(match, other)
                await registry.disconnect(match, other)
            kept = not slow.dropped and slow in match.clients
            for _ in range(OUTBOX + 1):  # moves' views still count: one per message
                registry.deliver_views(match)
            return kept, slow.dropped

    kept, dropped_by_views = support.run_async(scenario())
    assert kept
    assert dropped_by_views


def test_a_connections_first_message_is_its_view_even_if_another_seat_arrives_meanwhile(
    tmp_path: Path,
) -> None:
    """Telling the other processes of an arrival waits on Redis; another seat's arrival told to
    every connection meanwhile comes after the new connection's view, not before it."""

    async def scenario() -> str:
        async with support.sqlite_registry(tmp_path) as registry:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            tokens = [(await registry.join(match, f"p{seat}", seat))[1] for seat in (0, 1)]

            first = Client(0, _never_read, seat_token=hash_token(tokens[0]))
            other = Client(1, _never_read, seat_token=hash_token(tokens[1]))

            class Fanout:
                """Redis, slow enough for the other seat to arrive while seat 0's is told."""

                async def arrived(self, match_id: str, seat: int) -> None:
                    if seat == 0:
                        match.clients.add(other)
                        registry._presence_changed(match, other)
                    await asyncio.sleep(0)

            registry.fanout = Fanout()  # type: ignore[assignment]
            try:
                await registry.connect(match, first)
            finally:
                registry.fanout = None
            item = first.outbox.get_nowait()
            assert item is not None
            return json.loads(item if isinstance(item, str) else item[0])["type"]

    assert support.run_async(scenario()) == "state"


def test_a_message_the_socket_takes_at_once_skips_the_outbox() -> None:
    """A connection written to at once gets each message in the move's own step: nothing waits
    in its outbox for the writer task."""

    async def scenario() -> tuple[list[str], int, int]:
        written: list[str] = []

        def write_now(text: str) -> bool:
            written.append(text)
            return True

        client = Client(0, _never_read, write_now=write_now)  # the queued way would never finish
        assert client.deliver("state 1")
        assert client.deliver({"type": "presence"}, newest_only=True)
        return written, client.outbox.qsize(), client.waiting_bytes

    written, queued, waiting_bytes = support.run_async(scenario())
    assert written == ["state 1", '{"type":"presence"}']
    assert queued == 0 and waiting_bytes == 0


def test_a_message_waits_behind_those_queued_or_being_written() -> None:
    """Once one message had to be queued (the socket was full), the next ones queue behind it,
    and behind the one the writer task holds, even when the socket would take them: what a
    client reads stays in order."""

    async def scenario() -> tuple[list[str], list[str]]:
        socket_full = True
        written: list[str] = []
        released = asyncio.Event()

        def write_now(text: str) -> bool:
            if socket_full:
                return False
            written.append(text)
            return True

        async def send_when_released(text: str) -> None:
            await released.wait()
            written.append(text)

        client = Client(0, send_when_released, write_now=write_now)
        assert client.deliver("state 1")  # the socket is full: queued
        socket_full = False
        assert client.deliver("state 2")  # "state 1" still waits in the outbox
        pump = asyncio.get_running_loop().create_task(client.pump())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert client.writing  # the pump holds "state 1"
        assert client.deliver("state 3")
        attempted = list(written)
        released.set()
        for _ in range(10):
            await asyncio.sleep(0)
        assert not client.writing and client.outbox.empty()
        assert client.deliver("state 4")  # nothing waits any more: at once
        pump.cancel()
        return attempted, written

    attempted, written = support.run_async(scenario())
    assert attempted == []
    assert written == ["state 1", "state 2", "state 3", "state 4"]


def test_a_socket_that_fails_on_a_message_leaves_it_to_the_writer_task() -> None:
    """A socket gone under the direct write: the message goes the queued way, whose writer finds
    the socket gone and ends the connection."""

    async def scenario() -> tuple[bool, int, bool]:
        def write_now(text: str) -> bool:
            raise ConnectionResetError("gone")

        async def send_fails(text: str) -> None:
            raise ConnectionResetError("gone")

        client = Client(0, send_fails, write_now=write_now)
        queued = client.deliver("state 1")
        waiting = client.outbox.qsize()
        pump = asyncio.get_running_loop().create_task(client.pump())
        await asyncio.wait_for(pump, 5)
        return queued, waiting, client.dropped

    assert support.run_async(scenario()) == (True, 1, True)
