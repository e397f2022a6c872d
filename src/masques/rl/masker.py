"""Masker's encoder: the stacks, everyone's piles, who is out, and the turn, seen by one seat.

Colours are written relative to the viewer's own secret colour (channel 0 is "mine", then the
other four in colour order after it), so the vector says what matters — whose crosses these are
for me — and says nothing the seat does not know: opponents' colours appear only as the colours
they might be, never as theirs.
"""

from __future__ import annotations

import numpy as np

from ..engine import JSON
from ..games.masker.game import CODE_NAMES, COLOURS, MAX_STEPS, NUM_COLOURS, MaskerGame
from .encoding import Array, Encoder, Layout, rank_of

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
        self.game = game
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
                hot += [reach + i for i, stack in enumerate(stacks) if stack and stack[-1] != "runner"]
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
