"""Whole games of every game through the server, humans and bots mixed, with the leak check.

Each human seat is a WebSocket client that picks a legal action from the ``legal`` list of its own
``state`` message and sends it with that message's version; a spectator watches.  On every human turn
the test also sends bad actions (out of range, illegal, stale, out of turn, from the spectator), which
must each get an error and change nothing.  After the end, the full record is replayed and every
message each connection received is checked against the engine: a ``state`` at version v carries
exactly ``observation(seat)`` of the true state at v, the legal actions only for the seat to move,
and nothing a seat may not see (the specific hidden fields of each game are checked too).  The record
endpoint (each seat's, the spectator's, the full one) is checked the same way, and the records replay
with ``masques replay``.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import masques_server_support as support
import pytest
from typer.testing import CliRunner

from masques.cli.main import app as cli
from masques.engine import GameRecord, game_class, load_game
from masques.games.mascarade.game import NUM_CARDS, SQUARES
from masques.games.maske.game import AUCTION
from masques.server.accounts import COOKIE

CONFIGS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("masker", {"players": 2}, ["human", "greedy"]),
    ("masker", {"players": 3}, ["human", "random", "human"]),
    ("masker", {"players": 4, "variant": "3d"}, ["human", "random", "human", "greedy"]),
    ("maske", {"players": 3, "masks": 2}, ["human", "random", "human"]),
    ("mascarade", {"players": 2}, ["human", "random"]),
    ("mascarade", {"players": 3}, ["human", "human", "greedy"]),
    ("blokus3d", {"players": 2, "structure": "A"}, ["human", "greedy"]),
    ("pips", {"players": 3, "hand": 2}, ["human", "hard", "human"]),
]
"""Pips is the test-only game of ``tests/extra_games``: it reaches the server through its entry point."""


def _label(config: tuple[str, dict[str, Any], list[str]]) -> str:
    game, options, seats = config
    return "-".join([game, *(f"{k}{v}" for k, v in options.items()), *seats])


class BadInput:
    """On each human turn: bad actions from the seat to move, the other seats and the spectator; and
    chat: the seat to move talks, a signed-in spectator talks about what it sees, and an empty line
    is refused."""

    def __init__(
        self, game: str, num_actions: int, rng: random.Random, talker: support.Conn | None = None
    ) -> None:
        self.game = game
        self.talker = talker
        self.num_actions = num_actions
        self.rng = rng
        self.errors = 0
        self.lines = 0

    def __call__(self, mover: support.Conn, conns: list[support.Conn]) -> None:
        state = mover.state
        assert state is not None
        version = state["version"]
        legal = [a["id"] for a in state["legal"]]
        good = legal[0]
        expect = [
            (mover, {"type": "action", "action": self.num_actions, "version": version}, "illegal_action"),
            (mover, {"type": "action", "action": -1, "version": version}, "illegal_action"),
            (mover, {"type": "action", "action": good, "version": version + 1}, "stale_version"),
        ]
        illegal = self._illegal(state, set(legal))
        if illegal is not None:
            expect.append(
                (mover, {"type": "action", "action": illegal, "version": version}, "illegal_action")
            )
        if version > 0:
            expect.append(
                (mover, {"type": "action", "action": good, "version": version - 1}, "stale_version")
            )
        for other in conns:
            if other is mover:
                continue
            code = "spectator" if other.seat is None else "not_your_turn"
            expect.append((other, {"type": "action", "action": good, "version": version}, code))
        for conn, payload, code in expect:
            error = conn.refused(payload)
            assert error["code"] == code, (payload, error)
            assert error["version"] == version, "a refused action changed the version"
            self.errors += 1
        if version % 3 == 0:
            mover.send({"type": "chat", "text": f"my move at {version}"})
            if self.talker is not None:
                self.talker.send({"type": "chat", "text": f"spectators only: the state at {version}"})
            assert mover.refused({"type": "chat", "text": " "})["code"] == "chat_empty"
            self.lines += 1

    def _illegal(self, state: dict[str, Any], legal: set[int]) -> int | None:
        """A well-formed illegal action; in Mascarade, preferably a card this seat has not seen."""
        if self.game == "mascarade":
            obs = state["observation"]
            seen = set(obs["hand"]) | {p["card"] for p in obs["placed"]}
            unseen = [c for c in range(NUM_CARDS) if c not in seen]
            squares = sorted({a % SQUARES for a in legal if a < NUM_CARDS * SQUARES})
            if unseen and squares:
                return self.rng.choice(unseen) * SQUARES + self.rng.choice(squares)
        for _ in range(200):
            action = self.rng.randrange(self.num_actions)
            if action not in legal:
                return action
        return None


ON_BACKENDS = [(config, support.BACKENDS[i % len(support.BACKENDS)]) for i, config in enumerate(CONFIGS)]
"""Each whole game on one database, the configurations shared out between them (both databases are
covered; every configuration twice would double the slowest test here for no other check)."""


@pytest.mark.parametrize(
    ("config", "server"), ON_BACKENDS, ids=[f"{_label(c)}-{b}" for c, b in ON_BACKENDS], indirect=["server"]
)
def test_whole_game_through_the_server_leaks_nothing(
    config: tuple[str, dict[str, Any], list[str]], server: Any, api: httpx.Client, tmp_path: Path
) -> None:
    game, options, seats = config
    seed = 1000 + CONFIGS.index(config)
    created = support.create_match(api, game, options, seats, seed=seed)
    match_id = created["id"]
    assert created["status"] == "open"
    assert [s["kind"] for s in created["seats"]] == seats

    spectator = support.Conn(server.ws_url, match_id)
    spectator.first_state()
    with support.browser(server) as guest:
        support.signed(guest, guest.post("/api/guest", json={"name": "Wes"}))
        cookie = {"cookie": f"{COOKIE}={guest.cookies[COOKIE]}", "origin": server.base_url}
    talker = support.Conn(server.ws_url, match_id, headers=cookie)
    talker.first_state()
    tokens: dict[int, str] = {}
    for seat, kind in enumerate(seats):
        if kind == "human":
            tokens[seat] = support.join(api, match_id, f"player {seat}", seat)["token"]
    assert support.summary(api, match_id)["status"] == "running"
    conns = [*support.seat_conns(server.ws_url, match_id, tokens), spectator, talker]

    num_actions = load_game(game, options).num_distinct_actions
    bad = BadInput(game, num_actions, random.Random(seed), talker)
    acked = support.play_to_end(conns, random.Random(seed), on_turn=bad)
    assert bad.errors > 0
    for conn in conns:
        conn.drain(0.1)
    for conn in conns:  # the match is over: the spectators' chat comes to the players now
        if conn.seat is not None:
            _wait_for_chat(conn, "spectators")

    final = support.summary(api, match_id)
    assert final["status"] == "finished"
    full = support.full_record(server.database_url, match_id)
    response = api.get(f"/api/matches/{match_id}/record", params={"full": "true"})
    kept = game_class(game).hidden_after_the_end()
    if kept:  # the seed would show what stays hidden after the end: only seats' records go out
        assert response.status_code == 403 and response.json()["code"] == "hidden_for_good", response.text
        assert str(seed) not in response.text
    else:
        assert response.status_code == 200 and response.json() == full, response.text
    assert full["seed"] == seed and full["game"] == game
    assert len(full["actions"]) == final["version"]
    replay = support.Replay(full)
    assert replay.final.is_terminal()

    # every human decision in the record is exactly an acknowledged action: nothing refused got in
    human_turns = [
        (v, full["actions"][v])
        for v in range(final["version"])
        if seats[replay.states[v].current_player] == "human"
    ]
    assert human_turns == acked

    if game == "maske":  # the game went through an auction: a drawn card was hidden from the others
        assert any(s.auction is not None for s in replay.states)  # type: ignore[attr-defined]
    checked = support.check_messages(replay, conns, seats, tokens.values())
    assert checked > len(full["actions"])
    said = [m for m in spectator.messages if m["type"] == "chat"]
    assert bad.lines > 0 and {m["channel"] for m in said} == {"players", "spectators"}
    for conn in conns:  # the players heard the spectators only once the match was over
        if conn.seat is not None:
            heard = [m for m in conn.messages if m["type"] == "chat" and m["channel"] == "spectators"]
            assert heard and all(m["history"] for m in heard)
    support.check_records(api, match_id, replay, tokens)

    # the records replay with the CLI
    runner = CliRunner()
    path = tmp_path / "full.json"
    path.write_text(json.dumps(full), "utf-8")
    result = runner.invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{len(full['actions'])} moves replayed, game finished" in result.output
    seat, token = next(iter(tokens.items()))
    redacted = api.get(f"/api/matches/{match_id}/record", params={"token": token}).json()
    assert redacted["seat"] == seat
    path = tmp_path / "seat.json"
    path.write_text(json.dumps(redacted), "utf-8")
    result = runner.invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    for conn in conns:
        conn.close()


def test_a_match_of_bots_only_plays_itself_out(server: Any, api: httpx.Client) -> None:
    """No human seat: the match starts at creation and the bots finish it; a spectator sees it all."""
    created = support.create_match(api, "masker", {"players": 2}, ["random", "greedy"], seed=7)
    assert created["status"] == "running"
    spectator = support.Conn(server.ws_url, created["id"])
    spectator.first_state()
    for _ in range(500):
        if spectator.state is not None and spectator.state["to_move"] is None:
            break
        spectator.recv_type("state")
    assert support.summary(api, created["id"])["status"] == "finished"
    full = api.get(f"/api/matches/{created['id']}/record", params={"full": "true"}).json()
    replay = support.Replay(full)
    support.check_messages(replay, [spectator], ["random", "greedy"], [])
    spectator.close()


def _local_game(game: str, options: dict[str, Any], seed: int, until: Any = None) -> support.Replay:
    """A random game played locally (no server), as a Replay."""
    state = load_game(game, options).new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal() and not (until is not None and until(state)):
        state.apply(rng.choice(state.legal_actions()))
    return support.Replay(GameRecord.of(state).to_json())


def _view(replay: support.Replay, version: int, seat: int | None, seats: list[str]) -> dict[str, Any]:
    """The message the server should send ``seat`` at ``version`` (what the checker expects)."""
    truth = replay.states[version]
    to_move = None if truth.is_terminal() else truth.current_player
    mine = seat is not None and to_move == seat and seats[seat] == "human"
    status = "finished" if truth.is_terminal() else "running"
    summary = {
        "id": "m",
        "game": replay.record.game,
        "title": "t",
        "options": replay.record.options,
        "status": status,
        "version": version,
        "rematch_of": None,
        "turn_seconds": 0,
        "turn_deadline": None,
        "seeded": False,
        "private": False,
        "created": "2026-01-01T00:00:00+00:00",
        "finished": None,
        "end": None,
        "rematch": None,
        "can_abort": False,
        "grace_seconds": 120.0,
        "rated": False,
        "hints": False,
        "clock": None,
        "ratings": None,
        "seats": [
            {
                "seat": i,
                "kind": k,
                "name": None,
                "taken": True,
                "connected": True,
                "player": None,
                "away_since": None,
                "abandoned": False,
                "person": k == "human",
                "team": truth.game.team_of(i),
                "out": status == "running" and truth.is_out(i),
            }
            for i, k in enumerate(seats)
        ],
        "spectators": 0,
    }
    return {
        "type": "state",
        "match": summary,
        "version": version,
        "seat": seat,
        "to_move": to_move,
        "your_turn": mine,
        "observation": replay.observation(version, seat),
        "legal": [
            {"id": a, "label": truth.action_to_str(a), "move": truth.action_to_json(a)}
            for a in truth.legal_actions()
        ]
        if mine
        else [],
        "log": [
            {"version": i + 1, "seat": replay.states[i].current_player, "move": truth.action_to_str(a)}
            for i, a in enumerate(truth.history)
        ][-20:],
        "result": {"scores": truth.scores(), "winners": truth.winners(), "reason": "played"}
        if truth.is_terminal()
        else None,
    }


def test_the_leak_checker_catches_leaks() -> None:
    """The checker used above is not vacuous: it fails on a seat given another seat's observation, on
    a legal list sent to a seat that is not to move, on a token in a message, and on the hidden fields
    of each game."""
    seats = ["human", "human", "human"]
    replay = _local_game("maske", {"players": 3, "masks": 2}, 3, until=lambda s: s.phase == AUCTION)
    version = len(replay.states) - 1
    drawer = replay.final.auction["drawer"]  # type: ignore[attr-defined]
    other = (drawer + 1) % 3
    good = [_view(replay, v, other, seats) for v in range(version + 1)]

    def check(messages: list[dict[str, Any]], tokens: tuple[str, ...] = ()) -> None:
        conn = SimpleNamespace(seat=other, messages=messages, sent=[])
        support.check_messages(replay, [conn], seats, tokens)  # type: ignore[list-item]

    check(good)
    leaked = json.loads(json.dumps(good[-1]))
    leaked["observation"] = replay.observation(version, drawer)
    assert leaked["observation"]["auction"]["card"] is not None
    with pytest.raises(AssertionError):
        check([*good, leaked])
    truth = replay.final
    assert support.hidden_field_problems("maske", truth, other, leaked["observation"])
    assert not support.hidden_field_problems("maske", truth, drawer, leaked["observation"])
    not_mover = next(v for v in good if not v["your_turn"])
    with_legal = {**not_mover, "legal": [{"id": 0, "label": "a1"}]}
    with pytest.raises(AssertionError):
        check([with_legal])
    with pytest.raises(AssertionError):
        check(
            [*good, {"type": "error", "code": "x", "message": "token s3cr3t-token", "version": 0}],
            ("s3cr3t-token",),
        )
    with pytest.raises(AssertionError):
        check([*good, {"type": "error", "code": "x", "message": "y", "version": 0, "hand": [1]}])
    line = {"id": 1, "seat": None, "name": "Wes", "player": "p", "text": "x", "at": "t", "version": 0}
    whisper = {"type": "chat", "channel": "spectators", "history": False, "lines": [line]}
    with pytest.raises(AssertionError):  # the spectators' chat reaching a player while the match runs
        check([*good, whisper])
    told = {**good[-1], "match": {**good[-1]["match"], "status": "finished"}}
    check([*good, told, {**whisper, "history": True}])  # once the match is over, it may
    with pytest.raises(AssertionError):  # a line with a field a line does not have
        check([*good, {**whisper, "channel": "players", "lines": [{**line, "seat": 0, "token": "t"}]}])

    masker = _local_game("masker", {"players": 3}, 2, until=lambda s: len(s.history) > 5)
    obs = masker.observation(len(masker.states) - 1, 0)
    assert not support.hidden_field_problems("masker", masker.final, 0, obs)
    assert support.hidden_field_problems("masker", masker.final, 0, {**obs, "tokens": ["red"] * 3})
    assert support.hidden_field_problems("masker", masker.final, 1, obs)  # seat 0's colour shown to seat 1

    mascarade = _local_game("mascarade", {"players": 2}, 2, until=lambda s: len(s.history) > 5)
    obs = mascarade.observation(len(mascarade.states) - 1, 0)
    assert not support.hidden_field_problems("mascarade", mascarade.final, 0, obs)
    assert support.hidden_field_problems("mascarade", mascarade.final, 1, obs)


def _wait_for_chat(conn: Any, channel: str, timeout: float = 20.0) -> None:
    """Read until a chat message of ``channel`` has come (a loaded machine may be slow with it); the
    caller's assertions say what is missing if none comes."""
    deadline = time.monotonic() + timeout
    while not any(m["type"] == "chat" and m["channel"] == channel for m in conn.messages):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        with contextlib.suppress(TimeoutError):
            conn.recv(timeout=left)
