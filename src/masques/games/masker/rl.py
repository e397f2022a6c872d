"""Masker's encoder: the stacks, everyone's piles, who is out, and the turn, seen by one seat.

Colours are written relative to the viewer's own secret colour (channel 0 is "mine", then the
other four in colour order after it), so the vector says what matters — whose crosses these are
for me — and says nothing the seat does not know: opponents' colours appear only as the colours
they might be, never as theirs.
"""

from __future__ import annotations

import numpy as np

from ...engine import JSON
from ...rl.encoding import Array, Encoder, Index, Layout, Tracker, rank_of, relative_seats, remap
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
    free_step_targets,
)

CODES = len(CODE_NAMES)  # five colours, white, the runner
PILE_CODES = CODES - 1  # piles hold colours and white, never the runner
WHITE_COUNT = 5  # MK-1
COLOUR_COUNT = 6


class MaskerEncoder(Encoder[MaskerGame]):
    """Blocks: board (cell x level x code), reach (cells the runner may step to now), around (cell x
    code: the codes on top of the cell's orthogonal neighbours, / 4), piles (seat x
    code, counts / most possible), held (seat, / capacity), on_board (code), out (seat), out_colours
    (colour), to_move (seat), steps (0..3), flags (free step, completing, to_fill / capacity)."""

    def __init__(self, game: MaskerGame) -> None:
        super().__init__(game)
        n = game.num_players
        layout = Layout()
        self.board = layout.add("board", game.cells * game.height * CODES)
        self.reach = layout.add("reach", game.cells)
        self.around = layout.add("around", game.cells * CODES)
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
        # around = adjacency (scaled) @ one-hot of each cell's top code; row CODES is an empty cell
        self.top_rows = np.vstack([np.eye(CODES, dtype=np.float32), np.zeros((1, CODES), np.float32)])
        self.adjacency = np.zeros((game.cells, game.cells), dtype=np.float32)
        for cell, near in enumerate(game.neighbours):
            self.adjacency[cell, list(near)] = 0.25
        self.ranks = [rank_of(seat, n) for seat in range(n)]
        self.scale = [1.0 / COLOUR_COUNT] * NUM_COLOURS + [1.0 / WHITE_COUNT]
        # views[seat][colour]: the base (absolute seats and codes) read from the seat whose colour it is
        self.views = [[self._view_index(seat, mine) for mine in range(NUM_COLOURS)] for seat in range(n)]

    def _view_index(self, seat: int, mine: int) -> Index:
        game = self.game
        n = game.num_players
        codes = [(k + mine) % NUM_COLOURS for k in range(NUM_COLOURS)] + [WHITE, RUNNER]
        seats = relative_seats(seat, n)
        index = np.arange(self.layout.size)
        remap(index, self.board, (game.cells, game.height, CODES), 2, codes)
        remap(index, self.around, (game.cells, CODES), 1, codes)
        remap(index, self.piles, (n, PILE_CODES), 0, seats)
        remap(index, self.piles, (n, PILE_CODES), 1, codes[:PILE_CODES])
        for block in (self.held, self.out, self.to_move):
            remap(index, block, (n,), 0, seats)
        remap(index, self.on_board, (PILE_CODES,), 0, codes[:PILE_CODES])
        remap(index, self.out_colours, (NUM_COLOURS,), 0, codes[:NUM_COLOURS])
        return index

    def tracker(self) -> MaskerTracker:
        return MaskerTracker(self)

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
        stacks = obs["stacks"]
        if obs["phase"] == "step" and not obs["terminal"]:
            reach = self.reach
            if obs["free_step"]:
                hot += [reach + i for i in free_step_targets(stacks, obs["runner"], "runner")]
            else:
                hot += [reach + i for i in game.neighbours[obs["runner"]] if stacks[i]]
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
        out = self._array(hot, at, values)
        tops = self.top_rows[[rel[stack[-1]] if stack else CODES for stack in stacks]]
        out[self.around : self.around + game.cells * CODES] = (self.adjacency @ tops).ravel()
        return out

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
    steps to, so an action rewrites those, their neighbours' ``around`` values, the mover's pile and
    the turn; eliminations and completions (rare) recount the piles.  The base holds absolute colour
    codes; a seat's view reads it through its own colour, the one token the seat may know."""

    def __init__(self, encoder: MaskerEncoder) -> None:
        super().__init__(encoder.size)
        self.enc = encoder
        game = encoder.game
        self.game = game
        self.team = [game.team_of(s) for s in range(game.num_players)]
        self.capacity = game.capacity
        # the around index of the runner's code, for each neighbour of each cell
        self.near_runner = [[encoder.around + n * CODES + RUNNER for n in near] for near in game.neighbours]
        # where blocks start (attributes of the tracker itself: one lookup less on the hot path)
        self.bases = encoder.bases
        self.scale = encoder.scale
        self.pile_at = [encoder.piles + seat * PILE_CODES for seat in range(game.num_players)]
        self.held_at, self.on_board_at = encoder.held, encoder.on_board
        self.reach_at, self.steps_at = encoder.reach, encoder.steps
        self.to_move_at, self.flags_at = encoder.to_move, encoder.flags
        self.tops: list[int] = []  # top code of each cell, -1 for a hole
        self.reach: list[int] = []  # reach cells written
        # the turn's values as written: the ones of the step count and whose turn (-1: none), the flags
        self.steps_mark = self.to_move_mark = -1
        self.free_mark = self.complete_mark = False
        self.runner = 0
        self.player = 0
        self.eliminations = 0

    def rebuild(self, state: MaskerState) -> None:
        enc, base, game = self.enc, self.base, self.game
        stacks = state.stacks
        rows = enc.top_rows  # row k: code k one-hot; row CODES: nothing
        height = game.height
        levels = [stack[z] if z < len(stack) else CODES for stack in stacks for z in range(height)]
        board = rows[levels]
        base[enc.board : enc.board + board.size] = board.ravel()
        self.tops = [stack[-1] if stack else -1 for stack in stacks]
        tops = board if height == 1 else rows[[t if t >= 0 else CODES for t in self.tops]]
        base[enc.around : enc.around + game.cells * CODES] = (enc.adjacency @ tops).ravel()
        cells, scale = self.cells, enc.scale
        for code in range(PILE_CODES):
            cells[enc.on_board + code] = state.on_board[code] * scale[code]
        self.eliminations = 0
        self._piles(state)
        self.reach = []
        self.steps_mark = self.to_move_mark = -1
        self.free_mark = self.complete_mark = False
        self._turn(state)

    def advance(self, state: MaskerState, action: int) -> bool:
        if action == self.runner:
            return False  # MK-14a (rare): the runner sinks onto the cross beneath it; write afresh
        if action < STOP:  # the runner leaves its cell and takes the place of the cross it captures
            # around: a cell next to the runner has exactly one runner neighbour (0.25), others none
            cells, tops, bases, near = self.cells, self.tops, self.bases, self.near_runner
            old = self.runner
            captured = tops[action]
            stacks = state.stacks
            left = stacks[old]
            cells[bases[old][len(left)] + RUNNER] = 0.0
            if left:  # 3D: the cross below shows
                below = tops[old] = left[-1]
                shift = below - RUNNER
                for i in near[old]:
                    cells[i] = 0.0
                    cells[i + shift] += 0.25
            else:
                tops[old] = -1
                for i in near[old]:
                    cells[i] = 0.0
            level = bases[action][len(stacks[action]) - 1]
            cells[level + captured] = 0.0
            cells[level + RUNNER] = 1.0
            tops[action] = RUNNER
            shift = captured - RUNNER
            for i in near[action]:
                cells[i] = 0.25
                cells[i + shift] -= 0.25
            mover = self.player
            pile = state.piles[mover]
            scale = self.scale[captured]
            cells[self.pile_at[mover] + captured] = pile.count(captured) * scale
            cells[self.held_at + mover] = len(pile) / self.capacity
            cells[self.on_board_at + captured] = state.on_board[captured] * scale
            if len(state.eliminations) != self.eliminations:
                self._piles(state)  # an elimination moves crosses between piles
        elif action > STOP or len(state.eliminations) != self.eliminations:
            self._piles(state)  # a completion moves crosses between piles
        self._turn(state)
        return True

    def _piles(self, state: MaskerState) -> None:
        """Every seat's pile and who is out (after crosses moved between piles)."""
        enc, cells, scale = self.enc, self.cells, self.enc.scale
        capacity = self.game.capacity
        for seat, pile in enumerate(state.piles):
            start = enc.piles + seat * PILE_CODES
            for code in range(PILE_CODES):
                cells[start + code] = pile.count(code) * scale[code]
            cells[enc.held + seat] = len(pile) / capacity
        for seat, out in enumerate(state.eliminated):
            if out:
                cells[enc.out + seat] = 1.0
        for _, colour, _ in state.eliminations[self.eliminations :]:
            cells[enc.out_colours + colour] = 1.0
        self.eliminations = len(state.eliminations)

    def _turn(self, state: MaskerState) -> None:
        """What any action may change: the reach, whose turn, the step count and the flags.  Each is
        rewritten only when it differs from what was written (this runs after every action)."""
        cells = self.cells
        self.runner = state.runner
        self.player = state.player
        over = state.over
        complete = state.phase == COMPLETE
        if over or complete:
            reach = []
        else:  # where the runner may step now: the legal steps, which the mask reads too
            reach = state.legal_actions()  # sorted, a new list: the stop comes last
            while reach and reach[-1] >= STOP:
                reach.pop()
        old = self.reach
        if reach != old:
            at = self.reach_at
            for i in old:
                cells[at + i] = 0.0
            for i in reach:
                cells[at + i] = 1.0
            self.reach = reach
        steps = self.steps_at + state.steps
        if steps != self.steps_mark:
            if self.steps_mark >= 0:
                cells[self.steps_mark] = 0.0
            cells[steps] = 1.0
            self.steps_mark = steps
        to_move = -1 if over else self.to_move_at + state.player
        if to_move != self.to_move_mark:
            if self.to_move_mark >= 0:
                cells[self.to_move_mark] = 0.0
            if to_move >= 0:
                cells[to_move] = 1.0
            self.to_move_mark = to_move
        flags = self.flags_at
        if state.free_pending != self.free_mark:
            self.free_mark = state.free_pending
            cells[flags] = float(state.free_pending)
        if complete or self.complete_mark:
            self.complete_mark = complete
            cells[flags + 1] = float(complete)
            cells[flags + 2] = state.to_fill / self.capacity if complete else 0.0

    def view(self, state: MaskerState, seat: int) -> Array:
        mine = state.tokens[self.team[seat]]  # the seat's own colour: MK-15 shows it to the seat
        return self.base.take(self.enc.views[seat][mine])
