"""Blokus 3D's encoder: every cube by colour in the structure's box, the height limits, what each
colour has left, and whose turn it is.  Nothing is hidden (B3-11); colours are written relative to
the viewer (its first colour first, then in turn order), so one policy serves every seat."""

from __future__ import annotations

import numpy as np

from ...engine import JSON
from ...rl.encoding import Array, Encoder, Index, Layout, Mask, Tracker, remap
from .game import SQUARES, Blokus3DGame, Blokus3DState
from .pieces import COLOUR_LETTERS, COLOURS, NUM_PIECES, PIECE_IDS

SIDE = 10
STATUSES = ("playing", "out", "done")
MIN_SCORE = -NUM_PIECES  # B3-6: no square seen from above, every piece left
MAX_SCORE = SIDE * SIDE


class Blokus3DEncoder(Encoder[Blokus3DGame]):
    """Blocks: cubes (colour x level x square), limits (square, / highest limit), pieces (colour x
    piece), status (colour x playing/out/done), to_move (colour), scores (colour, scaled from
    [-11, 100])."""

    def __init__(self, game: Blokus3DGame) -> None:
        super().__init__(game)
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
        geo = game.geometry
        self.views = [self._view_index(order) for order in self.rel]
        self.anchor_bytes = (geo.num_bits + 7) // 8
        # the board square of every bit of an anchor bitboard (one per box cell and level)
        self.bit_square = np.array(
            [geo.cell_square[bit % geo.layer] for bit in range(8 * self.anchor_bytes) if bit < geo.num_bits]
            + [0] * (8 * self.anchor_bytes - geo.num_bits),
            dtype=np.intp,
        )

    def _view_index(self, rel: dict[str, int]) -> Index:
        m = self.game.colours_in_play
        colours = [0] * m  # colours[r]: the colour the viewer sees r-th
        for c in range(m):
            colours[rel[COLOURS[c]]] = c
        index = np.arange(self.layout.size)
        remap(index, self.cubes, (m, self.levels * SIDE * SIDE), 0, colours)
        remap(index, self.pieces, (m, NUM_PIECES), 0, colours)
        remap(index, self.status, (m, len(STATUSES)), 0, colours)
        remap(index, self.to_move, (m,), 0, colours)
        remap(index, self.scores, (m,), 0, colours)
        return index

    def tracker(self) -> Blokus3DTracker:
        return Blokus3DTracker(self)

    def mask(self, state: Blokus3DState) -> Mask:  # type: ignore[override]
        """Straight from the engine's placements (orientation, anchor bitboard): every anchor bit
        unpacked at once by numpy, instead of a sorted list built bit by bit."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        moves = state.moves
        if moves:
            size = self.anchor_bytes
            packed = np.frombuffer(b"".join(m.to_bytes(size, "little") for _, m in moves), dtype=np.uint8)
            bits = np.unpackbits(packed, bitorder="little").view(np.bool_)
            rows, columns = np.divmod(bits.nonzero()[0], 8 * size)  # (flat nonzero is the fast one)
            orientations = np.array([o for o, _ in moves], dtype=np.intp) * SQUARES
            mask[orientations[rows] + self.bit_square[columns]] = 1
        return mask

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


class Blokus3DTracker(Tracker[Blokus3DState]):
    """Blokus 3D's fast path: new cubes are the bits a colour's bitboard gained, and each column's top
    colour (for the scores, B3-6) follows the highest cube written there."""

    def __init__(self, encoder: Blokus3DEncoder) -> None:
        super().__init__(encoder.size)
        self.enc = encoder
        self.geo = encoder.game.geometry
        m = encoder.game.colours_in_play
        self.m = m
        self.bits = [0] * m
        self.hands = [0] * m
        self.status = [""] * m
        self.values: list[float] = [-1.0] * m
        self.top_level: list[int] = []
        self.top_colour: list[int] = []
        self.tops = [0] * m  # columns each colour shows from above
        self.to_move = -1

    def rebuild(self, state: Blokus3DState) -> None:
        assert self.enc.template is not None
        self.base[:] = self.enc.template
        m = self.m
        self.bits = [0] * m
        self.hands = [0] * m
        self.status = [""] * m
        self.values = [-1.0] * m
        self.top_level = [-1] * self.geo.layer
        self.top_colour = [-1] * self.geo.layer
        self.tops = [0] * m
        self.to_move = -1
        self._sync(state)

    def advance(self, state: Blokus3DState, action: int) -> bool:
        self._sync(state)
        return True

    def _sync(self, state: Blokus3DState) -> None:
        enc, cells, geo = self.enc, self.cells, self.geo
        layer, squares = geo.layer, geo.cell_square
        block = enc.levels * SIDE * SIDE
        top_level, top_colour, tops = self.top_level, self.top_colour, self.tops
        for c, bits in enumerate(state.colour_bits):
            added = bits & ~self.bits[c]
            self.bits[c] = bits
            start = enc.cubes + c * block
            while added:
                low = added & -added
                z, cell = divmod(low.bit_length() - 1, layer)
                cells[start + z * SIDE * SIDE + squares[cell]] = 1.0
                if z > top_level[cell]:
                    top_level[cell] = z
                    if top_colour[cell] >= 0:
                        tops[top_colour[cell]] -= 1
                    tops[c] += 1
                    top_colour[cell] = c
                added ^= low
        for c, hand in enumerate(state.hands):
            changed = hand ^ self.hands[c]
            if changed:
                start = enc.pieces + c * NUM_PIECES
                for i in range(NUM_PIECES):
                    if changed >> i & 1:
                        cells[start + i] = float(hand >> i & 1)
                self.hands[c] = hand
            status = state.status[c]
            if status != self.status[c]:
                start = enc.status + c * len(STATUSES)
                for k, name in enumerate(STATUSES):
                    cells[start + k] = float(name == status)
                self.status[c] = status
            value = (tops[c] - hand.bit_count() - MIN_SCORE) / (MAX_SCORE - MIN_SCORE)
            if value != self.values[c]:
                cells[enc.scores + c] = value
                self.values[c] = value
        if state.colour != self.to_move:
            if self.to_move >= 0:
                cells[enc.to_move + self.to_move] = 0.0
            if state.colour >= 0:
                cells[enc.to_move + state.colour] = 1.0
            self.to_move = state.colour

    def view(self, state: Blokus3DState, seat: int) -> Array:
        return self.base.take(self.enc.views[seat])  # B3-11: nothing is hidden
