"""Maske (Mask) under the engine contract: MS-1 .. MS-17 (spec: maske.md).

A game is a sequence of decisions, each by one seat, with every step of a move and every bid an
action of its own so the action space stays finite (425 ids):

* ``HOLE + h`` (0..48): put a stick in hole ``h`` (set-up, MS-7) or jump a chosen stick there;
* ``STEP + 4 * stick + d`` (49..96): one step of stick ``stick`` (seat * 2 + 0/1) in direction
  ``d`` (0 up, 1 right, 2 down, 3 left) — paid moves (MS-9 b) and the cards' free steps;
* ``PASS``, ``DRAW``, ``DONE`` (end a move or a card's free steps), ``DROP`` (decline or leave an
  auction; in an open auction, MS-11a, pass without leaving it);
* ``ORIENT + o``: lay the mask turned ``o`` quarter turns clockwise (MS-3, MS-8);
* ``TURN_CW`` / ``TURN_CCW``: a card's quarter turn either way;
* ``STICK + g``: choose stick ``g`` for a card (jump, swap);
* ``PLAYER + p``: choose a player for a card;
* ``BID + x - 1``: bid ``x`` points (1..300; nobody needs more in practice, and a bid above what one
  holds is never legal).

Card effects are composed from primitives (``pay``, ``jump``, ``steps``, ``swap``, ``turn``,
``payday``, ``double_payday``, ``skip``, ``extra_action``, ``nothing``) with parameters from
``cards.json``, so a new card is data, not code.

Decisions where the rules are silent, made as a player would expect:

* a paid move ends by itself when no further step is possible (no points, or both sticks blocked);
* "up to N steps" allows stopping at any time, even before the first step;
* "give 3 points to the player with fewest points": counted over all players; ties go to the first
  of them clockwise from the holder's left; if that is the holder, nothing moves;
* an extra payday is not doubled by the double-payday card (that one is for "this round's payday");
* "skips their next action" skips the next action slot of a round that player would get;
* the card drawn sits in no one's hand: after its effect, or unsold, it goes under the deck; each
  seat's observation shows the deck from top to bottom as far as that seat knows it (cards seen
  when sold are known to all, an unsold card only to its drawer).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
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
from .data import CARDS, CENTRE, HOLES, MASK_VALUES, MASKS, SIZE

HOLE = 0
STEP = 49
PASS = 97
DRAW = 98
DONE = 99
DROP = 100
ORIENT = 101
TURN_CW = 105
TURN_CCW = 106
STICK = 107
PLAYER = 119
BID = 125
MAX_BID = 300
NUM_ACTIONS = BID + MAX_BID

START_POINTS = 10  # MS-6
MASKS_BY_PLAYERS = {3: 18, 4: 16, 5: 15, 6: 12}  # MS-5
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIRECTION_NAMES = ("up", "right", "down", "left")

SETUP, LAY, ACTION, MOVING, AUCTION, EFFECT, OVER = (
    "setup",
    "lay",
    "action",
    "moving",
    "auction",
    "effect",
    "over",
)


def _neighbour(hole: int, direction: int) -> int:
    r, c = divmod(hole, SIZE)
    dr, dc = DIRECTIONS[direction]
    r2, c2 = r + dr, c + dc
    if not (0 <= r2 < SIZE and 0 <= c2 < SIZE) or r2 * SIZE + c2 == CENTRE:
        return -1
    return r2 * SIZE + c2


NEXT_HOLE: tuple[tuple[int, ...], ...] = tuple(
    tuple(_neighbour(h, d) for d in range(4)) for h in range(SIZE * SIZE)
)
"""MS-10: the hole one step away in each direction, or -1 (edge of the grid, or the centre)."""


def hole_name(hole: int) -> str:
    """``a1`` is the top-left hole: files a..g along a row, ranks 1..7 down the rows."""
    return f"{'abcdefg'[hole % SIZE]}{hole // SIZE + 1}"


class MaskeGame(Game):
    """Maske for 3 to 6 players, with the unmasking and mask-count variants."""

    name = "maske"
    title = "Maske"
    rules_version = "1"
    parts: ClassVar[Mapping[str, str]] = {
        "bot": "masques.games.maske.bot:BOT",
        "figures": "masques.games.maske.figures:figures",
        "terminal": "masques.games.maske.terminal:TERMINAL",
        "rl": "masques.games.maske.rl:MaskeEncoder",
    }
    hidden_information: ClassVar[tuple[HiddenField, ...]] = (
        HiddenField(
            "deck",
            "owner",
            "never",
            "MS-17: the order of the action cards; a card nobody bought is seen by its drawer",
        ),
        HiddenField("mask_stack", "nobody", "never", "MS-17: the order of the masks still to lay"),
        HiddenField(
            "drawn_card",
            "owner",
            "sold",
            "MS-17: the drawer alone sees the card until it is bought; unsold, it stays the drawer's",
        ),
    )
    option_specs = (
        OptionSpec("players", "int", 4, "number of players (MS-5)", (3, 4, 5, 6)),
        OptionSpec("masks", "int", 0, "masks in play; 0 = by player count (MS-5, MS-16)", tuple(range(19))),
        OptionSpec("unmasking", "bool", False, "after the last payday the masks below pay out (MS-15)"),
        OptionSpec(
            "auction",
            "str",
            "rounds",
            "rounds: dropping out leaves the auction (MS-11); open: a pass keeps you in (MS-11a)",
            ("rounds", "open"),
        ),
    )

    def check_options(self, options: dict[str, JSON]) -> None:
        masks = int(options["masks"])
        self.num_masks = masks if masks else MASKS_BY_PLAYERS[int(options["players"])]

    @classmethod
    def conformance_configurations(cls) -> list[dict[str, JSON]]:
        configs: list[dict[str, JSON]] = [{"players": p} for p in (3, 4, 5, 6)]
        configs += [{"players": 4, "unmasking": True}, {"players": 3, "masks": 2, "unmasking": True}]
        configs += [{"players": 3, "auction": "open"}, {"players": 5, "masks": 3, "auction": "open"}]
        return configs

    @classmethod
    def bench_configurations(cls, options: Mapping[str, JSON]) -> list[tuple[str, dict[str, JSON]]]:
        if options:
            return super().bench_configurations(options)
        return [(f"{p}p", {"players": p}) for p in (3, 4, 5, 6)]

    @classmethod
    def playthrough_configurations(cls) -> list[tuple[str, int, dict[str, JSON]]]:
        return [
            ("4p-4masks", 1, {"players": 4, "masks": 4}),
            ("3p-3masks-unmasking", 2, {"players": 3, "masks": 3, "unmasking": True}),
            ("4p-3masks-open-auction", 6, {"players": 4, "masks": 3, "auction": "open"}),
        ]

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        # Paid steps are bounded by points, and points by paydays and cards; this bound is generous
        # for any game that ends (random play stays far below it).
        return 200_000

    def new_initial_state(self, seed: int = 0, *, chance: int = CHANCE_VERSION) -> MaskeState:
        rng = stream(seed, "maske/deal", version=chance)
        masks = rng.sample(range(len(MASKS)), self.num_masks)  # MS-5
        deck = list(range(len(CARDS)))
        rng.shuffle(deck)
        return MaskeState(self, seed, masks, deck, chance=chance)

    def _sample_from(self, seat: int | None, obs: JSON, rng: random.Random) -> MaskeState:
        """MS-17 determinization: the deck's unknown cards, an unseen drawn card and the masks still
        to lay are drawn uniformly from what the seat has not seen."""
        deck_view: list[int | None] = obs["deck"]
        drawn = obs["auction"]["card"] if obs["auction"] else None
        known = {c for c in deck_view if c is not None}
        if obs["effect"] is not None:
            known.add(obs["effect"]["card"])
        if drawn is not None:
            known.add(drawn)
        unknown = [c for c in range(len(CARDS)) if c not in known]
        rng.shuffle(unknown)
        deck = [c if c is not None else unknown.pop() for c in deck_view]
        hidden_drawn = None
        if obs["auction"] and obs["auction"]["card"] is None:
            hidden_drawn = unknown.pop()
        laid = [m["mask"] for m in obs["masks_laid"]]
        showing = obs["mask_to_lay"]  # turned over by the placer (MS-8): public
        rest = [m for m in range(len(MASKS)) if m not in laid and m != showing]
        if showing is None:
            stack = rng.sample(rest, int(obs["masks_left"]))
        else:
            stack = [showing, *rng.sample(rest, int(obs["masks_left"]) - 1)]
        return MaskeState.from_observation(self, obs, deck, hidden_drawn, stack, seed=rng.randrange(2**31))

    def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
        """MS-17 for the conformance kit's leak check (see hidden.py)."""
        from .hidden import vary_hidden

        assert isinstance(state, MaskeState)
        return vary_hidden(self, state, part, rng)


class MaskeState(State):
    """A Maske position."""

    def __init__(
        self, game: MaskeGame, seed: int, masks: list[int], deck: list[int], *, chance: int = CHANCE_VERSION
    ) -> None:
        self.game: MaskeGame = game
        self.seed = seed
        self.chance = chance
        self.history: list[int] = []
        n = game.num_players
        everyone = (1 << n) - 1
        self.everyone = everyone
        self.stack = masks  # masks still to lay; the next is stack[0]
        self.deck = deck  # top is deck[0]
        self.known = [0] * len(deck)  # per deck position: bitmask of seats who know that card
        self.points = [START_POINTS] * n
        self.sticks = [-1] * (2 * n)  # hole of stick seat*2+k, -1 before set-up
        self.laid: list[tuple[int, int]] = []  # (mask, orientation), bottom first
        self.round = 0
        self.placer = 0  # MS-8: seat 0 lays the first mask
        self.round_pos = 0
        self.phase = SETUP
        self.actor = 0
        self.extra: list[int] = []  # seats owed an extra action (card), most recent last
        self.skip = [False] * n
        self.double = [False] * n
        self.auction: dict[str, Any] | None = None
        self.effect: dict[str, Any] | None = None
        self.log: list[str] = []
        self.in_extra = False  # the current action is one a card gave (MS-4 "another action")
        self.steps_taken = 0  # steps so far in the current paid move
        self._legal: list[int] | None = None

    @classmethod
    def from_observation(
        cls,
        game: MaskeGame,
        obs: JSON,
        deck: list[int],
        hidden_drawn: int | None,
        stack: list[int],
        *,
        seed: int,
    ) -> MaskeState:
        """The state an observation describes, with the hidden parts given (determinization)."""
        state = cls(game, seed, stack, deck)
        state.history = [int(a) for a in obs["moves"]]
        state.known = [int(k) for k in obs["deck_known"]]
        state.points = [int(p) for p in obs["points"]]
        state.sticks = [int(h) for seat in obs["sticks"] for h in seat]
        state.laid = [(int(m["mask"]), int(m["orientation"])) for m in obs["masks_laid"]]
        state.round = int(obs["round"])
        state.placer = int(obs["placer"])
        state.round_pos = int(obs["round_pos"])
        state.phase = str(obs["phase"])
        state.actor = int(obs["actor"])
        state.extra = [int(s) for s in obs["extra_actions"]]
        state.skip = list(obs["skip"])
        state.double = list(obs["double_payday"])
        if obs["auction"] is not None:
            auction = dict(obs["auction"])
            if auction["card"] is None:
                auction["card"] = hidden_drawn
            auction["active"] = list(auction["active"])
            state.auction = auction
        if obs["effect"] is not None:
            effect = dict(obs["effect"])
            effect["queue"] = list(effect["queue"])
            state.effect = effect
        state.log = list(obs["log"])
        state.in_extra = bool(obs["extra_action"])
        state.steps_taken = int(obs["steps_this_move"])
        return state

    # -- whose decision ---------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        phase = self.phase  # the commonest phases first: environments ask after every action
        if phase in (ACTION, MOVING):
            return self.actor
        if phase == AUCTION:
            assert self.auction is not None
            turn: int = self.auction["turn"]
            return turn
        if phase == EFFECT:
            assert self.effect is not None
            decider: int = self.effect["decider"]
            return decider
        if phase == LAY:
            return self.placer
        if phase == OVER:
            return TERMINAL
        return self.actor  # set-up

    def mid_turn(self) -> bool:
        """MS-9: a paid move goes on step by step until done; MS-12: a card's choices are one turn;
        MS-7: a seat puts both its sticks in one turn; MS-9/MS-11: the drawer's opening bid (or
        decline) is part of the turn that drew the card."""
        phase = self.phase
        if phase in (MOVING, EFFECT):
            return True
        if phase == SETUP:
            return self.sticks.index(-1) % 2 == 1  # the seat's second stick
        if phase == AUCTION:
            assert self.auction is not None
            auction = self.auction
            return bool(auction["turn"] == auction["drawer"] and auction["high"] is None)
        return False

    def is_terminal(self) -> bool:
        return self.phase == OVER

    # -- board facts ------------------------------------------------------------------------
    def free_holes(self) -> list[int]:
        taken = set(self.sticks)
        return [h for h in HOLES if h not in taken]

    def step_target(self, stick: int, direction: int) -> int:
        """MS-10: the hole a single step reaches, or -1 (edge, centre, or a stick in the way)."""
        target = NEXT_HOLE[self.sticks[stick]][direction]
        if target < 0 or target in self.sticks:
            return -1
        return target

    def _steps_of(self, sticks: Sequence[int]) -> list[int]:
        """The single steps (MS-10) of these sticks: ``step_target`` of each, unrolled (hot path)."""
        placed = self.sticks
        return [
            STEP + 4 * g + d
            for g in sticks
            if placed[g] >= 0
            for d, target in enumerate(NEXT_HOLE[placed[g]])
            if target >= 0 and target not in placed
        ]

    def own(self, seat: int) -> tuple[int, int]:
        return (2 * seat, 2 * seat + 1)

    def top_values(self) -> tuple[int, ...]:
        mask, orientation = self.laid[-1]
        return MASK_VALUES[mask][orientation]

    # -- legal actions ----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = sorted(self._compute_legal())
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == OVER:
            return []
        if phase == SETUP:
            return [HOLE + h for h in self.free_holes()]
        if phase == LAY:
            return [ORIENT + o for o in range(4)]
        if phase in (ACTION, MOVING):
            seat = self.actor
            steps = self._steps_of(self.own(seat)) if self.points[seat] > 0 else []  # MS-9 b, MS-10
            return [PASS, DRAW, *steps] if phase == ACTION else [DONE, *steps]
        if phase == AUCTION:
            assert self.auction is not None
            seat = int(self.auction["turn"])
            top = min(self.points[seat], MAX_BID)
            return [DROP, *(BID + x - 1 for x in range(int(self.auction["bid"]) + 1, top + 1))]
        assert self.effect is not None
        return self._effect_choices()

    def is_legal(self, action: int) -> bool:
        if self._legal is None:
            self.legal_actions()
        assert self._legal is not None
        return action in self._legal

    def why_illegal(self, action: int) -> str:
        phase = self.phase
        if phase == SETUP:
            return "put your stick in a free hole (not the centre, MS-7)"
        if phase == LAY:
            return "lay the mask: choose its orientation (MS-8)"
        if phase == AUCTION and self.game.options["auction"] == "open":
            return (
                "raise above the current bid with points you hold, or pass with 'drop': you may bid "
                "again later (MS-11a)"
            )
        if phase == AUCTION:
            return "raise above the current bid with points you hold, or drop out (MS-11)"
        if phase == EFFECT:
            return "carry out the card you bought (MS-12)"
        if STEP <= action < PASS:
            stick, seat = (action - STEP) // 4, self.current_player
            if stick // 2 != seat:
                mine = " and ".join(map(str, self.own(seat)))
                return f"stick {stick} is seat {stick // 2}'s: yours are sticks {mine} (MS-9)"
            return "that step is blocked, off the plate, onto the centre, or not paid for (MS-9, MS-10)"
        return "choose pass, a step, or draw (MS-9)" if phase == ACTION else "step on, or done"

    # -- applying ---------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._legal = None
        phase = self.phase
        if phase == SETUP:
            self._setup(action - HOLE)
        elif phase == LAY:
            self.laid.append((self.stack.pop(0), action - ORIENT))
            self.log.append(
                f"seat {self.placer} lays {MASKS[self.laid[-1][0]].name}, turned {action - ORIENT}"
            )
            self.round_pos = -1
            self._next_action()
        elif phase in (ACTION, MOVING):
            self._act(action)
        elif phase == AUCTION:
            self._bid(action)
        else:
            self._effect_decision(action)

    def _setup(self, hole: int) -> None:
        """MS-7: each seat in turn from seat 0 puts its two sticks."""
        stick = self.sticks.index(-1)
        self.sticks[stick] = hole
        if -1 in self.sticks:
            self.actor = self.sticks.index(-1) // 2
        else:
            self._start_round()

    def _start_round(self) -> None:
        """MS-8: the placer lays the next mask; or the game ends after the last payday."""
        if not self.stack:
            self._finish()
            return
        self.phase = LAY

    def _next_action(self) -> None:
        """Give the next action: an owed extra action first, else the round's next slot, else payday."""
        n = self.game.num_players
        if self.extra:
            self._give_action(self.extra.pop(), extra=True)
            return
        self.round_pos += 1
        if self.round_pos >= n:
            self._payday(double=True)
            self.round += 1
            self.placer = (self.placer + 1) % n
            self._start_round()
            return
        seat = (self.placer + 1 + self.round_pos) % n
        if self.skip[seat]:  # a card made this seat skip its next action
            self.skip[seat] = False
            self.log.append(f"seat {seat} skips (card)")
            self._next_action()
            return
        self._give_action(seat)

    def _give_action(self, seat: int, *, extra: bool = False) -> None:
        self.phase = ACTION
        self.actor = seat
        self.in_extra = extra
        self.steps_taken = 0

    def _act(self, action: int) -> None:
        seat = self.actor
        if action == PASS:
            self.log.append(f"seat {seat} passes")
            self._next_action()
        elif action == DONE:
            self._end_move(seat)
        elif action == DRAW:
            self.log.append(f"seat {seat} draws a card")
            self._draw(seat)
        else:  # a paid step: 1 point to the bank (MS-9 b)
            g, d = divmod(action - STEP, 4)
            self.sticks[g] = self.step_target(g, d)
            self.points[seat] -= 1
            self.steps_taken += 1
            self.phase = MOVING
            if self.points[seat] == 0 or not self._steps_of(self.own(seat)):
                self._end_move(seat)

    def _end_move(self, seat: int) -> None:
        steps = self.steps_taken
        plural = "" if steps == 1 else "s"
        self.log.append(f"seat {seat} moved {steps} step{plural} for {steps} point{plural}")
        self._next_action()

    # -- auction (MS-11) --------------------------------------------------------------------
    def _draw(self, seat: int) -> None:
        card = self.deck.pop(0)
        knew = self.known.pop(0)  # who already knew this card (it came round the deck)
        self.phase = AUCTION
        self.auction = {
            "card": card,
            "knew": knew | 1 << seat,
            "drawer": seat,
            "bid": 0,
            "high": None,
            "turn": seat,
            "active": list(range(self.game.num_players)),
        }
        if self.game.options["auction"] == "open":
            self.auction["passed"] = 0  # MS-11a: the seats that passed since the last raise, a bitmask

    def _bid_open(self, auction: dict[str, Any], seat: int, action: int) -> None:
        """MS-11a: a pass keeps a player in; the auction ends when every other player able to bid
        (more points than the bid) has passed in turn since the last raise.  A drawer who declines
        to open stays out (DE rule 10)."""
        if action == DROP and seat == auction["drawer"] and auction["high"] is None:
            auction["active"].remove(seat)
        elif action == DROP:
            auction["passed"] |= 1 << seat
        else:
            auction["bid"] = action - BID + 1
            auction["high"] = seat
            auction["passed"] = 0
        price = int(auction["bid"])
        n = self.game.num_players
        nxt = seat
        for _ in range(n):
            nxt = (nxt + 1) % n
            if (
                nxt in auction["active"]
                and nxt != auction["high"]
                and not auction["passed"] >> nxt & 1
                and self.points[nxt] > price
                and price < MAX_BID
            ):
                auction["turn"] = nxt
                return
        self._close_auction()

    def _bid(self, action: int) -> None:
        auction = self.auction
        assert auction is not None
        seat = int(auction["turn"])
        if "passed" in auction:
            self._bid_open(auction, seat, action)
            return
        if action == DROP:
            auction["active"].remove(seat)
        else:
            auction["bid"] = action - BID + 1
            auction["high"] = seat
        active: list[int] = auction["active"]
        high = auction["high"]
        if not active or (high is not None and active == [high]):
            self._close_auction()
            return
        n = self.game.num_players
        nxt = seat
        for _ in range(n):
            nxt = (nxt + 1) % n
            if nxt in active and nxt != high:
                break
        auction["turn"] = nxt

    def _close_auction(self) -> None:
        auction = self.auction
        assert auction is not None
        card, drawer, high, bid = auction["card"], auction["drawer"], auction["high"], auction["bid"]
        self.auction = None
        if high is None:  # nobody bid: under the deck, unseen (only the drawer knows it)
            self.deck.append(card)
            self.known.append(auction["knew"])
            self.log.append(f"nobody bought seat {drawer}'s card")
            self._next_action()
            return
        self.points[high] -= bid  # MS-11: paid before the card acts (rule 6)
        if high != drawer:
            self.points[drawer] += bid
        self.log.append(f"seat {high} bought card {card} for {bid}")
        self.effect = {
            "card": card,
            "holder": high,
            "op": 0,
            "stage": "start",
            "decider": high,
            "stick": None,
            "left": 0,
            "queue": [],
        }
        self.phase = EFFECT
        self._run_effect()

    # -- card effects (MS-12) ---------------------------------------------------------------
    def _reihum(self, holder: int) -> list[int]:
        """Rule 1: starting after the holder, clockwise, ending with the holder."""
        n = self.game.num_players
        return [(holder + k) % n for k in range(1, n + 1)]

    def _transfer(self, payer: int | None, payee: int | None, amount: int) -> None:
        """Rule 3: a payer pays until broke, the rest is forgiven; the bank (None) never runs out."""
        if payer is not None:
            amount = min(amount, self.points[payer])
            self.points[payer] -= amount
        if payee is not None:
            self.points[payee] += amount
        source = "the bank" if payer is None else f"seat {payer}"
        target = "the bank" if payee is None else f"seat {payee}"
        self.log.append(f"{source} pays {target} {amount}")

    def _run_effect(self) -> None:
        """Carry out the card's primitives in order, stopping where a decision is needed."""
        effect = self.effect
        assert effect is not None
        ops = CARDS[effect["card"]].effect
        while effect["op"] < len(ops):
            if not self._start_op(ops[effect["op"]], effect):
                return  # waiting for a decision
            effect["op"] += 1
            effect["stage"] = "start"
        self._end_effect()

    def _end_effect(self) -> None:
        effect = self.effect
        assert effect is not None
        self.deck.append(effect["card"])
        self.known.append(self.everyone)  # a sold card was seen by all
        self.effect = None
        self._next_action()

    def _start_op(self, op: dict[str, Any], effect: dict[str, Any]) -> bool:
        """Begin a primitive; True if it finished without a decision."""
        holder = effect["holder"]
        kind = op["op"]
        effect["decider"] = holder
        if kind == "pay":
            self._pay(op, holder, effect)
            return bool(effect["stage"] != "choose_player")
        if kind == "jump":
            effect["stage"] = "pick"
            effect["left"] = int(op["sticks"])
            return False
        if kind == "steps":
            effect["left"] = int(op["steps"])
            effect["stick"] = None
            if op["whose"] == "everyone":
                effect["queue"] = self._reihum(holder)
                effect["decider"] = effect["queue"].pop(0)
            effect["stage"] = "steps"
            return False
        if kind == "swap":
            effect["stage"] = "pick_own"
            return False
        if kind == "turn":
            if op["quarters"] == "choose":
                effect["stage"] = "turn"
                return False
            mask, orientation = self.laid[-1]
            self.laid[-1] = (mask, (orientation + int(op["quarters"])) % 4)
            return True
        if kind == "payday":
            self._payday(double=False)
        elif kind == "double_payday":
            self.double[holder] = True
        elif kind == "skip":
            self.skip[(holder + 1) % self.game.num_players] = True
        elif kind == "extra_action":
            self.extra.append(holder)
        elif kind != "nothing":
            raise ValueError(f"unknown card primitive {kind!r}")
        return True

    def _pay(self, op: dict[str, Any], holder: int, effect: dict[str, Any]) -> None:
        amount = int(op["amount"])
        payer, payee = op["payer"], op["payee"]
        n = self.game.num_players
        if payer == "each_other":
            for seat in self._reihum(holder)[:-1]:
                self._transfer(seat, holder, amount)
        elif payer == "everyone":
            for seat in self._reihum(holder):
                self._transfer(seat, None, amount)
        elif payer == "bank" and payee == "everyone":
            for seat in self._reihum(holder):
                self._transfer(None, seat, amount)
        elif payer == "bank":
            self._transfer(None, holder, amount)
        elif payer == "holder" and payee == "bank":
            self._transfer(holder, None, amount)
        elif payer == "holder" and payee == "poorest":
            order = self._reihum(holder)
            fewest = min(self.points)
            poorest = next(s for s in order if self.points[s] == fewest)
            if poorest != holder:
                self._transfer(holder, poorest, amount)
        elif payer == "chosen":
            effect["stage"] = "choose_player"
        else:
            raise ValueError(f"unknown payment {payer!r} -> {payee!r} for {n} players")

    def _effect_choices(self) -> list[int]:
        effect = self.effect
        assert effect is not None
        op = CARDS[effect["card"]].effect[effect["op"]]
        holder, stage = effect["holder"], effect["stage"]
        n = self.game.num_players
        opponents = [g for g in range(2 * n) if g // 2 != holder]
        if stage == "choose_player":
            return [PLAYER + p for p in range(n) if p != holder]
        if stage == "turn":
            return [TURN_CW, TURN_CCW]
        if stage == "pick":
            if op["whose"] == "own":
                return [STICK + g for g in self.own(holder)]
            return [STICK + g for g in opponents]
        if stage == "place":
            return [HOLE + h for h in self.free_holes()]
        if stage == "pick_own":
            return [STICK + g for g in self.own(holder)]
        if stage == "pick_other":
            return [STICK + g for g in opponents]
        if stage == "steps":
            if effect["left"] <= 0:
                return [DONE]
            if op["whose"] == "own":
                sticks: Sequence[int] = self.own(holder)
            elif op["whose"] == "everyone":
                sticks = self.own(effect["decider"])
            elif effect["stick"] is not None:
                sticks = [effect["stick"]]
            else:
                sticks = opponents
            return [DONE, *self._steps_of(sticks)]
        raise AssertionError(f"no decision at stage {stage!r}")

    def _effect_decision(self, action: int) -> None:
        effect = self.effect
        assert effect is not None
        op = CARDS[effect["card"]].effect[effect["op"]]
        stage = effect["stage"]
        done = False
        if stage == "choose_player":
            self._transfer(action - PLAYER, effect["holder"], int(op["amount"]))
            done = True
        elif stage == "turn":
            mask, orientation = self.laid[-1]
            self.laid[-1] = (mask, (orientation + (1 if action == TURN_CW else 3)) % 4)
            self.log.append(
                "the mask turns a quarter " + ("clockwise" if action == TURN_CW else "anticlockwise")
            )
            done = True
        elif stage == "pick":
            effect["stick"] = action - STICK
            effect["stage"] = "place"
        elif stage == "place":
            self.sticks[effect["stick"]] = action - HOLE  # a jump: free, ignores steps (rule 5)
            self.log.append(f"stick {effect['stick']} jumps to {hole_name(action - HOLE)}")
            effect["left"] -= 1
            if effect["left"] > 0:  # jump both: the other own stick next
                a, b = self.own(effect["holder"])
                effect["stick"] = b if effect["stick"] == a else a
            else:
                done = True
        elif stage == "pick_own":
            effect["stick"] = action - STICK
            effect["stage"] = "pick_other"
        elif stage == "pick_other":
            mine, theirs = effect["stick"], action - STICK
            self.sticks[mine], self.sticks[theirs] = self.sticks[theirs], self.sticks[mine]
            self.log.append(f"sticks {mine} and {theirs} swap places")
            done = True
        elif stage == "steps":
            if action == DONE or effect["left"] <= 0:
                done = self._next_stepper(effect)
            else:
                g, d = divmod(action - STEP, 4)
                self.sticks[g] = self.step_target(g, d)
                self.log.append(f"stick {g} steps to {hole_name(self.sticks[g])} (free)")
                effect["stick"] = g
                effect["left"] -= 1
                if effect["left"] == 0:
                    done = self._next_stepper(effect)
        if done:
            effect["op"] += 1
            effect["stage"] = "start"
            self._run_effect()

    def _next_stepper(self, effect: dict[str, Any]) -> bool:
        """For 'every player in turn may step': pass to the next player; True when all had theirs."""
        op = CARDS[effect["card"]].effect[effect["op"]]
        if op["whose"] != "everyone" or not effect["queue"]:
            return True
        effect["decider"] = effect["queue"].pop(0)
        effect["left"] = int(op["steps"])
        effect["stick"] = None
        return False

    # -- payday and the end -----------------------------------------------------------------
    def _payday(self, *, double: bool, values: tuple[int, ...] | None = None) -> None:
        """MS-13: the bank pays each stick's ring on the top mask (doubled by the card, MS-4)."""
        values = values or self.top_values()
        paid = []
        for seat in range(self.game.num_players):
            earned = values[self.sticks[2 * seat]] + values[self.sticks[2 * seat + 1]]
            earned *= 2 if double and self.double[seat] else 1
            self.points[seat] += earned
            paid.append(f"seat {seat} +{earned}")
        self.log.append("payday: " + ", ".join(paid))
        if double:
            self.double = [False] * self.game.num_players

    def _finish(self) -> None:
        """MS-14, MS-15: with unmasking, the masks below pay out one after another."""
        if self.game.options["unmasking"]:
            for mask, orientation in reversed(self.laid[:-1]):
                self._payday(double=False, values=MASK_VALUES[mask][orientation])
        self.phase = OVER

    def scores(self) -> list[float]:
        return [float(p) for p in self.points]

    def winners(self) -> list[int]:
        """MS-14: most points wins; a tie is shared."""
        if self.phase != OVER:
            return []
        best = max(self.points)
        return [s for s, p in enumerate(self.points) if p == best]

    # -- copies and views -------------------------------------------------------------------
    def clone(self) -> MaskeState:
        other = MaskeState.__new__(MaskeState)
        other.__dict__.update(self.__dict__)
        other.history = self.history.copy()
        other.stack = self.stack.copy()
        other.deck = self.deck.copy()
        other.known = self.known.copy()
        other.points = self.points.copy()
        other.sticks = self.sticks.copy()
        other.laid = self.laid.copy()
        other.extra = self.extra.copy()
        other.skip = self.skip.copy()
        other.double = self.double.copy()
        other.log = self.log.copy()
        if self.auction is not None:
            other.auction = dict(self.auction)
            other.auction["active"] = list(self.auction["active"])
        if self.effect is not None:
            other.effect = dict(self.effect)
            other.effect["queue"] = list(self.effect["queue"])
        other._legal = None if self._legal is None else self._legal.copy()
        return other

    def observation(self, seat: int | None) -> JSON:
        """MS-17: all public but the deck and mask stack order; the drawn card only to its drawer
        until sold; each seat sees the deck as far as it knows it."""
        if not is_viewer(seat, self.game.num_players):
            raise bad_viewer(seat, self.game.num_players)
        n = self.game.num_players
        mine = 0 if seat is None else 1 << seat
        auction: JSON = None
        if self.auction is not None:
            auction = {
                "card": self.auction["card"]
                if self.auction["knew"] & mine or self.auction["knew"] == self.everyone
                else None,
                "knew": self.auction["knew"],
                "drawer": self.auction["drawer"],
                "bid": self.auction["bid"],
                "high": self.auction["high"],
                "turn": self.auction["turn"],
                "active": list(self.auction["active"]),
            }
            if "passed" in self.auction:
                auction["passed"] = self.auction["passed"]
        effect: JSON = None
        if self.effect is not None:
            effect = {k: (list(v) if isinstance(v, list) else v) for k, v in self.effect.items()}
        top = None
        if self.laid:
            top = {"mask": self.laid[-1][0], "orientation": self.laid[-1][1]}
        return {
            "game": self.game.name,
            "seat": seat,
            "players": n,
            "points": list(self.points),
            "sticks": [[self.sticks[2 * s], self.sticks[2 * s + 1]] for s in range(n)],
            "masks_laid": [{"mask": m, "orientation": o} for m, o in self.laid],
            "top_mask": top,
            "masks_left": len(self.stack),
            "masks_total": self.game.num_masks,
            "unmasking": bool(self.game.options["unmasking"]),
            "auction_rule": self.game.options["auction"],  # MS-11 or MS-11a
            "round": self.round,
            "placer": self.placer,
            "round_pos": self.round_pos,
            "phase": self.phase,
            "actor": self.actor,
            "to_move": None if self.phase == OVER else self.current_player,
            "extra_actions": list(self.extra),
            "extra_action": self.in_extra,
            "steps_this_move": self.steps_taken,
            "mask_to_lay": self.stack[0] if self.phase == LAY else None,
            "skip": list(self.skip),
            "double_payday": list(self.double),
            "auction": auction,
            "effect": effect,
            "deck": [
                c if (k & mine) or k == self.everyone else None
                for c, k in zip(self.deck, self.known, strict=True)
            ],
            "deck_known": list(self.known),  # who knows each card is public (who drew it, or all)
            "log": list(self.log),
            "moves": list(self.history),
            "last_move": self.action_to_str(self.history[-1]) if self.history else None,
            "terminal": self.phase == OVER,
            "winners": self.winners(),
        }

    def serialize(self) -> JSON:
        return {
            "game": self.game.name,
            "options": copy.deepcopy(self.game.options),
            "seed": self.seed,
            "chance": self.chance,
            "history": list(self.history),
            "stack": list(self.stack),
            "deck": list(self.deck),
            "known": list(self.known),
            "points": list(self.points),
            "sticks": list(self.sticks),
            "laid": [list(x) for x in self.laid],
            "round": self.round,
            "placer": self.placer,
            "round_pos": self.round_pos,
            "phase": self.phase,
            "actor": self.actor,
            "extra": list(self.extra),
            "in_extra": self.in_extra,
            "steps_taken": self.steps_taken,
            "skip": list(self.skip),
            "double": list(self.double),
            "auction": copy.deepcopy(self.auction),
            "effect": copy.deepcopy(self.effect),
            "log": list(self.log),
        }

    # -- notation ---------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if action < STEP:
            return hole_name(action - HOLE)
        if action < PASS:
            g, d = divmod(action - STEP, 4)
            return f"step {g} {DIRECTION_NAMES[d]}"
        named = {
            PASS: "pass",
            DRAW: "draw",
            DONE: "done",
            DROP: "drop",
            TURN_CW: "turn cw",
            TURN_CCW: "turn ccw",
        }
        if action in named:
            return named[action]
        if ORIENT <= action < TURN_CW:
            return f"lay {action - ORIENT}"
        if STICK <= action < PLAYER:
            return f"stick {action - STICK}"
        if PLAYER <= action < BID:
            return f"player {action - PLAYER}"
        return f"bid {action - BID + 1}"

    def action_from_str(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedActionError("a maske move is text, e.g. d4, step 0 up, draw, bid 3", text)
        words = text.strip().lower().split()
        fixed = {"pass": PASS, "draw": DRAW, "done": DONE, "drop": DROP}
        try:
            if len(words) == 1 and words[0] in fixed:
                return fixed[words[0]]
            if (
                len(words) == 1
                and len(words[0]) == 2
                and words[0][0] in "abcdefg"
                and words[0][1] in "1234567"
            ):
                return HOLE + (int(words[0][1]) - 1) * SIZE + "abcdefg".index(words[0][0])
            if len(words) == 3 and words[0] == "step":
                g, d = int(words[1]), DIRECTION_NAMES.index(words[2])
                if 0 <= g < 2 * self.game.num_players:
                    return STEP + 4 * g + d
            if len(words) == 2 and words[0] == "turn" and words[1] in ("cw", "ccw"):
                return TURN_CW if words[1] == "cw" else TURN_CCW
            if len(words) == 2:
                value = int(words[1])
                if words[0] == "lay" and 0 <= value < 4:
                    return ORIENT + value
                if words[0] == "stick" and 0 <= value < 2 * self.game.num_players:
                    return STICK + value
                if words[0] == "player" and 0 <= value < self.game.num_players:
                    return PLAYER + value
                if words[0] == "bid" and 1 <= value <= MAX_BID:
                    return BID + value - 1
        except ValueError:
            pass
        raise MalformedActionError(
            f"cannot read {text!r}: write a hole (d4), step STICK DIRECTION, pass, draw, done, drop, "
            "lay N, turn cw|ccw, stick N, player N or bid N",
            text,
        )

    def action_to_json(self, action: int) -> JSON:
        return {"move": self.action_to_str(action)}

    def action_from_json(self, obj: JSON) -> int:
        if not isinstance(obj, dict) or set(obj) != {"move"} or not isinstance(obj["move"], str):
            raise MalformedActionError('a maske action is {"move": "<text notation>"}', obj)
        return self.action_from_str(obj["move"])
