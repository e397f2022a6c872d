"""The server's CPU for what each table does between games: a match made, its four seats joined
(five HTTP requests), then its four players connected over WebSockets, each reading its first
view before leaving.  In the all-human ``server.py --scenario matches`` run, a game of Masker is
about 38 moves, so this work is spread over them, and it is a large part of the server's CPU per
move.

Usage: python benchmarks/lobby.py [--games 100] [--rounds 3] [--src CHECKOUT ...] [--json]

Each round, each ``--src`` checkout (none: the installed package) starts a ``masques serve`` of its
own (SQLite in a temporary folder, rate limits off), plays a warm-up, then ``--games`` tables one
after the other from one client on loopback, and reads the server process's CPU time (both its
threads: the event loop's and the database writer's).  Printed, per checkout: the server's CPU per
table for the HTTP part and for the WebSocket part (the median and the best of the rounds: a shared
machine only ever adds to it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import checkouts
import httpx
from websockets.sync.client import connect

from server import Server, _process_seconds

PLAYERS = 4
WARM_UP = 20
ENV = {"MASQUES_MAX_BOT_MATCHES": "100000", "MASQUES_ANY_SEED": "1"}


def new_table(api: httpx.Client, seed: int) -> tuple[str, list[str]]:
    """A match of four people, every seat joined: its id and the seats' tokens."""
    seats = [{"kind": "human"}] * PLAYERS
    made = api.post(
        "/api/matches", json={"game": "masker", "options": {"players": PLAYERS}, "seats": seats, "seed": seed}
    )
    made.raise_for_status()
    match_id = made.json()["id"]
    tokens = []
    for seat in range(PLAYERS):
        joined = api.post(f"/api/matches/{match_id}/join", json={"name": f"P{seat}", "seat": seat})
        joined.raise_for_status()
        tokens.append(joined.json()["token"])
    return match_id, tokens


def connect_all(ws_url: str, match_id: str, tokens: list[str]) -> None:
    """Each seat connects, reads its view, and leaves."""
    for token in tokens:
        with connect(f"{ws_url}/ws/matches/{match_id}?token={token}") as ws:
            first = json.loads(ws.recv(timeout=30))
            if first.get("type") != "state":
                raise SystemExit(f"a seat's first message was {first.get('type')!r}, not its view")


def measure(games: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="masques-lobby-") as folder:
        server = Server(Path(folder), None, f"sqlite:///{Path(folder) / 'lobby.sqlite3'}", env=ENV)
        try:
            server.wait_ready()
            with httpx.Client(base_url=server.base_url, timeout=30) as api:
                for seed in range(WARM_UP):
                    connect_all(server.ws_url, *new_table(api, seed))
                time.sleep(0.5)
                before = _process_seconds(server.proc.pid)
                tables = [new_table(api, WARM_UP + n) for n in range(games)]
                time.sleep(0.5)  # the last writes settled
                joined = _process_seconds(server.proc.pid)
                for match_id, tokens in tables:
                    connect_all(server.ws_url, match_id, tokens)
                time.sleep(0.5)  # the last connections closed on the server's side
                after = _process_seconds(server.proc.pid)
        finally:
            server.stop()
    return {
        "http_ms_per_table": 1000 * (joined - before) / games,
        "ws_ms_per_table": 1000 * (after - joined) / games,
        "ms_per_table": 1000 * (after - before) / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="tables measured per round (default 100)")
    checkouts.add_options(parser)
    args = parser.parse_args()
    games = max(1, args.games)
    if args.worker:
        print(json.dumps(measure(games)))
        return
    rounds = checkouts.in_turn(__file__, args.src, args.rounds, ["--games", str(games)])
    keys = ("http_ms_per_table", "ws_ms_per_table", "ms_per_table")
    table: dict[str, dict[str, Any]] = {
        name: {
            **{key: statistics.median(r[key] for r in figures) for key in keys},
            **{f"best_{key}": min(r[key] for r in figures) for key in keys},
            "rounds_ms_per_table": [round(r["ms_per_table"], 3) for r in figures],
        }
        for name, figures in rounds.items()
    }
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{games} tables of 4-player Masker a round, median of {args.rounds} rounds; server CPU per table")
    first = next(iter(table.values()))
    for name, f in table.items():
        ratio = f["ms_per_table"] / first["ms_per_table"]
        print(
            f"{name[-40:]:40s} {f['ms_per_table']:.2f} ms ({ratio:.2f}x the first;"
            f" best {f['best_ms_per_table']:.2f}): HTTP {f['http_ms_per_table']:.2f},"
            f" WebSockets {f['ws_ms_per_table']:.2f}  rounds {f['rounds_ms_per_table']}"
        )


if __name__ == "__main__":
    main()
