"""Blokus 3D's encoder: every cube by colour in the structure's box, the height limits, what each
colour has left, and whose turn it is.  Nothing is hidden (B3-11); colours are written relative to
the viewer (its first colour first, then in turn order), so one policy serves every seat."""

from __future__ import annotations

import numpy as np

from ..engine import JSON
from ..games.blokus3d.game import Blokus3DGame
from ..games.blokus3d.pieces import COLOUR_LETTERS, COLOURS, NUM_PIECES, PIECE_IDS
from .encoding import Array, Encoder, Layout

SIDE = 10
STATUSES = ("playing", "out", "done")
MIN_SCORE = -NUM_PIECES  # B3-6: no square seen from above, every piece left
MAX_SCORE = SIDE * SIDE


class Blokus3DEncoder(Encoder[Blokus3DGame]):
    """Blocks: cubes (colour x level x square), limits (square, / highest limit), pieces (colour x
    piece), status (colour x playing/out/done), to_move (colour), scores (colour, scaled from
    [-11, 100])."""

    def __init__(self, game: Blokus3DGame) -> None:
        self.game = game
        m = game.colours_in_play
        grid = game.structure.max_heights
        self.levels = max(max(col) for col in grid)
        layout = Layout()
        self.cubes = layout.add("cubes", m * self.levels * SIDE * SIDE)
        self.limits = layout.add("limits", SIDE * SIDE)
        self.pieces = layout.add("pieces", m * NUM_PIECES)
        self.status = layout.add("status", m * len(STATUSES))
        self.to_move = layout.add("to_move", m)
        self.scores = layout.add("scores", m)
        self.layout = layout
        template = np.zeros(layout.size, dtype=np.float32)
        template[self.limits : self.limits + SIDE * SIDE] = [
            grid[x][y] / self.levels for y in range(SIDE) for x in range(SIDE)
        ]
        self.template = template
        # per viewer seat: relative index of each colour letter and name
        self.rel: list[dict[str, int]] = []
        for seat in range(game.num_players):
            first = next(c for c in range(m) if game.seat_of_colour(c) == seat)
            order = {COLOURS[c]: (c - first) % m for c in range(m)}
            order.update({COLOUR_LETTERS[c]: (c - first) % m for c in range(m)})
            self.rel.append(order)
        self.piece_index = {p: i for i, p in enumerate(PIECE_IDS)}

    def encode(self, obs: JSON) -> Array:
        rel = self.rel[obs["seat"]]
        plane = SIDE * SIDE
        block = self.levels * plane
        hot = [
            self.cubes + rel[letter] * block + z * plane + y * SIDE + x
            for y, row in enumerate(obs["stacks"])
            for x, column in enumerate(row)
            if column
            for z, letter in enumerate(column)
        ]
        at: list[int] = []
        values: list[float] = []
        index = self.piece_index
        for info in obs["colours"]:
            r = rel[info["colour"]]
            base = self.pieces + r * NUM_PIECES
            hot += [base + index[p] for p in info["pieces_left"]]
            hot.append(self.status + r * len(STATUSES) + STATUSES.index(info["status"]))
            at.append(self.scores + r)
            values.append((info["score"] - MIN_SCORE) / (MAX_SCORE - MIN_SCORE))
        if obs["to_move"] is not None:
            hot.append(self.to_move + rel[obs["to_move"]["colour"]])
        return self._array(hot, at, values)

    def render(self, obs: JSON) -> str:
        lines = []
        for y in range(SIDE - 1, -1, -1):
            cells = []
            for x in range(SIDE):
                column = obs["stacks"][y][x]
                limit = obs["structure"]["max_heights"][y][x]
                cells.append(f"{column[-1]}{len(column)}" if column else (" ." if limit else "  "))
            lines.append(f"{y + 1:2d} " + " ".join(cells))
        lines.append("   " + " ".join(f" {f}" for f in "abcdefghij"))
        lines.append("(top colour and height of each column)")
        for info in obs["colours"]:
            lines.append(
                f"{info['colour']:6s} seat {info['seat']} {info['status']:7s} score {info['score']:3d} "
                f"left {' '.join(info['pieces_left'])}"
            )
        if obs["terminal"]:
            lines.append(f"game over; winners {obs['winners']}")
        else:
            lines.append(f"{obs['to_move']['colour']} (seat {obs['to_move']['seat']}) to move")
        return "\n".join(lines)
