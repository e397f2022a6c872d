"""How much two cores of this machine give a bot worker: the same bot decisions in one process, then
in two processes at once (each on its own core, nothing else running).

Usage: python benchmarks/cores.py [--level medium] [--seconds S] [--processes 2]

A bot worker's decision is pure CPU (the search of ``bot_move``, which ``masques worker`` runs), so
decisions/s with N processes over one is the most that N workers can give on this machine, whatever
the server and the queue do.  It also reports the CPU time one decision takes alone and with the
other processes running: on shared hardware (virtual cores, caches, memory bandwidth) a decision
costs more CPU when its neighbours work too, which lowers that ceiling below N.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from typing import Any

from masques.engine import load_game
from masques.server.bots import bot_move

GAME, OPTIONS = "masker", {"players": 2}


def positions(count: int) -> list[tuple[int, Any, list[int]]]:
    """Positions of random Masker games, as a worker receives them (seat, observation, legal)."""
    rng = random.Random(7)
    found: list[tuple[int, Any, list[int]]] = []
    game = load_game(GAME, OPTIONS)
    while len(found) < count:
        state = game.new_initial_state(rng.randrange(2**31))
        while not state.is_terminal() and len(found) < count:
            seat = state.current_player
            found.append((seat, state.observation(seat), state.legal_actions()))
            for _ in range(rng.randrange(1, 6)):
                if state.is_terminal():
                    break
                state.apply(rng.choice(state.legal_actions()))
    return found


def decide(level: str, seconds: float, start: float, out: Any) -> None:
    """Make decisions from ``start`` (wall clock) for ``seconds``; report count and CPU seconds."""
    todo = positions(200)
    while time.time() < start:
        time.sleep(0.001)
    cpu0, n = time.process_time(), 0
    while time.time() < start + seconds:
        seat, observation, legal = todo[n % len(todo)]
        bot_move(GAME, OPTIONS, level, seat, observation=observation, legal=legal, rng=random.Random(n))
        n += 1
    out.put((n, time.process_time() - cpu0))


def run(processes: int, level: str, seconds: float) -> tuple[float, float]:
    """Decisions/s over all processes, and CPU ms per decision."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    start = time.time() + 3.0  # every process has imported and built its positions by then
    procs = [context.Process(target=decide, args=(level, seconds, start, queue)) for _ in range(processes)]
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=seconds + 120) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    decisions = sum(n for n, _ in results)
    cpu = sum(c for _, c in results)
    return decisions / seconds, 1000 * cpu / max(decisions, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--level", default="medium", help="bot level (default medium, as the site benchmark)")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of each run (default 20)")
    parser.add_argument("--processes", type=int, default=2, help="processes of the second run (default 2)")
    args = parser.parse_args()
    if not 0 < args.seconds <= 600 or not 2 <= args.processes <= 64:
        parser.error("--seconds is 0..600 and --processes 2..64")
    print(
        f"{GAME} {OPTIONS}, {args.level} decisions, {args.seconds:g} s each, "
        f"{multiprocessing.cpu_count()} CPUs"
    )
    one, one_cpu = run(1, args.level, args.seconds)
    print(f"  1 process:   {one:6.1f} decisions/s, {one_cpu:6.1f} ms CPU per decision")
    many, many_cpu = run(args.processes, args.level, args.seconds)
    print(f"  {args.processes} processes: {many:6.1f} decisions/s, {many_cpu:6.1f} ms CPU per decision")
    print(
        f"  {args.processes} over 1: {many / one:.2f}x decisions/s; "
        f"a decision costs {many_cpu / one_cpu:.2f}x the CPU"
    )


if __name__ == "__main__":
    main()
