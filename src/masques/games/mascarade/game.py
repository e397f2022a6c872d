"""Mascarade under the engine contract: MC-1 .. MC-9 (spec: mascarade.md).

Actions: ``card * 100 + square`` places a card from hand on a square (``square = row * 10 + col``,
row 0 at the top), and ``10000`` passes.  The forced draw of MC-7 is not an action: when a player's
turn begins and no card of theirs fits anywhere, they draw one card at once (if the pool has any),
and pass is legal only if still nothing fits.

Speed comes from bitsets: a hand is a 100-bit set of cards, and every empty square next to the
layout keeps the set of cards that share a feature with all of its placed neighbours (with option
``matching=one``, MC-5a: with at least one of them), so the legal placements of a square are one AND.

Decisions where the text is silent: a player who places their last card while the pool still has
cards draws five again and play goes on (MC-8 a needs an empty pool); the lot that breaks ties is
drawn from the game's seed when the game ends and shown in every observation from then on.
Hands are revealed when the game ends.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

from ...engine.chance import CHANCE_VERSION, stream
from ...engine.core import (
    JSON,
    TERMINAL,
    Game,
    HiddenField,
    HiddenVariation,
    MalformedActionError,
    OptionSpec,
    State,
    bad_viewer,
    is_viewer,
)

SIZE = 10
SQUARES = SIZE * SIZE
START = 4 * SIZE + 4  # MC-1: row 4, column 4
HAND = 5  # MC-3, MC-6
NUM_CARDS = 100
PASS = NUM_CARDS * SQUARES
FEATURES = ("face", "hair", "eyes", "nose", "mouth")
FILES = "abcdefghij"

_MOVE = re.compile(r"^\s*#?(\d{1,2})\s*@\s*([a-jA-J])\s*(10|[1-9])\s*$")


@dataclass(frozen=True)
class Card:
    """One mask card: its id and five feature values (keys into the feature tables)."""

    id: int
    face: str
    hair: str
    eyes: str
    nose: str
    mouth: str

    def features(self) -> tuple[str, str, str, str, str]:
        return (self.face, self.hair, self.eyes, self.nose, self.mouth)


def _load() -> tuple[dict[str, Any], tuple[Card, ...]]:
    text = resources.files(__package__).joinpath("cards.json").read_text("utf-8")
    data = json.loads(text)
    cards = tuple(Card(**c) for c in data["cards"])
    return data["features"], cards


FEATURE_TABLE, CARDS = _load()
"""MC-2: feature names and values in EN/FR/DE/NL, and the 100 cards (generated once, frozen)."""

SHARED: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(a == b for a, b in zip(c.features(), d.features(), strict=True)) for d in CARDS) for c in CARDS
)
"""``SHARED[a][b]``: how many features cards a and b share (MC-5, MC-9)."""

COMPATIBLE: tuple[int, ...] = tuple(
    sum(1 << b for b in range(NUM_CARDS) if SHARED[a][b] > 0 and a != b) for a in range(NUM_CARDS)
)
"""``COMPATIBLE[a]``: the set of cards sharing at least one feature with card a (MC-5)."""

NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        r2 * SIZE + c2
        for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= r2 < SIZE and 0 <= c2 < SIZE
    )
    for r in range(SIZE)
    for c in range(SIZE)
)

ALL_CARDS = (1 << NUM_CARDS) - 1


def square_name(square: int) -> str:
    """``a1`` is the top-left square: files a..j along a row, ranks 1..10 down the rows."""
    return f"{FILES[square % SIZE]}{square // SIZE + 1}"


def cards_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class MascaradeGame(Game):
    """Mascarade for 2 to 4 players, with the scoring variant as an option."""

    name = "mascarade"
    title = "Mascarade"
    rules_version = "1"
    parts: ClassVar[Mapping[str, str]] = {
        "bot": "masques.games.mascarade.bot:BOT",
        "figures": "masques.games.mascarade.figures:figures",
        "terminal": "masques.games.mascarade.terminal:TERMINAL",
        "rl": "masques.games.mascarade.rl:MascaradeEncoder",
    }
    hidden_information: ClassVar[tuple[HiddenField, ...]] = (
        HiddenField("hands", "owner", "end", "MC-3: each hand is seen by its owner; others see its size"),
        HiddenField("pool", "nobody", "never", "MC-3: the pool's order; everyone sees its size"),
    )
    option_specs = (
        OptionSpec("players", "int", 3, "number of players (MC-3; 2 is an extension)", (2, 3, 4)),
        OptionSpec("scoring", "bool", False, "the scoring variant for older players (MC-9)"),
        OptionSpec(
            "matching",
            "str",
            "every",
            "every: a card shares a feature with every adjacent card; one: with at least one (MC-5a)",
            ("every", "one"),
        ),
    )

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        configs: list[dict[str, JSON]] = [
            {"players": p, "scoring": s} for s in (False, True) for p in (2, 3, 4)
        ]
        configs += [{"players": 2, "matching": "one"}, {"players": 4, "scoring": True, "matching": "one"}]
        return configs

    @classmethod
    def bench_configurations(cls, options: Mapping[str, JSON]) -> list[tuple[str, dict[str, JSON]]]:
        if options:
            return super().bench_configurations(options)
        return [
            (f"{p}p{' scoring' if s else ''}", {"players": p, "scoring": s})
            for s in (False, True)
            for p in (2, 3, 4)
        ]

    @classmethod
    def playthrough_configurations(cls) -> list[tuple[str, int, dict[str, JSON]]]:
        return [
            ("3p", 1, {"players": 3, "scoring": False}),
            ("4p-scoring", 2, {"players": 4, "scoring": True}),
            ("3p-one-match", 3, {"players": 3, "matching": "one"}),
        ]

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return PASS + 1

    @property
    def max_game_length(self) -> int:
        # 100 placements at most, and between two placements at most one pass per player plus the
        # closing round of passes.
        return NUM_CARDS * (self.num_players + 1) + self.num_players

    def new_initial_state(self, seed: int = 0, *, chance: int = CHANCE_VERSION) -> MascaradeState:
        rng = stream(seed, "mascarade/deal", version=chance)
        pool = list(range(NUM_CARDS))
        rng.shuffle(pool)  # MC-3
        hands = []
        for _ in range(self.num_players):
            hands.append(mask_of(pool[-HAND:]))
            del pool[-HAND:]
        return MascaradeState(self, seed, hands, pool, chance=chance)

    def _sample_from(self, seat: int | None, obs: JSON, rng: random.Random) -> MascaradeState:
        """Others' hands and the pool order, drawn uniformly from the cards the seat has not seen.

        The seat knows the layout and its own hand; the rest is shuffled and dealt to the other
        hands (their sizes are public) and the pool.  Inferences from forced draws and passes are
        left to the bots, which see the whole observation history.
        """
        n = self.num_players
        if obs.get("hands") is not None:  # the end: everything is revealed
            hands = [mask_of(h) for h in obs["hands"]]
            unknown: list[int] = []
        else:
            seen = {p["card"] for p in obs["placed"]}
            mine = set(obs["hand"] or [])
            unknown = [c for c in range(NUM_CARDS) if c not in seen and c not in mine]
            rng.shuffle(unknown)
            hands = []
            for s in range(n):
                if s == seat:
                    hands.append(mask_of(sorted(mine)))
                else:
                    size = int(obs["hand_sizes"][s])
                    hands.append(mask_of(unknown[:size]))
                    del unknown[:size]
        state = MascaradeState.__new__(MascaradeState)
        state.restore(self, obs, hands, unknown, seed=rng.randrange(2**31))
        return state

    def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
        """MC-3 for the conformance kit's leak check (see hidden.py)."""
        from .hidden import vary_hidden

        assert isinstance(state, MascaradeState)
        return vary_hidden(self, state, part, rng)


class MascaradeState(State):
    """A Mascarade position: the layout, hands as bitsets, the pool, scores."""

    def __init__(
        self,
        game: MascaradeGame,
        seed: int,
        hands: list[int],
        pool: list[int],
        *,
        chance: int = CHANCE_VERSION,
    ) -> None:
        self.game: MascaradeGame = game
        self.seed = seed
        self.chance = chance
        self.history: list[int] = []
        self.hands = hands
        self.pool = pool  # the next card drawn is pool[-1]
        self.board = [-1] * SQUARES
        self.placed: list[tuple[int, int, int]] = []  # (card, square, seat) in order
        self.allowed: dict[int, int] = {START: ALL_CARDS}  # MC-4: the start square takes any card
        self.scores_ = [0] * game.num_players
        self.draws = [0] * game.num_players  # forced draws (MC-7), public
        self.player = 0  # MC-4: the youngest, seat 0
        self.drew_this_turn = False
        self.empty_passes = 0  # consecutive passes with an empty pool (MC-8 b)
        self.over = False
        self.winner = -1
        self.tie_break: list[int] | None = None
        self._start_turn(0)

    def restore(
        self, game: MascaradeGame, obs: JSON, hands: list[int], pool: list[int], *, seed: int
    ) -> None:
        """Rebuild a state from a public observation plus hidden parts (determinization)."""
        self.game = game
        self.seed = seed
        self.chance = int(obs.get("chance", CHANCE_VERSION))
        self.history = [int(a) for a in obs["moves"]]
        self.hands = hands
        self.pool = pool
        self.board = [-1] * SQUARES
        self.placed = []
        self.allowed = {START: ALL_CARDS}
        for p in obs["placed"]:
            self._put(int(p["card"]), int(p["square"]))
            self.placed.append((int(p["card"]), int(p["square"]), int(p["seat"])))
        self.scores_ = [int(s) for s in obs["scores"]]
        self.draws = [int(d) for d in obs["draws"]]
        self.player = TERMINAL if obs["to_move"] is None else int(obs["to_move"])
        self.drew_this_turn = bool(obs["drew_this_turn"])
        self.empty_passes = int(obs["empty_passes"])
        self.over = bool(obs["terminal"])
        self.winner = int(obs["winners"][0]) if self.over else -1
        tie_break = obs.get("tie_break")
        self.tie_break = None if tie_break is None else [int(s) for s in tie_break]

    # -- rules --------------------------------------------------------------------------------
    def _put(self, card: int, square: int) -> None:
        """Lay a card and narrow the cards allowed on each empty neighbour (MC-5), or with
        ``matching=one`` widen them (MC-5a: a match with one adjacent card is enough)."""
        self.board[square] = card
        self.allowed.pop(square, None)
        one = self.game.options["matching"] == "one"
        for n in NEIGHBOURS[square]:
            if self.board[n] < 0:
                if one:
                    self.allowed[n] = self.allowed.get(n, 0) | COMPATIBLE[card]
                else:
                    self.allowed[n] = self.allowed.get(n, ALL_CARDS) & COMPATIBLE[card]

    def _fits(self, seat: int) -> bool:
        hand = self.hands[seat]
        return any(a & hand for a in self.allowed.values())

    def _draw(self, seat: int, count: int) -> None:
        for _ in range(min(count, len(self.pool))):
            self.hands[seat] |= 1 << self.pool.pop()

    def _start_turn(self, seat: int) -> None:
        """MC-7: a player with nothing to place draws one card at once; pass if still nothing."""
        self.player = seat
        self.drew_this_turn = False
        if not self._fits(seat) and self.pool:
            self._draw(seat, 1)
            self.draws[seat] += 1
            self.drew_this_turn = True

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        hand = self.hands[self.player]
        out = []
        for square, allowed in self.allowed.items():
            for card in cards_of(allowed & hand):
                out.append(card * SQUARES + square)
        if not out:
            return [PASS]
        out.sort()
        return out

    def num_legal_actions(self) -> int:
        if self.over:
            return 0
        hand = self.hands[self.player]
        return sum((a & hand).bit_count() for a in self.allowed.values()) or 1

    def random_legal_action(self, rng: random.Random) -> int:
        hand = self.hands[self.player]
        counts = [((a & hand).bit_count(), sq, a & hand) for sq, a in self.allowed.items()]
        total = sum(c for c, _, _ in counts)
        if total == 0:
            return PASS
        index = rng.randrange(total)
        for c, square, bits in counts:
            if index < c:
                return cards_of(bits)[index] * SQUARES + square
            index -= c
        raise AssertionError("unreachable")

    def is_legal(self, action: int) -> bool:
        if self.over:
            return False
        if action == PASS:
            return not self._fits(self.player)
        card, square = divmod(action, SQUARES)
        return bool(self.allowed.get(square, 0) & self.hands[self.player] & (1 << card))

    def why_illegal(self, action: int) -> str:
        if action == PASS:
            return "a card of yours fits: passing is allowed only when none does (MC-7)"
        card, square = divmod(action, SQUARES)
        if not self.hands[self.player] >> card & 1:
            return f"card {card} is not in your hand"
        if not self.placed:
            return f"the first card goes on the start square {square_name(START)} (MC-4)"
        if self.board[square] >= 0:
            return f"{square_name(square)} is taken"
        if square not in self.allowed:
            return f"{square_name(square)} touches no placed card (MC-5)"
        if self.game.options["matching"] == "one":
            return f"card {card} shares no feature with any card next to {square_name(square)} (MC-5a)"
        return f"card {card} must share a feature with every card next to {square_name(square)} (MC-5)"

    def _apply(self, action: int) -> None:
        seat = self.player
        n = self.game.num_players
        if action == PASS:
            self.empty_passes = self.empty_passes + 1 if not self.pool else 0
            if self.empty_passes >= n:  # MC-8 b: a full round of passes with an empty pool
                self._finish()
                return
            self._start_turn((seat + 1) % n)
            return
        card, square = divmod(action, SQUARES)
        points = sum(SHARED[card][self.board[nb]] for nb in NEIGHBOURS[square] if self.board[nb] >= 0)  # MC-9
        self.hands[seat] &= ~(1 << card)
        self._put(card, square)
        self.placed.append((card, square, seat))
        self.scores_[seat] += points
        self.empty_passes = 0
        if not self.hands[seat] and not self.pool:  # MC-8 a
            self._finish(placed_out=seat)
            return
        held = self.hands[seat].bit_count()
        if held < HAND:  # MC-6: refill to 5; a player holding more draws nothing
            self._draw(seat, HAND - held)
        self._start_turn((seat + 1) % n)

    def _finish(self, placed_out: int = -1) -> None:
        """MC-8 / MC-9: decide the winner, breaking ties by lot from the game's seed (a stream of its
        own, named by the number of actions played, as the first version of the lot was)."""
        self.over = True
        n = self.game.num_players
        sizes = [self.hands[s].bit_count() for s in range(n)]
        if self.game.options["scoring"]:
            best = max(self.scores_)
            tied = [s for s in range(n) if self.scores_[s] == best]
            fewest = min(sizes[s] for s in tied)
            tied = [s for s in tied if sizes[s] == fewest]
        elif placed_out >= 0:
            tied = [placed_out]
        else:
            fewest = min(sizes)
            tied = [s for s in range(n) if sizes[s] == fewest]
        if len(tied) > 1:
            lot = stream(self.seed, f"mascarade/lot/{len(self.history)}", version=self.chance).choice(tied)
            self.tie_break = [*tied, lot]
            self.winner = lot
        else:
            self.winner = tied[0]
        self.player = TERMINAL

    # -- results ------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return TERMINAL if self.over else self.player

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        """MC-9 points with scoring; otherwise minus the cards in hand (fewer is better, MC-8 b)."""
        if self.game.options["scoring"]:
            return [float(s) for s in self.scores_]
        return [float(-h.bit_count()) for h in self.hands]  # an empty hand scores 0, not -0

    def winners(self) -> list[int]:
        return [self.winner] if self.over else []

    # -- copies and views ---------------------------------------------------------------------
    def clone(self) -> MascaradeState:
        other = MascaradeState.__new__(MascaradeState)
        other.__dict__.update(self.__dict__)
        other.history = self.history.copy()
        other.hands = self.hands.copy()
        other.pool = self.pool.copy()
        other.board = self.board.copy()
        other.placed = self.placed.copy()
        other.allowed = self.allowed.copy()
        other.scores_ = self.scores_.copy()
        other.draws = self.draws.copy()
        other.tie_break = None if self.tie_break is None else self.tie_break.copy()
        return other

    def stopped_observation(self, seat: int | None) -> JSON:
        """MC-3: a match stopped before the end (resigned, out of time) shows every hand, as the end
        of the game does; the pool's order stays hidden."""
        obs = self.observation(seat)
        assert isinstance(obs, dict)
        obs["hands"] = [cards_of(h) for h in self.hands]
        return obs

    def observation(self, seat: int | None) -> JSON:
        """MC-3: the layout, hand sizes, pool size and scores are public; a hand only to its owner."""
        if not is_viewer(seat, self.game.num_players):
            raise bad_viewer(seat, self.game.num_players)
        n = self.game.num_players
        obs: dict[str, JSON] = {
            "game": self.game.name,
            "seat": seat,
            "players": n,
            "scoring": bool(self.game.options["scoring"]),
            "matching": self.game.options["matching"],  # MC-5a
            # public: which generator draws the lot at the end, so that sampled worlds draw it alike
            "chance": self.chance,
            "hand": None if seat is None else cards_of(self.hands[seat]),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "pool_size": len(self.pool),
            "placed": [{"card": c, "square": q, "seat": s} for c, q, s in self.placed],
            "scores": list(self.scores_),
            "draws": list(self.draws),
            "to_move": None if self.over else self.player,
            "drew_this_turn": self.drew_this_turn,
            "empty_passes": self.empty_passes,
            "moves": list(self.history),
            "last_move": self.action_to_str(self.history[-1]) if self.history else None,
            "terminal": self.over,
            "hands": None,
        }
        if self.over:
            obs["hands"] = [cards_of(h) for h in self.hands]
            obs["winners"] = self.winners()
            obs["returns"] = self.returns()
            obs["tie_break"] = self.tie_break
        return obs

    def serialize(self) -> JSON:
        return {
            "game": self.game.name,
            "options": copy.deepcopy(self.game.options),
            "seed": self.seed,
            "chance": self.chance,
            "history": list(self.history),
            "hands": [str(h) for h in self.hands],
            "pool": list(self.pool),
            "placed": [list(p) for p in self.placed],
            "allowed": {str(k): str(v) for k, v in sorted(self.allowed.items())},
            "scores": list(self.scores_),
            "draws": list(self.draws),
            "player": self.player,
            "drew_this_turn": self.drew_this_turn,
            "empty_passes": self.empty_passes,
            "over": self.over,
            "winner": self.winner,
            "tie_break": self.tie_break,
        }

    # -- notation -----------------------------------------------------------------------------
    def action_to_json(self, action: int) -> JSON:
        if action == PASS:
            return {"pass": True}
        card, square = divmod(action, SQUARES)
        return {"card": card, "square": square_name(square)}

    def action_from_json(self, obj: JSON) -> int:
        if isinstance(obj, dict) and set(obj) == {"pass"} and obj["pass"] is True:
            return PASS
        if not isinstance(obj, dict) or set(obj) != {"card", "square"}:
            raise MalformedActionError(
                'a mascarade action is {"card": 12, "square": "e5"} or {"pass": true}', obj
            )
        card, square = obj["card"], obj["square"]
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
            raise MalformedActionError(f"'card' must be a card number 0..{NUM_CARDS - 1}", obj)
        if not isinstance(square, str):
            raise MalformedActionError("'square' must be a square name like e5", obj)
        return self._parse(f"{card}@{square}", obj)

    def _parse(self, text: str, raw: object) -> int:
        match = _MOVE.match(text)
        if not match:
            raise MalformedActionError(f"cannot read {text!r}: write CARD@SQUARE, e.g. 12@e5, or pass", raw)
        card = int(match.group(1))
        square = (int(match.group(3)) - 1) * SIZE + FILES.index(match.group(2).lower())
        return card * SQUARES + square

    def action_to_str(self, action: int) -> str:
        if action == PASS:
            return "pass"
        card, square = divmod(action, SQUARES)
        return f"{card}@{square_name(square)}"

    def action_from_str(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedActionError("a mascarade move is text like 12@e5, or pass", text)
        if text.strip().lower() == "pass":
            return PASS
        return self._parse(text, text)
