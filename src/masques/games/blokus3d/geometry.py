"""Bitboard geometry of one structure, precomputed once per game (the fast legal-move generator).

The built structure is always a height map (B3-4 b), so a cube position is a bit in a 3-D bitboard
laid out as ``bit = ax + width * ay + width * depth * z`` over the structure's bounding box
(``ax, ay`` relative to its corner).  For every orientation we keep

* ``anchor``: the anchor bits (smallest x, y, z of the piece) where the piece's bounding box fits
  in the box along x and y; AND-ing with it removes row wrap-around, so no padding is needed;
* ``columns``: ``(height, shift)`` for each column of the piece: the column's lowest cube must sit on
  a *surface* bit (the first empty cell of a board column, z = h) whose column has room for
  ``height`` cubes.  ``room[j] = surface & capacity[j]`` holds those surface bits (``capacity`` is
  fixed per structure), so one right shift and AND per column tests every anchor at once;
* ``cubes``: the shift of each cube, for the contact test against a colour's neighbour bitboard.

A legal placement set is then one expression per orientation::

    anchor & (room[h1] >> s1) & (room[h2] >> s2) ... & ((adj >> c1) | (adj >> c2) ...)

and z follows from (orientation, x, y).  ``bench`` measures it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from .pieces import NUM_PIECES, ORIENTATIONS, Orientation
from .structures import BOARD_SIZE, Structure

Generator = Callable[[int, int, int, int, int, int], list[tuple[int, int]]]

MAX_COLUMN_HEIGHT = max(c[3] for o in ORIENTATIONS for c in o.columns)  # 4


@dataclass(frozen=True)
class OrientationMasks:
    """Precomputed shifts and masks of one orientation on one structure."""

    orientation: Orientation
    anchor: int  # anchors that fit along x and y, any z
    anchor_ground: int  # the same, z = 0 only (a colour's first piece, B3-4 c)
    columns: tuple[tuple[int, int], ...]  # (height, shift of the column's lowest cube)
    cube_shifts: tuple[int, ...]


class Placement(NamedTuple):
    """The bitboard changes of one placement: cubes, their neighbours, surface and heights."""

    bits: int
    near: int
    surface_keep: int  # AND-mask: clears the old surface bits of the piece's columns
    surface_add: int  # the new surface bits (columns that are not full)
    heights: tuple[tuple[int, int], ...]  # (box cell, new height)


class Geometry:
    """The bit layout of one structure and every orientation's masks on it."""

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        grid = structure.max_heights
        cells = structure.footprint
        if not cells:
            raise ValueError("a structure needs at least one column")
        self.ox = min(x for x, _ in cells)
        self.oy = min(y for _, y in cells)
        self.width = max(x for x, _ in cells) - self.ox + 1
        self.depth = max(y for _, y in cells) - self.oy + 1
        self.layer = self.width * self.depth
        self.layers = max(grid[x][y] for x, y in cells)
        self.num_bits = self.layer * self.layers
        # Board square index (y * 10 + x) of each box cell, and the reverse.
        self.cell_square: list[int] = []
        self.square_cell: list[int] = [-1] * (BOARD_SIZE * BOARD_SIZE)
        self.max_height: list[int] = []  # per box cell
        for ay in range(self.depth):
            for ax in range(self.width):
                x, y = ax + self.ox, ay + self.oy
                self.square_cell[y * BOARD_SIZE + x] = len(self.cell_square)
                self.cell_square.append(y * BOARD_SIZE + x)
                self.max_height.append(grid[x][y])
        self.ground = (1 << self.layer) - 1
        # capacity[j]: cells (x, y, z) with room for j cubes from z up (z + j <= limit).
        self.capacity = [0] * (MAX_COLUMN_HEIGHT + 1)
        for j in range(1, MAX_COLUMN_HEIGHT + 1):
            for cell in range(self.layer):
                for z in range(self.max_height[cell] - j + 1):
                    self.capacity[j] |= 1 << (cell + self.layer * z)
        self.column_bits = [
            sum(1 << (cell + self.layer * z) for z in range(self.layers)) for cell in range(self.layer)
        ]
        self.neighbours: list[int] = [self._neighbours(b) for b in range(self.num_bits)]
        self.masks: tuple[OrientationMasks, ...] = tuple(self._orientation_masks(o) for o in ORIENTATIONS)
        self.generate, self.generate_ground = self._compile_generator()
        self._placements: dict[int, Placement] = {}

    def empty_rooms(self) -> tuple[int, int, int, int]:
        """The room bitboards r1..r4 of the empty structure."""
        surface = self.capacity[1] & self.ground
        return surface, surface & self.capacity[2], surface & self.capacity[3], surface & self.capacity[4]

    def placement(self, orientation: int, base: int) -> Placement:
        """What placing an orientation with its anchor at bit ``base`` changes (cached).

        The piece rests on the height map, so each column's old height is the anchor's z plus the
        column's lowest dz: everything follows from (orientation, base).
        """
        key = orientation * self.num_bits + base
        found = self._placements.get(key)
        if found is None:
            found = self._placements[key] = self._make_placement(orientation, base)
        return found

    def _make_placement(self, orientation: int, base: int) -> Placement:
        z, anchor_cell = divmod(base, self.layer)
        bits = near = remove = add = 0
        for shift in self.masks[orientation].cube_shifts:
            bits |= 1 << (base + shift)
            near |= self.neighbours[base + shift]
        heights = []
        for dx, dy, zlow, height in self.masks[orientation].orientation.columns:
            cell = anchor_cell + dx + self.width * dy
            old, new = z + zlow, z + zlow + height
            remove |= 1 << (cell + self.layer * old)
            if new < self.max_height[cell]:
                add |= 1 << (cell + self.layer * new)
            heights.append((cell, new))
        return Placement(bits, near, ~remove, add, tuple(heights))

    def bit(self, ax: int, ay: int, z: int) -> int:
        return ax + self.width * ay + self.layer * z

    def _neighbours(self, b: int) -> int:
        z, cell = divmod(b, self.layer)
        ay, ax = divmod(cell, self.width)
        m = 0
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            nx, ny, nz = ax + dx, ay + dy, z + dz
            if 0 <= nx < self.width and 0 <= ny < self.depth and 0 <= nz < self.layers:
                m |= 1 << self.bit(nx, ny, nz)
        return m

    def _orientation_masks(self, o: Orientation) -> OrientationMasks:
        sx, sy, _ = o.size
        row = 0
        for ax in range(self.width - sx + 1):
            row |= 1 << ax
        plane = 0
        for ay in range(self.depth - sy + 1):
            plane |= row << (self.width * ay)
        anchor = 0
        for z in range(self.layers):
            anchor |= plane << (self.layer * z)
        columns = tuple((height, self.bit(dx, dy, zlow)) for dx, dy, zlow, height in o.columns)
        if not o.solid_columns:  # never placeable on a height map (B3-4 b)
            anchor = 0
        return OrientationMasks(o, anchor, plane, columns, tuple(self.bit(x, y, z) for x, y, z in o.cubes))

    def _compile_generator(self) -> tuple[Generator, Generator]:
        """Build the legal-placement expressions of all 104 orientations as straight-line Python.

        ``generate(r1, r2, r3, r4, adj, hand)`` returns ``[(orientation index, anchor bitboard)]`` for
        every orientation of a piece in ``hand`` (a bitmask of piece indices) with a legal placement:
        ``r1..r4`` are the room bitboards, ``adj`` the cells one of the piece's cubes must lie in.
        ``generate_ground`` is the same with anchors restricted to z = 0 (a colour's first piece).

        Every shifted bitboard any orientation needs is computed once per call (52 shifts on
        structure D, against 700 if each orientation shifted its own), and AND/OR pairs shared by
        several orientations of a piece are computed once too (greedy common-subexpression sharing).
        """
        room_terms = sorted({c for m in self.masks if m.anchor for c in m.columns})
        contact_shifts = sorted({c for m in self.masks if m.anchor for c in m.cube_shifts})
        header = [f"    r{h}_{s} = r{h} >> {s}" for h, s in room_terms if s] + [
            f"    a{s} = adj >> {s}" for s in contact_shifts if s
        ]

        def room(h: int, s: int) -> str:
            return f"r{h}_{s}" if s else f"r{h}"

        def touch(s: int) -> str:
            return f"a{s}" if s else "adj"

        fast = ["def generate(r1, r2, r3, r4, adj, hand):", "    out = []", "    append = out.append"]
        fast += header
        ground = ["def generate_ground(r1, r2, r3, r4, adj, hand):", "    out = []"]
        ground += ["    append = out.append", *header]
        for piece_index in range(NUM_PIECES):
            masks = [m for m in self.masks if m.orientation.piece_index == piece_index and m.anchor]
            if not masks:
                continue
            products = [[room(h, s) for h, s in m.columns] + [str(m.anchor)] for m in masks]
            sums = [[touch(s) for s in m.cube_shifts] for m in masks]
            shared_and, products = _share_pairs(products, f"p{piece_index}_")
            shared_or, sums = _share_pairs(sums, f"q{piece_index}_")
            fast.append(f"    if hand & {1 << piece_index}:")
            fast += [f"        {name} = {a} & {b}" for name, a, b in shared_and]
            fast += [f"        {name} = {a} | {b}" for name, a, b in shared_or]
            ground.append(f"    if hand & {1 << piece_index}:")
            for m, product, total in zip(masks, products, sums, strict=True):
                fast += [
                    f"        m = {' & '.join(product)}",
                    "        if m:",
                    f"            m &= {' | '.join(total)}"
                    if len(total) == 1
                    else f"            m &= ({' | '.join(total)})",
                    "            if m:",
                    f"                append(({m.orientation.index}, m))",
                ]
                terms = " & ".join(room(h, s) for h, s in m.columns)
                contact = " | ".join(touch(s) for s in m.cube_shifts)
                ground += [
                    f"        m = {terms} & {m.anchor_ground}",
                    "        if m:",
                    f"            m &= ({contact})",
                    "            if m:",
                    f"                append(({m.orientation.index}, m))",
                ]
        fast.append("    return out")
        ground.append("    return out")
        namespace: dict[str, object] = {}
        code = compile("\n".join(fast + ground), f"<blokus3d generator {self.structure.key}>", "exec")
        exec(code, namespace)
        return namespace["generate"], namespace["generate_ground"]  # type: ignore[return-value]

    def decode(self, orientation: int, bits: int) -> list[tuple[int, int, int]]:
        """The (board x, board y, z) anchors of an anchor bitboard, in bit order."""
        out = []
        while bits:
            low = bits & -bits
            b = low.bit_length() - 1
            z, cell = divmod(b, self.layer)
            square = self.cell_square[cell]
            out.append((square % BOARD_SIZE, square // BOARD_SIZE, z))
            bits ^= low
        return out


def _share_pairs(
    expressions: list[list[str]], prefix: str
) -> tuple[list[tuple[str, str, str]], list[list[str]]]:
    """Greedy sharing for associative operators: while a pair of terms occurs in two or more
    expressions, name it once and use the name instead.  Returns the named pairs (in order of
    definition) and the rewritten expressions."""
    exprs = [list(e) for e in expressions]
    shared: list[tuple[str, str, str]] = []
    while True:
        counts: dict[tuple[str, str], int] = {}
        for e in exprs:
            terms = sorted(set(e))
            for i, a in enumerate(terms):
                for b in terms[i + 1 :]:
                    counts[(a, b)] = counts.get((a, b), 0) + 1
        if not counts:
            break
        (a, b), n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if n < 2:
            break
        name = f"{prefix}{len(shared)}"
        shared.append((name, a, b))
        for e in exprs:
            if a in e and b in e:
                e.remove(a)
                e.remove(b)
                e.append(name)
    return shared, exprs


@lru_cache(maxsize=64)
def geometry_for(structure: Structure) -> Geometry:
    """One geometry per structure, shared by every game on it (building one compiles code)."""
    return Geometry(structure)
