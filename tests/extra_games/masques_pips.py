"""Pips: a small trick-taking game that lives only in the tests, to show that a game plugs into every
layer of Masques through the public mechanism alone (the ``masques.games`` entry point declared by
``masques_pips-0.1.dist-info`` beside this file) and brings none of the optional parts.

Rules.  A deck of cards numbered 1 to ``top`` (9 by default) is shuffled and each of the 2 or 3
players is dealt ``hand`` cards, face down; the rest stays in the deck, unseen.  A round is a trick:
starting with the leader, each player in turn plays one card face up.  The highest card takes the
trick and its holder scores the trick's pips (the sum of its cards) and leads the next one.  When the
hands are empty the game ends; the most pips win, equal most share the win.  Hidden: each hand from
everyone but its holder, and the deck from everyone, until the end, when the hands are shown.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

from masques.engine import (
    JSON,
    TERMINAL,
    Game,
    HiddenField,
    HiddenVariation,
    InvalidOptionError,
    MalformedActionError,
    OptionSpec,
    State,
    stream,
)
from masques.engine.chance import CHANCE_VERSION


class PipsGame(Game):
    name = "pips"
    title = "Pips"
    rules_version = "1"
    hidden_information: ClassVar[tuple[HiddenField, ...]] = (
        HiddenField("hands", visible_to="owner", until="end"),
        HiddenField("deck", visible_to="nobody", until="never"),
    )
    option_specs = (
        OptionSpec("players", "int", 2, "number of players", (2, 3)),
        OptionSpec("hand", "int", 3, "cards dealt to each player", (2, 3)),
        OptionSpec("top", "int", 9, "the highest card of the deck", (7, 9)),
    )

    def check_options(self, options: dict[str, JSON]) -> None:
        if options["players"] * options["hand"] > options["top"]:
            raise InvalidOptionError(self.name, "hand", "is too large: the deck cannot deal every hand")

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        return [{}, {"players": 3, "hand": 2}]

    def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
        """Hands: one card of a hand swapped with another hand's or the deck's (their holders see it).
        Deck: two of its cards swap places (nobody sees it)."""
        assert isinstance(state, PipsState)
        varied = state.clone()
        if part.field == "deck":
            if len(varied.deck) < 2:
                return None
            i, j = rng.sample(range(len(varied.deck)), 2)
            varied.deck[i], varied.deck[j] = varied.deck[j], varied.deck[i]
            return HiddenVariation(varied)
        holders = [seat for seat, hand in enumerate(varied.hands) if hand]
        if not holders:
            return None
        seat = rng.choice(holders)
        places: list[list[int]] = [varied.hands[s] for s in holders if s != seat] + [varied.deck]
        other = rng.choice([p for p in places if p])
        mine = varied.hands[seat]
        i, j = rng.randrange(len(mine)), rng.randrange(len(other))
        mine[i], other[j] = other[j], mine[i]
        seen = {seat} | {s for s in holders if varied.hands[s] is other}
        for hand in varied.hands:
            hand.sort()
        return HiddenVariation(varied, frozenset(seen))

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return int(self.options["top"])  # action a plays card a + 1

    @property
    def max_game_length(self) -> int:
        return self.num_players * int(self.options["hand"])

    def new_initial_state(self, seed: int = 0, *, chance: int = CHANCE_VERSION) -> PipsState:
        rng = stream(seed, "pips/deal", version=chance)
        deck = list(range(1, int(self.options["top"]) + 1))
        rng.shuffle(deck)
        size = int(self.options["hand"])
        hands = [sorted(deck[i * size : (i + 1) * size]) for i in range(self.num_players)]
        return PipsState(self, seed, chance, hands, deck[self.num_players * size :])

    def _sample_from(self, seat: int | None, observation: JSON, rng: random.Random) -> PipsState:
        """Every card the seat has not seen, shuffled and dealt to the other hands and the deck."""
        played = [card for trick in observation["tricks"] for card in trick] + list(observation["trick"])
        mine = list(observation["hand"]) if seat is not None else []
        unseen = [c for c in range(1, int(self.options["top"]) + 1) if c not in played and c not in mine]
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        for other, size in enumerate(observation["hand_sizes"]):
            if other == seat:
                hands.append(sorted(mine))
            else:
                hands.append(sorted(unseen[:size]))
                del unseen[:size]
        state = PipsState(self, 0, CHANCE_VERSION, hands, unseen)
        state.restore_public(observation)
        return state


class PipsState(State):
    game: PipsGame

    def __init__(
        self, game: PipsGame, seed: int, chance: int, hands: list[list[int]], deck: list[int]
    ) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        self.history = []
        self.hands = hands
        self.deck = deck
        self.leader = 0
        self.trick: list[int] = []
        self.tricks: list[list[int]] = []
        self.leaders: list[int] = []
        self.pips = [0] * game.num_players

    def restore_public(self, observation: JSON) -> None:
        self.leader = int(observation["leader"])
        self.trick = list(observation["trick"])
        self.tricks = [list(t) for t in observation["tricks"]]
        self.leaders = list(observation["leaders"])
        self.pips = list(observation["pips"])
        self.history = list(observation["moves"])

    # -- turn ------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return (self.leader + len(self.trick)) % self.game.num_players

    def is_terminal(self) -> bool:
        return not any(self.hands) and not self.trick

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        return [card - 1 for card in self.hands[self.current_player]]

    def is_legal(self, action: int) -> bool:
        return not self.is_terminal() and action + 1 in self.hands[self.current_player]

    def why_illegal(self, action: int) -> str:
        return f"card {action + 1} is not in the hand of the player to move"

    def _apply(self, action: int) -> None:
        card = action + 1
        self.hands[self.current_player].remove(card)
        self.trick.append(card)
        if len(self.trick) == self.game.num_players:
            winner = (self.leader + self.trick.index(max(self.trick))) % self.game.num_players
            self.pips[winner] += sum(self.trick)
            self.tricks.append(self.trick)
            self.leaders.append(self.leader)
            self.trick = []
            self.leader = winner

    # -- results ---------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(p) for p in self.pips]

    def winners(self) -> list[int]:
        if not self.is_terminal():
            return []
        best = max(self.pips)
        return [seat for seat, pips in enumerate(self.pips) if pips == best]

    # -- copies and views ------------------------------------------------------------------------
    def clone(self) -> PipsState:
        other = PipsState(self.game, self.seed, self.chance, [list(h) for h in self.hands], list(self.deck))
        other.restore_public(self._public())
        return other

    def _public(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "trick": list(self.trick),
            "tricks": [list(t) for t in self.tricks],
            "leaders": list(self.leaders),
            "pips": list(self.pips),
            "moves": list(self.history),
        }

    def observation(self, seat: int | None) -> JSON:
        over = self.is_terminal()
        obs: dict[str, JSON] = {
            "game": self.game.name,
            "seat": seat,
            "players": self.game.num_players,
            "to_move": None if over else self.current_player,
            "hand": sorted(self.hands[seat]) if seat is not None else [],
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "over": over,
            **self._public(),
        }
        if over:
            obs["winners"] = self.winners()
        return obs

    def serialize(self) -> JSON:
        return {"hands": [list(h) for h in self.hands], "deck": list(self.deck), **self._public()}

    # -- notation --------------------------------------------------------------------------------
    def action_to_json(self, action: int) -> JSON:
        return {"card": action + 1}

    def action_from_json(self, obj: JSON) -> int:
        if not isinstance(obj, dict) or set(obj) != {"card"}:
            raise MalformedActionError(f"a Pips action is {{'card': N}}, not {json.dumps(obj)[:60]}", obj)
        return self._card_action(obj["card"], obj)

    def action_to_str(self, action: int) -> str:
        return str(action + 1)

    def action_from_str(self, text: str) -> int:
        word = text.strip()
        if not (word.isascii() and word.isdigit()):  # "²" is a digit to isdigit, not to int
            raise MalformedActionError(f"a Pips move is a card number, not {text!r}", text)
        return self._card_action(int(word), text)

    def _card_action(self, card: object, given: object) -> int:
        top = int(self.game.options["top"])
        if isinstance(card, bool) or not isinstance(card, int) or not 1 <= card <= top:
            raise MalformedActionError(f"a Pips card is a number from 1 to {top}", given)
        return card - 1
