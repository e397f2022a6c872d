"""The 11 Blokus 3D pieces and their 104 orientations (B3-1).

Geometry is precomputed once at import: every orientation is a tuple of unit cubes normalised so that
its smallest x, y and z are 0.  Orientations are numbered per piece (``L4:0`` .. ``L4:23``) and
globally (0..103) in a fixed, documented order: pieces in table order, then each piece's distinct
rotations sorted by their cube tuples.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations, product

Cube = tuple[int, int, int]
Shape = tuple[Cube, ...]

PIECE_CUBES: dict[str, Shape] = {
    "I2": ((0, 0, 0), (1, 0, 0)),
    "I3": ((0, 0, 0), (1, 0, 0), (2, 0, 0)),
    "V3": ((0, 0, 0), (1, 0, 0), (0, 1, 0)),
    "I4": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)),
    "O4": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
    "T4": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)),
    "L4": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)),
    "S4": ((0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)),
    "SR": ((0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)),
    "SL": ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 1, 1)),
    "Y4": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)),
}
"""B3-1: each colour's 11 polycubes, in the spec's order and coordinates (z up)."""

PIECE_NAMES: dict[str, str] = {
    "I2": "domino",
    "I3": "straight tricube",
    "V3": "bent tricube",
    "I4": "straight tetracube",
    "O4": "square",
    "T4": "T",
    "L4": "L",
    "S4": "skew",
    "SR": "right screw",
    "SL": "left screw",
    "Y4": "branch",
}

COLOURS: tuple[str, ...] = ("blue", "yellow", "red", "green")
"""B3-1: colour names by index, in seat order."""
COLOUR_LETTERS = "byrg"
"""One-letter colour codes (observations' stacks, drawings)."""

PIECE_IDS: tuple[str, ...] = tuple(PIECE_CUBES)
NUM_PIECES = len(PIECE_IDS)
CUBES_PER_COLOUR = sum(len(c) for c in PIECE_CUBES.values())  # 40


Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]


def _rotation_matrices() -> list[Matrix]:
    """The 24 proper rotations of the cube: signed permutation matrices with determinant +1."""
    mats: list[Matrix] = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            r0, r1, r2 = (
                (
                    signs[r] if perm[r] == 0 else 0,
                    signs[r] if perm[r] == 1 else 0,
                    signs[r] if perm[r] == 2 else 0,
                )
                for r in range(3)
            )
            m: Matrix = (r0, r1, r2)
            det = (
                m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            )
            if det == 1:
                mats.append(m)
    return mats


ROTATIONS: tuple[Matrix, ...] = tuple(_rotation_matrices())
"""The 24 rotations of space (B3-1: pieces turn any way, no reflection)."""


def transform(shape: Shape, matrix: Matrix) -> Shape:
    """Apply a 3x3 integer matrix to every cube of a shape (no normalisation)."""
    return tuple(
        (
            matrix[0][0] * x + matrix[0][1] * y + matrix[0][2] * z,
            matrix[1][0] * x + matrix[1][1] * y + matrix[1][2] * z,
            matrix[2][0] * x + matrix[2][1] * y + matrix[2][2] * z,
        )
        for x, y, z in shape
    )


def normalise(shape: Shape) -> Shape:
    """Translate so the minimum x, y and z are 0, and sort the cubes."""
    mx = min(c[0] for c in shape)
    my = min(c[1] for c in shape)
    mz = min(c[2] for c in shape)
    return tuple(sorted((x - mx, y - my, z - mz) for x, y, z in shape))


def mirror(shape: Shape) -> Shape:
    """The mirror image (x -> -x), normalised."""
    return normalise(tuple((-x, y, z) for x, y, z in shape))


def rotations_of(shape: Shape) -> list[Shape]:
    """The distinct normalised orientations of a shape under the 24 rotations, sorted."""
    return sorted({normalise(transform(shape, m)) for m in ROTATIONS})


@dataclass(frozen=True)
class Orientation:
    """One way a piece can be turned: its cubes, and its columns as seen from above.

    ``columns`` lists, per (dx, dy) the piece occupies, the lowest dz and the number of cubes
    stacked there.  ``solid_columns`` is False when some column has a gap (never placeable on a
    height map); none of the 11 pieces has such an orientation, but the check keeps the code honest.
    """

    index: int
    piece: str
    piece_index: int
    number: int  # orientation number within its piece
    cubes: Shape
    columns: tuple[tuple[int, int, int, int], ...]  # (dx, dy, zlow, height)
    size: tuple[int, int, int]  # extent along x, y, z
    solid_columns: bool

    @property
    def label(self) -> str:
        return f"{self.piece}:{self.number}"


def _columns(cubes: Shape) -> tuple[tuple[tuple[int, int, int, int], ...], bool]:
    by_xy: dict[tuple[int, int], list[int]] = {}
    for x, y, z in cubes:
        by_xy.setdefault((x, y), []).append(z)
    cols = []
    solid = True
    for (x, y), zs in sorted(by_xy.items()):
        zs.sort()
        if zs[-1] - zs[0] + 1 != len(zs):
            solid = False
        cols.append((x, y, zs[0], len(zs)))
    return tuple(cols), solid


def _build_orientations() -> tuple[Orientation, ...]:
    result: list[Orientation] = []
    for p_index, pid in enumerate(PIECE_IDS):
        for number, cubes in enumerate(rotations_of(PIECE_CUBES[pid])):
            cols, solid = _columns(cubes)
            size = (
                max(c[0] for c in cubes) + 1,
                max(c[1] for c in cubes) + 1,
                max(c[2] for c in cubes) + 1,
            )
            result.append(Orientation(len(result), pid, p_index, number, cubes, cols, size, solid))
    return tuple(result)


ORIENTATIONS: tuple[Orientation, ...] = _build_orientations()
"""All 104 orientations of the 11 pieces (B3-1), globally indexed."""

NUM_ORIENTATIONS = len(ORIENTATIONS)

ORIENTATIONS_BY_PIECE: dict[str, tuple[Orientation, ...]] = {
    pid: tuple(o for o in ORIENTATIONS if o.piece == pid) for pid in PIECE_IDS
}
