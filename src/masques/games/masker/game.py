"""Masker under the engine contract: MK-1 .. MK-15 (spec: masker.md).

The board is a grid of stacks: 6x6 stacks of one cross in 2D, 3x3 stacks of four in 3D (MK-13).
Only a stack's top is in play (MK-14); in 2D that is simply the cross on the cell, and a captured
cell becomes a hole.  The runner (the uncoloured cross) always sits on top of its stack.

Actions (41 ids, the same for both variants):

* ``0 .. 35`` — move the runner onto the top of stack ``i`` and capture that cross (MK-5).  In 2D,
  ``i = row * 6 + col``; in 3D, ``i = row * 3 + col`` (ids 9..35 are never legal).  Whether the
  step is an ordinary one (to an orthogonal neighbour) or a free one (anywhere, MK-7/MK-8) follows
  from the position.  The runner's own stack is a free step's target only under MK-14a (3D, no
  other stack holds a cross): the runner captures the cross beneath it and sinks one level.
* ``36`` — stop the turn (legal after at least one step, MK-6).
* ``37 + k`` — during a three-player completion (MK-11), take the next cross from seat ``k``'s piles.

Decisions where the text is silent, made as a player would expect (also in the README):

* A player at capacity (MK-9) or eliminated is passed over automatically: no "pass" action.
  A pending free step waits for the next player who can step.
* White and isolation together (MK-8 "even if it is then isolated"): the free step is pending, so
  the player may still take it if they have steps left; isolation ends a turn only when no free
  step is pending.
* MK-11: crosses moved from the eliminator's piles are taken most recent first; in a self-
  elimination the eliminated player chooses a seat for each cross and gets that seat's most
  recent capture.  The completion happens only if the game goes on (two players remain).
* Observations record, for each elimination, the colour whose last cross was captured: the rules
  make that public (the player had to announce it), so it is part of every seat's view.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import ClassVar, TypeVar

from ...engine.chance import CHANCE_VERSION, stream
from ...engine.core import (
    JSON,
    TERMINAL,
    Game,
    HiddenField,
    HiddenVariation,
    MalformedActionError,
    OptionSpec,
    State,
    bad_viewer,
    is_viewer,
)

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "black")
"""MK-1: the five player colours; a colour token names one of them."""
WHITE = 5
RUNNER = 6
CODE_NAMES: tuple[str, ...] = (*COLOURS, "white", "runner")
CODE_LETTERS = "RYGBKW*"
NUM_COLOURS = len(COLOURS)

STOP = 36
TAKE = 37  # TAKE + seat: MK-11 completion choice
NUM_ACTIONS = TAKE + 4
MAX_STEPS = 3  # MK-6
CAPACITY = {2: 18, 3: 12, 4: 9}  # MK-9

STEP, COMPLETE = "step", "complete"

_SQUARE = re.compile(r"^\s*([a-fA-F])\s*([1-6])\s*$")
_TAKE = re.compile(r"^\s*take\s+(?:from\s+)?(?:seat\s+)?(\d+)\s*$", re.IGNORECASE | re.ASCII)


class MaskerGame(Game):
    """Masker: 2 to 4 players (4 = two teams), 2D 6x6 or 3D 3x3x4."""

    name = "masker"
    title = "Masker"
    rules_version = "2"  # 2: MK-14a
    replays_rules_versions = ("1",)
    parts: ClassVar[Mapping[str, str]] = {
        "bot": "masques.games.masker.bot:BOT",
        "figures": "masques.games.masker.figures:figures",
        "terminal": "masques.games.masker.terminal:TERMINAL",
        "rl": "masques.games.masker.rl:MaskerEncoder",
    }
    hidden_information: ClassVar[tuple[HiddenField, ...]] = (
        HiddenField(
            "tokens",
            "team",
            "end",
            "MK-15: each seat sees its own (team's) colour; all are revealed when the game ends",
        ),
    )
    option_specs = (
        OptionSpec("players", "int", 2, "2 or 3 players, or 4 in two teams (MK-3)", (2, 3, 4)),
        OptionSpec("variant", "str", "2d", "2d: 6x6 grid; 3d: 3x3 stacks of 4 (MK-13)", ("2d", "3d")),
    )

    def check_options(self, options: dict[str, JSON]) -> None:
        self.is_3d = options["variant"] == "3d"
        self.rows = self.cols = 3 if self.is_3d else 6
        self.cells = self.rows * self.cols
        self.height = 4 if self.is_3d else 1
        self.capacity = CAPACITY[int(options["players"])]
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                r2 * self.cols + c2
                for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= r2 < self.rows and 0 <= c2 < self.cols
            )
            for r in range(self.rows)
            for c in range(self.cols)
        )

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        return [{"players": p, "variant": v} for v in ("2d", "3d") for p in (2, 3, 4)]

    @classmethod
    def bench_configurations(cls, options: Mapping[str, JSON]) -> list[tuple[str, dict[str, JSON]]]:
        if options:
            return super().bench_configurations(options)
        return [(f"{p}p {v}", {"players": p, "variant": v}) for v in ("2d", "3d") for p in (2, 3, 4)]

    @classmethod
    def playthrough_configurations(cls) -> list[tuple[str, int, dict[str, JSON]]]:
        return [
            ("2p-2d", 1, {"players": 2, "variant": "2d"}),
            ("3p-2d", 2, {"players": 3, "variant": "2d"}),
            ("4p-3d", 3, {"players": 4, "variant": "3d"}),
            ("3p-3d", 4, {"players": 3, "variant": "3d"}),
        ]

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_teams(self) -> int:
        return 2 if self.num_players == 4 else self.num_players

    def team_of(self, seat: int) -> int:
        """MK-3: with 4 players, seats 0+2 and 1+3 are partners."""
        return seat % 2 if self.num_players == 4 else seat

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        # Every step captures one of 35 crosses; each turn ends with at most one stop; completions
        # move at most 12 crosses.
        return 35 * 2 + 12

    def new_initial_state(self, seed: int = 0, *, chance: int = CHANCE_VERSION) -> MaskerState:
        rng = stream(seed, "masker/deal", version=chance)
        stacks = self._deal_3d(rng) if self.is_3d else self._deal_2d(rng)
        tokens = rng.sample(range(NUM_COLOURS), self.num_teams)  # MK-3
        first = rng.randrange(self.num_players)  # MK-4
        return MaskerState(self, seed, stacks, tokens, first, chance=chance)

    @staticmethod
    def crosses() -> list[int]:
        """MK-1: 6 of each colour, 5 white, the runner."""
        return [c for c in range(NUM_COLOURS) for _ in range(6)] + [WHITE] * 5 + [RUNNER]

    def _deal_2d(self, rng: random.Random) -> list[list[int]]:
        """MK-2: the 36 crosses shuffled into the 6x6 grid."""
        pieces = self.crosses()
        rng.shuffle(pieces)
        return [[p] for p in pieces]

    def _deal_3d(self, rng: random.Random) -> list[list[int]]:
        """MK-13 by construction, uniform over the valid layouts, in a bounded number of draws.

        A bottom layer of 9 coloured crosses with at most 2 of a colour always has 2 of four colours
        and 1 of the fifth; every such layout, and every placement of the rest with the runner on
        the top layer, is equally likely, as in a uniform shuffle conditioned on the rules.
        """
        single = rng.randrange(NUM_COLOURS)
        bottom = [c for c in range(NUM_COLOURS) for _ in range(1 if c == single else 2)]
        rng.shuffle(bottom)
        rest = [c for c in range(NUM_COLOURS) for _ in range(5 if c == single else 4)] + [WHITE] * 5
        rng.shuffle(rest)  # 26 crosses for layers 1 and 2 and 8 top cells
        runner_cell = rng.randrange(9)
        stacks = []
        for cell in range(9):
            top = RUNNER if cell == runner_cell else rest.pop()
            stacks.append([bottom[cell], rest.pop(), rest.pop(), top])
        return stacks

    def _sample_from(self, seat: int | None, obs: JSON, rng: random.Random) -> MaskerState:
        """MK-15 determinization: the public position with the hidden tokens drawn uniformly among
        the assignments consistent with everything the seat has seen (see consistent_tokens)."""
        choices = consistent_tokens(self, obs)
        tokens = list(choices[rng.randrange(len(choices))])
        return MaskerState.from_observation(self, obs, tokens, seed=rng.randrange(2**31))

    def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
        """MK-15 for the conformance kit's leak check (see hidden.py)."""
        from .hidden import vary_hidden

        assert isinstance(state, MaskerState)
        return vary_hidden(self, state, part, rng)

    def square_name(self, cell: int) -> str:
        """``a1`` is the top-left cell as drawn: files a.. along a row, ranks 1.. down the rows."""
        return f"{'abcdef'[cell % self.cols]}{cell // self.cols + 1}"


def consistent_tokens(game: MaskerGame, obs: JSON) -> list[tuple[int, ...]]:
    """Every assignment of colour tokens to teams that the observation allows, in a fixed order.

    Known: the viewer's team colour, the colour of every eliminated team (the colour whose last
    cross they lost), and that every team still in play has a colour left on the board.  Tokens are
    distinct (drawn without replacement).  Nothing else in a Masker game depends on the tokens, so
    each consistent assignment is equally likely.
    """
    if obs.get("tokens") is not None:  # revealed at the end
        return [tuple(COLOURS.index(c) for c in obs["tokens"])]
    on_board = {
        COLOURS.index(name) for name, n in obs["colours_on_board"].items() if n > 0 and name in COLOURS
    }
    known: dict[int, int] = {}
    for e in obs["eliminations"]:
        known[game.team_of(int(e["seat"]))] = COLOURS.index(e["colour"])
    if obs.get("your_colour") is not None and obs.get("seat") is not None:
        known[game.team_of(int(obs["seat"]))] = COLOURS.index(obs["your_colour"])
    out = []
    for combo in permutations(range(NUM_COLOURS), game.num_teams):
        if all(
            colour == known[team] if team in known else colour in on_board
            for team, colour in enumerate(combo)
        ):
            out.append(combo)
    return out


T = TypeVar("T")


def free_step_targets(
    stacks: Sequence[Sequence[T]], runner: int, runner_code: T, *, beneath: bool = True
) -> list[int]:
    """The stacks a free step may take (MK-7, MK-8): the top of any stack holding a cross; else,
    MK-14a, the cross beneath the runner (not under rules version 1, ``beneath=False``, where the
    game then ended).  Stacks hold codes or names (``runner_code`` is the runner's); the encoders
    read observations through this too."""
    targets = [i for i, s in enumerate(stacks) if s and s[-1] != runner_code]
    if not targets and beneath and len(stacks[runner]) > 1:
        return [runner]  # MK-14a: the cross beneath the runner
    return targets


class MaskerState(State):
    """A Masker position.  Tokens are hidden per MK-15 and only ``observation`` decides who sees what."""

    def __init__(
        self,
        game: MaskerGame,
        seed: int,
        stacks: list[list[int]],
        tokens: list[int],
        first: int,
        *,
        chance: int = CHANCE_VERSION,
    ) -> None:
        self.game: MaskerGame = game
        self.seed = seed
        self.chance = chance
        self.history: list[int] = []
        self.stacks = stacks
        self.runner = next(i for i, s in enumerate(stacks) if s and s[-1] == RUNNER)
        self.tokens = tokens  # per team
        self.first_player = first
        n = game.num_players
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.eliminated = [False] * n
        self.eliminations: list[tuple[int, int, int]] = []  # (seat, colour, move index)
        self.on_board = [0] * (WHITE + 1)
        for stack in stacks:
            for code in stack:
                if code != RUNNER:
                    self.on_board[code] += 1
        self.player = first
        self.steps = 0
        self.free_pending = False
        self.phase = STEP
        self.to_fill = 0  # crosses still to take in a self-elimination completion (MK-11)
        self.over = False
        self.stuck_end = False
        self._legal: list[int] | None = None
        self._start_turn(first)

    @classmethod
    def from_observation(cls, game: MaskerGame, obs: JSON, tokens: list[int], *, seed: int) -> MaskerState:
        """The state that ``obs`` describes, with the given tokens (determinization)."""
        state = cls.__new__(cls)
        state.game = game
        state.seed = seed
        state.chance = CHANCE_VERSION
        state.history = [int(a) for a in obs["moves"]]
        state.stacks = [[CODE_NAMES.index(c) for c in stack] for stack in obs["stacks"]]
        state.runner = int(obs["runner"])
        state.tokens = list(tokens)
        state.first_player = int(obs["first_player"])
        state.piles = [[CODE_NAMES.index(c) for c in pile] for pile in obs["piles"]]
        state.eliminated = [s in obs["eliminated"] for s in range(game.num_players)]
        state.eliminations = [
            (int(e["seat"]), COLOURS.index(e["colour"]), int(e["move"])) for e in obs["eliminations"]
        ]
        state.on_board = [0] * (WHITE + 1)
        for stack in state.stacks:
            for code in stack:
                if code != RUNNER:
                    state.on_board[code] += 1
        state.player = int(obs["to_move"]) if obs["to_move"] is not None else TERMINAL
        state.steps = int(obs["steps_this_turn"])
        state.free_pending = bool(obs["free_step"])
        state.phase = str(obs["phase"])
        state.to_fill = int(obs["to_fill"])
        state.over = bool(obs["terminal"])
        state.stuck_end = bool(obs.get("stuck_end", False))
        state._legal = None
        return state

    # -- facts ------------------------------------------------------------------------------
    def team_colour(self, seat: int) -> int:
        return self.tokens[self.game.team_of(seat)]

    def held(self, seat: int) -> int:
        return len(self.piles[seat])

    def at_capacity(self, seat: int) -> bool:
        return len(self.piles[seat]) >= self.game.capacity

    def top(self, cell: int) -> int:
        """The code on top of a stack, or -1 for a hole."""
        stack = self.stacks[cell]
        return stack[-1] if stack else -1

    def is_isolated(self) -> bool:
        """MK-7: no orthogonal neighbour of the runner holds a cross."""
        stacks = self.stacks
        return not [n for n in self.game.neighbours[self.runner] if stacks[n]]

    def _can_act(self, seat: int) -> bool:
        return not self.eliminated[seat] and not self.at_capacity(seat)

    def mid_turn(self) -> bool:
        """MK-6: after a step the turn goes on (up to three steps, or stop); MK-11: a completion's
        choices belong to the turn that eliminated."""
        return self.phase == COMPLETE or (self.phase == STEP and self.steps > 0)

    def is_out(self, seat: int) -> bool:
        """MK-10: an eliminated player has lost, whoever wins among the others."""
        return self.eliminated[seat]

    # -- turn flow --------------------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        """Give the turn to ``seat`` or the next seat that can step; end the game if none can."""
        n = self.game.num_players
        for k in range(n):
            candidate = (seat + k) % n
            if self._can_act(candidate):
                self.player = candidate
                self.steps = 0
                self.phase = STEP
                targets = self.step_targets()
                if not targets:  # no cross anywhere it could take: nobody can step
                    break
                self._legal = self._step_legal(targets)
                return
        self._finish(stuck=True)

    def _end_turn(self) -> None:
        """MK-7: if the runner is isolated when a turn ends, the next first step is free."""
        if self.is_isolated():
            self.free_pending = True
        self._start_turn((self.player + 1) % self.game.num_players)

    def _finish(self, *, stuck: bool) -> None:
        self.over = True
        self.stuck_end = stuck
        self.player = TERMINAL
        self._legal = []

    def _teams_left(self) -> set[int]:
        return {self.game.team_of(s) for s in range(self.game.num_players) if not self.eliminated[s]}

    def step_targets(self) -> list[int]:
        """The stacks the runner may step onto now (a free step: any cross, MK-7, MK-8)."""
        if self.free_pending:
            return free_step_targets(
                self.stacks, self.runner, RUNNER, beneath=self.game.rules_in_force != "1"
            )
        return [n for n in self.game.neighbours[self.runner] if self.stacks[n]]

    # -- legal moves ------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._legal is None:
            if self.over:
                legal: list[int] = []
            elif self.phase == COMPLETE:
                legal = [TAKE + s for s in range(self.game.num_players) if s != self.player and self.piles[s]]
            else:
                legal = self._step_legal(self.step_targets())
            self._legal = legal
        return list(self._legal)

    def _step_legal(self, targets: list[int]) -> list[int]:
        """The legal actions of a step decision with these step targets."""
        legal = sorted(targets)
        if self.steps > 0:
            legal.append(STOP)  # MK-6: the first step is compulsory
        return legal

    def is_legal(self, action: int) -> bool:
        if self._legal is None:
            self.legal_actions()
        assert self._legal is not None
        return action in self._legal

    def why_illegal(self, action: int) -> str:
        if self.phase == COMPLETE:
            return "choose whose piles to take the next cross from (MK-11)"
        if action == STOP:
            return "the first step of a turn is compulsory (MK-6)"
        if action >= TAKE:
            return "there is no pile completion to make now (MK-11)"
        if action >= self.game.cells or not self.stacks[action]:
            return "there is no cross there"
        if action == self.runner:
            if not self.game.is_3d:  # MK-14a is a 3D rule: in 2D nothing lies beneath the runner
                return "the runner is already there: a step moves it onto another cross (MK-5)"
            return (
                "the runner is already there; it takes the cross beneath it only by a free step when"
                " no other stack holds a cross (MK-14a)"
            )
        return "the runner moves to an orthogonally adjacent cross unless a free step is due (MK-5)"

    # -- applying ---------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = None
        if self.phase == COMPLETE:
            self._take_for_completion(action - TAKE)
        elif action == STOP:
            self._end_turn()
        else:
            self._step(action)

    def _step(self, target: int) -> None:
        """MK-5: move the runner onto ``target`` and capture the cross there."""
        seat = self.player
        stacks = self.stacks  # its stacks may be another state's too (see clone): copied before a change
        if target == self.runner:  # MK-14a: the cross beneath the runner, which sinks one level
            stacks[target] = stack = stacks[target].copy()
            captured = stack.pop(-2)
        else:
            stacks[target] = stack = stacks[target].copy()
            captured = stack.pop()
            stack.append(RUNNER)
            stacks[self.runner] = stacks[self.runner][:-1]  # the runner leaves; in 2D a hole stays
            self.runner = target
        self.piles[seat].append(captured)
        self.on_board[captured] -= 1
        self.steps += 1
        self.free_pending = captured == WHITE  # MK-8: the next step is free; never stacks
        if captured != WHITE and self.on_board[captured] == 0 and self._eliminate_colour(captured, seat):
            return
        if self.steps >= MAX_STEPS or len(self.piles[seat]) >= self.game.capacity:
            self._end_turn()  # MK-6, MK-9
            return
        # Without a free step due, no target means the runner is isolated: MK-7 ends the turn at
        # once; with one due, no cross is left to take.  Else the targets give the legal actions.
        targets = self.step_targets()
        if targets:
            self._legal = self._step_legal(targets)
        else:
            self._end_turn()

    def _eliminate_colour(self, colour: int, capturer: int) -> bool:
        """MK-10: the team whose colour just left the board is out.  True if the turn is over."""
        game = self.game
        if colour not in self.tokens:
            return False  # a neutral colour
        team = self.tokens.index(colour)
        out = [s for s in range(game.num_players) if game.team_of(s) == team]
        move = len(self.history)
        for s in out:
            self.eliminated[s] = True
            self.eliminations.append((s, colour, move))
        if len(self._teams_left()) <= 1:
            self._finish(stuck=False)  # MK-12: the last team standing wins
            return True
        if game.num_players == 3:  # MK-11 (only the first elimination can get here)
            (victim,) = out
            need = game.capacity - self.held(victim)
            if capturer != victim:
                for _ in range(min(need, self.held(capturer))):
                    self.piles[victim].append(self.piles[capturer].pop())
            elif need > 0 and any(self.piles[s] for s in range(3) if s != victim):
                self.phase = COMPLETE  # the self-eliminated player chooses, cross by cross
                self.to_fill = need
                return True
        if capturer in out:  # self-elimination ends the turn at once
            self._end_turn()
            return True
        return False

    def _take_for_completion(self, source: int) -> None:
        victim = self.player
        self.piles[victim].append(self.piles[source].pop())
        self.to_fill -= 1
        if self.to_fill == 0 or not any(self.piles[s] for s in range(3) if s != victim):
            self.to_fill = 0
            self.phase = STEP
            self._end_turn()

    # -- results ----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return TERMINAL if self.over else self.player

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        """Crosses of each seat's (team's) colour still on the board (the MK-12 tie-break count)."""
        return [float(self.on_board[self.team_colour(s)]) for s in range(self.game.num_players)]

    def winners(self) -> list[int]:
        """MK-12: the last team standing; if play is stuck, most crosses of their colour on the board
        among the teams still in, a tie shared."""
        if not self.over:
            return []
        alive = [s for s in range(self.game.num_players) if not self.eliminated[s]]
        if not self.stuck_end:
            return alive
        best = max(self.on_board[self.team_colour(s)] for s in alive)
        return [s for s in alive if self.on_board[self.team_colour(s)] == best]

    # -- copies and views -------------------------------------------------------------------
    def clone(self) -> MaskerState:
        """A state to change apart from this one.  The stacks themselves are shared: a step copies
        the two it changes.  Copying all 36 on every clone made most of a move's lasting objects, and
        the server's cycle collector walked each of them again and again."""
        other = MaskerState.__new__(MaskerState)
        other.__dict__.update(self.__dict__)
        other.history = self.history.copy()
        other.stacks = self.stacks.copy()
        other.tokens = self.tokens.copy()
        other.piles = [p.copy() for p in self.piles]
        other.eliminated = self.eliminated.copy()
        other.eliminations = self.eliminations.copy()
        other.on_board = self.on_board.copy()
        other._legal = None if self._legal is None else self._legal.copy()
        return other

    def stopped_observation(self, seat: int | None) -> JSON:
        """MK-15: a match stopped before the end (resigned, out of time) shows every token, as the
        end of the game does."""
        obs = self.observation(seat)
        assert isinstance(obs, dict)
        obs["tokens"] = [COLOURS[t] for t in self.tokens]
        return obs

    def observation(self, seat: int | None) -> JSON:
        """MK-15: everything public, the viewer's own (team's) token, and all tokens at the end."""
        if not is_viewer(seat, self.game.num_players):
            raise bad_viewer(seat, self.game.num_players)
        game = self.game
        obs: dict[str, JSON] = {
            "game": game.name,
            "seat": seat,
            "variant": game.options["variant"],
            "players": game.num_players,
            "your_colour": None if seat is None else COLOURS[self.team_colour(seat)],
            "partner": None if seat is None or game.num_players != 4 else (seat + 2) % 4,
            "rows": game.rows,
            "cols": game.cols,
            # one-cross stacks (all of 2D) without an inner loop: observations are built every step
            "stacks": [
                [CODE_NAMES[stack[0]]] if len(stack) == 1 else [CODE_NAMES[c] for c in stack]
                for stack in self.stacks
            ],
            "runner": self.runner,
            "colours_on_board": {CODE_NAMES[c]: self.on_board[c] for c in range(WHITE + 1)},
            "piles": [[CODE_NAMES[c] for c in pile] for pile in self.piles],
            "capacity": game.capacity,
            "eliminated": [s for s in range(game.num_players) if self.eliminated[s]],
            "eliminations": [{"seat": s, "colour": COLOURS[c], "move": m} for s, c, m in self.eliminations],
            "first_player": self.first_player,
            "to_move": None if self.over else self.player,
            "phase": self.phase,
            "steps_this_turn": self.steps,
            "free_step": self.free_pending,
            "to_fill": self.to_fill,
            "moves": list(self.history),
            "last_move": self.action_to_str(self.history[-1]) if self.history else None,
            "terminal": self.over,
            "tokens": None,
        }
        if self.over:
            obs["tokens"] = [COLOURS[t] for t in self.tokens]
            obs["stuck_end"] = self.stuck_end
            obs["winners"] = self.winners()
            obs["returns"] = self.returns()
            obs["scores"] = self.scores()
        return obs

    def serialize(self) -> JSON:
        return {
            "game": self.game.name,
            "options": copy.deepcopy(self.game.options),
            "seed": self.seed,
            "chance": self.chance,
            "history": list(self.history),
            "stacks": [list(s) for s in self.stacks],
            "runner": self.runner,
            "tokens": list(self.tokens),
            "piles": [list(p) for p in self.piles],
            "eliminated": list(self.eliminated),
            "eliminations": [list(e) for e in self.eliminations],
            "player": self.player,
            "steps": self.steps,
            "free_pending": self.free_pending,
            "phase": self.phase,
            "to_fill": self.to_fill,
            "over": self.over,
            "stuck_end": self.stuck_end,
        }

    # -- notation ---------------------------------------------------------------------------
    def action_to_json(self, action: int) -> JSON:
        if action == STOP:
            return {"stop": True}
        if action >= TAKE:
            return {"take_from": action - TAKE}
        return {"step": self.game.square_name(action)}

    def action_from_json(self, obj: JSON) -> int:
        if not isinstance(obj, dict) or len(obj) != 1:
            raise MalformedActionError(
                'a masker action is {"step": "c4"}, {"stop": true} or {"take_from": seat}', obj
            )
        ((key, value),) = obj.items()
        if key == "stop" and value is True:
            return STOP
        if key == "take_from" and isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < self.game.num_players:
                return TAKE + value
            raise MalformedActionError(f"no seat {value} in a {self.game.num_players}-player game", obj)
        if key == "step" and isinstance(value, str):
            return self._square(value, obj)
        raise MalformedActionError(
            'a masker action is {"step": "c4"}, {"stop": true} or {"take_from": seat}', obj
        )

    def _square(self, text: str, raw: object) -> int:
        match = _SQUARE.match(text)
        if not match:
            raise MalformedActionError(f"cannot read square {text!r}: write a file and a rank, e.g. c4", raw)
        col = "abcdef".index(match.group(1).lower())
        row = int(match.group(2)) - 1
        if col >= self.game.cols or row >= self.game.rows:
            last = "abcdef"[self.game.cols - 1]
            raise MalformedActionError(
                f"square {text.strip()!r} is off the board (a1..{last}{self.game.rows})", raw
            )
        return row * self.game.cols + col

    def action_to_str(self, action: int) -> str:
        if action == STOP:
            return "stop"
        if action >= TAKE:
            return f"take {action - TAKE}"
        return self.game.square_name(action)

    def action_from_str(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedActionError("a masker move is text: a square like c4, stop, or take N", text)
        if text.strip().lower() == "stop":
            return STOP
        match = _TAKE.match(text)
        if match:
            digits = match.group(1).lstrip("0") or "0"
            seat = int(digits) if len(digits) <= 3 else self.game.num_players  # no int() of 5,000 digits
            if seat >= self.game.num_players:
                shown = digits if len(digits) <= 12 else digits[:12] + "..."
                raise MalformedActionError(f"no seat {shown} in a {self.game.num_players}-player game", text)
            return TAKE + seat
        if text.lower().split()[:1] == ["take"]:  # "take", "take -1", "take two"
            last = self.game.num_players - 1
            raise MalformedActionError(f"a take names a seat: take 0 to take {last}", text)
        return self._square(text, text)
