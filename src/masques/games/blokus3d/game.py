"""Blokus 3D (Rumis) under the engine contract: B3-1 .. B3-11.

Actions: an action id is ``orientation * 100 + y * 10 + x`` where ``orientation`` is one of the 104
global orientations (B3-1) and ``(x, y)`` the board square of the piece's anchor, the corner with the
smallest x and y of its bounding box.  z is not part of the action: the structure is always a height
map, so z follows from (orientation, x, y) (B3-4 b).  Text notation: ``L4:5@c3`` = piece L4 in its
orientation 5, anchor on file c (x = 2), rank 3 (y = 2).

Turns (B3-5): colours play in the order blue, yellow, red, green, skipping colours that are done or
out.  A colour whose turn comes with no legal placement drops out at once, so the state's current
colour always has a legal move and no "pass" action exists.
"""

from __future__ import annotations

import copy
import random
import re
from bisect import bisect_right
from collections.abc import Mapping
from itertools import accumulate
from operator import itemgetter
from typing import ClassVar

from ...engine.chance import CHANCE_VERSION, check_seed, check_version, stream
from ...engine.core import (
    JSON,
    TERMINAL,
    Game,
    HiddenField,
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    OptionSpec,
    State,
    bad_viewer,
    is_viewer,
)
from .geometry import geometry_for
from .pieces import (
    COLOUR_LETTERS,
    COLOURS,
    NUM_ORIENTATIONS,
    NUM_PIECES,
    ORIENTATIONS,
    ORIENTATIONS_BY_PIECE,
    PIECE_IDS,
)
from .structures import (
    BOARD_SIZE,
    STRUCTURE_KEYS,
    StructureError,
    builtin_structure,
    custom_grid_as_kept,
    parse_custom_grid,
)

FILES = "abcdefghij"
SQUARES = BOARD_SIZE * BOARD_SIZE
NUM_ACTIONS = NUM_ORIENTATIONS * SQUARES
FULL_HAND = (1 << NUM_PIECES) - 1

PLAYING, OUT, DONE = "playing", "out", "done"

_NOTATION = re.compile(r"^\s*([A-Za-z][A-Za-z0-9])\s*:\s*(\d{1,2})\s*@\s*([a-jA-J])\s*(10|[1-9])\s*$")


_second = itemgetter(1)


def square_name(x: int, y: int) -> str:
    """``c3`` for x = 2, y = 2: files a..j along x, ranks 1..10 along y."""
    return f"{FILES[x]}{y + 1}"


class Blokus3DGame(Game):
    """Blokus 3D with its options (players, colours per player, scoring, structure)."""

    name = "blokus3d"
    title = "Blokus 3D"
    rules_version = "1"
    parts: ClassVar[Mapping[str, str]] = {
        "bot": "masques.games.blokus3d.bot:BOT",
        "figures": "masques.games.blokus3d.figures:figures",
        "terminal": "masques.games.blokus3d.terminal:TERMINAL",
        "rl": "masques.games.blokus3d.rl:Blokus3DEncoder",
    }
    hidden_information: ClassVar[tuple[HiddenField, ...]] = ()  # B3-11: perfect information
    option_specs = (
        OptionSpec("players", "int", 4, "number of players (B3-7, B3-8)", (2, 3, 4)),
        OptionSpec(
            "colours_per_player",
            "int",
            1,
            "colours each player plays; 2 only with 2 players (B3-9)",
            (1, 2),
        ),
        OptionSpec(
            "two_player_scoring",
            "str",
            "sum",
            "with 2 players x 2 colours: a player's score is the sum of both colours or the best one",
            ("sum", "best"),
        ),
        OptionSpec(
            "structure",
            "str",
            "D",
            "A Tower, B Wall, C Stairs, D Pyramid, or custom (B3-2)",
            (*STRUCTURE_KEYS, "custom"),
        ),
        OptionSpec(
            "custom_structure",
            "json",
            None,
            'with structure=custom: {"name": ..., "heights": [rows of digits]}',
            only_with=("structure", "custom"),
        ),
        OptionSpec(
            "random_first",
            "bool",
            False,
            "draw the first colour from the seed instead of blue starting",
        ),
    )

    def check_options(self, options: dict[str, JSON]) -> None:
        players = options["players"]
        if options["colours_per_player"] == 2 and players != 2:
            raise InvalidOptionError(self.name, "colours_per_player", "can be 2 only with players=2 (B3-9)")
        if options["structure"] == "custom":
            if options["custom_structure"] is None:
                raise InvalidOptionError(self.name, "custom_structure", "is required with structure=custom")
            try:
                self.structure = parse_custom_grid(options["custom_structure"])
            except StructureError as exc:
                raise InvalidOptionError(self.name, "custom_structure", f"is invalid: {exc}") from None
            options["custom_structure"] = custom_grid_as_kept(options["custom_structure"])
        else:
            if options["custom_structure"] is not None:
                raise InvalidOptionError(
                    self.name, "custom_structure", "is allowed only with structure=custom"
                )
            self.structure = builtin_structure(str(options["structure"]), self.grid_players(options))
        self.colours_in_play = 4 if options["colours_per_player"] == 2 else int(players)
        self.geometry = geometry_for(self.structure)
        if not self.geometry.generate(*self.geometry.empty_rooms(), -1, FULL_HAND):
            raise InvalidOptionError(
                self.name,
                "custom_structure",
                "has room for no piece: not even a domino (two cubes side by side or stacked) fits",
            )

    @staticmethod
    def grid_players(options: dict[str, JSON]) -> int:
        """B3-3: a 2-player game with 4 colours uses the 4-player grid."""
        return 4 if options["colours_per_player"] == 2 else int(options["players"])

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        configs: list[dict[str, JSON]] = []
        for key in STRUCTURE_KEYS:
            configs.append({"structure": key, "players": 4})
            configs.append({"structure": key, "players": 3})
            configs.append({"structure": key, "players": 2})
            configs.append({"structure": key, "players": 2, "colours_per_player": 2})
        configs.append(
            {"players": 2, "colours_per_player": 2, "two_player_scoring": "best", "random_first": True}
        )
        configs.append(
            {
                "structure": "custom",
                "players": 3,
                "custom_structure": {"name": "Hill", "heights": ["1221", "2442", "2442", "1221"]},
            }
        )
        return configs

    @classmethod
    def bench_configurations(cls, options: Mapping[str, JSON]) -> list[tuple[str, dict[str, JSON]]]:
        """Every structure unless one is given."""
        if "structure" in options:
            return super().bench_configurations(options)
        return [(f"structure {k}", {**options, "structure": k}) for k in ("A", "B", "C", "D")]

    @classmethod
    def playthrough_configurations(cls) -> list[tuple[str, int, dict[str, JSON]]]:
        return [
            ("D-4p", 1, {"structure": "D", "players": 4}),
            ("A-2p", 2, {"structure": "A", "players": 2}),
            ("B-3p", 3, {"structure": "B", "players": 3}),
            (
                "C-2x2-best",
                4,
                {"structure": "C", "players": 2, "colours_per_player": 2, "two_player_scoring": "best"},
            ),
        ]

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        return self.colours_in_play * NUM_PIECES

    def seat_of_colour(self, colour: int) -> int:
        """B3-9: with 2 players x 2 colours, seat 0 plays blue+red and seat 1 yellow+green."""
        return colour % self.num_players

    def new_initial_state(self, seed: int = 0, *, chance: int = CHANCE_VERSION) -> Blokus3DState:
        # Checked here as well: without random_first no stream is drawn from.
        return Blokus3DState(self, check_seed(seed), chance=check_version(chance))

    def _sample_from(self, seat: int | None, obs: JSON, rng: random.Random) -> Blokus3DState:
        """B3-11: nothing is hidden, so the one consistent state is the replay of the public moves
        from the public first colour (the seed is not observed; nothing after the start needs it)."""
        state = Blokus3DState(self, 0, first=COLOURS.index(obs["first_colour"]))
        for action in obs["moves"]:
            state.apply(int(action))
        return state


class Blokus3DState(State):
    """A Blokus 3D position: the height map as bitboards, hands, and the cached legal moves."""

    def __init__(
        self, game: Blokus3DGame, seed: int = 0, *, chance: int = CHANCE_VERSION, first: int | None = None
    ) -> None:
        """``first`` forces the first colour (a sampler's rebuild); else the seed draws it if
        ``random_first``, and blue starts otherwise."""
        self.game: Blokus3DGame = game
        self.seed = seed
        self.chance = chance
        self.history: list[int] = []
        geo = game.geometry
        self.geo = geo
        n = game.colours_in_play
        self.heights = [0] * geo.layer
        self.colour_bits = [0] * n
        self.adjacent = [0] * n  # cells that touch each colour's cubes
        self.adjacent_any = 0
        self.hands = [FULL_HAND] * n
        self.status = [PLAYING] * n
        self.placed_any = False
        # The surface: one bit per column that is not full, at (x, y, h) = its first empty cell.
        self.surface = geo.capacity[1] & geo.ground
        if first is None:
            random_first = game.options["random_first"]
            first = stream(seed, "blokus3d/first", version=chance).randrange(n) if random_first else 0
        self.first_colour = first
        self.colour = first
        self.generations = 0  # legal-move generations made for this game (the benchmark reads it)
        self.moves: list[tuple[int, int]] = []
        self.move_ends: list[int] = []  # running totals of anchors per entry of self.moves
        self.move_count = 0
        self._settle(first)

    # -- turn order --------------------------------------------------------------------------
    def _generate(self, colour: int) -> list[tuple[int, int]]:
        """Every legal placement of ``colour``: ``[(orientation, anchor bitboard), ...]``."""
        self.generations += 1
        hand = self.hands[colour]
        if not self.placed_any:
            adj, ground = (1 << self.geo.num_bits) - 1, False  # B3-4 c: the first piece goes anywhere
        elif hand == FULL_HAND:
            adj, ground = self.adjacent_any, True  # a colour's first piece: touch any, on the ground
        else:
            adj, ground = self.adjacent[colour], False
        surface = self.surface
        _, c2, c3, c4 = self.geo.capacity[1:]
        gen = self.geo.generate_ground if ground else self.geo.generate
        return gen(surface, surface & c2, surface & c3, surface & c4, adj, hand)

    def _settle(self, start: int) -> None:
        """Make ``start`` or the next colour with a legal move current (B3-5); others drop out."""
        n = self.game.colours_in_play
        colour = start
        for _ in range(n):
            if self.status[colour] == PLAYING:
                moves = self._generate(colour)
                if moves:
                    self.colour = colour
                    self.moves = moves
                    self.move_ends = list(accumulate(map(int.bit_count, map(_second, moves))))
                    self.move_count = self.move_ends[-1]
                    return
                self.status[colour] = OUT
            colour = (colour + 1) % n
        self.colour = -1
        self.moves = []
        self.move_ends = []
        self.move_count = 0

    @property
    def current_player(self) -> int:
        return TERMINAL if self.colour < 0 else self.game.seat_of_colour(self.colour)

    @property
    def current_colour(self) -> int:
        """The colour to place (an index into COLOURS), or -1 at the end."""
        return self.colour

    def is_terminal(self) -> bool:
        return self.colour < 0

    # -- legal moves -------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        geo = self.geo
        out = []
        for o, anchors in self.moves:
            base = o * SQUARES
            m = anchors
            while m:
                low = m & -m
                out.append(base + geo.cell_square[(low.bit_length() - 1) % geo.layer])
                m ^= low
        out.sort()
        return out

    def num_legal_actions(self) -> int:
        return self.move_count

    def random_legal_action(self, rng: random.Random) -> int:
        return self.legal_action_at(rng.randrange(self.move_count))

    def legal_action_at(self, index: int) -> int:
        """The ``index``-th legal placement in generation order (draw one uniformly, fast)."""
        if not 0 <= index < self.move_count:
            raise IndexError("legal move index out of range")
        k = bisect_right(self.move_ends, index)
        o, m = self.moves[k]
        for _ in range(index - (self.move_ends[k - 1] if k else 0)):
            m &= m - 1
        return o * SQUARES + self.geo.cell_square[((m & -m).bit_length() - 1) % self.geo.layer]

    def is_legal(self, action: int) -> bool:
        o, square = divmod(action, SQUARES)
        cell = self.geo.square_cell[square]
        if cell < 0:
            return False
        for oo, m in self.moves:
            if oo == o:
                return bool(m & self.geo.column_bits[cell])
        return False

    def why_illegal(self, action: int) -> str:
        o, square = divmod(action, SQUARES)
        orient = ORIENTATIONS[o]
        x, y = square % BOARD_SIZE, square // BOARD_SIZE
        if not self.hands[self.colour] >> orient.piece_index & 1:
            return f"{COLOURS[self.colour]} has already placed {orient.piece}"
        geo = self.geo
        grid = geo.structure.max_heights
        bases = set()
        for dx, dy, zlow, height in orient.columns:
            cx, cy = x + dx, y + dy
            if not (cx < BOARD_SIZE and cy < BOARD_SIZE):
                return "the piece would stick out of the board (B3-4 a)"
            if grid[cx][cy] == 0:
                return f"square {square_name(cx, cy)} is outside the structure (B3-4 a)"
            h = self.heights[geo.square_cell[cy * BOARD_SIZE + cx]]
            bases.add(h - zlow)
            if h + height > grid[cx][cy]:
                return f"too high above {square_name(cx, cy)} (limit {grid[cx][cy]}, B3-4 a)"
        if len(bases) != 1:
            return "the piece would overhang or leave a hole below it (B3-4 b)"
        if self.placed_any and self.hands[self.colour] == FULL_HAND:
            if min(bases) != 0:
                return "a colour's first piece must have a cube on the ground (B3-4 c)"
            return "a colour's first piece must touch a placed cube (B3-4 c)"
        return f"the piece must touch a {COLOURS[self.colour]} cube face to face (B3-4 c)"

    # -- applying ----------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        o, square = divmod(action, SQUARES)
        orient = ORIENTATIONS[o]
        geo = self.geo
        anchor_cell = geo.square_cell[square]
        dx0, dy0, zlow0, _ = orient.columns[0]
        z = self.heights[anchor_cell + dx0 + geo.width * dy0] - zlow0
        colour = self.colour
        self._place(colour, orient.index, anchor_cell, z)
        self.hands[colour] &= ~(1 << orient.piece_index)
        if not self.hands[colour]:
            self.status[colour] = DONE
        self._settle((colour + 1) % self.game.colours_in_play)

    def _place(self, colour: int, o: int, anchor_cell: int, z: int) -> None:
        """Put the cubes on the height map and update every bitboard incrementally.

        The piece must rest on the height map (each column's lowest cube at the column's height), as
        every legal placement does; the geometry's cached tables rely on it.
        """
        p = self.geo.placement(o, anchor_cell + self.geo.layer * z)
        heights = self.heights
        for cell, height in p.heights:
            heights[cell] = height
        self.surface = (self.surface & p.surface_keep) | p.surface_add
        self.colour_bits[colour] |= p.bits
        self.adjacent[colour] |= p.near
        self.adjacent_any |= p.near
        self.placed_any = True

    # -- results -----------------------------------------------------------------------------
    def top_colours(self) -> list[int]:
        """Per box cell, the colour of the column's top cube (-1 for an empty column)."""
        layer = self.geo.layer
        out = []
        for cell, h in enumerate(self.heights):
            top = -1
            if h:
                b = 1 << (cell + layer * (h - 1))
                for colour, bits in enumerate(self.colour_bits):
                    if bits & b:
                        top = colour
                        break
            out.append(top)
        return out

    def colour_scores(self) -> list[int]:
        """B3-6: squares of the colour seen from above, minus one per piece not placed."""
        n = self.game.colours_in_play
        scores = [0] * n
        for colour in self.top_colours():
            if colour >= 0:
                scores[colour] += 1
        for colour in range(n):
            scores[colour] -= self.hands[colour].bit_count()
        return scores

    def scores(self) -> list[float]:
        """Per seat; B3-9 with two colours each: their sum, or the better one with 'best'."""
        return self._seat_scores(self.colour_scores())

    def _seat_scores(self, by_colour: list[int]) -> list[float]:
        game = self.game
        if game.colours_in_play == game.num_players:
            return [float(s) for s in by_colour]
        best = game.options["two_player_scoring"] == "best"
        out = []
        for seat in range(game.num_players):
            mine = [s for c, s in enumerate(by_colour) if game.seat_of_colour(c) == seat]
            out.append(float(max(mine) if best else sum(mine)))
        return out

    def winners(self) -> list[int]:
        """B3-6: the highest score wins; a tie is shared."""
        if not self.is_terminal():
            return []
        scores = self.scores()
        top = max(scores)
        return [seat for seat, s in enumerate(scores) if s == top]

    # -- copies and views --------------------------------------------------------------------
    def clone(self) -> Blokus3DState:
        other = Blokus3DState.__new__(Blokus3DState)
        other.game = self.game
        other.seed = self.seed
        other.chance = self.chance
        other.geo = self.geo
        other.history = self.history.copy()
        other.heights = self.heights.copy()
        other.colour_bits = self.colour_bits.copy()
        other.adjacent = self.adjacent.copy()
        other.adjacent_any = self.adjacent_any
        other.hands = self.hands.copy()
        other.status = self.status.copy()
        other.placed_any = self.placed_any
        other.surface = self.surface
        other.first_colour = self.first_colour
        other.generations = self.generations
        other.colour = self.colour
        other.moves = self.moves  # never mutated in place: _settle replaces the list
        other.move_ends = self.move_ends
        other.move_count = self.move_count
        return other

    def stacks(self) -> list[list[str]]:
        """``stacks[y][x]``: colour letters of the column's cubes, bottom to top."""
        layer = self.geo.layer
        columns = [[""] * h for h in self.heights]
        for letter, bits in zip(COLOUR_LETTERS, self.colour_bits, strict=False):
            rest = bits
            while rest:  # one step per cube rather than per cell, level and colour
                low = rest & -rest
                z, cell = divmod(low.bit_length() - 1, layer)
                columns[cell][z] = letter
                rest ^= low
        rows = [["" for _ in range(BOARD_SIZE)] for _ in range(BOARD_SIZE)]
        for square, column in zip(self.geo.cell_square, columns, strict=True):
            rows[square // BOARD_SIZE][square % BOARD_SIZE] = "".join(column)
        return rows

    def observation(self, seat: int | None) -> JSON:
        """B3-11: everything is public; ``your_colours`` only says which colours are the viewer's."""
        if not is_viewer(seat, self.game.num_players):
            raise bad_viewer(seat, self.game.num_players)
        game = self.game
        scores = self.colour_scores()
        structure = game.structure
        colours = []
        for c in range(game.colours_in_play):
            colours.append(
                {
                    "colour": COLOURS[c],
                    "seat": game.seat_of_colour(c),
                    "status": self.status[c],
                    "pieces_left": [p for i, p in enumerate(PIECE_IDS) if self.hands[c] >> i & 1],
                    "score": scores[c],
                }
            )
        obs: dict[str, JSON] = {
            "game": game.name,
            "seat": seat,
            "your_colours": []
            if seat is None
            else [COLOURS[c] for c in range(game.colours_in_play) if game.seat_of_colour(c) == seat],
            "structure": {
                "key": structure.key,
                "name": structure.name,
                "max_heights": [
                    [structure.max_heights[x][y] for x in range(BOARD_SIZE)] for y in range(BOARD_SIZE)
                ],
            },
            "stacks": self.stacks(),
            "colours": colours,
            "first_colour": COLOURS[self.first_colour],
            "to_move": None
            if self.colour < 0
            else {"colour": COLOURS[self.colour], "seat": self.current_player},
            "moves": list(self.history),
            "last_move": self.action_to_str(self.history[-1]) if self.history else None,
            "terminal": self.is_terminal(),
            "scores": self._seat_scores(scores),
        }
        if self.is_terminal():
            obs["winners"] = self.winners()
            obs["returns"] = self.returns()
        return obs

    def serialize(self) -> JSON:
        return {
            "game": self.game.name,
            "options": copy.deepcopy(self.game.options),
            "seed": self.seed,
            "chance": self.chance,
            "history": list(self.history),
            "heights": list(self.heights),
            "colour_bits": [str(b) for b in self.colour_bits],
            "adjacent": [str(b) for b in self.adjacent],
            "adjacent_any": str(self.adjacent_any),
            "surface": str(self.surface),
            "hands": list(self.hands),
            "status": list(self.status),
            "placed_any": self.placed_any,
            "colour": self.colour,
            "moves": [[o, str(m)] for o, m in self.moves],
        }

    # -- notation ----------------------------------------------------------------------------
    def action_to_json(self, action: int) -> JSON:
        o, square = divmod(action, SQUARES)
        orient = ORIENTATIONS[o]
        return {
            "piece": orient.piece,
            "orientation": orient.number,
            "x": square % BOARD_SIZE,
            "y": square // BOARD_SIZE,
        }

    def action_from_json(self, obj: JSON) -> int:
        if not isinstance(obj, dict):
            raise MalformedActionError("a blokus3d action is an object {piece, orientation, x, y}", obj)
        expected = {"piece", "orientation", "x", "y"}
        if set(obj) != expected:
            raise MalformedActionError(
                f"a blokus3d action has exactly the keys piece, orientation, x, y (got {sorted(obj)})",
                obj,
            )
        piece = obj["piece"]
        if not isinstance(piece, str) or piece not in ORIENTATIONS_BY_PIECE:
            raise MalformedActionError(f"unknown piece {piece!r}; pieces are {', '.join(PIECE_IDS)}", obj)
        values = []
        for key in ("orientation", "x", "y"):
            v = obj[key]
            if isinstance(v, bool) or not isinstance(v, int):
                raise MalformedActionError(f"'{key}' must be an integer", obj)
            values.append(v)
        number, x, y = values
        return self._action_id(piece, number, x, y, obj)

    def _action_id(self, piece: str, number: int, x: int, y: int, raw: object) -> int:
        orients = ORIENTATIONS_BY_PIECE[piece]
        if not 0 <= number < len(orients):
            raise MalformedActionError(f"{piece} has orientations 0..{len(orients) - 1} (got {number})", raw)
        if not (0 <= x < BOARD_SIZE and 0 <= y < BOARD_SIZE):
            raise MalformedActionError(f"square ({x}, {y}) is off the 10x10 board", raw)
        return orients[number].index * SQUARES + y * BOARD_SIZE + x

    def action_to_str(self, action: int) -> str:
        o, square = divmod(action, SQUARES)
        return f"{ORIENTATIONS[o].label}@{square_name(square % BOARD_SIZE, square // BOARD_SIZE)}"

    def action_from_str(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedActionError("a move is text like 'L4:5@c3'", text)
        match = _NOTATION.match(text)
        if not match:
            raise MalformedActionError(
                f"cannot read {text!r}: write PIECE:ORIENTATION@SQUARE, e.g. L4:5@c3", text
            )
        piece = match.group(1).upper()
        if piece not in ORIENTATIONS_BY_PIECE:
            raise MalformedActionError(f"unknown piece {piece!r}; pieces are {', '.join(PIECE_IDS)}", text)
        x = FILES.index(match.group(3).lower())
        y = int(match.group(4)) - 1
        return self._action_id(piece, int(match.group(2)), x, y, text)

    def placement_z(self, action: int) -> int:
        """The z of the anchor of a legal placement (it is fixed by the height map, B3-4 b)."""
        o, square = divmod(action, SQUARES)
        orient = ORIENTATIONS[o]
        dx0, dy0, zlow0, _ = orient.columns[0]
        cell = self.geo.square_cell[square]
        if cell < 0:
            raise IllegalActionError("the anchor is outside the structure", action)
        return self.heights[cell + dx0 + self.geo.width * dy0] - zlow0
