"""Time controls kept by the server: a total time per player plus an increment (Fischer), or a time per
move counted in days (correspondence).

A clock is plain data stored with its match (``matches.clock``), updated in the transaction that
commits each action, and the moment the player to move runs out is stored too (``matches.deadline``):
a restart, a reconnect or another server process reads the same deadline, and nothing depends on a
timer having survived.  Only people's seats have time; a bot's turn stops every clock.

The per-turn clock of earlier versions (``turn_seconds``: the greedy bot makes one move for a player
whose turn ran out) is not one of these; :func:`summary` shows it in the same shape.
"""

from __future__ import annotations

from typing import Any, TypeGuard

FISCHER = "fischer"
CORRESPONDENCE = "correspondence"
TURN = "turn"
DAY = 86400.0
DAYS = (1, 3, 7)
BASE_RANGE = (60, 10800)
INCREMENT_RANGE = (0, 180)
AT_ZERO = ("lose", "bot")


class ClockError(ValueError):
    """A time control that cannot be played (its message says why)."""


def control(spec: dict[str, Any] | None, *, turn_seconds: int) -> dict[str, Any] | None:
    """The time control of a new match from its request (None: no clock, or the per-turn clock,
    which lives in ``turn_seconds``); raises ClockError."""
    if spec is None:
        return None
    kind = spec.get("kind")
    if kind == TURN:
        return None
    if turn_seconds:
        raise ClockError("a match has one clock: give either turn_seconds or a clock")
    fields = {FISCHER: {"kind", "base", "increment"}, CORRESPONDENCE: {"kind", "days"}}.get(str(kind))
    unknown = set(spec) - fields if fields is not None else set()
    if unknown:
        raise ClockError(
            f"a {kind} clock has no {', '.join(sorted(map(repr, unknown)))}: its fields are "
            f"{', '.join(sorted(fields or ()))}"
        )
    if kind == FISCHER:
        base, increment = spec.get("base"), spec.get("increment", 0)
        if not _whole(base) or not BASE_RANGE[0] <= base <= BASE_RANGE[1]:
            raise ClockError(f"a live clock's base is {BASE_RANGE[0]} to {BASE_RANGE[1]} seconds")
        if not _whole(increment) or not INCREMENT_RANGE[0] <= increment <= INCREMENT_RANGE[1]:
            raise ClockError(
                f"a live clock's increment is {INCREMENT_RANGE[0]} to {INCREMENT_RANGE[1]} seconds"
            )
        return {"kind": FISCHER, "base": base, "increment": increment}
    if kind == CORRESPONDENCE:
        days = spec.get("days")
        if not _whole(days) or days not in DAYS:
            raise ClockError(f"a correspondence clock gives {', '.join(map(str, DAYS))} days per move")
        return {"kind": CORRESPONDENCE, "days": days}
    raise ClockError("a clock's kind is turn, fischer or correspondence")


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def per_move(clock: dict[str, Any]) -> float:
    """The time a correspondence move has, or a live clock's starting time."""
    return clock["days"] * DAY if clock["kind"] == CORRESPONDENCE else float(clock["base"])


def start(config: dict[str, Any], seats: int, at_zero: str, now: float) -> dict[str, Any]:
    """The running clock of a match that starts now: every seat's full time."""
    return {**config, "at_zero": at_zero, "remaining": [per_move(config)] * seats, "turn_started": now}


def after_move(
    clock: dict[str, Any], seat: int, people: list[bool], now: float, *, turn_over: bool = True
) -> dict[str, Any]:
    """The clock once ``seat`` has made an action at ``now``: a person's live time loses what the
    action took.  Only an action that ends the seat's turn (``turn_over``; a Masker turn or a Maske
    paid move is several actions) earns the increment, or starts a correspondence move's days
    again.  Time is counted from ``now`` on either way."""
    remaining = list(clock["remaining"])
    if people[seat]:
        spent = max(0.0, now - clock["turn_started"])
        if clock["kind"] == FISCHER:
            remaining[seat] = max(0.0, remaining[seat] - spent) + (clock["increment"] if turn_over else 0)
        elif turn_over:
            remaining[seat] = per_move(clock)
        else:
            remaining[seat] = max(0.0, remaining[seat] - spent)
    return {**clock, "remaining": remaining, "turn_started": now}


def stopped(clock: dict[str, Any], to_move: int | None, people: list[bool], now: float) -> dict[str, Any]:
    """The clock of a match that ends without a move (time, resignation, claim): the seat whose time
    ran is charged what it used, so a seat that lost on time shows none left."""
    if "remaining" not in clock or to_move is None or to_move < 0 or not people[to_move]:
        return clock
    remaining = list(clock["remaining"])
    remaining[to_move] = max(0.0, remaining[to_move] - max(0.0, now - clock["turn_started"]))
    return {**clock, "remaining": remaining, "turn_started": now}


def deadline(clock: dict[str, Any] | None, to_move: int | None, people: list[bool]) -> float | None:
    """When the seat to move runs out (None: no clock, the game is over, or a bot is to move)."""
    if clock is None or to_move is None or to_move < 0 or not people[to_move]:
        return None
    return float(clock["turn_started"] + clock["remaining"][to_move])


def summary(
    clock: dict[str, Any] | None,
    to_move: int | None,
    people: list[bool],
    now: float,
    *,
    turn_seconds: int = 0,
    turn_deadline: float | None = None,
) -> dict[str, Any] | None:
    """What a client shows: each seat's time left at the start of the current turn (the running
    seat's live time is ``deadline - now``), whose time runs, until when, and the server's time."""
    if clock is None:
        if not turn_seconds:
            return None
        running = to_move if turn_deadline is not None else None
        return {
            "kind": TURN,
            "seconds": turn_seconds,
            "at_zero": "bot",
            "remaining": [None] * len(people),
            "running": running,
            "deadline": turn_deadline,
            "now": now,
        }
    due = deadline(clock, to_move, people)
    shown = {k: v for k, v in clock.items() if k not in ("remaining", "turn_started")}
    return {
        **shown,
        "remaining": [round(r, 3) if people[i] else None for i, r in enumerate(clock["remaining"])],
        "running": to_move if due is not None else None,
        "deadline": due,
        "now": now,
    }
