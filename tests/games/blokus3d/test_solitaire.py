"""Tests for the Blokus 3D solitaire solver (B3-10)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from itertools import combinations, product

import pytest

from masques.games.blokus3d.pieces import (
    PIECE_CUBES,
    PIECE_IDS,
    ROTATIONS,
    Matrix,
    normalise,
    rotations_of,
    transform,
)
from masques.games.blokus3d.solitaire import (
    COLOUR_LETTERS,
    MIRROR_PIECE,
    SOMA_PIECES,
    CubeSolution,
    ExactCover,
    Packing,
    PlacedPiece,
    SingleColourReport,
    candidate_piece_sets,
    count_piece_set,
    count_single_colour_cube,
    cube_solutions,
    find_packing,
    mirror_set,
    render_packing_layers,
)

ALL_CELLS_3 = set(product(range(3), range(3), range(3)))


# --- independent helpers (coordinates, not the module's bitmasks) ---------------------------


Cube = tuple[int, int, int]
Key = tuple[tuple[str, tuple[Cube, ...]], ...]


def _turn_map(matrix: Matrix) -> dict[Cube, Cube]:
    """One rotation as a map on the 27 cells, turning about the centre (1, 1, 1)."""
    result = {}
    for c in ALL_CELLS_3:
        ((x, y, z),) = transform(((c[0] - 1, c[1] - 1, c[2] - 1),), matrix)
        result[c] = (x + 1, y + 1, z + 1)
    return result


_TURNS = [_turn_map(m) for m in ROTATIONS]


def _key(solution: CubeSolution, turn: dict[Cube, Cube] | None = None) -> Key:
    """A solution as a sorted tuple of (piece, sorted cubes), optionally turned first."""
    out = []
    for pp in solution:
        cubes = pp.cubes if turn is None else tuple(turn[c] for c in pp.cubes)
        out.append((pp.piece, tuple(sorted(cubes))))
    return tuple(sorted(out))


def _orbit(solution: CubeSolution) -> set[Key]:
    """The solution turned every way, computed from coordinates."""
    return {_key(solution, t) for t in _TURNS}


def _canon(solution: CubeSolution) -> Key:
    """Canonical form under the 24 rotations."""
    return min(_orbit(solution))


def _reflect(solution: CubeSolution) -> CubeSolution:
    """Mirror x -> 2 - x; SR and SL swap names."""
    swap = {"SR": "SL", "SL": "SR"}
    return tuple(
        PlacedPiece(swap.get(pp.piece, pp.piece), pp.colour, tuple((2 - x, y, z) for x, y, z in pp.cubes))
        for pp in solution
    )


def _assert_exact_cover(solution: CubeSolution, pieces: Iterable[str]) -> None:
    """Each piece once, in a legal orientation, the 27 cells covered exactly once."""
    assert sorted(pp.piece for pp in solution) == sorted(pieces)
    cells = [c for pp in solution for c in pp.cubes]
    assert len(cells) == 27
    assert set(cells) == ALL_CELLS_3
    for pp in solution:
        assert normalise(pp.cubes) in rotations_of(PIECE_CUBES[pp.piece])


# --- generic exact cover ---------------------------------------------------------------------


KNUTH_ROWS = [
    ["C", "E", "F"],
    ["A", "D", "G"],
    ["B", "C", "F"],
    ["A", "D"],
    ["B", "G"],
    ["D", "E", "G"],
]


def test_b3_10_exact_cover_knuth_example_has_one_solution() -> None:
    """B3-10: Knuth's 7-column textbook matrix has exactly the solution {A D, B G, C E F}."""
    problem = ExactCover(KNUTH_ROWS)
    assert problem.count() == 1
    assert problem.solutions() == [(0, 3, 4)]
    assert problem.first() == (0, 3, 4)


def test_b3_10_exact_cover_no_solution_and_empty_column() -> None:
    assert ExactCover(KNUTH_ROWS[:3]).count() == 0
    assert ExactCover([["A"]], primary=["A", "B"]).first() is None
    # No primary columns: the empty selection is the one solution.
    assert ExactCover([], primary=[]).solutions() == [()]


def _queens(n: int) -> ExactCover:
    """n queens: ranks and files primary, the diagonals secondary (at most one queen each)."""
    rows = [[("r", r), ("f", f), ("d", r + f), ("a", r - f)] for r in range(n) for f in range(n)]
    primary = [("r", i) for i in range(n)] + [("f", i) for i in range(n)]
    secondary = [("d", i) for i in range(2 * n - 1)] + [("a", i) for i in range(-n + 1, n)]
    return ExactCover(rows, primary, secondary)


@pytest.mark.parametrize(("n", "expected"), [(1, 1), (2, 0), (3, 0), (4, 2), (6, 4), (8, 92)])
def test_b3_10_exact_cover_secondary_columns_queens(n: int, expected: int) -> None:
    """B3-10: secondary columns are covered at most once (the classic n-queens counts)."""
    assert _queens(n).count() == expected


def _strip(n: int, limit: int | None) -> tuple[ExactCover, int]:
    """Tile a 1 x n strip with monominoes and dominoes, monominoes capped; brute-force count."""
    rows: list[list[int]] = []
    groups: list[str | None] = []
    for length in (1, 2):
        for start in range(n - length + 1):
            rows.append(list(range(start, start + length)))
            groups.append("mono" if length == 1 else None)
    problem = ExactCover(rows, groups=groups, limit=None if limit is None else {"mono": limit})
    brute = 0
    for k in range(len(rows) + 1):
        for combo in combinations(range(len(rows)), k):
            cells = [c for r in combo for c in rows[r]]
            monos = sum(1 for r in combo if groups[r] == "mono")
            if sorted(cells) == list(range(n)) and (limit is None or monos <= limit):
                brute += 1
    return problem, brute


@pytest.mark.parametrize("limit", [None, 0, 1, 2, 3, 6])
def test_b3_10_exact_cover_multiplicity_limit_matches_brute_force(limit: int | None) -> None:
    """B3-10: a per-group cap (at most k copies of a shape) counts like brute force."""
    problem, brute = _strip(6, limit)
    assert problem.count() == brute
    # Each solution once: no duplicate listing of interchangeable copies.
    sols = problem.solutions()
    assert len(set(sols)) == len(sols) == brute


def test_b3_10_exact_cover_multiplicity_counts() -> None:
    """B3-10: strip of 6 in 1s and 2s: 13 tilings; at most two 1s: 1 + 6 = 7; no 1s: 1."""
    assert _strip(6, None)[0].count() == 13
    assert _strip(6, 2)[0].count() == 7
    assert _strip(6, 0)[0].count() == 1
    # A uniform int cap applies to every group.
    rows = [[0], [1], [2], [0, 1], [1, 2]]
    groups = ["mono", "mono", "mono", "duo", "duo"]
    assert ExactCover(rows, groups=groups, limit=1).count() == 2  # 0|12 and 01|2
    assert ExactCover(rows, groups=groups, limit=3).count() == 3


def test_b3_10_exact_cover_progress_and_max_solutions() -> None:
    calls: list[tuple[int, int]] = []
    problem = _queens(6)
    assert problem.count(progress=lambda done, total: calls.append((done, total))) == 4
    assert calls
    assert calls[-1][0] == calls[-1][1]
    assert [d for d, _ in calls] == list(range(1, len(calls) + 1))
    assert len(problem.solutions(max_solutions=3)) == 3
    assert problem.solutions(max_solutions=0) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": [["A", "Z"]], "primary": ["A"]}, "unknown column"),
        ({"rows": [["A"]], "primary": ["A"], "secondary": ["A"]}, "both primary and secondary"),
        ({"rows": [["A"]], "groups": ["g", "h"]}, "groups has 2 entries"),
        ({"rows": [["A"]], "groups": ["g"], "limit": -1}, "must be >= 0"),
        ({"rows": [["A"]], "limit": 2}, "needs groups"),
    ],
)
def test_b3_10_exact_cover_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ExactCover(**kwargs)  # type: ignore[arg-type]


# --- single-colour 3x3x3 cube ----------------------------------------------------------------


def test_b3_10_candidate_sets_are_one_tricube_and_six_tetracubes() -> None:
    """B3-10: 56 subsets of one colour hold 27 cubes: one tricube + six of the eight tetracubes."""
    sets = candidate_piece_sets()
    assert len(sets) == 56
    assert len(set(sets)) == 56
    tetracubes = [p for p in PIECE_IDS if len(PIECE_CUBES[p]) == 4]
    for s in sets:
        assert sum(len(PIECE_CUBES[p]) for p in s) == 27
        sizes = Counter(len(PIECE_CUBES[p]) for p in s)
        assert sizes == Counter({3: 1, 4: 6})
        assert list(s) == [p for p in PIECE_IDS if p in s]  # table order
    assert {frozenset(s) for s in sets} == {
        frozenset((tri, *tet)) for tri in ("I3", "V3") for tet in combinations(tetracubes, 6)
    }
    assert candidate_piece_sets(0) == ((),)


def test_b3_10_soma_cube_240_and_480() -> None:
    """B3-10: the Soma set gives 480 solutions up to rotation, 240 up to rotation + reflection."""
    result = count_piece_set(SOMA_PIECES)
    assert result.rotation_count == 480
    assert result.rotation_reflection_count == 240
    assert result.mirror_of is None
    assert result.volume == 27
    assert result.possible


@pytest.mark.parametrize(
    "pieces",
    [
        pytest.param(SOMA_PIECES, marks=pytest.mark.slow, id="soma"),  # 11520 raw, ~6 s
        # Without L4 no piece has 24 orientations (SR and SL have a half-turn symmetry).
        pytest.param(("I3", "O4", "T4", "S4", "SR", "SL", "Y4"), id="I3-no-L4"),
        pytest.param(("V3", "O4", "T4", "S4", "SR", "SL", "Y4"), id="V3-no-L4"),
    ],
)
def test_b3_10_symmetry_broken_count_matches_brute_force(pieces: tuple[str, ...]) -> None:
    """B3-10: the symmetry-broken solutions, turned all 24 ways, are exactly every solution.

    The full enumeration is independent of the symmetry breaking; the orbits are computed from
    coordinates.  Disjoint orbits of 24 that together give every raw solution prove that the
    representatives count the classes up to rotation exactly once each.  For Soma this is the
    classical 11520 = 480 * 24 = 240 * 48.
    """
    raw = cube_solutions(pieces, up_to_rotation=False)
    raw_keys = {_key(s) for s in raw}
    assert len(raw_keys) == len(raw)
    reps = cube_solutions(pieces)
    orbits = [_orbit(s) for s in reps]
    assert all(len(o) == 24 for o in orbits)
    union = set().union(*orbits)
    assert len(union) == 24 * len(reps)  # pairwise disjoint
    assert union == raw_keys
    result = count_piece_set(pieces)
    assert result.mirror_of is None
    assert result.rotation_count == len(reps) == len(raw) // 24
    # Up to rotation and reflection: pair each class with its mirror image.
    classes = {_canon(s) for s in reps}
    mirrored = {_canon(_reflect(s)) for s in reps}
    assert mirrored == classes
    assert result.rotation_reflection_count == len({min(_canon(s), _canon(_reflect(s))) for s in reps})
    if pieces == SOMA_PIECES:
        assert len(raw) == 11520
        assert (result.rotation_count, result.rotation_reflection_count) == (480, 240)


def test_b3_10_mirror_pairs_map_solutions_onto_each_other() -> None:
    """B3-10: reflecting the classes of S gives exactly the classes of mirror(S)."""
    pieces = ("I3", "O4", "T4", "L4", "S4", "SR", "Y4")
    other = mirror_set(pieces)
    assert other == ("I3", "O4", "T4", "L4", "S4", "SL", "Y4")
    mine = cube_solutions(pieces)
    theirs = cube_solutions(other)
    assert {_canon(_reflect(s)) for s in mine} == {_canon(s) for s in theirs}
    result = count_piece_set(pieces)
    assert result.mirror_of == other
    assert result.rotation_reflection_count == result.rotation_count == len(mine)


def test_b3_10_mirror_piece_map() -> None:
    assert MIRROR_PIECE["SR"] == "SL"
    assert MIRROR_PIECE["SL"] == "SR"
    assert all(MIRROR_PIECE[p] == p for p in PIECE_IDS if p not in ("SR", "SL"))
    assert mirror_set(SOMA_PIECES) == tuple(p for p in PIECE_IDS if p in SOMA_PIECES)


@pytest.fixture(scope="module")
def report() -> SingleColourReport:
    calls: list[tuple[int, int]] = []
    result = count_single_colour_cube(progress=lambda d, t: calls.append((d, t)))
    assert calls == [(i, 56) for i in range(1, 57)]  # progress: once per piece set
    return result


def test_b3_10_single_colour_report(report: SingleColourReport) -> None:
    """B3-10: the answer to the rulebook's question (pinned; cross-checked by brute force)."""
    assert len(report.sets) == 56
    by_set = {r.pieces: r for r in report.sets}
    soma = by_set[tuple(p for p in PIECE_IDS if p in SOMA_PIECES)]
    assert (soma.rotation_count, soma.rotation_reflection_count) == (480, 240)
    # The straight tetracube does not fit in a 3x3x3 cube: every set with I4 is impossible.
    for r in report.sets:
        if "I4" in r.pieces:
            assert not r.possible
    assert ("I3", "O4", "L4", "S4", "SR", "SL", "Y4") in report.impossible
    assert len(report.possible) == 13
    assert len(report.impossible) == 43
    assert set(report.possible) | set(report.impossible) == set(candidate_piece_sets())
    assert report.total_rotation == sum(r.rotation_count for r in report.sets) == 3372
    assert report.total_rotation_reflection == 1686
    for r in report.sets:
        if r.mirror_of is None:
            assert ("SR" in r.pieces) == ("SL" in r.pieces)
            assert r.rotation_reflection_count <= r.rotation_count <= 2 * r.rotation_reflection_count
        else:
            assert by_set[r.mirror_of].rotation_count == r.rotation_count
            assert by_set[r.mirror_of].mirror_of == r.pieces
            assert r.rotation_reflection_count == r.rotation_count


def test_b3_10_possible_sets_give_exact_covers(report: SingleColourReport) -> None:
    """B3-10: a sample of every possible set's solutions are genuine exact covers."""
    by_set = {r.pieces: r for r in report.sets}
    for pieces in report.possible:
        sols = cube_solutions(pieces)
        assert len(sols) == by_set[pieces].rotation_count
        for sol in sols[:: max(1, len(sols) // 15)]:
            _assert_exact_cover(sol, pieces)


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        (("V3", "T4", "L4", "S4", "SR", "SL"), "hold 23 cubes"),
        (("XX",), "unknown piece"),
        (("L4", "L4", "V3", "T4", "S4", "SR", "SL"), "duplicates"),
    ],
)
def test_b3_10_single_colour_bad_input(pieces: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        count_piece_set(pieces)
    with pytest.raises(ValueError, match=message):
        cube_solutions(pieces)


def test_b3_10_candidate_sets_bad_volume() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        candidate_piece_sets(-1)


# --- multi-colour packings -------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 5])
def test_b3_10_packing_is_valid(size: int) -> None:
    """B3-10: every cell filled once; each shape <= 4 times, its copies in distinct colours."""
    packing = find_packing(size)
    assert packing.size == size
    cells = [c for pp in packing.pieces for c in pp.cubes]
    assert len(cells) == size**3
    assert set(cells) == set(product(range(size), repeat=3))
    copies = Counter(pp.piece for pp in packing.pieces)
    assert max(copies.values()) <= 4
    for pid in copies:
        colours = [pp.colour for pp in packing.pieces if pp.piece == pid]
        assert len(set(colours)) == len(colours)
    for pp in packing.pieces:
        assert 0 <= pp.colour <= 3
        assert normalise(pp.cubes) in rotations_of(PIECE_CUBES[pp.piece])
    assert find_packing(size) == packing  # deterministic


@pytest.mark.parametrize("size", [3, 4, 5])
def test_b3_10_render_packing_layers(size: int) -> None:
    packing = find_packing(size)
    layers = render_packing_layers(packing, size)
    assert len(layers) == size
    token = re.compile(rf"^[{COLOUR_LETTERS}]({'|'.join(PIECE_IDS)})$")
    by_cell = {c: f"{COLOUR_LETTERS[pp.colour]}{pp.piece}" for pp in packing.pieces for c in pp.cubes}
    for z, layer in enumerate(layers):
        lines = layer.split("\n")
        assert len(lines) == size
        for row, line in enumerate(lines):
            tokens = line.split(" ")
            assert len(tokens) == size
            assert all(token.match(t) for t in tokens)
            y = size - 1 - row  # highest y first
            assert tokens == [by_cell[(x, y, z)] for x in range(size)]
    assert render_packing_layers(packing) == layers


@pytest.mark.parametrize("size", [2, 6, 0, -3, True, "3", 3.0])
def test_b3_10_packing_bad_size(size: object) -> None:
    with pytest.raises(ValueError, match="cube size must be one of"):
        find_packing(size)  # type: ignore[arg-type]


def test_b3_10_render_bad_input() -> None:
    packing = find_packing(3)
    with pytest.raises(ValueError, match="not 4-cubed"):
        render_packing_layers(packing, 4)
    with pytest.raises(ValueError, match="cube size must be one of"):
        render_packing_layers(packing, 6)
    clash = Packing(3, (*packing.pieces, packing.pieces[0]))
    with pytest.raises(ValueError, match="filled twice"):
        render_packing_layers(clash)
    outside = Packing(3, (PlacedPiece("I2", 0, ((2, 0, 0), (3, 0, 0))),))
    with pytest.raises(ValueError, match="outside"):
        render_packing_layers(outside)


@pytest.mark.parametrize(
    ("pieces", "pinned", "expected"),
    [
        (SOMA_PIECES, "Y4", (480, 240)),  # Y4 has placements with orbits of 8
        (("V3", "O4", "T4", "S4", "SR", "SL", "Y4"), "O4", (78, 39)),  # orbits of 12
    ],
)
def test_b3_10_symmetric_pinned_piece_is_deduplicated(
    monkeypatch: pytest.MonkeyPatch, pieces: tuple[str, ...], pinned: str, expected: tuple[int, int]
) -> None:
    """B3-10: pinning a piece with symmetric placements still counts each class once."""
    from masques.games.blokus3d import solitaire

    monkeypatch.setattr(solitaire, "_symmetry_breaker", lambda _pieces, _geo: pinned)
    result = count_piece_set(pieces)
    assert (result.rotation_count, result.rotation_reflection_count) == expected
