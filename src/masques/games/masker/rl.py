"""Masker's encoder: the stacks, everyone's piles, who is out, and the turn, seen by one seat.

Colours are written relative to the viewer's own secret colour (channel 0 is "mine", then the
other four in colour order after it), so the vector says what matters — whose crosses these are
for me — and says nothing the seat does not know: opponents' colours appear only as the colours
they might be, never as theirs.
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import cast

import numpy as np

from ...engine import JSON, TERMINAL
from ...rl.encoding import (
    FEW_IDS,
    Array,
    Cells,
    Encoder,
    Index,
    Layout,
    Mask,
    Tracker,
    rank_of,
    relative_seats,
    remap,
)
from .game import (
    CODE_NAMES,
    COLOURS,
    COMPLETE,
    MAX_STEPS,
    NUM_COLOURS,
    RUNNER,
    STOP,
    WHITE,
    MaskerGame,
    MaskerState,
)

CODES = len(CODE_NAMES)  # five colours, white, the runner
PILE_CODES = CODES - 1  # piles hold colours and white, never the runner
WHITE_COUNT = 5  # MK-1
FIRST = itemgetter(0)
COLOUR_COUNT = 6


class MaskerEncoder(Encoder[MaskerGame]):
    """Blocks: board (cell x level x code), piles (seat x code, counts / most possible), held (seat,
    / capacity), on_board (code), out (seat), out_colours (colour), to_move (seat), steps (0..3),
    flags (free step, completing, to_fill / capacity).  Nothing derived that a network can learn
    from these (which codes top a cell's neighbours), and not the cells the runner may step to: the
    acting seat's action mask marks them (step ids are cells).  Every value costs the environment
    a write on each step it changes."""

    def __init__(self, game: MaskerGame) -> None:
        super().__init__(game)
        n = game.num_players
        layout = Layout()
        self.board = layout.add("board", game.cells * game.height * CODES)
        self.piles = layout.add("piles", n * PILE_CODES)
        self.held = layout.add("held", n)
        self.on_board = layout.add("on_board", PILE_CODES)
        self.out = layout.add("out", n)
        self.out_colours = layout.add("out_colours", NUM_COLOURS)
        self.to_move = layout.add("to_move", n)
        self.steps = layout.add("steps", MAX_STEPS + 1)
        self.flags = layout.add("flags", 3)  # free step, completing, to_fill / capacity
        self.layout = layout
        # relative code of each name, per own colour
        self.rel: dict[str, dict[str, int]] = {
            COLOURS[mine]: {
                **{COLOURS[c]: (c - mine) % NUM_COLOURS for c in range(NUM_COLOURS)},
                "white": NUM_COLOURS,
                "runner": NUM_COLOURS + 1,
            }
            for mine in range(NUM_COLOURS)
        }
        self.bases = [
            [(cell * game.height + level) * CODES for level in range(game.height)]
            for cell in range(game.cells)
        ]
        self.flat_bases = [b[0] for b in self.bases]
        self.one_hot = np.eye(CODES, dtype=np.float32)  # row k: the one-hot of code k
        self.team = [game.team_of(seat) for seat in range(n)]
        self.ranks = [rank_of(seat, n) for seat in range(n)]
        self.scale = [1.0 / COLOUR_COUNT] * NUM_COLOURS + [1.0 / WHITE_COUNT]
        # views[seat][colour]: the base (absolute seats and codes) read from the seat whose colour it is
        self.views = [[self._view_index(seat, mine) for mine in range(NUM_COLOURS)] for seat in range(n)]
        self.gathers: dict[tuple[int, ...], list[Index]] = {}  # each seat's view index, per tokens

    def _view_index(self, seat: int, mine: int) -> Index:
        game = self.game
        n = game.num_players
        codes = [(k + mine) % NUM_COLOURS for k in range(NUM_COLOURS)] + [WHITE, RUNNER]
        seats = relative_seats(seat, n)
        index = np.arange(self.layout.size)
        remap(index, self.board, (game.cells, game.height, CODES), 2, codes)
        remap(index, self.piles, (n, PILE_CODES), 0, seats)
        remap(index, self.piles, (n, PILE_CODES), 1, codes[:PILE_CODES])
        for block in (self.held, self.out, self.to_move):
            remap(index, block, (n,), 0, seats)
        remap(index, self.on_board, (PILE_CODES,), 0, codes[:PILE_CODES])
        remap(index, self.out_colours, (NUM_COLOURS,), 0, codes[:NUM_COLOURS])
        return index

    def tracker(self) -> MaskerTracker:
        return MaskerTracker(self)

    def mask(self, state: MaskerState) -> Mask:  # type: ignore[override]
        """The kept mask of the engine's own legal list, read without the copy ``legal_actions``
        hands out (the list is built once per position, and the next ``apply`` reads it too); a
        mask already kept is copied here, a call less."""
        legal = state._legal
        key = tuple(state.legal_actions() if legal is None else legal)
        mask = self.built_masks.get(key)
        if mask is not None:
            return mask.copy()
        if len(key) <= FEW_IDS:
            return self.kept_mask(key)
        # a free step's targets (every cross on the board) seldom come twice: written, not kept
        mask = np.zeros(self.actions, dtype=np.int8)
        ones = cast(Cells, mask.data)
        for i in key:
            ones[i] = 1
        return mask

    def encode(self, obs: JSON) -> Array:
        game = self.game
        seat = obs["seat"]
        rel = self.rel[obs["your_colour"]]
        rank = self.ranks[seat]
        if game.height == 1:
            hot = [
                b + rel[stack[0]] for b, stack in zip(self.flat_bases, obs["stacks"], strict=True) if stack
            ]
        else:
            hot = [
                b[z] + rel[name]
                for b, stack in zip(self.bases, obs["stacks"], strict=True)
                for z, name in enumerate(stack)
            ]
        at: list[int] = []
        values: list[float] = []
        scale = self.scale
        capacity = game.capacity
        for s, pile in enumerate(obs["piles"]):
            if pile:
                counts = [0] * PILE_CODES
                for name in pile:
                    counts[rel[name]] += 1
                base = self.piles + rank[s] * PILE_CODES
                for k, c in enumerate(counts):
                    if c:
                        at.append(base + k)
                        values.append(c * scale[k])
                at.append(self.held + rank[s])
                values.append(len(pile) / capacity)
        for name, count in obs["colours_on_board"].items():
            if count:
                k = rel[name]
                at.append(self.on_board + k)
                values.append(count * scale[k])
        hot += [self.out + rank[s] for s in obs["eliminated"]]
        hot += [self.out_colours + rel[e["colour"]] for e in obs["eliminations"]]
        if obs["to_move"] is not None:
            hot.append(self.to_move + rank[obs["to_move"]])
        hot.append(self.steps + obs["steps_this_turn"])
        if obs["free_step"]:
            hot.append(self.flags)
        if obs["phase"] == "complete":
            hot.append(self.flags + 1)
            at.append(self.flags + 2)
            values.append(obs["to_fill"] / capacity)
        return self._array(hot, at, values)

    def render(self, obs: JSON) -> str:
        game = self.game
        letters = dict(zip(CODE_NAMES, "RYGBKW*", strict=True))
        lines = []
        for r in range(game.rows):
            row = obs["stacks"][r * game.cols : (r + 1) * game.cols]
            cells = ["".join(letters[c] for c in stack).ljust(game.height) or "." for stack in row]
            lines.append(f"{r + 1} " + " ".join(c if c.strip() else ".".ljust(game.height) for c in cells))
        lines.append("  " + " ".join(f.ljust(game.height) for f in "abcdef"[: game.cols]))
        for s, pile in enumerate(obs["piles"]):
            out = " (out)" if s in obs["eliminated"] else ""
            lines.append(f"seat {s}: {len(pile)} crosses {''.join(letters[c] for c in pile)}{out}")
        if obs["terminal"]:
            lines.append(f"game over; colours {', '.join(obs['tokens'])}; winners {obs['winners']}")
        else:
            lines.append(f"seat {obs['to_move']} to move, step {obs['steps_this_turn'] + 1}")
        return "\n".join(lines)


class MaskerTracker(Tracker[MaskerState]):
    """Masker's fast path.  A step changes two stacks only, the runner's old cell and the one it
    steps to, so an action rewrites those, the mover's pile and the turn; eliminations and
    completions (rare) recount the piles.  The base holds absolute colour codes; a seat's view reads
    it through its own colour, the one token the seat may know.  This runs on every environment
    step, so the common step is one flat method with as few writes as the vector changes."""

    def __init__(self, encoder: MaskerEncoder) -> None:
        super().__init__(encoder.size)
        self.enc = encoder
        game = encoder.game
        self.game = game
        self.capacity = game.capacity
        # where blocks start (attributes of the tracker itself: one lookup less on the hot path; but
        # no more than 30 attributes in all, or Python stops specializing their look-ups)
        self.pile_at = [encoder.piles + seat * PILE_CODES for seat in range(game.num_players)]
        self.held_at = [encoder.held + seat for seat in range(game.num_players)]
        self.on_board_at = encoder.on_board
        self.steps_at = encoder.steps
        self.to_move_at, self.flags_at = encoder.to_move, encoder.flags
        # by cell and stack height: where the runner on top is written, where the top's row starts
        self.runner_at = [[b + RUNNER for b in levels] for levels in encoder.bases]
        self.top_at = [[-1, *levels] for levels in encoder.bases]
        # counts as written (count x scale, per code; held / capacity), up to every cross: looked up
        crosses = NUM_COLOURS * COLOUR_COUNT + WHITE_COUNT
        self.values = [[k * scale for k in range(crosses + 1)] for scale in encoder.scale]
        self.held_values = [k / game.capacity for k in range(crosses + 1)]
        # a new game's base but for the board, per turn facts (see rebuild); the board's rows (a
        # view of the base: cell by cell, level by level) and the one-hot row of each code
        self.fresh: dict[tuple[object, ...], Array] = {}
        rows = game.cells * game.height
        self.board_rows = self.base[encoder.board : encoder.board + rows * CODES].reshape(rows, CODES)
        # the turn as written: the step count, whose turn (TERMINAL: nobody's), the two flags
        self.steps = 0
        self.to_move = TERMINAL
        self.free = self.complete = False
        self.runner = 0
        self.eliminations = 0

    def rebuild(self, state: MaskerState) -> None:
        stacks = state.stacks
        # every code, cell by cell, bottom up (in 2D without an iterator per stack)
        if self.game.height == 1:
            try:
                raw = bytes(map(FIRST, stacks))
            except IndexError:  # a hole: not a new game
                raw = b""
        else:
            raw = bytes(chain.from_iterable(stacks))
        # stacks never grow: a full count means every stack whole, a new game, where all but the
        # board is the same from one deal to the next (kept per turn facts)
        if len(raw) == len(self.board_rows) and not state.eliminations and not any(state.piles):
            key = (state.player, state.steps, state.free_pending, state.phase, state.to_fill, *state.on_board)
            fresh = self.fresh.get(key)
            if fresh is None:
                self._rest(state)  # into zeros, the board not written yet
                self.fresh[key] = self.base.copy()
            else:
                np.copyto(self.base, fresh)
                self.eliminations = 0
                self.steps = state.steps
                self.to_move = state.player
                self.free = state.free_pending
                self.complete = state.phase == COMPLETE
            # the board in one call: each level's row is the one-hot of its code
            self.enc.one_hot.take(np.frombuffer(raw, np.uint8), axis=0, out=self.board_rows, mode="wrap")
        else:
            cells, bases = self.cells, self.enc.bases
            for cell, stack in enumerate(stacks):
                levels = bases[cell]
                for z, code in enumerate(stack):
                    cells[levels[z] + code] = 1.0
            self._rest(state)
        self.runner = state.runner
        # the tokens never change in a game (MK-3): each seat's view index is fixed until the next
        tokens = tuple(state.tokens)
        gather = self.enc.gathers.get(tokens)
        if gather is None:
            enc = self.enc
            gather = enc.gathers[tokens] = [
                enc.views[seat][tokens[team]] for seat, team in enumerate(enc.team)
            ]
        self.gather = gather

    def _rest(self, state: MaskerState) -> None:
        """All but the board, into zeros, and what the tracker remembers of it."""
        enc, cells = self.enc, self.cells
        scale = enc.scale
        for code, count in enumerate(state.on_board):
            if count:
                cells[enc.on_board + code] = count * scale[code]
        self.eliminations = 0
        self._piles(state, fresh=True)
        self.steps = state.steps
        cells[self.steps_at + self.steps] = 1.0
        self.to_move = state.player  # TERMINAL once the game is over
        if self.to_move != TERMINAL:
            cells[self.to_move_at + self.to_move] = 1.0
        self._flags(state)

    def advance(self, state: MaskerState, action: int) -> bool:
        cells = self.cells
        if action < STOP:  # the runner leaves its cell and takes the place of the cross it captures
            old = self.runner
            if action == old:
                return False  # MK-14a (rare): the runner sinks onto the cross beneath it; write afresh
            stacks = state.stacks
            cells[self.runner_at[old][len(stacks[old])]] = 0.0  # in 3D the cross below shows again
            level = self.top_at[action][len(stacks[action])]
            self.runner = action
            mover = self.to_move
            pile = state.piles[mover]
            eliminations = state.eliminations
            if len(eliminations) == self.eliminations:  # the capture is the mover's last cross
                captured = pile[-1]
                values = self.values[captured]
                cells[self.pile_at[mover] + captured] = values[pile.count(captured)]
                cells[self.held_at[mover]] = self.held_values[len(pile)]
            else:  # it took a colour's last cross (MK-10), and crosses may move between piles
                captured = eliminations[-1][1]
                values = self.values[captured]
                self._piles(state)
            cells[level + captured] = 0.0
            cells[level + RUNNER] = 1.0
            cells[self.on_board_at + captured] = values[state.on_board[captured]]
        elif action > STOP or len(state.eliminations) != self.eliminations:
            self._piles(state)  # a completion moves crosses between piles
        steps = state.steps
        if steps != self.steps:
            at = self.steps_at
            cells[at + self.steps] = 0.0
            cells[at + steps] = 1.0
            self.steps = steps
        player = state.player  # TERMINAL once the game is over
        if player != self.to_move:
            at = self.to_move_at
            if self.to_move != TERMINAL:
                cells[at + self.to_move] = 0.0
            if player != TERMINAL:
                cells[at + player] = 1.0
            self.to_move = player
        if self.complete or state.free_pending != self.free or state.phase == COMPLETE:
            self._flags(state)
        return True

    def _flags(self, state: MaskerState) -> None:
        """The free step flag, and the completion's flag and crosses to fill."""
        cells, flags = self.cells, self.flags_at
        self.free = state.free_pending
        cells[flags] = float(self.free)
        complete = self.complete = state.phase == COMPLETE
        cells[flags + 1] = float(complete)
        cells[flags + 2] = state.to_fill / self.capacity if complete else 0.0

    def _piles(self, state: MaskerState, fresh: bool = False) -> None:
        """Every seat's pile and who is out (after crosses moved between piles; ``fresh``: into zeros)."""
        enc, cells, scale = self.enc, self.cells, self.enc.scale
        capacity = self.capacity
        for seat, pile in enumerate(state.piles):
            start = self.pile_at[seat]
            if pile or not fresh:
                for code in range(PILE_CODES):
                    cells[start + code] = pile.count(code) * scale[code]
                cells[enc.held + seat] = len(pile) / capacity
        for seat, out in enumerate(state.eliminated):
            if out:
                cells[enc.out + seat] = 1.0
        for _, colour, _ in state.eliminations[self.eliminations :]:
            cells[enc.out_colours + colour] = 1.0
        self.eliminations = len(state.eliminations)

    def view(self, state: MaskerState, seat: int) -> Array:
        # the seat's own colour: MK-15 shows it to the seat
        enc = self.enc
        return self.base.take(enc.views[seat][state.tokens[enc.team[seat]]])
