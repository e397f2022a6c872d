"""Blokus 3D rules, tested against the spec (``shared/spec/blokus3d.md``, decisions B3-1 .. B3-11).

Every test names the decision it checks.  The fast bitboard generator is compared with the slow,
literal generator in ``reference.py`` (fixtures ``ref`` / ``reference_legal_actions`` from
``conftest.py``) on empty structures, on hand-built positions and on many random games.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import (
    TERMINAL,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    load_game,
)
from masques.games.blokus3d.pieces import (
    CUBES_PER_COLOUR,
    NUM_ORIENTATIONS,
    ORIENTATIONS,
    ORIENTATIONS_BY_PIECE,
    PIECE_CUBES,
    PIECE_IDS,
)

COLOURS = ("blue", "yellow", "red", "green")
LETTERS = "byrg"
NUM_ACTIONS = 104 * 100

Shape = tuple[tuple[int, int, int], ...]

# Shapes used to build positions by hand (normalised: smallest x, y, z are 0).
I2_X: Shape = ((0, 0, 0), (1, 0, 0))
I2_Y: Shape = ((0, 0, 0), (0, 1, 0))
I2_Z: Shape = ((0, 0, 0), (0, 0, 1))
I3_X: Shape = ((0, 0, 0), (1, 0, 0), (2, 0, 0))
I3_Z: Shape = ((0, 0, 0), (0, 0, 1), (0, 0, 2))
I4_X: Shape = ((0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0))
I4_Y: Shape = ((0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 3, 0))
I4_Z: Shape = ((0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3))
O4_FLAT: Shape = ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0))
O4_UP_X: Shape = ((0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1))
L4_FLAT: Shape = ((0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0))
L4_UP_FOOT_X: Shape = ((0, 0, 0), (0, 0, 1), (0, 0, 2), (1, 0, 2))  # stem up, foot at the top, +x
L4_UP_FOOT_Y: Shape = ((0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 2))  # stem up, foot at the top, +y
V3_UP_ARM_X: Shape = ((0, 0, 1), (1, 0, 0), (1, 0, 1))  # column of 2 at dx=1, arm over dx=0 at z=1
V3_UP_ARM_Y: Shape = ((0, 0, 1), (0, 1, 0), (0, 1, 1))  # column of 2 at dy=1, arm over dy=0 at z=1


# -- configurations ----------------------------------------------------------------------------
def _config_id(cfg: dict[str, Any]) -> str:
    players = f"{cfg['players']}p" if cfg.get("colours_per_player", 1) == 1 else "2x2"
    return f"{cfg['structure']}-{players}"


BUILTIN_CONFIGS: list[dict[str, Any]] = [
    {"structure": key, **variant}
    for key in "ABCD"
    for variant in (
        {"players": 4},
        {"players": 3},
        {"players": 2},
        {"players": 2, "colours_per_player": 2},
    )
]
HILL = {"name": "Hill", "heights": ["1221", "2442", "2442", "1221"]}
ODD = {"name": "Odd", "heights": ["0135", "3000", "0777", "2222", "9009"]}
CUSTOM_CONFIGS: list[dict[str, Any]] = [
    {"structure": "custom", "players": 3, "custom_structure": HILL},
    {"structure": "custom", "players": 2, "colours_per_player": 2, "custom_structure": ODD},
]
EXTRA_CONFIGS: list[dict[str, Any]] = [
    {
        "structure": "D",
        "players": 2,
        "colours_per_player": 2,
        "two_player_scoring": "best",
        "random_first": True,
    },
    {"structure": "B", "players": 4, "random_first": True},
]
ALL_CONFIGS = BUILTIN_CONFIGS + CUSTOM_CONFIGS + EXTRA_CONFIGS


def game(**options: Any) -> Any:
    return load_game("blokus3d", options)


# -- helpers -----------------------------------------------------------------------------------
def act(ref: ModuleType, piece: str, shape: Shape, x: int, y: int) -> int:
    """The action id of ``piece`` turned to ``shape`` with its anchor on board square (x, y)."""
    action: int = ref.action_id(piece, shape, x, y)
    return action


def snapshot(state: Any) -> str:
    return json.dumps(state.serialize(), sort_keys=True)


def assert_rejected(
    state: Any, action: object, error: type[Exception] = IllegalActionError, reason: str = ""
) -> None:
    """``apply(action)`` raises ``error`` with a reason (matching ``reason``) and changes nothing."""
    before = snapshot(state)
    legal = state.legal_actions()
    if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
        assert action not in legal
        assert not state.is_legal(action)
    with pytest.raises(error) as info:
        state.apply(action)
    assert str(info.value).strip(), "an illegal action must come with a reason"
    assert getattr(info.value, "reason", "x").strip()
    if reason:
        assert re.search(reason, str(info.value), re.IGNORECASE), str(info.value)
    assert snapshot(state) == before
    assert state.legal_actions() == legal


def assert_accepted(ref: ModuleType, state: Any, action: int) -> None:
    """The action is legal for both generators; apply it with the full per-move checks."""
    placements = check_position(ref, state)
    assert action in placements, state.action_to_str(action)
    step(ref, state, action, placements)


def check_position(ref: ModuleType, state: Any) -> dict[int, int]:
    """The engine's legal actions and their heights equal the reference's (B3-4), no pass (B3-5)."""
    placements: dict[int, int] = ref.reference_placements(state)
    legal = state.legal_actions()
    expected = sorted(placements)
    if legal != expected:
        missing = [state.action_to_str(a) for a in sorted(set(expected) - set(legal))[:8]]
        extra = [state.action_to_str(a) for a in sorted(set(legal) - set(expected))[:8]]
        pytest.fail(
            f"legal moves differ from the reference after {state.history}: missing {missing}, extra {extra}"
        )
    for action in legal:
        assert state.placement_z(action) == placements[action], state.action_to_str(action)
    # B3-5: the colour to move always has a placement; the game is over exactly when nobody has one.
    assert state.is_terminal() == (not legal)
    if state.is_terminal():
        assert state.current_player == TERMINAL
        assert state.current_colour == -1
    else:
        assert state.status[state.current_colour] == "playing"
        assert state.current_player == state.game.seat_of_colour(state.current_colour)
    return placements


def check_every_id(state: Any, placements: dict[int, int]) -> None:
    """``is_legal`` agrees with the reference on every one of the 10 400 action ids."""
    assert [a for a in range(NUM_ACTIONS) if state.is_legal(a)] == sorted(placements)


def step(ref: ModuleType, state: Any, action: int, placements: dict[int, int]) -> None:
    """Apply a legal action and check where the cubes land (B3-4 b) and whose turn comes (B3-5)."""
    mover = state.current_colour
    before_stacks = state.stacks()
    before_status = list(state.status)
    state.apply(action)

    # The cubes land exactly where the reference put them, each column growing from its height.
    expected = [row[:] for row in before_stacks]
    for cx, cy, cz in sorted(ref.placed_cubes(action, placements[action]), key=lambda c: c[2]):
        assert len(expected[cy][cx]) == cz
        expected[cy][cx] += LETTERS[mover]
    assert state.stacks() == expected

    n = len(state.status)
    pieces_left = state.observation(None)["colours"][mover]["pieces_left"]
    if not pieces_left:
        assert state.status[mover] == "done"  # B3-5: all 11 placed
    for k in range(n):
        if before_status[k] != "playing":
            assert state.status[k] == before_status[k], "out and done are for the rest of the game"
        elif state.status[k] == "out":
            # B3-5: a colour drops out only when it has no legal placement
            assert ref.reference_legal_actions(state, COLOURS[k]) == []
    nxt = state.current_colour
    if nxt >= 0:
        # Colours play in seat order; the ones passed over are out or done, never skipped otherwise.
        k = (mover + 1) % n
        while k != nxt:
            assert state.status[k] in ("out", "done"), f"{COLOURS[k]} was skipped"
            k = (k + 1) % n
    else:
        assert set(state.status) <= {"out", "done"}


def walk(
    ref: ModuleType,
    state: Any,
    choose: Callable[[list[int]], int],
    every_id_check: int = 0,
) -> int:
    """Play ``choose(legal)`` until the end, checking every position; return the number checked."""
    positions = 0
    while True:
        placements = check_position(ref, state)
        if every_id_check and positions % every_id_check == 0:
            check_every_id(state, placements)
        positions += 1
        if state.is_terminal():
            check_final_scores(state)
            return positions
        step(ref, state, choose(state.legal_actions()), placements)


def follow(ref: ModuleType, state: Any, moves: list[str]) -> Iterator[Any]:
    """Apply moves given in notation, checking each position; yield the state after each move."""
    for text in moves:
        placements = check_position(ref, state)
        action = state.action_from_str(text)
        assert action in placements, f"{text} is not legal after {state.history}"
        step(ref, state, action, placements)
        yield state


def visible_squares(state: Any) -> list[int]:
    """Per colour, the squares whose top cube is that colour (B3-6), read from the stacks."""
    tops = Counter(stack[-1] for row in state.stacks() for stack in row if stack)
    return [tops[LETTERS[c]] for c in range(len(state.status))]


def check_final_scores(state: Any) -> None:
    """B3-6 / B3-9: scores from the top view and the hands; winners share the win."""
    obs = state.observation(None)
    expected = [
        seen - len(info["pieces_left"])
        for seen, info in zip(visible_squares(state), obs["colours"], strict=True)
    ]
    assert state.colour_scores() == expected
    g = state.game
    seats = range(g.num_players)
    mine = [[s for c, s in enumerate(expected) if g.seat_of_colour(c) == seat] for seat in seats]
    if g.options["two_player_scoring"] == "best" and len(expected) > g.num_players:
        per_seat = [max(m) for m in mine]
    else:
        per_seat = [sum(m) for m in mine]
    assert state.scores() == [float(s) for s in per_seat]
    if state.is_terminal():
        top = max(per_seat)
        winners = [seat for seat in seats if per_seat[seat] == top]
        assert state.winners() == winners
        assert state.returns() == [1 / len(winners) if s in winners else 0.0 for s in seats]
    else:
        assert state.winners() == []
        assert state.returns() == [0.0] * g.num_players


# == B3-1 pieces ===============================================================================
def test_b3_1_piece_table_is_the_spec_table(ref: ModuleType) -> None:
    """B3-1: 11 pieces in the spec's order and coordinates, 40 cubes per colour."""
    assert list(PIECE_IDS) == list(ref.SPEC_PIECES)
    assert {p: set(c) for p, c in PIECE_CUBES.items()} == {p: set(c) for p, c in ref.SPEC_PIECES.items()}
    assert len(PIECE_IDS) == 11
    assert CUBES_PER_COLOUR == 40
    assert sum(len(c) for c in PIECE_CUBES.values()) == 40
    assert sorted(len(c) for c in PIECE_CUBES.values()) == [2, 3, 3] + [4] * 8


def _canonical(ref: ModuleType, cubes: Any) -> tuple[tuple[int, int, int], ...]:
    return min(tuple(sorted(o)) for o in ref.orientations(cubes))


def test_b3_1_the_pieces_are_every_polycube_of_two_to_four_cubes(ref: ModuleType) -> None:
    """B3-1: the 11 pieces are exactly the polycubes of 2, 3 and 4 cubes, up to rotation only."""
    by_size: dict[int, set[Any]] = {1: {_canonical(ref, [(0, 0, 0)])}}
    for size in (2, 3, 4):
        grown = set()
        for shape in by_size[size - 1]:
            for x, y, z in shape:
                for dx, dy, dz in ref.FACE_STEPS:
                    cube = (x + dx, y + dy, z + dz)
                    if cube not in shape:
                        grown.add(_canonical(ref, [*shape, cube]))
        by_size[size] = grown
    assert [len(by_size[n]) for n in (2, 3, 4)] == [1, 2, 8]
    pieces = {_canonical(ref, cubes) for cubes in PIECE_CUBES.values()}
    assert pieces == by_size[2] | by_size[3] | by_size[4]


def test_b3_1_orientation_counts(ref: ModuleType) -> None:
    """B3-1: the 24 rotations give 104 orientations; per piece as the spec's geometry implies."""
    assert len(ref.rotation_group()) == 24
    expected = {
        "I2": 3, "I3": 3, "V3": 12, "I4": 3, "O4": 3, "T4": 12,
        "L4": 24, "S4": 12, "SR": 12, "SL": 12, "Y4": 8,
    }  # fmt: skip
    assert {p: len(ref.orientations(c)) for p, c in ref.SPEC_PIECES.items()} == expected
    assert {p: len(os) for p, os in ORIENTATIONS_BY_PIECE.items()} == expected
    assert NUM_ORIENTATIONS == len(ORIENTATIONS) == sum(expected.values()) == 104


def test_b3_1_engine_orientations_are_exactly_the_rotations(ref: ModuleType) -> None:
    """B3-1: each engine orientation is a rotation of its piece (no reflection), none repeated."""
    assert [o.index for o in ORIENTATIONS] == list(range(104))
    for piece, cubes in ref.SPEC_PIECES.items():
        engine = {frozenset(o.cubes) for o in ORIENTATIONS_BY_PIECE[piece]}
        assert len(engine) == len(ORIENTATIONS_BY_PIECE[piece])
        assert engine == ref.orientations(cubes)
        for o in ORIENTATIONS_BY_PIECE[piece]:
            assert o.piece == piece
            assert min(c[0] for c in o.cubes) == min(c[1] for c in o.cubes) == 0
            assert min(c[2] for c in o.cubes) == 0


def test_b3_1_screws_are_mirror_images_not_rotations(ref: ModuleType) -> None:
    """B3-1: SR and SL are mirror images of each other but distinct pieces (no reflection)."""
    sr, sl = ref.orientations(PIECE_CUBES["SR"]), ref.orientations(PIECE_CUBES["SL"])
    assert ref.mirrored(PIECE_CUBES["SR"]) in sl
    assert ref.mirrored(PIECE_CUBES["SL"]) in sr
    assert not sr & sl
    # Every other piece is its own mirror image (so reflection adds nothing for them).
    for piece in set(PIECE_IDS) - {"SR", "SL"}:
        assert ref.mirrored(PIECE_CUBES[piece]) in ref.orientations(PIECE_CUBES[piece])


# == B3-2 / B3-3 structures ====================================================================
def footprint(g: Any) -> dict[tuple[int, int], int]:
    """{(x, y): height limit} of the columns inside the structure, from the public observation."""
    rows = g.new_initial_state(0).observation(None)["structure"]["max_heights"]  # [y][x]
    return {(x, y): h for y, row in enumerate(rows) for x, h in enumerate(row) if h > 0}


def bbox(cells: Any) -> tuple[int, int, int, int]:
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return min(xs), max(xs), min(ys), max(ys)


def assert_centred(cells: Any) -> None:
    x0, x1, y0, y1 = bbox(cells)
    assert abs(x0 + x1 - 9) <= 1 and abs(y0 + y1 - 9) <= 1, (x0, x1, y0, y1)


PLAYER_COUNTS = [2, 3, 4]


@pytest.mark.parametrize(("players", "height"), [(2, 4), (3, 6), (4, 8)])
def test_b3_2_tower_a_is_a_centred_5x4_rectangle(players: int, height: int) -> None:
    """B3-2: structure A, a 5x4 rectangle of height 4 / 6 / 8 for 2 / 3 / 4 players."""
    cells = footprint(game(structure="A", players=players))
    x0, x1, y0, y1 = bbox(cells)
    assert sorted([x1 - x0 + 1, y1 - y0 + 1]) == [4, 5]
    assert len(cells) == 20
    assert_centred(cells)
    assert set(cells.values()) == {height}


@pytest.mark.parametrize(("players", "height"), [(2, 2), (3, 3), (4, 4)])
def test_b3_2_wall_b_is_an_l_along_two_edges(players: int, height: int) -> None:
    """B3-2: structure B, an L two cells thick with both arms 10 long along two edges (36 cells)."""
    cells = footprint(game(structure="B", players=players))
    board = [(x, y) for x in range(10) for y in range(10)]
    ls = [
        {(x, y) for x, y in board if (x < 2 if left else x > 7) or (y < 2 if low else y > 7)}
        for left in (True, False)
        for low in (True, False)
    ]
    assert set(cells) in ls
    assert len(cells) == 36
    assert set(cells.values()) == {height}


@pytest.mark.parametrize(("players", "steps"), [(2, [1, 2, 3, 4]), (3, [2, 3, 4, 6]), (4, [2, 4, 6, 8])])
def test_b3_2_stairs_c_has_four_steps_two_deep(players: int, steps: list[int]) -> None:
    """B3-2: structure C, 4 wide x 8 deep, four steps 2 deep with the spec's heights."""
    cells = footprint(game(structure="C", players=players))
    x0, x1, y0, y1 = bbox(cells)
    assert len(cells) == 32
    assert sorted([x1 - x0 + 1, y1 - y0 + 1]) == [4, 8]
    assert_centred(cells)
    if y1 - y0 + 1 == 8:
        profile = [{cells[(x, y)] for x in range(x0, x1 + 1)} for y in range(y0, y1 + 1)]
    else:
        profile = [{cells[(x, y)] for y in range(y0, y1 + 1)} for x in range(x0, x1 + 1)]
    assert all(len(heights) == 1 for heights in profile), "a step has one height across"
    along = [heights.pop() for heights in profile]
    expected = [h for h in steps for _ in range(2)]
    assert along in (expected, expected[::-1])


@pytest.mark.parametrize(("players", "rings"), [(2, [1, 1, 2, 3]), (3, [1, 2, 3, 4]), (4, [1, 3, 4, 6])])
def test_b3_2_pyramid_d_has_four_rings(players: int, rings: list[int]) -> None:
    """B3-2: structure D, 8x8 centred, four concentric rings, outermost first."""
    cells = footprint(game(structure="D", players=players))
    x0, x1, y0, y1 = bbox(cells)
    assert len(cells) == 64
    assert (x1 - x0 + 1, y1 - y0 + 1) == (8, 8)
    assert_centred(cells)
    for (x, y), h in cells.items():
        ring = min(x - x0, y - y0, x1 - x, y1 - y)
        assert h == rings[ring], (x, y)


@pytest.mark.parametrize(
    ("key", "volumes"),
    [("A", [80, 120, 160]), ("B", [72, 108, 144]), ("C", [80, 120, 160]), ("D", [84, 120, 160])],
)
def test_b3_2_volumes_are_about_forty_cubes_per_colour(key: str, volumes: list[int]) -> None:
    """B3-2: the volumes follow from the table (close to 40 cubes per colour in play)."""
    for players, volume in zip(PLAYER_COUNTS, volumes, strict=True):
        g = game(structure=key, players=players)
        assert sum(footprint(g).values()) == volume
        assert g.structure.volume == volume
        assert abs(volume - 40 * players) <= 0.1 * 40 * players


@pytest.mark.parametrize("key", "ABCD")
def test_b3_3_two_players_with_four_colours_use_the_four_player_grid(key: str) -> None:
    """B3-3 (and B3-8): 2 players x 2 colours -> 4-player grid; 2 players x 1 colour -> 2-player grid."""
    four = footprint(game(structure=key, players=4))
    assert footprint(game(structure=key, players=2, colours_per_player=2)) == four
    two = footprint(game(structure=key, players=2))
    assert two != four
    assert set(two) == set(four)


def test_b3_2_observation_grid_matches_the_structure() -> None:
    """B3-2: the public grid is max_heights[y][x] of the structure the game plays on."""
    for cfg in ALL_CONFIGS:
        g = load_game("blokus3d", cfg)
        cells = footprint(g)
        for x in range(10):
            for y in range(10):
                assert g.structure.max_heights[x][y] == cells.get((x, y), 0)


def test_b3_2_custom_structure_loads_centred_first_row_farthest() -> None:
    """B3-2: a custom grid loads, is centred on the board, its first row drawn farthest (largest y)."""
    g = game(structure="custom", custom_structure={"name": "Steps", "heights": ["123", "456"]})
    cells = footprint(g)
    x0, x1, y0, y1 = bbox(cells)
    assert (x1 - x0 + 1, y1 - y0 + 1) == (3, 2)
    assert_centred(cells)
    assert [cells[(x, y1)] for x in range(x0, x1 + 1)] == [1, 2, 3]
    assert [cells[(x, y0)] for x in range(x0, x1 + 1)] == [4, 5, 6]
    assert g.structure.name == "Steps"
    assert g.new_initial_state(0).observation(None)["structure"]["name"] == "Steps"
    same = game(structure="custom", custom_structure={"heights": [[1, 2, 3], [4, 5, 6]]})
    assert footprint(same) == cells
    tall = game(structure="custom", custom_structure={"heights": [[10, 10], [10, 10]]})
    assert set(footprint(tall).values()) == {10}


def test_b3_2_custom_structure_one_cell_deep_loads_and_plays(ref: ModuleType) -> None:
    """B3-2: a valid custom grid one cell deep ("1111") is a structure like any other.

    Only the 2-dimensional pieces fit in it; after blue's and yellow's dominoes it is full, both
    colours drop out and the game is a tie (B3-5, B3-6).
    """
    g = game(structure="custom", players=2, custom_structure={"heights": ["1111"]})
    state = g.new_initial_state(0)
    x0, x1, y0, _ = bbox(footprint(g))
    assert x1 - x0 == 3
    assert_accepted(ref, state, act(ref, "I2", I2_X, x0, y0))
    assert_accepted(ref, state, act(ref, "I2", I2_X, x0 + 2, y0))
    check_position(ref, state)
    assert state.is_terminal()
    assert state.winners() == [0, 1]


MALFORMED_CUSTOM = [
    pytest.param({"heights": ["12a"]}, "digit", id="non-digit"),
    pytest.param({"heights": ["1"] * 11}, "10", id="too-many-rows"),
    pytest.param({"heights": ["1" * 11]}, "10", id="row-too-long"),
    pytest.param({"heights": ["111", "11"]}, "row 2", id="ragged"),
    pytest.param({"heights": [[1, 11]]}, "11", id="height-too-big"),
    pytest.param({"heights": [[1, -1]]}, "-1", id="height-negative"),
    pytest.param({"heights": []}, "empty", id="no-rows"),
    pytest.param({"heights": [""]}, "empty", id="empty-row"),
    pytest.param({"heights": ["0000"]}, "cube|fit|room|empty", id="all-zero"),
    pytest.param({}, "heights", id="no-heights"),
    pytest.param("1111", "object|heights", id="not-an-object"),
    pytest.param({"heights": "1111"}, "list", id="heights-not-a-list"),
    pytest.param({"heights": [1111]}, "row 1", id="row-not-a-string"),
    pytest.param({"heights": [["1", "1"]]}, "integer", id="cell-not-an-int"),
    pytest.param({"heights": [[1, True]]}, "integer", id="cell-a-bool"),
    pytest.param({"heights": ["11"], "name": 7}, "name", id="name-not-a-string"),
    pytest.param({"heights": ["11"], "colour": "red"}, "colour", id="unknown-key"),
]


@pytest.mark.parametrize(("doc", "fragment"), MALFORMED_CUSTOM)
def test_b3_2_malformed_custom_structure_is_refused_clearly(doc: Any, fragment: str) -> None:
    """B3-2: every malformed custom grid raises InvalidOptionError saying what is wrong."""
    with pytest.raises(InvalidOptionError) as info:
        game(structure="custom", custom_structure=doc)
    assert info.value.option == "custom_structure"
    assert "custom_structure" in str(info.value)
    assert re.search(fragment, str(info.value), re.IGNORECASE), str(info.value)


def test_b3_2_custom_grid_goes_with_structure_custom_only() -> None:
    """B3-2: structure=custom needs a grid; a grid needs structure=custom."""
    with pytest.raises(InvalidOptionError, match="custom_structure") as info:
        game(structure="custom")
    assert "required" in str(info.value) or "needs" in str(info.value)
    with pytest.raises(InvalidOptionError, match="custom") as info:
        game(structure="A", custom_structure={"heights": ["11"]})
    assert info.value.option in ("custom_structure", "structure")


# == Cross-check with the reference generator (B3-4) ===========================================
@pytest.mark.parametrize("cfg", ALL_CONFIGS, ids=[_config_id(c) for c in ALL_CONFIGS])
def test_b3_4_empty_structure_matches_reference(ref: ModuleType, cfg: dict[str, Any]) -> None:
    """B3-4: on every empty structure (all player counts) the legal moves equal the reference's."""
    state = load_game("blokus3d", cfg).new_initial_state(3)
    placements = check_position(ref, state)
    check_every_id(state, placements)
    assert placements


def test_b3_4_default_empty_pyramid_matches_reference(reference_legal_actions: Any) -> None:
    """B3-4: the default game (4 players, structure D) on the empty board."""
    state = game().new_initial_state(0)
    assert state.legal_actions() == reference_legal_actions(state)
    assert len(state.legal_actions()) > 1000


@pytest.mark.parametrize("cfg", BUILTIN_CONFIGS, ids=[_config_id(c) for c in BUILTIN_CONFIGS])
def test_b3_4_random_games_match_reference(ref: ModuleType, cfg: dict[str, Any]) -> None:
    """B3-4 / B3-5: a whole random game per configuration, every position checked (the hypothesis
    test below plays more, in random configurations)."""
    seed = 11
    state = load_game("blokus3d", cfg).new_initial_state(seed)
    rng = random.Random(f"{_config_id(cfg)}-{seed}")
    positions = walk(ref, state, rng.choice, every_id_check=12)
    assert positions > 10


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(cfg=st.sampled_from(ALL_CONFIGS), seed=st.integers(0, 2**31), rng=st.randoms())
def test_b3_4_hypothesis_random_games_match_reference(
    ref: ModuleType, cfg: dict[str, Any], seed: int, rng: random.Random
) -> None:
    """B3-4 / B3-5: random configurations, seeds and move choices; every position checked."""
    state = load_game("blokus3d", cfg).new_initial_state(seed)
    walk(ref, state, rng.choice)


# == B3-4 (a) footprint and height limit =======================================================
def test_b3_4a_piece_must_stay_inside_the_footprint(ref: ModuleType) -> None:
    """B3-4 (a): every cube inside the footprint (tower A: x 2..6, y 3..6)."""
    state = game(structure="A", players=2).new_initial_state(0)
    x0, x1, y0, y1 = bbox(footprint(state.game))
    assert (x0, x1, y0, y1) == (2, 6, 3, 6)
    check_position(ref, state)
    assert act(ref, "I4", I4_X, 3, 3) in state.legal_actions()  # x 3..6
    assert act(ref, "I4", I4_Y, 2, 3) in state.legal_actions()  # y 3..6
    assert_rejected(state, act(ref, "I4", I4_X, 4, 3), reason=r"B3-4 ?\(?a")  # x 7 is outside
    assert_rejected(state, act(ref, "I4", I4_Y, 2, 4), reason=r"B3-4 ?\(?a")  # y 7 is outside
    assert_rejected(state, act(ref, "I2", I2_X, 0, 0), reason=r"B3-4 ?\(?a")  # nowhere near
    assert_rejected(state, act(ref, "I4", I4_X, 8, 5), reason=r"B3-4 ?\(?a")  # off the board


def test_b3_4a_piece_must_stay_below_the_height_limit(ref: ModuleType) -> None:
    """B3-4 (a): z < maxH for every cube (pyramid D, 4 players: rings 1, 3, 4, 6)."""
    state = game(structure="D", players=4).new_initial_state(0)
    check_position(ref, state)
    legal = state.legal_actions()
    assert act(ref, "I4", I4_Z, 4, 4) in legal  # centre, limit 6
    assert act(ref, "I4", I4_Z, 3, 3) in legal  # third ring, limit 4: z 0..3
    assert act(ref, "I3", I3_Z, 2, 2) in legal  # second ring, limit 3
    assert act(ref, "I2", I2_X, 1, 1) in legal  # outer ring, limit 1, lying flat
    assert_rejected(state, act(ref, "I4", I4_Z, 2, 2), reason=r"high|B3-4 ?\(?a")
    assert_rejected(state, act(ref, "I2", I2_Z, 1, 1), reason=r"high|B3-4 ?\(?a")


def test_b3_4a_height_limit_counts_the_cubes_already_there(ref: ModuleType) -> None:
    """B3-4 (a): on tower A for 2 players (limit 4), a column holding 2 cubes takes 2 more, not 3."""
    state = game(structure="A", players=2).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "I2", I2_Z, 2, 3))  # blue, z 0..1
    assert_accepted(ref, state, act(ref, "I2", I2_Z, 3, 3))  # yellow beside it
    check_position(ref, state)
    assert_rejected(state, act(ref, "I3", I3_Z, 2, 3), reason=r"high|B3-4 ?\(?a")  # z 2..4
    on_top = act(ref, "O4", O4_UP_X, 2, 3)  # an upright square on both columns: z 2..3
    assert state.placement_z(on_top) == 2
    assert_accepted(ref, state, on_top)
    assert state.stacks()[3][2:4] == ["bbbb", "yybb"]  # both columns are full
    assert_rejected(state, act(ref, "I3", I3_X, 2, 3), reason=r"high|B3-4 ?\(?a")  # yellow


# == B3-4 (b) no overhang ======================================================================
def test_b3_4b_no_overhang_bridge_or_hole(ref: ModuleType) -> None:
    """B3-4 (b): a piece bridging an empty column, or hanging over one, is illegal (fig. 6)."""
    state = game(structure="A", players=2).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "L4", L4_FLAT, 2, 3))  # blue (2,3) (3,3) (4,3) (2,4)
    assert_accepted(ref, state, act(ref, "I2", I2_Y, 4, 4))  # yellow (4,4) (4,5)
    check_position(ref, state)
    # Columns (2,4) and (4,4) hold one cube, (3,4) none: a bridge over it is illegal ...
    assert_rejected(state, act(ref, "I3", I3_X, 2, 4), reason=r"overhang|hole|B3-4 ?\(?b")
    # ... and so is a piece that hangs from the top of (2,4) over the empty column.
    assert_rejected(state, act(ref, "I2", I2_X, 2, 4), reason=r"overhang|hole|B3-4 ?\(?b")
    # The hole can still be filled from above (fig. 6, "correct placement").
    assert_accepted(ref, state, act(ref, "I2", I2_Z, 3, 4))
    assert state.stacks()[4][2:5] == ["b", "bb", "y"]


def test_b3_4b_piece_with_a_raised_part_needs_a_support_of_that_height(ref: ModuleType) -> None:
    """B3-4 (b): an upright L whose foot is at z = 2 needs a column of exactly 2 under the foot."""
    state = game(structure="A", players=2).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "I2", I2_Z, 3, 4))  # blue column (3,4) of height 2
    check_position(ref, state)
    # Yellow: the stem on (2,4), the foot on top of blue's column: it rests on the height map.
    on_step = act(ref, "L4", L4_UP_FOOT_X, 2, 4)
    # The same L with its foot over the empty column (2,5) leaves a hole below it.
    assert_rejected(state, act(ref, "L4", L4_UP_FOOT_Y, 2, 4), reason=r"overhang|hole|B3-4 ?\(?b")
    assert_accepted(ref, state, on_step)
    assert state.stacks()[4][2:4] == ["yyy", "bby"]


# == B3-4 (c) contact ==========================================================================
def test_b3_4c_first_piece_of_the_game_goes_anywhere(ref: ModuleType) -> None:
    """B3-4 (c): the very first piece needs no contact: any corner, any height it can reach."""
    state = game(structure="D", players=4).new_initial_state(0)
    legal = set(check_position(ref, state))
    for x, y in [(1, 1), (7, 1), (1, 8), (7, 8), (4, 1)]:
        assert act(ref, "I2", I2_X, x, y) in legal
    upright = act(ref, "I4", I4_Z, 4, 4)
    assert upright in legal
    assert_accepted(ref, state, upright)
    assert state.stacks()[4][4] == "bbbb"


def test_b3_4c_a_colours_first_piece_touches_a_placed_cube_and_the_ground(ref: ModuleType) -> None:
    """B3-4 (c): after the first piece, a colour's first piece must touch any placed cube face to
    face and have a cube at z = 0."""
    state = game(structure="A", players=2).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "O4", O4_FLAT, 3, 4))  # blue (3..4, 4..5)
    placements = check_position(ref, state)
    assert all(z == 0 for z in placements.values())
    legal = set(placements)
    assert act(ref, "I2", I2_X, 5, 4) in legal  # beside blue, on the ground
    assert act(ref, "I2", I2_Z, 2, 4) in legal  # upright beside blue
    assert act(ref, "V3", V3_UP_ARM_X, 4, 4) in legal  # on the ground, arm on top of blue
    # On top of blue: touches, but no cube on the ground.
    assert_rejected(state, act(ref, "I2", I2_X, 3, 4), reason=r"ground")
    # On the ground, touching blue only along an edge, or not at all.
    assert_rejected(state, act(ref, "I2", I2_X, 5, 6), reason=r"touch")
    assert_rejected(state, act(ref, "I2", I2_X, 5, 3), reason=r"touch")
    assert_rejected(state, act(ref, "I2", I2_Y, 6, 3), reason=r"touch")


def test_b3_4c_a_colours_first_piece_may_touch_any_colour(ref: ModuleType) -> None:
    """B3-4 (c): red's first piece may touch yellow only."""
    state = game(structure="A", players=4).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "O4", O4_FLAT, 3, 4))  # blue
    assert_accepted(ref, state, act(ref, "I2", I2_X, 5, 4))  # yellow (5,4) (6,4)
    assert state.current_colour == 2
    check_position(ref, state)
    assert_rejected(state, act(ref, "I2", I2_X, 5, 6), reason=r"touch")  # an edge of blue only
    assert_accepted(ref, state, act(ref, "I2", I2_X, 5, 3))  # red under yellow: touches yellow only


def test_b3_4c_later_pieces_touch_their_own_colour_face_to_face(ref: ModuleType) -> None:
    """B3-4 (c): after its first piece a colour must touch its own colour by a face; other colours
    do not count, nor do edges or corners.  Touching its own colour from above is fine (touching
    it from below cannot happen: every new cube lies above everything in its column, B3-4 b)."""
    state = game(structure="A", players=2).new_initial_state(0)
    assert_accepted(ref, state, act(ref, "O4", O4_FLAT, 3, 4))  # blue (3..4, 4..5) z 0
    assert_accepted(ref, state, act(ref, "O4", O4_FLAT, 5, 3))  # yellow (5..6, 3..4) z 0
    assert state.current_colour == 0
    check_position(ref, state)
    own = r"blue|own|touch"
    assert_rejected(state, act(ref, "I2", I2_Y, 6, 5), reason=own)  # touches yellow only
    assert_rejected(state, act(ref, "I2", I2_X, 5, 6), reason=own)  # an edge of blue, on the ground
    assert_rejected(state, act(ref, "I2", I2_X, 5, 4), reason=own)  # on yellow: an edge of blue
    assert_rejected(state, act(ref, "I2", I2_X, 5, 3), reason=own)  # on yellow: a corner of blue
    assert act(ref, "I2", I2_X, 5, 5) in state.legal_actions()  # beside blue and yellow
    assert_rejected(state, act(ref, "O4", O4_FLAT, 3, 4), reason=r"placed|O4")  # O4 is gone
    assert_accepted(ref, state, act(ref, "I2", I2_X, 3, 4))  # on top of blue
    assert state.stacks()[4][3:5] == ["bb", "bb"]


def test_b3_4_illegal_and_malformed_actions_change_nothing(ref: ModuleType) -> None:
    """B3-4 and the engine contract: typed errors with a reason; the state is left as it was."""
    state = game(structure="C", players=3).new_initial_state(5)
    rng = random.Random(5)
    for _ in range(6):
        state.apply(rng.choice(state.legal_actions()))
    legal = set(state.legal_actions())
    illegal = [a for a in range(0, NUM_ACTIONS, 7) if a not in legal]
    for action in illegal[:300]:
        assert_rejected(state, action, IllegalActionError)
    for bad in [-1, NUM_ACTIONS, 10**9, True, 3.0, None, "L4:5@c3", [1]]:
        assert_rejected(state, bad, MalformedActionError)
    check_position(ref, state)


# == B3-5 turns ================================================================================
def test_b3_5_no_pass_action_exists() -> None:
    """B3-5: every action id is a placement (104 orientations x 100 squares); there is no pass."""
    g = game()
    assert g.num_distinct_actions == NUM_ACTIONS
    state = g.new_initial_state(0)
    for action in range(0, NUM_ACTIONS, 97):
        text = state.action_to_str(action)
        assert re.fullmatch(r"[A-Z][0-9A-Z]:\d+@[a-j]\d+", text), text


OUT_STAYS_OUT = [  # structure B, 2 players, blue then yellow
    "L4:23@a6", "I2:0@b9", "S4:8@a8", "V3:10@a10", "T4:2@b3", "I3:1@b6", "V3:0@a6",
    "SR:3@a4", "SL:5@a2", "T4:7@a2", "SR:5@b1", "L4:7@a1", "I2:0@d2", "SL:2@d1",
    "O4:2@f1", "S4:5@h1", "I4:2@f1",
]  # fmt: skip


def test_b3_5_a_colour_with_no_move_drops_out_for_good(ref: ModuleType) -> None:
    """B3-5: blue has no placement after move 14 and drops out; yellow's next piece opens one for
    blue, but blue stays out and yellow plays on alone until the end."""
    state = game(structure="B", players=2).new_initial_state(0)
    positions = follow(ref, state, OUT_STAYS_OUT)
    for _ in range(14):
        next(positions)
    assert state.status == ["out", "playing"]
    assert ref.reference_legal_actions(state, "blue") == []
    assert state.current_colour == 1
    next(positions)  # yellow O4:2@f1
    assert ref.reference_legal_actions(state, "blue") != []  # a placement has opened up ...
    assert state.status[0] == "out"  # ... but blue is out for the rest of the game
    assert state.current_colour == 1
    for s in positions:
        assert s.current_colour != 0
    check_position(ref, state)
    assert state.is_terminal()
    assert state.status == ["out", "out"]


DONE_GAME = [  # structure A, 2 players
    "L4:16@c5", "L4:20@e5", "I4:0@d4", "I3:0@e7", "I3:1@f5", "I2:0@d5", "V3:6@c6",
    "S4:7@c6", "T4:0@c4", "Y4:4@c4", "I2:0@g6", "V3:10@f7", "SR:10@c6", "O4:0@f5",
    "SL:10@f6", "T4:11@d6", "O4:1@e4", "SL:5@e4", "I4:0@g5", "SR:6@c6",
]  # fmt: skip


def test_b3_5_all_eleven_placed_is_done_and_the_game_ends(ref: ModuleType) -> None:
    """B3-5: yellow places all 11 pieces and is done; blue is out; every colour is done or out, so
    the game is over (B3-6: yellow loses nothing for pieces left, blue loses 2)."""
    state = game(structure="A", players=2).new_initial_state(0)
    for s in follow(ref, state, DONE_GAME[:18]):
        assert not s.is_terminal()
    assert state.status == ["out", "playing"]
    assert list(follow(ref, state, DONE_GAME[18:]))
    check_position(ref, state)
    obs = state.observation(None)
    assert obs["colours"][1]["pieces_left"] == []
    assert obs["colours"][0]["pieces_left"] == ["S4", "Y4"]
    assert state.status == ["out", "done"]
    assert state.is_terminal() and obs["terminal"] and obs["to_move"] is None
    assert state.legal_actions() == []
    assert visible_squares(state) == [3, 16]
    assert state.colour_scores() == [1, 16]
    assert state.winners() == [1]
    assert_rejected(state, state.action_from_str("S4:0@c4"), reason="over")


def test_b3_5_game_is_not_over_while_a_colour_can_play(ref: ModuleType) -> None:
    """B3-5: before the end some colour is playing; at the end every colour is done or out."""
    state = game(structure="D", players=3).new_initial_state(2)
    rng = random.Random(2)
    while not state.is_terminal():
        assert "playing" in state.status
        state.apply(rng.choice(state.legal_actions()))
    assert set(state.status) <= {"out", "done"}
    for colour in COLOURS[:3]:
        if state.status[COLOURS.index(colour)] == "out":
            assert ref.reference_legal_actions(state, colour) == []


# == B3-6 scoring ==============================================================================
# Fig. 7 rebuilt on tower A (4 players, 5x4, height 8): 156 of its 160 cells are filled.  The last
# layer seen from above (x to the right, y up; local coordinates, the structure's corner is 0 0):
#     y3: Y Y B B B        yellow's square lies one layer lower (z 6), the rest at z 7;
#     y2: Y Y G G B        the 2x2x1 hole above yellow cannot take green's last piece (I4).
#     y1: G G G R B
#     y0: R R R R R
# Each line: colour, piece, cubes as "xyz" in placing order (each rests on the height map).
FIG7_BELOW = [
    "b V3 000 001 010",
    "b I4 100 101 102 103",
    "b O4 200 201 210 211",
    "b T4 300 310 311 320",
    "b L4 400 401 402 410",
    "b S4 110 120 220 230",
    "b SR 020 021 030 130",
    "b SL 330 420 421 430",
    "b Y4 202 301 302 312",
    "g V3 011 012 022",
    "g O4 111 112 121 122",
    "g T4 411 412 413 422",
    "g L4 221 222 223 231",
    "g SR 321 322 331 431",
    "g S4 031 131 132 232",
    "g SL 002 003 013 113",
    "g Y4 203 212 213 313",
    "r I3 032 033 034",
    "r V3 332 333 432",
    "r I4 303 304 305 306",
    "r S4 403 404 414 415",
    "r O4 023 024 123 124",
    "r L4 323 324 325 423",
    "r SR 133 224 233 234",
    "r Y4 334 424 433 434",
    "r SL 004 005 104 114",
    "y I2 204 214",
    "y T4 014 015 016 025",
    "y I3 314 315 316",
    "y Y4 035 125 134 135",
    "y L4 105 205 215 225",
    "y V3 405 406 416",
    "y SL 006 106 115 116",
    "y SR 326 425 426 435",
    "y S4 235 335 336 436",
    "y I4 206 216 226 236",
]
FIG7_TOP = [
    "y O4 026 036 126 136",
    "b I3 237 337 437",
    "b I2 417 427",
    "g I2 227 327",
    "g I3 017 117 217",
    "r T4 207 307 407 317",
    "r I2 007 107",
]


def test_b3_6_worked_example_of_the_rulebook(ref: ModuleType) -> None:
    """B3-6: fig. 7: blue sees 5 squares, red 6, yellow 4, green 5 with one piece unplaced:
    scores blue 5, yellow 4, red 6, green 4; red wins alone.

    The final position is built with the internal ``_place`` (no turn rules): reaching it by play
    would need a 43-move game written out by hand.  The data is checked to be a physical stack
    (every piece a rotation of its shape, resting on the height map, each piece used once).
    """
    state = game(structure="A", players=4).new_initial_state(0)
    cells = footprint(state.game)
    ox, _, oy, _ = bbox(cells)
    heights: dict[tuple[int, int], int] = {}
    used: set[tuple[str, str]] = set()
    for line in FIG7_BELOW + FIG7_TOP:
        letter, piece, *coords = line.split()
        cubes = [(ox + int(c[0]), oy + int(c[1]), int(c[2])) for c in coords]
        assert ref.normalised(cubes) in ref.orientations(PIECE_CUBES[piece]), line
        assert (letter, piece) not in used, line
        used.add((letter, piece))
        columns: dict[tuple[int, int], list[int]] = {}
        for x, y, z in cubes:
            assert z < cells[(x, y)], line
            columns.setdefault((x, y), []).append(z)
        for column, zs in columns.items():
            assert sorted(zs) == list(range(heights.get(column, 0), heights.get(column, 0) + len(zs)))
            heights[column] = heights.get(column, 0) + len(zs)
        colour = LETTERS.index(letter)
        x0 = min(x for x, _, _ in cubes)
        y0 = min(y for _, y, _ in cubes)
        z0 = min(z for _, _, z in cubes)
        anchor_cell = state.geo.square_cell[y0 * 10 + x0]
        state._place(colour, ref.orientation_index(piece, cubes), anchor_cell, z0)
        state.hands[colour] &= ~(1 << PIECE_IDS.index(piece))
    for colour in range(4):
        if not state.hands[colour]:
            state.status[colour] = "done"
    state._settle(0)

    assert sum(heights.values()) == 156
    assert [len(state.observation(None)["colours"][c]["pieces_left"]) for c in range(4)] == [
        0,
        0,
        0,
        1,
    ]
    assert visible_squares(state) == [5, 4, 6, 5]
    check_position(ref, state)
    assert ref.reference_legal_actions(state, "green") == []  # green's I4 fits nowhere
    assert state.is_terminal()
    assert state.status == ["done", "done", "done", "out"]
    assert state.colour_scores() == [5, 4, 6, 4]
    assert state.scores() == [5.0, 4.0, 6.0, 4.0]
    assert state.winners() == [2]
    assert state.returns() == [0.0, 0.0, 1.0, 0.0]
    obs = state.observation(None)
    assert obs["winners"] == [2]
    assert [c["score"] for c in obs["colours"]] == [5, 4, 6, 4]


def test_b3_6_a_tie_is_shared(ref: ModuleType) -> None:
    """B3-6: blue and yellow each see 2 squares with 10 pieces left: a tie, the win is split."""
    g = game(structure="custom", players=2, custom_structure={"heights": ["11", "11"]})
    state = g.new_initial_state(0)
    x0, _, y0, _ = bbox(footprint(g))
    assert_accepted(ref, state, act(ref, "I2", I2_X, x0, y0))
    assert not state.is_terminal()
    assert state.returns() == [0.0, 0.0] and state.winners() == []
    assert_accepted(ref, state, act(ref, "I2", I2_X, x0, y0 + 1))
    check_position(ref, state)
    assert state.is_terminal()
    assert state.colour_scores() == [2 - 10, 2 - 10]
    assert state.winners() == [0, 1]
    assert state.returns() == [0.5, 0.5]


def test_b3_6_only_the_top_cube_of_a_column_counts(ref: ModuleType) -> None:
    """B3-6: blue has 2 cubes but yellow covers one of them: blue sees 1 square, yellow 2."""
    g = game(structure="custom", players=2, custom_structure={"heights": ["22", "22"]})
    state = g.new_initial_state(0)
    x0, _, y0, _ = bbox(footprint(g))
    assert_accepted(ref, state, act(ref, "I2", I2_X, x0, y0))  # blue (x0, y0) (x0+1, y0)
    assert_accepted(ref, state, act(ref, "V3", V3_UP_ARM_Y, x0 + 1, y0))  # yellow covers (x0+1, y0)
    assert state.stacks()[y0][x0 : x0 + 2] == ["b", "by"]
    assert state.stacks()[y0 + 1][x0 + 1] == "yy"
    assert visible_squares(state) == [1, 2]
    assert state.colour_scores() == [1 - 10, 2 - 10]
    check_final_scores(state)


# == B3-7 / B3-8 / B3-9 players, colours, seats ================================================
def colours_of(state: Any) -> list[tuple[str, int]]:
    return [(c["colour"], c["seat"]) for c in state.observation(None)["colours"]]


def turns(state: Any, count: int) -> list[tuple[int, int]]:
    """(colour, seat) of the next ``count`` turns, playing the smallest legal action."""
    out = []
    for _ in range(count):
        out.append((state.current_colour, state.current_player))
        state.apply(state.legal_actions()[0])
    return out


def test_b3_7_four_players_play_four_colours_in_seat_order() -> None:
    """B3-7: 4 players, blue, yellow, red, green = seats 0..3, in that order."""
    state = game().new_initial_state(0)
    assert state.game.num_players == 4
    assert colours_of(state) == [("blue", 0), ("yellow", 1), ("red", 2), ("green", 3)]
    assert turns(state, 8) == [(c, c) for c in range(4)] * 2


def test_b3_7_three_players_leave_green_unused() -> None:
    """B3-7: 3 players play blue, yellow and red; green never appears."""
    state = game(players=3).new_initial_state(4)
    assert colours_of(state) == [("blue", 0), ("yellow", 1), ("red", 2)]
    assert turns(state, 6) == [(c, c) for c in range(3)] * 2
    rng = random.Random(4)
    while not state.is_terminal():
        assert state.current_colour in (0, 1, 2)
        state.apply(rng.choice(state.legal_actions()))
    assert not any("g" in stack for row in state.stacks() for stack in row)
    assert len(state.scores()) == 3


def test_b3_8_two_players_two_colours() -> None:
    """B3-8: 2 players with one colour each: blue (seat 0) and yellow (seat 1), 2-player grid."""
    state = game(players=2, structure="D").new_initial_state(0)
    assert colours_of(state) == [("blue", 0), ("yellow", 1)]
    assert turns(state, 4) == [(0, 0), (1, 1)] * 2
    assert set(footprint(state.game).values()) == {1, 2, 3}


def test_b3_9_two_players_four_colours_alternate() -> None:
    """B3-9: seat 0 plays blue + red, seat 1 yellow + green; turns blue, yellow, red, green."""
    state = game(players=2, colours_per_player=2).new_initial_state(0)
    assert state.game.num_players == 2
    assert colours_of(state) == [("blue", 0), ("yellow", 1), ("red", 0), ("green", 1)]
    assert state.observation(0)["your_colours"] == ["blue", "red"]
    assert state.observation(1)["your_colours"] == ["yellow", "green"]
    assert state.observation(None)["your_colours"] == []
    assert turns(state, 8) == [(0, 0), (1, 1), (2, 0), (3, 1)] * 2
    assert len(state.scores()) == 2 and len(state.returns()) == 2


TWO_BY_TWO_GAME = [  # structure C, 2 players x 2 colours
    "L4:11@f5", "I3:1@f2", "L4:0@e4", "S4:7@f5", "T4:11@d7", "SL:3@d3", "T4:7@e5", "V3:10@e6",
    "I4:0@g6", "L4:4@d5", "SR:7@f7", "SR:6@e7", "I2:0@d9", "O4:0@d6", "I2:0@g7", "I3:0@g4",
    "I3:0@f6", "V3:3@d4", "SL:6@f7", "SL:4@d6", "SL:9@e7", "I2:0@d2", "V3:9@g6", "L4:12@e7",
    "S4:0@e5", "S4:0@d8", "I3:0@g9", "O4:0@g2", "V3:9@d7", "SR:5@e3", "O4:0@g8", "I2:0@e9",
    "O4:1@f8", "T4:6@d8", "I4:0@f9", "Y4:7@f4", "Y4:1@d6", "I4:0@e9", "S4:1@f9", "SR:1@d8",
    "Y4:4@f8",
]  # fmt: skip


@pytest.mark.parametrize(
    ("scoring", "scores", "winners"), [("sum", [13.0, 15.0], [1]), ("best", [9.0, 9.0], [0, 1])]
)
def test_b3_9_sum_or_best_colour(
    ref: ModuleType, scoring: str, scores: list[float], winners: list[int]
) -> None:
    """B3-9: colours score blue 9, yellow 9, red 4, green 6.  Summed, seat 0 has 13 and seat 1
    15 (seat 1 wins); with the best-colour rule both have 9: a shared win."""
    g = game(structure="C", players=2, colours_per_player=2, two_player_scoring=scoring)
    state = g.new_initial_state(0)
    assert list(follow(ref, state, TWO_BY_TWO_GAME))
    check_position(ref, state)
    assert state.is_terminal()
    assert state.status == ["done", "out", "done", "out"]
    assert state.colour_scores() == [9, 9, 4, 6]
    assert state.scores() == scores
    assert state.winners() == winners
    assert state.returns() == [1 / len(winners) if s in winners else 0.0 for s in (0, 1)]
    check_final_scores(state)


def test_b3_9_scoring_rule_changes_nothing_but_the_seat_scores() -> None:
    """B3-9: 'sum' and 'best' play the same game; only the per-seat result differs."""
    games = [game(players=2, colours_per_player=2, two_player_scoring=r) for r in ("sum", "best")]
    states = [g.new_initial_state(9) for g in games]
    rng = random.Random(9)
    while not states[0].is_terminal():
        assert states[0].legal_actions() == states[1].legal_actions()
        action = rng.choice(states[0].legal_actions())
        for s in states:
            s.apply(action)
    assert states[1].is_terminal()
    by_colour = states[0].colour_scores()
    assert states[1].colour_scores() == by_colour
    b, y, r, g_ = by_colour
    assert states[0].scores() == [b + r, y + g_]
    assert states[1].scores() == [max(b, r), max(y, g_)]
    for s in states:
        check_final_scores(s)


def test_first_colour_is_blue_unless_random_first() -> None:
    """Configuration knobs: seat 0 (blue) starts; random_first draws the first colour from the seed."""
    assert {game().new_initial_state(seed).current_colour for seed in range(12)} == {0}
    g = game(random_first=True)
    firsts = [g.new_initial_state(seed).current_colour for seed in range(40)]
    assert set(firsts) == {0, 1, 2, 3}
    assert firsts == [g.new_initial_state(seed).current_colour for seed in range(40)]
    for seed in range(4):
        s = g.new_initial_state(seed)
        assert s.observation(None)["first_colour"] == COLOURS[s.current_colour]


# == B3-11 perfect information =================================================================
@pytest.mark.parametrize("cfg", [{"players": 4}, {"players": 2, "colours_per_player": 2}])
def test_b3_11_every_seat_sees_the_same_board_and_hands(cfg: dict[str, Any]) -> None:
    """B3-11: every seat's observation and the spectator's carry the same board, hands and turn."""
    g = load_game("blokus3d", cfg)
    assert g.hidden_information == ()
    state = g.new_initial_state(6)
    rng = random.Random(6)
    while True:
        spectator = state.observation(None)
        assert json.loads(json.dumps(spectator)) == spectator
        assert spectator["stacks"] == state.stacks()
        assert [c["pieces_left"] for c in spectator["colours"]] == [
            [p for i, p in enumerate(PIECE_IDS) if hand >> i & 1] for hand in state.hands
        ]
        public = {k: v for k, v in spectator.items() if k not in ("seat", "your_colours")}
        for seat in range(g.num_players):
            obs = state.observation(seat)
            assert obs["seat"] == seat
            assert {k: v for k, v in obs.items() if k not in ("seat", "your_colours")} == public
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("cfg", [{"random_first": True}, {"players": 2, "structure": "A"}])
def test_b3_11_the_sampler_rebuilds_the_state_from_the_observation_alone(cfg: dict[str, Any]) -> None:
    """B3-11: the observation carries no seed, and the one consistent state is rebuilt from the
    public first colour and moves; it plays on exactly as the true state."""
    g = load_game("blokus3d", cfg)
    seed = 2**255 + 987_654_321
    state = g.new_initial_state(seed)
    rng = random.Random(3)
    for step in range(12):
        obs = state.observation(step % g.num_players)
        assert "seed" not in obs and str(seed) not in json.dumps(obs)
        sampled = g.sample_state(step % g.num_players, [obs], random.Random(step))
        assert {k: v for k, v in sampled.serialize().items() if k != "seed"} == {
            k: v for k, v in state.serialize().items() if k != "seed"
        }
        assert sampled.legal_actions() == state.legal_actions()
        if state.is_terminal():
            break
        state.apply(state.random_legal_action(rng))


# == Options ===================================================================================
def test_default_options_follow_the_spec() -> None:
    """Configuration knobs: players 4, 1 colour each, sum, structure D."""
    g = game()
    assert g.options["players"] == 4
    assert g.options["colours_per_player"] == 1
    assert g.options["two_player_scoring"] == "sum"
    assert g.options["structure"] == "D"
    assert footprint(g) == footprint(game(structure="D", players=4))


BAD_OPTIONS = [
    pytest.param({"players": 5}, "players", ["2", "3", "4"], id="players-5"),
    pytest.param({"players": 1}, "players", ["2", "3", "4"], id="players-1"),
    pytest.param({"players": "4"}, "players", ["2", "3", "4"], id="players-str"),
    pytest.param({"players": 4.0}, "players", ["2", "3", "4"], id="players-float"),
    pytest.param({"players": True}, "players", ["2", "3", "4"], id="players-bool"),
    pytest.param({"structure": "E"}, "structure", ["A", "B", "C", "D", "custom"], id="structure-E"),
    pytest.param({"structure": 1}, "structure", ["A", "B", "C", "D"], id="structure-int"),
    pytest.param({"colours_per_player": 3}, "colours_per_player", ["1", "2"], id="cpp-3"),
    pytest.param({"players": 3, "colours_per_player": 2}, "colours_per_player", ["players=2"], id="cpp-2-3p"),
    pytest.param({"players": 4, "colours_per_player": 2}, "colours_per_player", ["players=2"], id="cpp-2-4p"),
    pytest.param({"two_player_scoring": "max"}, "two_player_scoring", ["sum", "best"], id="scoring"),
    pytest.param({"random_first": "yes"}, "random_first", ["true", "false"], id="random-first"),
    pytest.param({"colour": "red"}, "colour", ["players", "structure"], id="unknown-option"),
]


@pytest.mark.parametrize(("options", "option", "allowed"), BAD_OPTIONS)
def test_bad_options_name_the_allowed_values(
    options: dict[str, Any], option: str, allowed: list[str]
) -> None:
    """Options: a bad value raises InvalidOptionError naming the option and the allowed values."""
    with pytest.raises(InvalidOptionError) as info:
        load_game("blokus3d", options)
    assert info.value.option == option
    message = str(info.value)
    assert option in message
    for value in allowed:
        assert value in message, message


# == Notation ==================================================================================
def test_notation_round_trips_for_every_action() -> None:
    """Every action id has a text and a JSON form that read back to the same id."""
    state = game().new_initial_state(0)
    seen = set()
    for action in range(NUM_ACTIONS):
        text = state.action_to_str(action)
        seen.add(text)
        assert state.action_from_str(text) == action
        obj = state.action_to_json(action)
        assert json.loads(json.dumps(obj)) == obj
        assert state.action_from_json(obj) == action
    assert len(seen) == NUM_ACTIONS


def test_notation_example(ref: ModuleType) -> None:
    """``L4:5@c3`` is L4 in its orientation 5 with its anchor on x = 2, y = 2."""
    state = game().new_initial_state(0)
    action = state.action_from_str("L4:5@c3")
    assert state.action_to_json(action) == {"piece": "L4", "orientation": 5, "x": 2, "y": 2}
    assert action == ORIENTATIONS_BY_PIECE["L4"][5].index * 100 + 22
    assert action == act(ref, "L4", ORIENTATIONS_BY_PIECE["L4"][5].cubes, 2, 2)
    assert state.action_from_str(" L4 : 5 @ c3 ") == action
    assert state.action_to_str(state.action_from_str("I2:0@j10")) == "I2:0@j10"


@given(st.integers(0, NUM_ACTIONS - 1))
def test_notation_round_trip_property(action: int) -> None:
    state = game(players=2).new_initial_state(0)
    assert state.action_from_str(state.action_to_str(action)) == action
    assert state.action_from_json(state.action_to_json(action)) == action


@pytest.mark.parametrize(
    "text",
    ["", "L4", "L4:5", "L4:5@", "L4:5@k3", "L4:5@c0", "L4:5@c11", "L4:24@c3", "I2:3@a1",
     "ZZ:0@a1", "L4:-1@c3", "L4:5c3", "L4;5@c3", "L4:5@c3 x", "5", "@c3"],
)  # fmt: skip
def test_malformed_text_is_refused(text: str) -> None:
    state = game().new_initial_state(0)
    with pytest.raises(MalformedActionError) as info:
        state.action_from_str(text)
    assert info.value.reason


@pytest.mark.parametrize("obj", [None, 5, b"L4:5@c3", ["L4", 5, 2, 2]])
def test_non_text_is_refused_as_text(obj: Any) -> None:
    with pytest.raises(MalformedActionError):
        game().new_initial_state(0).action_from_str(obj)


GOOD_JSON = {"piece": "L4", "orientation": 5, "x": 2, "y": 2}


@pytest.mark.parametrize(
    "obj",
    [
        None, "L4:5@c3", 522, [], {},
        {"piece": "L4", "orientation": 5, "x": 2},
        {**GOOD_JSON, "z": 0},
        {**GOOD_JSON, "piece": "Q4"},
        {**GOOD_JSON, "piece": 4},
        {**GOOD_JSON, "orientation": "5"},
        {**GOOD_JSON, "orientation": True},
        {**GOOD_JSON, "orientation": 24},
        {**GOOD_JSON, "orientation": -1},
        {**GOOD_JSON, "x": 10},
        {**GOOD_JSON, "y": -1},
        {**GOOD_JSON, "x": 2.0},
        {**GOOD_JSON, "y": None},
    ],
)  # fmt: skip
def test_malformed_json_is_refused(obj: Any) -> None:
    state = game().new_initial_state(0)
    assert state.action_from_json(GOOD_JSON) == state.action_from_str("L4:5@c3")
    with pytest.raises(MalformedActionError) as info:
        state.action_from_json(obj)
    assert info.value.reason


@pytest.mark.parametrize("heights", [["1001"], ["1", "0", "1"], ["10", "01"]])
def test_b3_2_custom_structure_where_no_piece_fits_is_refused(heights: list[str]) -> None:
    """B3-2: a structure without room for a single domino could only end before it began."""
    with pytest.raises(InvalidOptionError, match="not even a domino"):
        load_game("blokus3d", {"structure": "custom", "players": 2, "custom_structure": {"heights": heights}})


def test_b3_2_custom_structure_of_one_column_two_high_takes_a_standing_domino() -> None:
    """B3-2, B3-4: one column of height 2 holds exactly the upright domino."""
    game = load_game(
        "blokus3d", {"structure": "custom", "players": 2, "custom_structure": {"heights": ["2"]}}
    )
    state = game.new_initial_state()
    assert [state.action_to_str(a) for a in state.legal_actions()] == ["I2:0@e5"]
