"""Analysis of a finished match for one seat, and hints in casual matches against bots.

An analysis judges each decision the seat made (those with more than one legal move) with the
analysis level's bot (``Limits.analysis_level``, the expert by default), from that seat's
observation at the time only: the bot's input is exactly what a bot playing the seat would have
been given, so the values can reflect nothing the seat could not see.  The decisions are judged in
the bot workers, through the same fair queue as the bots' moves, all analyses under one owner of
their own: the queue never gives one owner its last free worker, so however many analyses are asked
for, live matches' bots and hints always have a worker (with one owner per analysis, two analyses
held both workers of a two-core machine, and a bot's move waited a whole expert decision).  At most
``MAX_RUNNING`` analyses run at once in a process.
The result is kept in storage per match and seat; its player may share it with anyone.

A hint is the hint level's move for the seat's current decision, offered only in casual matches where
every other seat is a bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..ai.analysis import judge
from ..engine import load_game
from .bots import Job, bot_move
from .errors import ServerError
from .matches import LiveMatch, Registry, initial_state
from .storage import AnalysisRow

log = logging.getLogger("masques.server.analysis")

HINT_LEVEL = "hard"
"""The bot whose move a hint shows."""

MAX_RUNNING = 2
"""Analyses computed at once in one server process (the others wait their turn)."""

QUEUE_OWNER = "analyses"
"""The fair queue's owner of every analysis's decisions (see the module's docstring)."""

MOMENTS = 3
"""How many of the largest drops an analysis points out."""

FAILURE_KEPT_SECONDS = 600.0
"""How long a failed analysis's error is told to its player (then: none was asked for)."""


def judge_decision(
    game_name: str,
    options: dict[str, Any],
    level: str,
    seat: int,
    *,
    observation: Any,
    legal: list[int],
    played: int,
    rng: random.Random,
) -> tuple[int, float, float]:
    """Runs in a worker process: (preferred move, chance before, chance after the move played)."""
    game = load_game(game_name, options)
    verdict = judge(game, seat, [observation], legal, played, rng=rng, level=level)
    return verdict.best, verdict.chance, verdict.after


@dataclass
class Decision:
    """One of the seat's decisions: where it was, what the seat saw, and the moves' notation."""

    ply: int
    turn: int
    observation: Any
    legal: list[int]
    played: int
    moves: dict[int, dict[str, Any]]  # every legal move's id, label and structured form


def decisions(match: LiveMatch, seat: int) -> Callable[[], list[Decision]]:
    """A job (off the event loop) that replays the match and collects the seat's decisions."""
    game, seed, chance = match.game, match.seed, match.chance
    actions, actors = list(match.state.history), list(match.actors)

    def collect() -> list[Decision]:
        state = initial_state(game, seed, chance)
        out: list[Decision] = []
        turn = 0
        for ply, action in enumerate(actions):
            if actors[ply] == seat:
                legal = state.legal_actions()
                if len(legal) > 1:
                    turn += 1
                    moves = {
                        a: {"id": a, "label": state.action_to_str(a), "move": state.action_to_json(a)}
                        for a in legal
                    }
                    out.append(Decision(ply, turn, state.observation(seat), legal, action, moves))
            state.apply(action)
        return out

    return collect


@dataclass
class Progress:
    done: int = 0
    total: int = 0
    task: asyncio.Task[None] | None = None
    error: str | None = None

    def status(self) -> dict[str, Any]:
        return {"status": "running", "done": self.done, "total": self.total}


@dataclass
class Analyses:
    """The analyses this process computes, and the ones storage keeps."""

    registry: Registry
    running: dict[tuple[str, int], Progress] = field(default_factory=dict)
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(MAX_RUNNING))

    @property
    def level(self) -> str:
        return self.registry.limits.analysis_level

    async def start(self, match: LiveMatch, seat: int) -> tuple[int, dict[str, Any]]:
        """The seat's analysis (200) or its progress (202), starting it when nobody has."""
        await self.registry.caught_up(match)
        if match.status != "finished":
            raise ServerError(409, "match_not_finished", "a match can be analysed once it is over")
        if match.bot_took_over(seat):
            raise ServerError(
                409, "seat_is_bot", "a bot played this seat for you to the end: its decisions are not yours"
            )
        key = (match.id, seat)
        # Looked up before storage is read, as in :meth:`read`: a run that ends meanwhile has saved
        # its analysis by then, and is read again rather than computed a second time.
        before = self.running.get(key)
        kept = await asyncio.to_thread(self.registry.storage.analysis, match.id, seat)
        if kept is None and before is not None and before.task is not None and before.task.done():
            kept = await asyncio.to_thread(self.registry.storage.analysis, match.id, seat)
        if kept is not None:
            return 200, body_of(kept)
        progress = self.running.get(key)
        if progress is None or (progress.task is not None and progress.task.done()):
            progress = self.running[key] = Progress()
            progress.task = asyncio.get_running_loop().create_task(self._run(match, seat, progress))
        return 202, progress.status()

    async def read(self, match: LiveMatch, seat: int, viewer: int | None) -> tuple[int, dict[str, Any]]:
        """What ``viewer`` (a seat, or None for anyone else) may read of the seat's analysis: done,
        running (202), or for its own player ``{"status": "none"}`` while nobody asked for it."""
        if seat < 0 or seat >= len(match.seats):
            raise ServerError(400, "bad_seat", f"seat must be 0..{len(match.seats) - 1}")
        # The run is looked up before storage is read: one that ends while storage is read has saved
        # its analysis by then (it leaves ``running`` only once saved).
        progress = self.running.get((match.id, seat))
        kept = await asyncio.to_thread(self.registry.storage.analysis, match.id, seat)
        if kept is None and progress is not None and progress.task is not None and progress.task.done():
            kept = await asyncio.to_thread(self.registry.storage.analysis, match.id, seat)
        if kept is not None and (viewer == seat or kept.shared):
            return 200, body_of(kept)
        if viewer != seat:
            raise ServerError(403, "not_shared", "only its player may read this analysis until it is shared")
        if progress is not None and progress.task is not None and not progress.task.done():
            return 202, progress.status()
        if progress is not None and progress.error is not None:
            raise ServerError(503, "analysis_failed", progress.error)
        return 200, {"status": "none"}  # not asked for: an answer, not a missing page

    async def share(self, match: LiveMatch, seat: int) -> dict[str, Any]:
        shared = await asyncio.to_thread(self.registry.storage.share_analysis, match.id, seat)
        if not shared:
            raise ServerError(404, "no_analysis", "there is no finished analysis to share yet")
        return {"shared": True, "url": f"/match/{match.id}/analysis/{seat}"}

    async def _run(self, match: LiveMatch, seat: int, progress: Progress) -> None:
        try:
            async with self.slots:
                found: list[Decision] = await self.registry.heavy_read(decisions(match, seat), QUEUE_OWNER)
                progress.total = len(found)
                body = await self._judge_all(match, seat, found, progress)
            row = AnalysisRow(match_id=match.id, seat=seat, level=self.level, body=body)
            await asyncio.to_thread(self.registry.storage.save_analysis, row)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("analysis of match %s seat %s failed: %s", match.id, seat, type(exc).__name__)
            progress.error = "the analysis could not be computed; ask again later"
        finally:
            if progress.error is None:
                self.running.pop((match.id, seat), None)
            else:  # told for a while, then let go of: failures must not pile up in memory
                asyncio.get_running_loop().call_later(
                    FAILURE_KEPT_SECONDS, self._forget_failure, (match.id, seat), progress
                )

    def _forget_failure(self, key: tuple[str, int], progress: Progress) -> None:
        if self.running.get(key) is progress:  # not asked again meanwhile
            del self.running[key]

    async def _judge_all(
        self, match: LiveMatch, seat: int, found: list[Decision], progress: Progress
    ) -> dict[str, Any]:
        name, options, level = match.game.name, match.game.options, self.level
        owner = QUEUE_OWNER

        async def one(decision: Decision) -> tuple[int, float, float]:
            rng = match.secret_stream(f"analysis/{seat}/{decision.ply}")
            job: Job = partial(
                judge_decision,
                name,
                options,
                level,
                seat,
                observation=decision.observation,
                legal=decision.legal,
                played=decision.played,
                rng=rng,
            )
            try:
                verdict: tuple[int, float, float] = await self.registry.bots.run(owner, job)
            except Exception:  # one more try: a worker may have died under it
                verdict = await self.registry.bots.run(owner, job)
            progress.done += 1
            return verdict

        verdicts = await asyncio.gather(*(one(d) for d in found))
        points = []
        for decision, (best, chance, after) in zip(found, verdicts, strict=True):
            if best not in decision.moves:
                raise ValueError("the analyst chose a move that was not legal")
            points.append(
                {
                    "ply": decision.ply,
                    "turn": decision.turn,
                    "chance": round(chance, 4),
                    "after": round(after, 4),
                    "played": decision.moves[decision.played],
                    "best": decision.moves[best],
                }
            )
        return {
            "match": match.id,
            "seat": seat,
            "game": match.game.name,
            "level": level,
            "points": points,
            "drops": largest_drops(points),
        }

    def close(self) -> None:
        for progress in self.running.values():
            if progress.task is not None:
                progress.task.cancel()
        self.running.clear()


def largest_drops(points: list[dict[str, Any]], count: int = MOMENTS) -> list[dict[str, Any]]:
    """The ``count`` decisions that lost the most chance (largest first; no drop is no moment)."""
    dropped = [
        {**p, "drop": round(p["chance"] - p["after"], 4)} for p in points if p["chance"] - p["after"] > 0
    ]
    dropped.sort(key=lambda p: (-p["drop"], p["ply"]))
    return dropped[:count]


def body_of(row: AnalysisRow) -> dict[str, Any]:
    return {**row.body, "status": "done", "shared": row.shared}


def _still_yours(match: LiveMatch, seat: int) -> None:
    """A hint is for a match being played, by the seat's person (a bot playing it for them sees
    what they may not any more)."""
    if match.status != "running" or match.state.is_terminal():
        raise ServerError(409, "match_not_running", "the match is not being played")
    if match.played_by_bot(seat):
        raise ServerError(409, "seat_is_bot", "a bot plays this seat now")


async def hint(registry: Registry, match: LiveMatch, seat: int) -> dict[str, Any]:
    """The hint level's move for the seat's current decision."""
    if not match.hints:
        raise ServerError(403, "hints_not_allowed", "hints are for casual matches against bots only")
    _still_yours(match, seat)
    state = match.state
    if state.current_player != seat:
        raise ServerError(409, "not_your_turn", "a hint is for your own move")
    version = match.version
    observation, legal = state.observation(seat), state.legal_actions()
    rng = match.secret_stream(f"hint/{seat}/{version}")
    job: Job = partial(
        bot_move,
        match.game.name,
        match.game.options,
        HINT_LEVEL,
        seat,
        observation=observation,
        legal=legal,
        rng=rng,
    )
    moves = {a: (state.action_to_str(a), state.action_to_json(a)) for a in legal}
    action: Any = None
    with contextlib.suppress(Exception):
        action = await registry.bots.run(match.queue_owner, job)
    _still_yours(match, seat)  # ended (a resignation keeps the version) or handed to a bot meanwhile
    if match.version != version:
        raise ServerError(409, "stale_version", "the position changed while the hint was computed")
    if not isinstance(action, int) or action not in moves:
        raise ServerError(503, "hint_failed", "no hint could be computed; try again")
    label, move = moves[action]
    return {"version": version, "level": HINT_LEVEL, "action": {"id": action, "label": label, "move": move}}
