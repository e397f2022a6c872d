"""The arena: bots play each other in every seating, and OpenSkill (Plackett-Luce) rates them.

A game's seats are filled from the bot list: when there are at least as many bots as seats, every
choice of distinct bots in every rotation of the seats; otherwise the list is repeated round the
table and rotated.  Games run in parallel on local processes.  Each game is independent and seeded
(seed = base seed + game index), so a table can be reproduced exactly.  A game's deal and each
seat's bot draw from separate streams of that seed (``engine/chance.py``: ``"<game>/deal"``,
``"arena/seat/N"``), through the chance version the game records (results written before version 2
have none and are version 1).

Long runs keep a journal (``OUT.games.jsonl``): one line per finished game, written as it finishes,
so a run that is stopped can be resumed where it was (``masques arena ... --resume``) instead of
starting again.  A journal is only valid for the code that wrote it: resume with the same bots.
"""

from __future__ import annotations

import csv
import io
import json
import math
import multiprocessing
import socket
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from ..engine import JSON, load_game
from ..engine.chance import CHANCE_VERSION, LEGACY_CHANCE, check_version, stream
from ..extras import available, require
from .bots import make_bot

MAX_GAMES = 1_000_000
"""The most games one schedule holds: each is planned in memory before any is played."""


@dataclass(frozen=True)
class GameSpec:
    game: str
    options: dict[str, JSON]
    seats: tuple[str, ...]
    seed: int
    chance: int = CHANCE_VERSION


@dataclass(frozen=True)
class GameResult:
    spec: GameSpec
    returns: tuple[float, ...]
    scores: tuple[float, ...]
    moves: int


def seatings(bots: list[str], num_players: int) -> list[tuple[str, ...]]:
    """Every seating the arena plays (see the module docstring)."""
    if len(bots) >= num_players:
        out = []
        for group in combinations(bots, num_players):
            for shift in range(num_players):
                out.append(tuple(group[(i + shift) % num_players] for i in range(num_players)))
        return out
    table = [bots[i % len(bots)] for i in range(num_players)]
    return [
        tuple(table[(i + shift) % num_players] for i in range(num_players)) for shift in range(num_players)
    ]


def schedule(
    game: str,
    options: dict[str, JSON],
    bots: list[str],
    games: int,
    seed: int = 0,
    *,
    per_pairing: int | None = None,
    groups: list[tuple[tuple[str, ...], int]] | None = None,
    chance: int = CHANCE_VERSION,
) -> list[GameSpec]:
    """The games to play, seeded ``seed``, ``seed + 1``, ... in order.

    By default ``games`` games spread evenly over the seatings (each seating at least once; none when
    ``games`` is 0).  With
    ``per_pairing``, every choice of distinct bots (a pairing, for two seats) plays that many games,
    its seatings rotating.  ``groups`` adds games for given tables, e.g. ``(("expert", "hard"), 40)``:
    that is how an expensive bot plays only the pairings that matter at the size they need.
    ``chance`` is the chance generator's version the games draw from.  A group names at most as many
    bots as the game has seats (ValueError otherwise: the extra bots would never play).
    """
    n = load_game(game, options).num_players
    for group, _count in groups or []:
        if len(group) > n:
            raise ValueError(f"the group {':'.join(group)} names {len(group)} bots; {game} has {n} seats")
    planned = planned_games(n, len(bots), games, per_pairing=per_pairing, groups=groups)
    if planned > MAX_GAMES:
        raise ValueError(f"that is {planned} games; one run plays at most {MAX_GAMES}")
    plans: list[tuple[str, ...]] = []
    if per_pairing is None:
        if bots and games > 0:
            rotations = seatings(bots, n)
            plans = [rotations[i % len(rotations)] for i in range(max(games, len(rotations)))]
    else:
        for group in combinations(bots, n) if len(bots) >= n else [tuple(bots)]:
            plans += _rotated(list(group), n, per_pairing)
    for group, count in groups or []:
        plans += _rotated(list(group), n, count)
    return [GameSpec(game, options, plan, seed + i, chance) for i, plan in enumerate(plans)]


def planned_games(
    num_players: int,
    bots: int,
    games: int,
    *,
    per_pairing: int | None = None,
    groups: list[tuple[tuple[str, ...], int]] | None = None,
) -> int:
    """How many games ``schedule`` plans, counted without planning them."""
    tables = math.comb(bots, num_players) if bots >= num_players else 1
    if per_pairing is None:
        total = max(games, tables * num_players) if bots and games > 0 else 0
    else:
        total = tables * per_pairing
    return total + sum(max(0, count) for _group, count in groups or [])


def _rotated(group: list[str], num_players: int, count: int) -> list[tuple[str, ...]]:
    """``count`` games of one group of bots, cycling through its seatings."""
    rotations = (
        seatings(group, num_players)
        if len(group) < num_players
        else [
            tuple(group[(i + shift) % num_players] for i in range(num_players))
            for shift in range(num_players)
        ]
    )
    return [rotations[i % len(rotations)] for i in range(count)]


def play(spec: GameSpec) -> GameResult:
    """Play one game between bots; each bot sees only its own seat's observations."""
    game = load_game(spec.game, spec.options)
    state = game.new_initial_state(spec.seed, chance=spec.chance)
    bots = [make_bot(kind, spec.game) for kind in spec.seats]
    rngs = [stream(spec.seed, f"arena/seat/{seat}", version=spec.chance) for seat in range(game.num_players)]
    histories: list[list[JSON]] = [[state.observation(s)] for s in range(game.num_players)]
    while not state.is_terminal():
        seat = state.current_player
        action = bots[seat].act(game, seat, histories[seat], state.legal_actions(), rngs[seat])
        state.apply(action)
        for s in range(game.num_players):
            histories[s].append(state.observation(s))
    return GameResult(spec, tuple(state.returns()), tuple(state.scores()), len(state.history))


@dataclass
class BotStats:
    name: str
    games: int = 0
    wins: float = 0.0  # shared wins count fractionally
    mu: float = 25.0
    sigma: float = 25.0 / 3
    against: dict[str, list[float]] = field(default_factory=dict)  # opponent -> [score, games, wins]

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def ranks_from_returns(returns: Sequence[float]) -> list[int]:
    """OpenSkill ranks (0 is first) from a game's returns: the best return ranks 0, the next best 1,
    and equal returns share a rank.  Whole numbers: openskill truncates each rank to an integer, so
    the returns negated (a shared win's -0.5 next to a loss's 0) would rate a shared win as a draw."""
    order = sorted(set(returns), reverse=True)
    return [order.index(r) for r in returns]


def rate(results: list[GameResult]) -> dict[str, BotStats]:
    """OpenSkill Plackett-Luce ratings from game results, in schedule order (reproducible)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    stats: dict[str, BotStats] = {}
    for result in sorted(results, key=lambda r: r.spec.seed):
        seats = result.spec.seats
        for name in seats:
            ratings.setdefault(name, model.rating(name=name))
            stats.setdefault(name, BotStats(name))
        ranks = ranks_from_returns(result.returns)
        updated = model.rate([[ratings[name]] for name in seats], ranks=[float(r) for r in ranks])
        # A bot in several seats of one game gets the mean of its seats' updates.
        merged: dict[str, list[Any]] = {}
        for name, (rating,) in zip(seats, updated, strict=True):
            merged.setdefault(name, []).append(rating)
        for name, items in merged.items():
            r = ratings[name]
            r.mu = sum(i.mu for i in items) / len(items)
            r.sigma = sum(i.sigma for i in items) / len(items)
        for seat, name in enumerate(seats):
            s = stats[name]
            s.games += 1
            s.wins += result.returns[seat]
            for other_seat, other in enumerate(seats):
                if other_seat == seat or other == name:
                    continue
                pair = s.against.setdefault(other, [0.0, 0.0, 0.0])
                pair[1] += 1
                mine, theirs = result.returns[seat], result.returns[other_seat]
                beat = mine > theirs
                pair[0] += 1.0 if beat else (0.5 if mine == theirs else 0.0)
                pair[2] += 1.0 if beat else 0.0
    for name, s in stats.items():
        s.mu, s.sigma = ratings[name].mu, ratings[name].sigma
    return stats


def run(
    specs: list[GameSpec],
    *,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    ray_address: str | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> list[GameResult]:
    """Play every game, on ``workers`` local processes (1 = in this process) or on a Ray cluster.
    ``on_result`` sees each result as soon as its game ends (the journal)."""

    def finished(result: GameResult) -> None:
        results.append(result)
        if on_result:
            on_result(result)
        if progress:
            progress(len(results), len(specs))

    results: list[GameResult] = []
    if ray_address:
        _run_on_ray(specs, ray_address, finished)
        return results
    workers = workers or multiprocessing.cpu_count()
    if workers <= 1:
        for result in map(play, specs):
            finished(result)
        return results
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for result in pool.imap_unordered(play, specs):
            finished(result)
    return results


def result_from_json(data: Any) -> GameResult:
    """A result as ``results_json`` or the journal wrote it (ValueError if it is not one: fields
    missing or of the wrong type, a return or score per seat that is not a finite number, a move
    count that is not a whole number)."""
    try:
        spec = data["spec"]
        seats = spec["seats"]
        if not isinstance(seats, list | tuple) or not seats or not all(isinstance(b, str) for b in seats):
            raise ValueError("'seats' must be a list of bot names")
        options = spec["options"]
        if not isinstance(options, dict):
            raise ValueError("'options' must be an object")
        result = GameResult(
            GameSpec(
                str(spec["game"]),
                dict(options),
                tuple(seats),
                _whole(spec["seed"], "seed"),
                check_version(spec.get("chance", LEGACY_CHANCE)),
            ),
            _per_seat(data["returns"], len(seats), "returns"),
            _per_seat(data["scores"], len(seats), "scores"),
            _whole(data["moves"], "moves"),
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise ValueError(f"not a game result: {exc}") from None
    return result


def _whole(value: Any, name: str) -> int:
    """A whole number at least 0 (a seed may be written as its decimal string)."""
    if isinstance(value, str) and value.isdecimal():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name!r} must be a whole number")
    return value


def _per_seat(values: Any, seats: int, name: str) -> tuple[float, ...]:
    """One finite number per seat."""
    if (
        not isinstance(values, list | tuple)
        or len(values) != seats
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        or not all(math.isfinite(v) for v in values)
    ):
        raise ValueError(f"{name!r} must be a finite number per seat ({seats})")
    return tuple(float(v) for v in values)


class Journal:
    """Finished games of one run, a JSON line each, appended as they finish (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self, specs: list[GameSpec]) -> list[GameResult]:
        """The journal's results for games of ``specs``; ValueError if it holds games of another run."""
        if not self.path.exists():
            return []
        wanted = {journal_key(spec) for spec in specs}
        found: dict[tuple[str, str, tuple[str, ...], int, int], GameResult] = {}
        lines = self.path.read_text("utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == len(lines):
                    continue  # the line a stopped run was writing
                raise ValueError(f"{self.path}:{number}: not a game result: {exc}") from None
            except (RecursionError, ValueError):  # nested too deeply, a number too long
                raise ValueError(f"{self.path}:{number}: not a game result (unreadable JSON)") from None
            try:
                result = result_from_json(data)
            except ValueError as exc:
                raise ValueError(f"{self.path}:{number}: {exc}") from None
            if journal_key(result.spec) not in wanted:
                raise ValueError(
                    f"{self.path}:{number}: a game this command does not schedule "
                    f"(seed {result.spec.seed}, seats {', '.join(result.spec.seats)}): "
                    "the journal belongs to another run; delete it or use another --out"
                )
            found[journal_key(result.spec)] = result
        return list(found.values())

    def start(self, kept: list[GameResult]) -> None:
        """Rewrite the journal with the results kept (dropping a half-written last line)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(map(_journal_line, kept)), "utf-8")

    def add(self, result: GameResult) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(_journal_line(result))

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _journal_line(result: GameResult) -> str:
    return json.dumps(asdict(result)) + "\n"


def journal_key(spec: GameSpec) -> tuple[str, str, tuple[str, ...], int, int]:
    """What identifies a game in the journal: game, options, seats, seed and chance version."""
    return (spec.game, json.dumps(spec.options, sort_keys=True), tuple(spec.seats), spec.seed, spec.chance)


class RayUnreachableError(Exception):
    """The Ray cluster named could not be joined (the reason in words)."""


RAY_CONNECT_SECONDS = 10.0
"""How long a cluster's address may take to answer before the arena gives up on it."""


def check_ray_address(address: str, timeout: float = RAY_CONNECT_SECONDS) -> None:
    """Refuse a cluster address (``host:port``, ``ray://host:port``) nothing answers at: Ray itself
    would try to join it for ever, printing its own retries.  ``auto`` and ``local`` are Ray's to
    resolve."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        why = exc.strerror or ("no answer" if isinstance(exc, TimeoutError) else type(exc).__name__)
        raise RayUnreachableError(f"cannot reach the Ray cluster at {address}: {why}") from None


def _run_on_ray(specs: list[GameSpec], address: str, finished: Callable[[GameResult], None]) -> None:
    """One Ray task per game on the cluster at ``address`` (its workers need masques installed)."""
    import os

    check_ray_address(address)

    # Keep a cluster started on this machine on the loopback interface.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnreachableError(f"cannot reach the Ray cluster at {address}: {why}") from None
    try:
        remote_play = ray.remote(play)
        pending = [remote_play.remote(spec) for spec in specs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            finished(ray.get(ready[0]))
    finally:
        ray.shutdown()


def table(stats: dict[str, BotStats]) -> list[dict[str, JSON]]:
    """Rows sorted by rating (ordinal = mu - 3 sigma), best first."""
    rows = []
    for s in sorted(stats.values(), key=lambda s: s.ordinal, reverse=True):
        rows.append(
            {
                "bot": s.name,
                "mu": round(s.mu, 3),
                "sigma": round(s.sigma, 3),
                "ordinal": round(s.ordinal, 3),
                "games": s.games,
                "win_rate": round(s.win_rate, 4),
                # score against each opponent (a draw counts one half), and the share of games won outright
                "head_to_head": {o: round(p[0] / p[1], 4) for o, p in sorted(s.against.items()) if p[1]},
                "head_to_head_wins": {o: round(p[2] / p[1], 4) for o, p in sorted(s.against.items()) if p[1]},
                "head_to_head_games": {o: int(p[1]) for o, p in sorted(s.against.items())},
            }
        )
    return rows


def write_outputs(rows: list[dict[str, JSON]], meta: dict[str, JSON], out: Path) -> list[Path]:
    """``out.json`` (meta + table), ``out.csv`` and ``out.png`` (rating with +-2 sigma per bot; only
    with matplotlib, the ``plots`` extra: the table does not need it)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    json_path = out.with_suffix(".json")
    json_path.write_text(json.dumps({**meta, "table": rows}, indent=2) + "\n", "utf-8")
    csv_path = out.with_suffix(".csv")
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["bot", "mu", "sigma", "ordinal", "games", "win_rate"])
    for r in rows:
        writer.writerow([r["bot"], r["mu"], r["sigma"], r["ordinal"], r["games"], r["win_rate"]])
    csv_path.write_text(buffer.getvalue(), "utf-8")
    if not available("matplotlib"):
        return [json_path, csv_path]
    png_path = out.with_suffix(".png")
    _plot(rows, str(meta.get("title", "")), png_path)
    return [json_path, csv_path, png_path]


def _plot(rows: list[dict[str, JSON]], title: str, path: Path) -> None:
    require("matplotlib", "the arena's rating plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [str(r["bot"]) for r in rows][::-1]
    mus = [float(r["mu"]) for r in rows][::-1]
    sigmas = [2 * float(r["sigma"]) for r in rows][::-1]
    fig, ax = plt.subplots(figsize=(7, 1 + 0.5 * len(rows)))
    ax.errorbar(mus, range(len(names)), xerr=sigmas, fmt="o", capsize=4)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("OpenSkill rating (mu, bars: 2 sigma)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def results_json(results: list[GameResult]) -> list[dict[str, JSON]]:
    return [asdict(r) for r in sorted(results, key=lambda r: r.spec.seed)]
