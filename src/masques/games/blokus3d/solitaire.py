"""Blokus 3D solitaire puzzles (B3-10): exact-cover search, cube counting and cube packings.

Three layers, all pure computation (no I/O, no clock):

* :class:`ExactCover` - a generic Knuth Algorithm X (the dict-of-sets formulation, written here)
  with primary and secondary columns, "fewest candidates first" column choice and an optional
  per-group multiplicity limit (each piece shape at most *k* times).
* :func:`count_single_colour_cube` - answers the rulebook's question "how many ways are there to
  build a single-colour 3x3x3 cube?" for every set of one colour's pieces whose volume is 27,
  up to rotation and up to rotation + reflection.  The Soma cube (240 / 480) is the check.
* :func:`find_packing` - one packing of a 3x3x3, 4x4x4 or 5x5x5 cube with the pieces of up to
  four colours (each shape at most four times, two copies of a shape never share a colour).

Cells of an ``n``-cube are numbered ``x + n*y + n*n*z``; a placement is a piece id and a bitmask
of the cells it fills.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product

from masques.games.blokus3d.pieces import (
    COLOUR_LETTERS,
    COLOURS,
    PIECE_CUBES,
    PIECE_IDS,
    ROTATIONS,
    Cube,
    Matrix,
    mirror,
    rotations_of,
    transform,
)

Progress = Callable[[int, int], None]
"""A progress callback: ``progress(done, total)``, called at a coarse granularity."""

SINGLE_CUBE_SIZE = 3
SINGLE_CUBE_VOLUME = SINGLE_CUBE_SIZE**3  # 27
PACKING_SIZES: tuple[int, ...] = (3, 4, 5)
MAX_COPIES = len(COLOURS)  # one copy of each shape per colour
SOMA_PIECES: tuple[str, ...] = ("V3", "L4", "T4", "S4", "SR", "SL", "Y4")
"""The seven Soma pieces, as Blokus 3D ids (the classical check of B3-10)."""


# --------------------------------------------------------------------------------------------
# Generic exact cover (Knuth's Algorithm X)
# --------------------------------------------------------------------------------------------


class ExactCover:
    """Knuth's Algorithm X on a sparse 0/1 matrix, dict-of-sets style.

    Each row is an iterable of column names.  A solution is a set of rows that covers every
    *primary* column exactly once and every *secondary* column at most once.  Optionally each
    row belongs to a *group* (e.g. a piece shape) and a group may be used at most ``limit``
    times; this is what multi-colour packings need (4 colours give up to 4 copies of a shape)
    without duplicating rows per copy, which would list each solution k! times.

    At every node the search branches on the uncovered primary column with the fewest live
    rows (ties: the column given first), trying its rows in row-index order, so callers steer
    the search by ordering rows.  Results are deterministic.
    """

    def __init__(
        self,
        rows: Sequence[Iterable[Hashable]],
        primary: Iterable[Hashable] | None = None,
        secondary: Iterable[Hashable] = (),
        *,
        groups: Sequence[Hashable | None] | None = None,
        limit: int | Mapping[Hashable, int] | None = None,
    ) -> None:
        """Index the matrix.

        ``primary`` defaults to every column that occurs in a row and is not secondary (in
        order of first appearance).  ``groups[i]`` is row ``i``'s group (``None``: unlimited);
        ``limit`` is one cap for every group or a mapping group -> cap (missing: unlimited).
        """
        row_lists = [tuple(dict.fromkeys(r)) for r in rows]
        secondary_list = list(dict.fromkeys(secondary))
        secondary_set = set(secondary_list)
        if primary is None:
            primary_list = [
                c for c in dict.fromkeys(c for r in row_lists for c in r) if c not in secondary_set
            ]
        else:
            primary_list = list(dict.fromkeys(primary))
            clash = secondary_set.intersection(primary_list)
            if clash:
                raise ValueError(f"columns both primary and secondary: {sorted(map(str, clash))}")
        index = {c: i for i, c in enumerate(primary_list + secondary_list)}
        self._num_primary = len(primary_list)
        self._num_columns = len(index)
        self._rows: list[tuple[int, ...]] = []
        for n, r in enumerate(row_lists):
            try:
                self._rows.append(tuple(index[c] for c in r))
            except KeyError as exc:
                raise ValueError(f"row {n} uses unknown column {exc.args[0]!r}") from None

        if groups is not None and len(groups) != len(self._rows):
            raise ValueError(f"groups has {len(groups)} entries for {len(self._rows)} rows")
        self._row_group: list[int] = [-1] * len(self._rows)
        self._group_rows: list[list[int]] = []
        self._group_limit: list[int] = []
        if groups is not None:
            group_index: dict[Hashable, int] = {}
            for row, g in enumerate(groups):
                if g is None:
                    continue
                if g not in group_index:
                    group_index[g] = len(self._group_rows)
                    self._group_rows.append([])
                    self._group_limit.append(self._limit_for(g, limit))
                gi = group_index[g]
                self._row_group[row] = gi
                self._group_rows[gi].append(row)
        elif limit is not None:
            raise ValueError("a multiplicity limit needs groups")

    @staticmethod
    def _limit_for(group: Hashable, limit: int | Mapping[Hashable, int] | None) -> int:
        """The cap for one group; -1 means unlimited."""
        cap = limit if isinstance(limit, int) or limit is None else limit.get(group)
        if cap is None:
            return -1
        if isinstance(cap, bool) or cap < 0:
            raise ValueError(f"multiplicity limit for group {group!r} must be >= 0, got {cap!r}")
        return cap

    @property
    def num_rows(self) -> int:
        return len(self._rows)

    # -- public searches ---------------------------------------------------------------------

    def search(self, visit: Callable[[tuple[int, ...]], bool], progress: Progress | None = None) -> None:
        """Call ``visit(rows)`` for each solution (sorted row indices); stop when it returns True.

        ``progress(done, total)`` is called after each branch of the first level.
        """
        _Search(self, visit, progress).run()

    def count(self, progress: Progress | None = None) -> int:
        """The number of solutions."""
        found = 0

        def visit(_: tuple[int, ...]) -> bool:
            nonlocal found
            found += 1
            return False

        self.search(visit, progress)
        return found

    def solutions(
        self, max_solutions: int | None = None, progress: Progress | None = None
    ) -> list[tuple[int, ...]]:
        """All solutions (or the first ``max_solutions``), each as sorted row indices."""
        found: list[tuple[int, ...]] = []

        def visit(sol: tuple[int, ...]) -> bool:
            found.append(sol)
            return max_solutions is not None and len(found) >= max_solutions

        if max_solutions is not None and max_solutions <= 0:
            return found
        self.search(visit, progress)
        return found

    def first(self, progress: Progress | None = None) -> tuple[int, ...] | None:
        """The first solution in search order, or None if there is none."""
        sols = self.solutions(1, progress)
        return sols[0] if sols else None


class _Search:
    """The mutable state of one Algorithm X run (kept apart so an ExactCover is reusable).

    Invariant: a row is *live* iff it meets no covered column and its group is not exhausted;
    ``cols[c]`` holds the live rows of every uncovered column ``c``.
    """

    def __init__(
        self,
        problem: ExactCover,
        visit: Callable[[tuple[int, ...]], bool],
        progress: Progress | None,
    ) -> None:
        self.rows = problem._rows
        self.num_primary = problem._num_primary
        self.row_group = problem._row_group
        self.group_rows = problem._group_rows
        self.group_limit = problem._group_limit
        self.group_count = [0] * len(self.group_limit)
        self.visit = visit
        self.progress = progress
        self.cols: list[set[int]] = [set() for _ in range(problem._num_columns)]
        self.covered = [False] * problem._num_columns
        self.live = [True] * len(self.rows)
        self.partial: list[int] = []
        for r, cs in enumerate(self.rows):
            for c in cs:
                self.cols[c].add(r)
        for g, cap in enumerate(self.group_limit):
            if cap == 0:
                for r in self.group_rows[g]:
                    self._kill(r, [])

    def _kill(self, r: int, killed: list[int]) -> None:
        for c in self.rows[r]:
            self.cols[c].remove(r)
        self.live[r] = False
        killed.append(r)

    def _select(self, r: int) -> list[int]:
        """Take row ``r``: cover its columns, kill conflicting rows, apply its group's cap.

        The kill loop is inlined: it is the solver's hot spot.
        """
        killed: list[int] = []
        rows = self.rows
        cols = self.cols
        live = self.live
        for c in rows[r]:
            for other in list(cols[c]):
                for k in rows[other]:
                    cols[k].remove(other)
                live[other] = False
                killed.append(other)
            self.covered[c] = True
        g = self.row_group[r]
        if g >= 0:
            self.group_count[g] += 1
            if self.group_count[g] == self.group_limit[g]:
                for other in self.group_rows[g]:
                    if live[other]:
                        self._kill(other, killed)
        return killed

    def _unselect(self, r: int, killed: list[int]) -> None:
        g = self.row_group[r]
        if g >= 0:
            self.group_count[g] -= 1
        for c in self.rows[r]:
            self.covered[c] = False
        rows = self.rows
        cols = self.cols
        live = self.live
        for other in reversed(killed):
            for k in rows[other]:
                cols[k].add(other)
            live[other] = True

    def run(self) -> None:
        self._recurse(0)

    def _recurse(self, depth: int) -> bool:
        """Explore below the current partial solution; True means the visitor asked to stop."""
        best = -1
        best_len = len(self.rows) + 1
        cols = self.cols
        covered = self.covered
        for c in range(self.num_primary):
            if not covered[c]:
                n = len(cols[c])
                if n < best_len:
                    best, best_len = c, n
                    if n <= 1:
                        break
        if best < 0:
            return self.visit(tuple(sorted(self.partial)))
        candidates = sorted(cols[best])
        total = len(candidates)
        for i, r in enumerate(candidates):
            killed = self._select(r)
            self.partial.append(r)
            stop = self._recurse(depth + 1)
            self.partial.pop()
            self._unselect(r, killed)
            if depth == 0 and self.progress is not None:
                self.progress(i + 1, total)
            if stop:
                return True
        return False


# --------------------------------------------------------------------------------------------
# Cube geometry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlacedPiece:
    """A piece in a cube: its id, its colour index (0..3 = blue, yellow, red, green) and cubes."""

    piece: str
    colour: int
    cubes: tuple[Cube, ...]


CubeSolution = tuple[PlacedPiece, ...]
"""A solution of a single-colour cube: placed pieces (colour 0) in piece-table order."""


def _check_pieces(pieces: Iterable[str]) -> tuple[str, ...]:
    """Validate piece ids and return them in piece-table order (no duplicates)."""
    given = list(pieces)
    unknown = [p for p in given if p not in PIECE_CUBES]
    if unknown:
        raise ValueError(f"unknown piece id(s) {unknown}; expected some of {list(PIECE_IDS)}")
    if len(set(given)) != len(given):
        raise ValueError(f"a single colour has each piece once; got duplicates in {given}")
    return tuple(p for p in PIECE_IDS if p in given)


def _check_cube_set(pieces: Iterable[str]) -> tuple[str, ...]:
    """Validate a single-colour set for the 3x3x3 cube: known, distinct, 27 cubes in all."""
    chosen = _check_pieces(pieces)
    volume = sum(len(PIECE_CUBES[p]) for p in chosen)
    if volume != SINGLE_CUBE_VOLUME:
        raise ValueError(
            f"pieces {list(chosen)} hold {volume} cubes; a 3x3x3 cube needs {SINGLE_CUBE_VOLUME}"
        )
    return chosen


def _mirror_piece_map() -> dict[str, str]:
    """Which piece each piece becomes in a mirror (SR <-> SL; the others are achiral)."""
    result = {}
    for pid in PIECE_IDS:
        image = mirror(PIECE_CUBES[pid])
        matches = [q for q in PIECE_IDS if image in rotations_of(PIECE_CUBES[q])]
        if len(matches) != 1:
            raise AssertionError(f"mirror image of {pid} matches {matches}")
        result[pid] = matches[0]
    return result


MIRROR_PIECE: dict[str, str] = _mirror_piece_map()
"""Reflection relabelling of pieces: SR <-> SL, every other piece maps to itself."""


def mirror_set(pieces: Iterable[str]) -> tuple[str, ...]:
    """The piece set of the mirror image of a construction (SR and SL swapped)."""
    return _check_pieces(MIRROR_PIECE[p] for p in _check_pieces(pieces))


def _cell(x: int, y: int, z: int, n: int) -> int:
    return x + n * (y + n * z)


def _cube_of(cell: int, n: int) -> Cube:
    return (cell % n, (cell // n) % n, cell // (n * n))


def _mask_cubes(mask: int, n: int) -> tuple[Cube, ...]:
    return tuple(_cube_of(c, n) for c in range(n**3) if mask >> c & 1)


def _placements_in_cube(pid: str, n: int) -> list[int]:
    """Every placement of a piece inside an n-cube as a cell bitmask, sorted."""
    masks = set()
    for shape in rotations_of(PIECE_CUBES[pid]):
        ex = [max(c[k] for c in shape) for k in range(3)]
        for ox, oy, oz in product(range(n - ex[0]), range(n - ex[1]), range(n - ex[2])):
            mask = 0
            for x, y, z in shape:
                mask |= 1 << _cell(x + ox, y + oy, z + oz, n)
            masks.add(mask)
    return sorted(masks)


@dataclass(frozen=True)
class _Geometry:
    """Placements of all pieces in an n-cube and how the cube's 48 symmetries permute them.

    Placements are numbered in (piece-table order, mask) order so that sorting a solution's
    placement numbers lists its pieces in table order.
    """

    size: int
    placements: tuple[tuple[str, int], ...]
    by_piece: dict[str, tuple[int, ...]]
    rotated: tuple[tuple[int, ...], ...]  # rotated[r][p]: placement p turned by ROTATIONS[r]
    mirrored: tuple[int, ...]  # placement p reflected in x -> n-1-x (piece relabelled)


def _cell_permutation(n: int, image: Callable[[Cube], Cube]) -> list[int]:
    return [_cell(*image(_cube_of(c, n)), n) for c in range(n**3)]


@cache
def _geometry(n: int) -> _Geometry:
    placements: list[tuple[str, int]] = []
    by_piece: dict[str, tuple[int, ...]] = {}
    for pid in PIECE_IDS:
        start = len(placements)
        placements.extend((pid, m) for m in _placements_in_cube(pid, n))
        by_piece[pid] = tuple(range(start, len(placements)))
    index = {pm: i for i, pm in enumerate(placements)}

    def permute(perm: list[int], relabel: Mapping[str, str]) -> tuple[int, ...]:
        out = []
        for pid, mask in placements:
            image = 0
            for c in range(n**3):
                if mask >> c & 1:
                    image |= 1 << perm[c]
            out.append(index[(relabel[pid], image)])
        return tuple(out)

    identity = {p: p for p in PIECE_IDS}
    rotated = []
    for m in ROTATIONS:
        # Rotate about the cube's centre: work in doubled coordinates so it stays integral.
        def turn(cube: Cube, m: Matrix = m) -> Cube:
            doubled = ((2 * cube[0] - n + 1, 2 * cube[1] - n + 1, 2 * cube[2] - n + 1),)
            x, y, z = transform(doubled, m)[0]
            return ((x + n - 1) // 2, (y + n - 1) // 2, (z + n - 1) // 2)

        rotated.append(permute(_cell_permutation(n, turn), identity))
    mirrored = permute(_cell_permutation(n, lambda c: (n - 1 - c[0], c[1], c[2])), MIRROR_PIECE)
    return _Geometry(n, tuple(placements), by_piece, tuple(rotated), mirrored)


def _canonical(solution: Iterable[int], geo: _Geometry) -> tuple[int, ...]:
    """Canonical form under the 24 rotations: the least sorted tuple of placement numbers."""
    sol = tuple(solution)
    return min(tuple(sorted(rot[p] for p in sol)) for rot in geo.rotated)


# --------------------------------------------------------------------------------------------
# Single-colour 3x3x3 cube (B3-10 b)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PieceSetResult:
    """The count for one piece set of volume 27 (B3-10).

    * ``rotation_count``: distinct solutions up to rotation of the whole cube (24 rotations).
      A solution is a set of placed pieces, each piece of the set used exactly once.
    * ``rotation_reflection_count``: distinct up to rotation and reflection (48 symmetries).
      A reflection swaps SR and SL, so it maps solutions of a set to solutions of its mirror set.
      For a set that is its own mirror (SR in it iff SL in it) this counts orbits under all 48;
      otherwise it counts the orbits of solutions(S) + solutions(mirror S) under the 48, which
      equals ``rotation_count`` (each orbit holds one rotation class of each set).
    * ``mirror_of``: None for a self-mirror set, else the mirror set (SR and SL swapped).
    """

    pieces: tuple[str, ...]
    volume: int
    rotation_count: int
    rotation_reflection_count: int
    mirror_of: tuple[str, ...] | None

    @property
    def possible(self) -> bool:
        return self.rotation_count > 0


@dataclass(frozen=True)
class SingleColourReport:
    """All piece sets of one colour that could fill a 3x3x3 cube, with their counts (B3-10).

    ``total_rotation`` sums ``rotation_count`` over all sets.  ``total_rotation_reflection`` sums
    ``rotation_reflection_count`` over self-mirror sets and counts each mirror pair once (a
    construction and its mirror image, built from mirrored sets, are the same up to reflection).
    ``impossible`` lists the sets with no solution.
    """

    sets: tuple[PieceSetResult, ...]
    total_rotation: int
    total_rotation_reflection: int
    impossible: tuple[tuple[str, ...], ...]

    @property
    def possible(self) -> tuple[tuple[str, ...], ...]:
        return tuple(s.pieces for s in self.sets if s.possible)


def candidate_piece_sets(volume: int = SINGLE_CUBE_VOLUME) -> tuple[tuple[str, ...], ...]:
    """Every subset of one colour's 11 pieces whose cube count is ``volume`` (table order).

    For 27 this is one tricube and six of the eight tetracubes: 2 * 28 = 56 sets.
    """
    if isinstance(volume, bool) or not isinstance(volume, int) or volume < 0:
        raise ValueError(f"volume must be a non-negative integer, got {volume!r}")
    found = []
    for k in range(len(PIECE_IDS) + 1):
        for combo in combinations(PIECE_IDS, k):
            if sum(len(PIECE_CUBES[p]) for p in combo) == volume:
                found.append(combo)
    return tuple(found)


def _orbit_representatives(pid: str, geo: _Geometry) -> list[tuple[int, int]]:
    """One placement of ``pid`` per rotation orbit (the least number), with its orbit size."""
    reps = []
    for p in geo.by_piece[pid]:
        orbit = {rot[p] for rot in geo.rotated}
        if p == min(orbit):
            reps.append((p, len(orbit)))
    return reps


def _symmetry_breaker(pieces: tuple[str, ...], geo: _Geometry) -> str:
    """The piece to pin to one placement per rotation orbit.

    Prefer a piece whose placements all have trivial stabilisers (orbits of 24): then exactly one
    solution per solution orbit survives.  That holds for L4 (no rotational symmetry) but, in the
    3-cube, also for S4, SR and SL, whose half-turn axis can never pass through the cube's centre;
    it is computed, not assumed.  Among those, fewest orbits wins (S4: 3, SR/SL: 4, L4: 6).
    Should no piece qualify, the survivors are deduplicated by canonical form instead.
    """

    def key(pid: str) -> tuple[bool, int, int]:
        reps = _orbit_representatives(pid, geo)
        symmetric = any(size != len(ROTATIONS) for _, size in reps)
        return (symmetric, len(reps), PIECE_IDS.index(pid))

    return min(pieces, key=key)


def _solve_all(
    pieces: tuple[str, ...], fixed: str | None, progress: Progress | None
) -> list[tuple[int, ...]]:
    """Every solution of the 3-cube with ``pieces`` (placement numbers), ``fixed`` pinned."""
    geo = _geometry(SINGLE_CUBE_SIZE)
    numbers: list[int] = []
    for pid in pieces:
        if pid == fixed:
            numbers.extend(p for p, _ in _orbit_representatives(pid, geo))
        else:
            numbers.extend(geo.by_piece[pid])
    rows = []
    for p in numbers:
        pid, mask = geo.placements[p]
        rows.append([c for c in range(SINGLE_CUBE_VOLUME) if mask >> c & 1] + [pid])
    problem = ExactCover(rows, primary=[*range(SINGLE_CUBE_VOLUME), *pieces])
    return [tuple(numbers[r] for r in sol) for sol in problem.solutions(progress=progress)]


def _rotation_classes(
    pieces: tuple[str, ...], progress: Progress | None = None
) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Canonical form -> first solution found, one entry per class of solutions up to rotation.

    Pinning one piece to orbit representatives keeps at least one solution of every class
    (rotate any solution so that piece sits on its representative); a pinned placement with a
    trivial stabiliser keeps exactly one, which is checked.
    """
    geo = _geometry(SINGLE_CUBE_SIZE)
    fixed = _symmetry_breaker(pieces, geo)
    found = _solve_all(pieces, fixed, progress)
    classes: dict[tuple[int, ...], tuple[int, ...]] = {}
    for sol in found:
        classes.setdefault(_canonical(sol, geo), sol)
    if len(classes) != len(found) and all(
        size == len(ROTATIONS) for _, size in _orbit_representatives(fixed, geo)
    ):
        raise AssertionError(f"symmetry breaking kept two rotations of one solution of {pieces}")
    return classes


def _as_placed(solution: Iterable[int], geo: _Geometry) -> CubeSolution:
    out = []
    for p in sorted(solution):
        pid, mask = geo.placements[p]
        out.append(PlacedPiece(pid, 0, _mask_cubes(mask, geo.size)))
    return tuple(out)


def cube_solutions(
    pieces: Iterable[str], *, up_to_rotation: bool = True, progress: Progress | None = None
) -> list[CubeSolution]:
    """Solutions of the 3x3x3 cube using each of ``pieces`` exactly once.

    With ``up_to_rotation`` (default) one representative per class of solutions that differ by a
    rotation of the whole cube; otherwise every solution (the raw count; Soma: 11520 = 480 * 24).
    ``progress`` reports the branches of the search's first level.
    """
    chosen = _check_cube_set(pieces)
    geo = _geometry(SINGLE_CUBE_SIZE)
    if up_to_rotation:
        sols = list(_rotation_classes(chosen, progress).values())
    else:
        sols = _solve_all(chosen, None, progress)
    return [_as_placed(s, geo) for s in sols]


def count_piece_set(pieces: Iterable[str]) -> PieceSetResult:
    """Count one set's solutions up to rotation and up to rotation + reflection (B3-10)."""
    chosen = _check_cube_set(pieces)
    volume = SINGLE_CUBE_VOLUME
    geo = _geometry(SINGLE_CUBE_SIZE)
    canon = _rotation_classes(chosen)
    mirror_of = mirror_set(chosen)
    if mirror_of != chosen:
        return PieceSetResult(chosen, volume, len(canon), len(canon), mirror_of)
    # Self-mirror set: the reflection is an involution on the rotation classes; count its orbits.
    orbits = set()
    for c in canon:
        m = _canonical((geo.mirrored[p] for p in c), geo)
        if m not in canon:
            raise AssertionError(f"mirror of a solution of {chosen} was not found")
        orbits.add(min(c, m))
    return PieceSetResult(chosen, volume, len(canon), len(orbits), None)


def count_single_colour_cube(progress: Progress | None = None) -> SingleColourReport:
    """Answer B3-10 (b): every single-colour piece set that could fill 3x3x3, with its counts.

    ``progress(done, total)`` is called once per piece set.
    """
    candidates = candidate_piece_sets(SINGLE_CUBE_VOLUME)
    results = []
    for i, pieces in enumerate(candidates):
        results.append(count_piece_set(pieces))
        if progress is not None:
            progress(i + 1, len(candidates))
    by_set = {r.pieces: r for r in results}
    for r in results:
        if r.mirror_of is not None and by_set[r.mirror_of].rotation_count != r.rotation_count:
            raise AssertionError(f"{r.pieces} and its mirror set have different counts")
    total_rot = sum(r.rotation_count for r in results)
    self_mirror = sum(r.rotation_reflection_count for r in results if r.mirror_of is None)
    paired = sum(r.rotation_count for r in results if r.mirror_of is not None)
    return SingleColourReport(
        sets=tuple(results),
        total_rotation=total_rot,
        total_rotation_reflection=self_mirror + paired // 2,
        impossible=tuple(r.pieces for r in results if not r.possible),
    )


# --------------------------------------------------------------------------------------------
# Multi-colour packings (B3-10 a)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Packing:
    """A packing of the ``size``-cube: every cell in exactly one placed piece."""

    size: int
    pieces: tuple[PlacedPiece, ...]


def _check_size(size: int) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size not in PACKING_SIZES:
        raise ValueError(f"cube size must be one of {list(PACKING_SIZES)}, got {size!r}")


def _assign_colours(placed: list[tuple[str, int]], n: int) -> tuple[PlacedPiece, ...]:
    """Give the copies of each shape distinct colours, keeping the colours' volumes balanced.

    Bigger shapes first; each shape's copies (in mask order) go to the colours with the least
    volume so far (ties: seat order).  Deterministic.
    """
    volume = [0] * len(COLOURS)
    result: list[PlacedPiece] = []
    order = sorted(PIECE_IDS, key=lambda p: (-len(PIECE_CUBES[p]), PIECE_IDS.index(p)))
    for pid in order:
        masks = sorted(m for q, m in placed if q == pid)
        if len(masks) > len(COLOURS):
            raise AssertionError(f"{len(masks)} copies of {pid}")
        colours = sorted(range(len(COLOURS)), key=lambda c: (volume[c], c))
        for mask, colour in zip(masks, colours, strict=False):
            volume[colour] += len(PIECE_CUBES[pid])
            result.append(PlacedPiece(pid, colour, _mask_cubes(mask, n)))
    result.sort(key=lambda pp: (PIECE_IDS.index(pp.piece), pp.colour))
    return tuple(result)


def find_packing(size: int, progress: Progress | None = None) -> Packing:
    """One packing of the size^3 cube (size 3, 4 or 5) with pieces of up to four colours.

    Each of the 11 shapes is used at most 4 times (once per colour) and two copies of a shape
    never share a colour (B3-10 a).  Tetracubes are tried first (fewer, bigger pieces fill the
    cube fastest), and the search takes the cell with the fewest candidates.
    """
    _check_size(size)
    geo = _geometry(size)
    order = sorted(PIECE_IDS, key=lambda p: (-len(PIECE_CUBES[p]), PIECE_IDS.index(p)))
    numbers = [p for pid in order for p in geo.by_piece[pid]]
    rows = []
    for p in numbers:
        mask = geo.placements[p][1]
        rows.append([c for c in range(size**3) if mask >> c & 1])
    groups = [geo.placements[p][0] for p in numbers]
    problem = ExactCover(rows, primary=range(size**3), groups=groups, limit=MAX_COPIES)
    sol = problem.first(progress)
    if sol is None:  # cannot happen for 3..5 (160 cubes available), but say so if it does
        raise ValueError(f"no packing of the {size}x{size}x{size} cube exists")
    return Packing(size, _assign_colours([geo.placements[numbers[r]] for r in sol], size))


def render_packing_layers(packing: Packing, size: int | None = None) -> list[str]:
    """Text layers of a packing, ``layers[z]`` from the bottom (z = 0) up.

    Each layer has ``size`` lines, the highest y first (like a map), and each cell reads as
    colour letter + piece id, e.g. ``bL4`` (blue L4).  Colours make every copy unique.
    """
    n = packing.size if size is None else size
    _check_size(n)
    if n != packing.size:
        raise ValueError(f"packing is {packing.size}-cubed, not {n}-cubed")
    grid: dict[Cube, str] = {}
    for pp in packing.pieces:
        for cube in pp.cubes:
            if not all(0 <= v < n for v in cube):
                raise ValueError(f"{pp.piece} cube {cube} lies outside the {n}-cube")
            if cube in grid:
                raise ValueError(f"cell {cube} is filled twice")
            grid[cube] = f"{COLOUR_LETTERS[pp.colour]}{pp.piece}"
    layers = []
    for z in range(n):
        lines = [" ".join(grid.get((x, y, z), " . ") for x in range(n)) for y in reversed(range(n))]
        layers.append("\n".join(lines))
    return layers
