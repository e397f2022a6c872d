"""The server's own work for a person's move, without the network: the move checked, committed
(SQLite, ``synchronous=FULL``, moves arriving together sharing a commit), applied, and every
connected seat's view built and queued; then the views are written to connections that take them
at once.  This is the part of a move's round trip that one web process does on its event loop.

Usage: python benchmarks/moves.py [--tables 20] [--moves 10000] [--rounds 3] [--src CHECKOUT ...]
                                  [--json]

``--tables`` 4-player Masker tables play at once, one move each in turn round the tables (each
table's next game made as one ends), every seat connected.  Each ``--src`` checkout (its ``src``
first on the path; none: the installed package) runs in a process of its own, the checkouts taking
turns round after round.  Printed: the process's CPU per move (both threads: the event loop's and
the database writer's; the median and the best of the rounds, since a shared machine only ever adds
to it), and the moves per second of one process doing nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import checkouts

PLAYERS = 4


async def play(folder: Path, tables: int, moves: int) -> dict[str, float]:
    from masques.server.limits import Limits
    from masques.server.matches import Client, Registry
    from masques.server.storage import Storage, hash_token

    storage = Storage(f"sqlite:///{folder / 'moves.sqlite3'}")
    storage.migrate()
    limits = Limits(rates={}, max_bot_matches=10_000, max_spectators=10_000, any_seed=True)
    registry = Registry(storage, limits=limits, bot_workers=1)
    written = 0

    async def taken(_text: str) -> None:
        nonlocal written
        written += 1

    async def table(number: int) -> Any:
        match = await registry.create("masker", {"players": PLAYERS}, ["human"] * PLAYERS, seed=number)
        clients = []
        for seat in range(PLAYERS):
            _, token = await registry.join(match, f"P{seat}", seat)
            client = Client(seat, taken, seat_token=hash_token(token))
            await registry.connect(match, client)
            clients.append((client, asyncio.get_running_loop().create_task(client.pump())))
        return match, clients

    rng = random.Random(1)
    try:
        running = [await table(n) for n in range(tables)]
        made = tables

        async def one_move(index: int) -> None:
            nonlocal made
            match, clients = running[index]
            if match.status != "running":
                for client, pump in clients:
                    client.drop()
                    await registry.disconnect(match, client)
                    pump.cancel()
                running[index] = await table(made)
                made += 1
                match, clients = running[index]
            seat = match.state.current_player
            action = rng.choice(match.state.legal_actions())
            await registry.submit(match, seat, action, match.version, holder=clients[seat][0])

        await asyncio.gather(*(one_move(n) for n in range(tables)))  # warm up
        cpu, wall = time.process_time(), time.perf_counter()
        done = 0
        while done < moves:
            await asyncio.gather(*(one_move(n) for n in range(tables)))
            done += tables
        await asyncio.sleep(0)
        return {
            "cpu_ms_per_move": 1000 * (time.process_time() - cpu) / done,
            "wall_ms_per_move": 1000 * (time.perf_counter() - wall) / done,
            "moves": done,
            "games": made - tables,
            "views_written": written,
        }
    finally:
        registry.close()
        storage.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20, help="tables playing at once (default 20)")
    parser.add_argument("--moves", type=int, default=10_000, help="moves timed per round (default 10,000)")
    checkouts.add_options(parser)
    args = parser.parse_args()
    tables, moves = max(1, args.tables), max(1, args.moves)
    if args.worker:
        with tempfile.TemporaryDirectory(prefix="masques-moves-") as folder:
            print(json.dumps(asyncio.run(play(Path(folder), tables, moves))))
        return
    rounds = checkouts.in_turn(
        __file__, args.src, args.rounds, ["--tables", str(tables), "--moves", str(moves)]
    )
    table: dict[str, dict[str, Any]] = {
        name: {
            "cpu_ms_per_move": statistics.median(r["cpu_ms_per_move"] for r in figures),
            "best_cpu_ms_per_move": min(r["cpu_ms_per_move"] for r in figures),
            "wall_ms_per_move": statistics.median(r["wall_ms_per_move"] for r in figures),
            "rounds_cpu_ms": [round(r["cpu_ms_per_move"], 4) for r in figures],
        }
        for name, figures in rounds.items()
    }
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{tables} tables of 4-player Masker, {moves} moves a round, median of {args.rounds} rounds")
    first = next(iter(table.values()))
    for name, figures in table.items():
        ratio = figures["cpu_ms_per_move"] / first["cpu_ms_per_move"]
        best = figures["best_cpu_ms_per_move"] / first["best_cpu_ms_per_move"]
        print(
            f"{name[-40:]:40s} CPU {figures['cpu_ms_per_move']:.3f} ms/move ({ratio:.2f}x the first;"
            f" best {figures['best_cpu_ms_per_move']:.3f}, {best:.2f}x)"
            f"  wall {figures['wall_ms_per_move']:.3f} ms/move"
            f" ({1000 / figures['wall_ms_per_move']:.0f} moves/s)"
            f"  rounds {figures['rounds_cpu_ms']}"
        )


if __name__ == "__main__":
    main()
