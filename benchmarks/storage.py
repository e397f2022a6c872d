"""The writes a table's game costs the server's database thread: a match created, its seats claimed,
its start, its moves (in batches, as moves that arrive together are committed), and its last move
with the result.  Run on a fresh SQLite file (``synchronous=FULL``, as the server runs it) or a
PostgreSQL URL, with nothing else running in the process, so the figures are the writes' own.

Usage: python benchmarks/storage.py [--games 200] [--batch 6] [--database URL] [--rounds 3]
                                    [--src CHECKOUT ...] [--json]

Each ``--src`` checkout (its ``src`` directory first on the path; none: the installed package) is
measured in its own process, the checkouts taking turns round after round, so two versions are
compared on the same machine within the same minutes.  Printed per kind of write: the median, over
the rounds, of its mean CPU and wall time in milliseconds, and the CPU per game.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import checkouts

PLAYERS = 4
MOVES = 36  # about a 4-player Masker game's


def measure(database: str, games: int, batch: int) -> dict[str, list[float]]:
    """Each write's (CPU, wall) seconds, by kind, over ``games`` games."""
    from masques.server.storage import Append, NewMatch, NewSeat, Storage, Turn

    storage = Storage(database)
    storage.migrate()
    spent: dict[str, list[float]] = {}

    def timed(kind: str, write: Any) -> Any:
        cpu, wall = time.thread_time(), time.perf_counter()
        result = write()
        spent.setdefault(kind + " cpu", []).append(time.thread_time() - cpu)
        spent.setdefault(kind + " wall", []).append(time.perf_counter() - wall)
        return result

    clock = {"kind": "fischer", "base": 300, "increment": 5, "remaining": [300.0] * PLAYERS}
    end = {"reason": "played", "seats": [1, 3], "winners": [0, 2]}
    try:
        for game in range(games):
            ids = [f"{os.getpid():08x}{game * batch + n:08x}" for n in range(batch)]
            for match_id in ids:  # a batch commits the moves of ``batch`` tables at once
                seats = [NewSeat("human") for _ in range(PLAYERS)]
                spec = NewMatch(match_id, "masker", "1", {"players": PLAYERS}, 5, seats, owner="bench")
                timed("create", lambda spec=spec: storage.create_match(spec))
                for seat in range(PLAYERS):
                    timed(
                        "claim",
                        lambda m=match_id, seat=seat: storage.claim_seat(
                            m, seat, f"P{seat}", f"t-{m}-{seat}"
                        ),
                    )
                timed("start", lambda m=match_id: storage.start_match(m, Turn(0, clock, 1e9)))
            for number in range(MOVES - 1):
                moves = [
                    Append(m, number, number % PLAYERS, 3, Turn((number + 1) % PLAYERS, clock)) for m in ids
                ]
                timed("moves", lambda moves=moves: storage.append_actions(moves))
            for match_id in ids:
                timed(
                    "last move",
                    lambda m=match_id: storage.append_action(
                        m, MOVES - 1, (MOVES - 1) % PLAYERS, 3, "finished", end=end, turn=Turn(None)
                    ),
                )
    finally:
        storage.dispose()
    return spent


def worker(database: str | None, games: int, batch: int) -> dict[str, float]:
    """One round: the mean of each kind, on a fresh SQLite file or a clean PostgreSQL schema."""
    if database is None:
        with tempfile.TemporaryDirectory(prefix="masques-storage-") as folder:
            spent = measure(f"sqlite:///{Path(folder) / 'bench.sqlite3'}", games, batch)
    else:
        from sqlalchemy import text

        from masques.server.storage import Storage

        if database.startswith("postgresql"):
            storage = Storage(database)
            with storage.engine.begin() as connection:
                connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
            storage.dispose()
        spent = measure(database, games, batch)
    return {kind: statistics.fmean(values) for kind, values in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per round (default 200)")
    parser.add_argument("--batch", type=int, default=6, help="tables whose moves share a commit (6)")
    parser.add_argument("--database", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
    checkouts.add_options(parser)
    args = parser.parse_args()
    games = max(1, args.games // max(1, args.batch))
    if args.worker:
        print(json.dumps(worker(args.database, games, args.batch)))
        return
    worker_args = ["--games", str(args.games), "--batch", str(args.batch)]
    if args.database:
        worker_args += ["--database", args.database]
    rounds = checkouts.in_turn(__file__, args.src, args.rounds, worker_args)
    per_write = {"create": 1, "claim": PLAYERS, "start": 1, "moves": (MOVES - 1) / args.batch, "last move": 1}
    table: dict[str, Any] = {}
    for name, figures in rounds.items():
        medians = {k: 1000 * statistics.median(r[k] for r in figures) for k in figures[0]}
        medians["game cpu"] = sum(medians[f"{kind} cpu"] * count for kind, count in per_write.items())
        table[name] = medians
    if args.json:
        print(json.dumps(table, indent=2))
        return
    kinds = [*per_write, "game"]
    print(
        f"ms per write (median of {args.rounds} rounds of {games * args.batch} games;"
        f" moves: a batch of {args.batch})"
    )
    print(f"{'checkout':40s} " + " ".join(f"{k + ' cpu':>13s}" for k in kinds))
    for name, medians in table.items():
        print(f"{name[-40:]:40s} " + " ".join(f"{medians[k + ' cpu']:13.3f}" for k in kinds))
    print(f"{'':40s} " + " ".join(f"{k + ' wall':>13s}" for k in per_write))
    for name, medians in table.items():
        print(f"{name[-40:]:40s} " + " ".join(f"{medians[k + ' wall']:13.3f}" for k in per_write))


if __name__ == "__main__":
    main()
