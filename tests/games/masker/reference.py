"""A slow, literal Masker model written from ``shared/spec/masker.md`` (MK-5 .. MK-14a).

It works on plain lists built from ``MaskerState.serialize()`` and knows nothing of the engine's
caches (``on_board`` counts, the neighbour table, the legal-action cache): neighbours come from row
and column arithmetic, colour counts are recounted from the stacks every time.  Where the rulebook is
silent it follows the decisions listed in the engine's module docstring:

* a player at capacity or eliminated is passed over, and a pending free step waits for the next
  player who can step (MK-9);
* white and isolation together: the free step is pending, so the player may go on (MK-8);
* MK-11 moves the eliminator's most recent captures first; in a self-elimination the eliminated
  player picks a seat for each cross and gets that seat's most recent capture;
* the game ends stuck when the player to move has no cross it could step onto (MK-12).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WHITE = 5
RUNNER = 6
STOP = 36
TAKE = 37
MAX_STEPS = 3
CAPACITY = {2: 18, 3: 12, 4: 9}


@dataclass
class RefState:
    players: int
    size: int  # 6 in 2D, 3 in 3D
    stacks: list[list[int]]
    tokens: list[int]
    piles: list[list[int]]
    eliminated: list[bool]
    eliminations: list[tuple[int, int, int]]
    player: int
    steps: int
    free: bool
    phase: str
    to_fill: int
    over: bool
    stuck: bool
    moves: int
    notes: list[str] = field(default_factory=list)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_serialized(cls, data: dict[str, Any]) -> RefState:
        players = int(data["options"]["players"])
        return cls(
            players=players,
            size=3 if data["options"]["variant"] == "3d" else 6,
            stacks=[list(s) for s in data["stacks"]],
            tokens=list(data["tokens"]),
            piles=[list(p) for p in data["piles"]],
            eliminated=list(data["eliminated"]),
            eliminations=[(int(a), int(b), int(c)) for a, b, c in data["eliminations"]],
            player=int(data["player"]),
            steps=int(data["steps"]),
            free=bool(data["free_pending"]),
            phase=str(data["phase"]),
            to_fill=int(data["to_fill"]),
            over=bool(data["over"]),
            stuck=bool(data["stuck_end"]),
            moves=len(data["history"]),
        )

    def comparable(self) -> dict[str, Any]:
        """The fields ``MaskerState.serialize()`` also has, in its encoding."""
        return {
            "stacks": [list(s) for s in self.stacks],
            "runner": self.runner(),
            "tokens": list(self.tokens),
            "piles": [list(p) for p in self.piles],
            "eliminated": list(self.eliminated),
            "eliminations": [list(e) for e in self.eliminations],
            "player": self.player if not self.over else -4,
            "steps": self.steps,
            "free_pending": self.free,
            "phase": self.phase,
            "to_fill": self.to_fill,
            "over": self.over,
            "stuck_end": self.stuck,
        }

    # -- facts ------------------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        return CAPACITY[self.players]

    def team(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    def seats_of_team(self, team: int) -> list[int]:
        return [s for s in range(self.players) if self.team(s) == team]

    def runner(self) -> int:
        (cell,) = [i for i, s in enumerate(self.stacks) if s and s[-1] == RUNNER]
        return cell

    def neighbours(self, cell: int) -> list[int]:
        """MK-5: up, down, left, right; never across the board's edge."""
        row, col = divmod(cell, self.size)
        out = []
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if 0 <= r < self.size and 0 <= c < self.size:
                out.append(r * self.size + c)
        return out

    def count_on_board(self, code: int) -> int:
        return sum(stack.count(code) for stack in self.stacks)

    def isolated(self) -> bool:
        return all(not self.stacks[n] for n in self.neighbours(self.runner()))

    def targets(self) -> list[int]:
        if self.free:  # MK-7 / MK-8 / MK-14: the top of any stack holding a cross
            tops = [i for i, s in enumerate(self.stacks) if s and s[-1] != RUNNER]
            home = self.runner()
            if not tops and len(self.stacks[home]) >= 2:
                return [home]  # MK-14a: only the runner's own stack holds crosses: the one beneath it
            return tops
        return [n for n in self.neighbours(self.runner()) if self.stacks[n]]

    def can_act(self, seat: int) -> bool:
        return not self.eliminated[seat] and len(self.piles[seat]) < self.capacity

    def legal(self) -> list[int]:
        if self.over:
            return []
        if self.phase == "complete":
            return [TAKE + s for s in range(self.players) if s != self.player and self.piles[s]]
        out = sorted(self.targets())
        if self.steps > 0:
            out.append(STOP)
        return out

    # -- flow -------------------------------------------------------------------------------
    def give_turn(self, seat: int) -> None:
        for k in range(self.players):
            candidate = (seat + k) % self.players
            if self.can_act(candidate):
                self.player = candidate
                self.steps = 0
                self.phase = "step"
                if self.targets():
                    return
                break
        self.over = True
        self.stuck = True

    def end_turn(self) -> None:
        if self.isolated():
            self.free = True
        self.give_turn((self.player + 1) % self.players)

    def apply(self, action: int) -> None:
        assert action in self.legal(), (action, self.legal())
        move_index = self.moves
        self.moves += 1
        if self.phase == "complete":
            victim = self.player
            self.piles[victim].append(self.piles[action - TAKE].pop())
            self.to_fill -= 1
            others = [s for s in range(self.players) if s != victim]
            if self.to_fill == 0 or not any(self.piles[s] for s in others):
                self.to_fill = 0
                self.phase = "step"
                self.end_turn()
            return
        if action == STOP:
            self.end_turn()
            return
        seat = self.player
        start = self.runner()
        if action == start:  # MK-14a: the runner sinks onto the cross it captures
            captured = self.stacks[start][-2]
            self.stacks[start] = [*self.stacks[start][:-2], RUNNER]
        else:
            captured = self.stacks[action].pop()
            self.stacks[start].pop()
            self.stacks[action].append(RUNNER)
        self.piles[seat].append(captured)
        self.steps += 1
        self.free = captured == WHITE
        if captured in self.tokens and self.count_on_board(captured) == 0:  # MK-10
            team = self.tokens.index(captured)
            out = self.seats_of_team(team)
            for s in out:
                self.eliminated[s] = True
                self.eliminations.append((s, captured, move_index))
            alive_teams = {self.team(s) for s in range(self.players) if not self.eliminated[s]}
            if len(alive_teams) <= 1:
                self.over = True
                self.stuck = False
                return
            if self.players == 3:  # MK-11
                (victim,) = out
                need = self.capacity - len(self.piles[victim])
                others = [s for s in range(3) if s != victim]
                if seat != victim:
                    for _ in range(min(need, len(self.piles[seat]))):
                        self.piles[victim].append(self.piles[seat].pop())
                elif need > 0 and any(self.piles[s] for s in others):
                    self.phase = "complete"
                    self.to_fill = need
                    return
            if seat in out:
                self.end_turn()
                return
        out_of_steps = self.steps >= MAX_STEPS  # MK-6
        full = len(self.piles[seat]) >= self.capacity  # MK-9
        stranded = self.isolated() and not self.free  # MK-7 (MK-8: a pending free step keeps the turn)
        if out_of_steps or full or stranded or not self.targets():
            self.end_turn()

    def winners(self) -> list[int]:
        if not self.over:
            return []
        alive = [s for s in range(self.players) if not self.eliminated[s]]
        if not self.stuck:
            return alive
        counts = {s: self.count_on_board(self.tokens[self.team(s)]) for s in alive}
        best = max(counts.values())
        return [s for s in alive if counts[s] == best]
