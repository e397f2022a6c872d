"""A deliberately simple REFERENCE legal-move generator for Blokus 3D, written from the spec alone.

It shares nothing with ``geometry.py``'s bitboards.  It reads only the public observation (the structure
grid, the stacks of coloured cubes, the hands and whose turn it is), builds a plain dict of occupied
3-D cells, and tries every piece in hand, every one of its orientations (the 24 rotations are rebuilt
here from two quarter turns, not taken from ``pieces.py``) and every (x, y, z) of the board, applying
B3-4 (a), (b) and (c) literally, cube by cube.  It is slow and obviously right; the tests compare the
engine's fast generator with it.

The only thing borrowed from the engine is the numbering of orientations (needed to name a placement
by its action id): ``(piece, set of cubes) -> global orientation index``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from masques.games.blokus3d.pieces import ORIENTATIONS

BOARD = 10
COLOUR_NAMES = ("blue", "yellow", "red", "green")
LETTER = {"blue": "b", "yellow": "y", "red": "r", "green": "g"}

Cube = tuple[int, int, int]
Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]

SPEC_PIECES: dict[str, tuple[Cube, ...]] = {
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
"""B3-1, copied by hand from the spec's table (the tests check the engine's table against it)."""

FACE_STEPS: tuple[Cube, ...] = (
    (1, 0, 0),
    (-1, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (0, 0, 1),
    (0, 0, -1),
)
"""The six face neighbours (side, top, bottom); edges and corners are not contacts (B3-4 c)."""


# -- rotations -------------------------------------------------------------------------------------
IDENTITY: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
QUARTER_TURN_X: Matrix = ((1, 0, 0), (0, 0, -1), (0, 1, 0))  # (x, y, z) -> (x, -z, y)
QUARTER_TURN_Z: Matrix = ((0, -1, 0), (1, 0, 0), (0, 0, 1))  # (x, y, z) -> (-y, x, z)


def _multiply(a: Matrix, b: Matrix) -> Matrix:
    rows = tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))
    return rows  # type: ignore[return-value]


def rotation_group() -> list[Matrix]:
    """Every product of quarter turns about x and z: the rotation group of the cube (24 matrices)."""
    found = {IDENTITY}
    frontier = [IDENTITY]
    while frontier:
        m = frontier.pop()
        for g in (QUARTER_TURN_X, QUARTER_TURN_Z):
            p = _multiply(g, m)
            if p not in found:
                found.add(p)
                frontier.append(p)
    return sorted(found)


def _apply(m: Matrix, c: Cube) -> Cube:
    x, y, z = c
    return (
        m[0][0] * x + m[0][1] * y + m[0][2] * z,
        m[1][0] * x + m[1][1] * y + m[1][2] * z,
        m[2][0] * x + m[2][1] * y + m[2][2] * z,
    )


def normalised(cubes: Iterable[Cube]) -> frozenset[Cube]:
    """Translate so that the smallest x, y and z are 0."""
    cs = list(cubes)
    mx = min(c[0] for c in cs)
    my = min(c[1] for c in cs)
    mz = min(c[2] for c in cs)
    return frozenset((x - mx, y - my, z - mz) for x, y, z in cs)


def orientations(cubes: Iterable[Cube]) -> set[frozenset[Cube]]:
    """The distinct shapes a piece takes under the 24 rotations (no reflection, B3-1)."""
    cs = list(cubes)
    return {normalised(_apply(m, c) for c in cs) for m in rotation_group()}


def mirrored(cubes: Iterable[Cube]) -> frozenset[Cube]:
    """The mirror image (x -> -x)."""
    return normalised((-x, y, z) for x, y, z in cubes)


REFERENCE_ORIENTATIONS: dict[str, list[tuple[Cube, ...]]] = {
    piece: sorted(tuple(sorted(shape)) for shape in orientations(cubes))
    for piece, cubes in SPEC_PIECES.items()
}
"""Per piece, its orientations as sorted cube tuples (our own order; ids come from the map below)."""

ENGINE_INDEX: dict[tuple[str, frozenset[Cube]], int] = {
    (o.piece, frozenset(o.cubes)): o.index for o in ORIENTATIONS
}
"""(piece, cubes) -> the engine's global orientation index: used only to name actions."""


ENGINE_SHAPE: dict[int, tuple[str, frozenset[Cube]]] = {index: key for key, index in ENGINE_INDEX.items()}
"""The reverse map: global orientation index -> (piece, cubes)."""


def orientation_index(piece: str, cubes: Iterable[Cube]) -> int:
    """The engine's global orientation index of ``piece`` turned so that it has these cubes."""
    return ENGINE_INDEX[(piece, normalised(cubes))]


def action_id(piece: str, cubes: Iterable[Cube], x: int, y: int) -> int:
    """The action id of a piece whose (normalised) cubes are translated by (x, y) on the board."""
    return orientation_index(piece, cubes) * 100 + y * BOARD + x


def placed_cubes(action: int, z: int) -> list[Cube]:
    """The board cubes of the placement ``action`` with its anchor at height ``z``."""
    orientation, square = divmod(action, 100)
    y, x = divmod(square, BOARD)
    _, shape = ENGINE_SHAPE[orientation]
    return sorted((x + dx, y + dy, z + dz) for dx, dy, dz in shape)


# -- the generator ---------------------------------------------------------------------------------
def _position(obs: dict[str, Any]) -> tuple[list[list[int]], dict[Cube, str]]:
    max_h: list[list[int]] = obs["structure"]["max_heights"]  # [y][x]
    occupied: dict[Cube, str] = {}
    for y, row in enumerate(obs["stacks"]):
        for x, stack in enumerate(row):
            for z, letter in enumerate(stack):
                occupied[(x, y, z)] = letter
    return max_h, occupied


def reference_placements(state: Any, colour: str | None = None) -> dict[int, int]:
    """Every legal placement for ``colour`` (default: the colour to move): ``{action id: z}``.

    ``colour`` may name a colour that is not to move (or has dropped out): the answer is then what
    B3-4 would allow that colour in this position, whatever its status.
    """
    obs = state.observation(None)
    if colour is None:
        if obs["to_move"] is None:
            return {}
        colour = obs["to_move"]["colour"]
    info = next(c for c in obs["colours"] if c["colour"] == colour)
    hand: list[str] = info["pieces_left"]
    letter = LETTER[colour]
    max_h, occupied = _position(obs)
    stacks: list[list[str]] = obs["stacks"]
    anything_placed = bool(occupied)
    colour_placed = letter in occupied.values()

    def legal(cubes: list[Cube]) -> bool:
        # (a) every cube inside the footprint and below the column's limit.
        for cx, cy, cz in cubes:
            if not (0 <= cx < BOARD and 0 <= cy < BOARD):
                return False
            if max_h[cy][cx] <= 0 or not 0 <= cz < max_h[cy][cx]:
                return False
            if (cx, cy, cz) in occupied:
                return False
        # (b) no overhang: in each column the piece's cubes are contiguous, the lowest at h[x][y].
        columns: dict[tuple[int, int], list[int]] = {}
        for cx, cy, cz in cubes:
            columns.setdefault((cx, cy), []).append(cz)
        for (cx, cy), zs in columns.items():
            zs.sort()
            if zs != list(range(zs[0], zs[0] + len(zs))):
                return False
            if zs[0] != len(stacks[cy][cx]):
                return False
        # (c) contact.
        if not anything_placed:
            return True  # the very first piece of the game goes anywhere
        touching = [
            occupied.get((cx + sx, cy + sy, cz + sz)) for cx, cy, cz in cubes for sx, sy, sz in FACE_STEPS
        ]
        if not colour_placed:
            # a colour's first piece: touch any placed cube face to face, and a cube on the ground
            return any(t is not None for t in touching) and any(cz == 0 for _, _, cz in cubes)
        return letter in touching  # later pieces: touch their own colour face to face

    top_limit = max(max(row) for row in max_h)
    found: dict[int, int] = {}
    for piece in SPEC_PIECES:
        if piece not in hand:
            continue
        for shape in REFERENCE_ORIENTATIONS[piece]:
            index = orientation_index(piece, shape)
            for x in range(BOARD):
                for y in range(BOARD):
                    for z in range(top_limit):
                        if legal([(x + dx, y + dy, z + dz) for dx, dy, dz in shape]):
                            action = index * 100 + y * BOARD + x
                            assert action not in found, "two heights for one (orientation, x, y)"
                            found[action] = z
    return found


def reference_legal_actions(state: Any, colour: str | None = None) -> list[int]:
    """The sorted legal action ids for ``colour`` (default: the colour to move)."""
    return sorted(reference_placements(state, colour))
