"""Masker: how often the greedy bot beats random bots, on fixed deals.

    python benchmarks/masker_greedy.py --games 2000 [--players 2] [--variant 2d] [--workers 2]

Game k is dealt with seed ``--start + k``; the greedy bot sits at seat ``k % players`` (with 4
players its partner at the opposite seat is greedy too, MK-3) and the other seats are random bots.
Prints the greedy side's wins (a shared win counts whole) and how each lost game ended.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from collections import Counter

from masques.ai.bots import make_bot
from masques.engine import JSON, load_game
from masques.games.masker.game import MaskerState


def play(args: tuple[int, int, str]) -> tuple[bool, str]:
    seed, players, variant = args
    game = load_game("masker", {"players": players, "variant": variant})
    state = game.new_initial_state(seed)
    assert isinstance(state, MaskerState)
    greedy_seat = seed % players
    seats = ["random"] * players
    seats[greedy_seat] = "greedy"
    if players == 4:
        seats[(greedy_seat + 2) % 4] = "greedy"
    bots = [make_bot(kind, "masker") for kind in seats]
    rngs = [random.Random(seed * 1000 + s) for s in range(players)]
    histories: list[list[JSON]] = [[state.observation(s)] for s in range(players)]
    ending = "stuck"
    while not state.is_terminal():
        seat = state.current_player
        action = bots[seat].act(game, seat, histories[seat], state.legal_actions(), rngs[seat])
        was_out = state.eliminated[greedy_seat]
        state.apply(action)
        if state.eliminated[greedy_seat] and not was_out:
            ending = (
                "greedy took its own last cross"
                if seat == greedy_seat
                else "a random bot took greedy's last cross"
            )
        for s in range(players):
            histories[s].append(state.observation(s))
    won = state.returns()[greedy_seat] > 0
    if not state.eliminated[greedy_seat] and not state.stuck_end:
        ending = "greedy lost its colour later" if not won else "won"
    return won, "won" if won else ending


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--variant", default="2d", choices=("2d", "3d"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(args.start + k, args.players, args.variant) for k in range(args.games)]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(play, jobs, chunksize=20)
    wins = sum(won for won, _ in results)
    share = 2 / args.players if args.players == 4 else 1 / args.players
    print(
        f"masker {args.variant}, {args.players} players: greedy won {wins} of {args.games} "
        f"({wins / args.games:.1%}; fair share {share:.0%})"
    )
    for ending, count in Counter(e for won, e in results if not won).most_common():
        print(f"  lost: {ending}: {count}")


if __name__ == "__main__":
    main()
