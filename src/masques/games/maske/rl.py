"""Maske's encoder: the sticks on the plate, the masks, points, the round, and the auction or card
effect under way, seen by one seat (the deck only as far as that seat knows it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import JSON
from ...rl.encoding import Array, Encoder, Index, Layout, Mask, Tracker, rank_of, relative_seats, remap
from .data import CARDS, MASK_VALUES, MASKS, SIZE
from .game import (
    ACTION,
    AUCTION,
    DRAW,
    DROP,
    EFFECT,
    LAY,
    MAX_BID,
    MOVING,
    PASS,
    SETUP,
    STEP,
    MaskeGame,
    MaskeState,
)

HOLES = SIZE * SIZE
PHASES = ("setup", "lay", "action", "moving", "auction", "effect", "over")
STAGES = ("start", "choose_player", "turn", "pick", "place", "pick_own", "pick_other", "steps")
MAX_RING = 5  # a double ring (MS-2)
POINTS_CAP = MAX_BID
"""Points, bids and paid steps are written as min(x, 300) / 300: no rule caps points, and nobody can
bid more than 300 (the action space's limit)."""
EXTRA_CAP = 4  # extra actions owed to one seat, clipped
MAX_OPS = max(len(card.effect) for card in CARDS)
MAX_LEFT = max(int(op.get("steps", op.get("sticks", 0))) for card in CARDS for op in card.effect)
RINGS = [
    [np.array([v / MAX_RING for v in MASK_VALUES[m][o]], dtype=np.float32) for o in range(4)]
    for m in range(len(MASKS))
]
"""``RINGS[mask][orientation]``: the top_mask (or mask_to_lay) block of that mask."""
PRIVATE = 2 * len(CARDS) + 1
"""What the tracker keeps per seat: the auction's card and the deck block as the seat sees them."""


class MaskeEncoder(Encoder[MaskeGame]):
    """Blocks: sticks (seat x stick x hole), top_mask and mask_to_lay (hole, ring value / 5), seat
    (absolute: stick numbers in actions are absolute), points, masks (left, total, unmasking, round),
    placer, round_pos, phase, actor, extra, skip, double, auction (card, knew, drawer, bid, high,
    turn, active), effect (card, holder, op, stage, decider, stick, left), deck_top."""

    def __init__(self, game: MaskeGame) -> None:
        super().__init__(game)
        n = game.num_players
        layout = Layout()
        self.sticks = layout.add("sticks", n * 2 * HOLES)
        self.top_mask = layout.add("top_mask", HOLES)
        self.mask_to_lay = layout.add("mask_to_lay", HOLES)
        self.seat = layout.add("seat", n)
        self.points = layout.add("points", n)
        self.masks = layout.add("masks", 4)  # left, total, unmasking, round (all / 18 or flags)
        self.placer = layout.add("placer", n)
        self.round_pos = layout.add("round_pos", n + 1)
        self.phase = layout.add("phase", len(PHASES))
        self.actor = layout.add("actor", n)
        self.extra = layout.add("extra", n + 2)  # per seat (clipped / 4), this action is extra, steps
        self.skip = layout.add("skip", n)
        self.double = layout.add("double", n)
        self.auction = layout.add("auction", 1 + len(CARDS) + n + n + 1 + n + n + n)
        self.effect = layout.add("effect", 1 + len(CARDS) + n + MAX_OPS + len(STAGES) + n + 2 * n + 1)
        self.deck_top = layout.add("deck_top", len(CARDS) + 1)
        self.layout = layout
        self.ranks = [rank_of(seat, n) for seat in range(n)]
        # the tracker's base: the blocks (each seat's private part left at zero), a 0 and a 1 for the
        # seat block, then each seat's private part: the auction's card as it sees it, and the deck
        # block (top card as it knows it, how many cards it knows)
        self.zero = layout.size
        self.private = [layout.size + 2 + seat * PRIVATE for seat in range(n)]
        self.views = [self._view_index(seat) for seat in range(n)]

    def _view_index(self, seat: int) -> Index:
        n = self.game.num_players
        seats = relative_seats(seat, n)
        index = np.arange(self.layout.size)
        remap(index, self.sticks, (n, 2 * HOLES), 0, seats)
        index[self.seat : self.seat + n] = [self.zero + (s == seat) for s in range(n)]
        for block in (self.points, self.placer, self.actor, self.extra, self.skip, self.double):
            remap(index, block, (n,), 0, seats)
        a = self.auction + 1 + len(CARDS)  # then knew, drawer, bid (one value), high, turn, active
        for start in (a, a + n, a + 2 * n + 1, a + 3 * n + 1, a + 4 * n + 1):
            remap(index, start, (n,), 0, seats)
        e = self.effect + 1 + len(CARDS)
        remap(index, e, (n,), 0, seats)  # holder
        remap(index, e + n + MAX_OPS + len(STAGES), (n,), 0, seats)  # decider
        private = self.private[seat]
        index[self.auction + 1 : self.auction + 1 + len(CARDS)] = range(private, private + len(CARDS))
        index[self.deck_top : self.deck_top + len(CARDS) + 1] = range(private + len(CARDS), private + PRIVATE)
        return index

    def tracker(self) -> MaskeTracker:
        return MaskeTracker(self)

    def mask(self, state: MaskeState) -> Mask:  # type: ignore[override]
        """The kept mask of the engine's own legal list, read without the copy ``legal_actions``
        hands out (the list is built once per position, and the next ``apply`` reads it too); a
        mask already kept is copied here, a call less."""
        legal = state._legal
        key = tuple(state.legal_actions() if legal is None else legal)
        mask = self.built_masks.get(key)
        return self.kept_mask(key) if mask is None else mask.copy()

    def encode(self, obs: JSON) -> Array:
        n = self.game.num_players
        seat = obs["seat"]
        rank = self.ranks[seat]
        hot: list[int] = []
        at: list[int] = []
        values: list[float] = []
        for s, pair in enumerate(obs["sticks"]):
            base = self.sticks + rank[s] * 2 * HOLES
            hot += [base + k * HOLES + h for k, h in enumerate(pair) if h >= 0]
        top = obs["top_mask"]
        if top is not None:
            ring = MASK_VALUES[top["mask"]][top["orientation"]]
            at += [self.top_mask + h for h in range(HOLES) if ring[h]]
            values += [v / MAX_RING for v in ring if v]
        if obs["mask_to_lay"] is not None:
            ring = MASK_VALUES[obs["mask_to_lay"]][0]
            at += [self.mask_to_lay + h for h in range(HOLES) if ring[h]]
            values += [v / MAX_RING for v in ring if v]
        hot.append(self.seat + seat)
        at += [self.points + rank[s] for s in range(n)]
        values += [min(p, POINTS_CAP) / POINTS_CAP for p in obs["points"]]
        at += range(self.masks, self.masks + 4)
        values += (
            obs["masks_left"] / len(MASKS),
            obs["masks_total"] / len(MASKS),
            float(obs["unmasking"]),
            min(obs["round"], len(MASKS)) / len(MASKS),
        )
        hot.append(self.placer + rank[obs["placer"]])
        hot.append(self.round_pos + obs["round_pos"] + 1)
        hot.append(self.phase + PHASES.index(obs["phase"]))
        hot.append(self.actor + rank[obs["actor"]])
        for s in obs["extra_actions"]:
            at.append(self.extra + rank[s])
            values.append(min(obs["extra_actions"].count(s), EXTRA_CAP) / EXTRA_CAP)
        if obs["extra_action"]:
            hot.append(self.extra + n)
        at.append(self.extra + n + 1)
        values.append(min(obs["steps_this_move"], POINTS_CAP) / POINTS_CAP)
        hot += [self.skip + rank[s] for s in range(n) if obs["skip"][s]]
        hot += [self.double + rank[s] for s in range(n) if obs["double_payday"][s]]
        auction = obs["auction"]
        if auction is not None:
            base = self.auction
            hot.append(base)
            base += 1
            if auction["card"] is not None:
                hot.append(base + auction["card"])
            base += len(CARDS)
            hot += [base + rank[s] for s in range(n) if auction["knew"] >> s & 1]
            base += n
            hot.append(base + rank[auction["drawer"]])
            base += n
            at.append(base)
            values.append(min(auction["bid"], POINTS_CAP) / POINTS_CAP)
            base += 1
            if auction["high"] is not None:
                hot.append(base + rank[auction["high"]])
            base += n
            hot.append(base + rank[auction["turn"]])
            base += n
            hot += [base + rank[s] for s in auction["active"]]
        effect = obs["effect"]
        if effect is not None:
            base = self.effect
            hot += (base, base + 1 + effect["card"])
            base += 1 + len(CARDS)
            hot.append(base + rank[effect["holder"]])
            base += n
            hot.append(base + min(effect["op"], MAX_OPS - 1))
            base += MAX_OPS
            hot.append(base + STAGES.index(effect["stage"]))
            base += len(STAGES)
            hot.append(base + rank[effect["decider"]])
            base += n
            if effect["stick"] is not None:
                hot.append(base + effect["stick"])
            base += 2 * n
            at.append(base)
            values.append(min(max(effect["left"], 0), MAX_LEFT) / MAX_LEFT)
        deck = obs["deck"]
        if deck and deck[0] is not None:
            hot.append(self.deck_top + deck[0])
        at.append(self.deck_top + len(CARDS))
        values.append(sum(c is not None for c in deck) / len(CARDS))
        return self._array(hot, at, values)

    def render(self, obs: JSON) -> str:
        grid = [["." for _ in range(SIZE)] for _ in range(SIZE)]
        grid[SIZE // 2][SIZE // 2] = "+"
        top = obs["top_mask"]
        if top is not None:
            ring = MASK_VALUES[top["mask"]][top["orientation"]]
            for h, v in enumerate(ring):
                if v:
                    grid[h // SIZE][h % SIZE] = "o" if v < MAX_RING else "O"
        for s, pair in enumerate(obs["sticks"]):
            for h in pair:
                if h >= 0:
                    grid[h // SIZE][h % SIZE] = str(s)
        lines = [f"{r + 1} " + " ".join(row) for r, row in enumerate(grid)]
        lines.append("  " + " ".join("abcdefg"))
        lines.append(f"points {obs['points']}; masks left {obs['masks_left']}; round {obs['round'] + 1}")
        if obs["terminal"]:
            lines.append(f"game over; winners {obs['winners']}")
        else:
            lines.append(f"seat {obs['to_move']} to move ({obs['phase']})")
        return "\n".join(lines)


PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
STAGE_INDEX = {stage: i for i, stage in enumerate(STAGES)}


class MaskeTracker(Tracker[MaskeState]):
    """Maske's fast path.  Each value is rewritten only when the state's field behind it differs
    from what was written last, one seat's or one stick's value at a time.  The two most common
    actions touch few fields, so after them only those are compared: a bid or a drop that leaves
    the auction going changes only the auction's bid, high bidder, turn and bidders; a paid step
    that leaves the move going, only the sticks, the points and the steps paid; a draw, only the deck
    and the new auction; a card nobody buys, the auction, the deck and the turn.  Public facts go in
    the base with absolute seats; the seat block comes from the two constants after the blocks.
    What only some seats may see (the drawn card, the deck cards each knows) is kept per seat after
    them, from each seat's own knowledge bits as the observation shows them, and a seat's view
    reads its own: one gather makes the whole vector."""

    # slots: past 30 attributes an instance dict stops sharing its keys, and every look-up slows
    __slots__ = (
        "active",
        "active_at",
        "actor_at",
        "auction",
        "bid",
        "bid_at",
        "bidding",
        "counts",
        "deck",
        "deck_at",
        "double",
        "drawer_at",
        "effect",
        "effecting",
        "enc",
        "extra",
        "high_at",
        "in_extra",
        "in_extra_at",
        "knew_at",
        "known",
        "lay",
        "left",
        "marks",
        "n",
        "phase",
        "phase_at",
        "placer_at",
        "points",
        "points_at",
        "private",
        "round",
        "round_pos_at",
        "skip",
        "steps_at",
        "steps_taken",
        "stick_at",
        "sticks",
        "top",
        "tops",
        "turn_at",
        "views",
    )

    def __init__(self, encoder: MaskeEncoder) -> None:
        n = encoder.game.num_players
        super().__init__(encoder.size + 2 + n * PRIVATE)
        self.enc = encoder
        self.n = n
        self.views = self.gather = encoder.views
        self.private = encoder.private
        self.stick_at = [encoder.sticks + g * HOLES for g in range(2 * n)]
        self.points_at, self.steps_at = encoder.points, encoder.extra + n + 1
        self.placer_at, self.round_pos_at = encoder.placer, encoder.round_pos + 1
        self.phase_at, self.actor_at, self.in_extra_at = encoder.phase, encoder.actor, encoder.extra + n
        self.bid_at = encoder.auction + 1 + len(CARDS) + 2 * n
        self.high_at, self.turn_at = self.bid_at + 1, self.bid_at + 1 + n
        self.active_at = self.bid_at + 1 + 2 * n
        self.knew_at = encoder.auction + 1 + len(CARDS)
        self.drawer_at = self.knew_at + n
        self.deck_at = [private + len(CARDS) for private in self.private]  # each seat's deck block
        # what was written last (None: nothing yet, the base is zero there)
        self.sticks: list[int] = []
        self.points: list[int | None] = []
        self.steps_taken = 0
        self.phase = ""
        self.marks: list[int] = []  # the ones of placer, round_pos, phase, actor (base indices)
        self.in_extra = False
        self.top: tuple[int, int] | None = None
        self.lay: int | None = None
        self.left = -1  # masks left in the stack
        self.round = -1
        self.extra: list[int] = []
        self.skip: list[bool] = []
        self.double: list[bool] = []
        self.auction: tuple[Any, ...] | None = None  # card, knew, drawer as written
        self.bidding: dict[str, Any] | None = None  # the state's auction they were read from
        self.bid: tuple[Any, ...] = ()  # bid, high, turn as written
        self.active: list[int] = []
        self.effect: tuple[Any, ...] | None = None
        self.effecting: dict[str, Any] | None = None  # the state's effect it was read from
        self.known = [0] * n  # per seat: how many deck cards it knows
        self.deck: tuple[int, int, int] = (0, 0, -1)  # length, who knows the top card, the top card
        self.tops: list[int] = []  # per seat: the deck_top one written (-1: none)
        self.counts: list[int] = []  # per seat: the count of known cards written

    def rebuild(self, state: MaskeState) -> None:
        enc, cells, n = self.enc, self.cells, self.n
        cells[enc.zero + 1] = 1.0
        cells[enc.masks + 1] = enc.game.num_masks / len(MASKS)
        cells[enc.masks + 2] = float(enc.game.options["unmasking"])
        self.sticks = [-1] * (2 * n)
        self.points = [None] * n
        self.steps_taken = 0
        self.phase = ""
        self.marks = [-1] * 4
        self.in_extra = False
        self.top = self.lay = None
        self.left = self.round = -1
        self.extra, self.skip, self.double = [], [False] * n, [False] * n
        self.auction = self.bidding = self.effect = self.effecting = None
        self.bid, self.active = (), []
        self.known = [sum(k >> s & 1 for k in state.known) for s in range(n)]
        self.deck = (-1, 0, -1)
        self.tops = [-1] * n
        self.counts = [0] * n
        self._sync(state)

    def advance(self, state: MaskeState, action: int) -> bool:
        phase, before = state.phase, self.phase
        if phase == MOVING:
            if before in (MOVING, ACTION):  # a paid step, and the move goes on
                self._step(state, action)
                if before == ACTION:
                    self._phase(phase)
                return True
        elif phase == AUCTION:
            auction = state.auction
            if before == AUCTION and auction is self.bidding and auction is not None:
                self._bids(auction)  # a bid or a drop, and the auction goes on
                return True
        elif phase == ACTION and before in (ACTION, MOVING, LAY):
            # a pass, a move's end (by a last step or done) or a mask laid, then the next action
            # of the round: no payday, auction, effect or deck change comes between
            if before == LAY:
                self._laid(state)
            elif STEP <= action < PASS:
                self._step(state, action)
            self._turn(state)
            if before != ACTION:
                self._phase(phase)
            return True
        elif phase == EFFECT:
            effect, written = state.effect, self.effect
            if (
                before == EFFECT
                and effect is not None
                and effect is self.effecting
                and written is not None
                and effect["op"] == written[2]
            ):
                # a decision within the same primitive of the card (a stick picked, placed or
                # stepped, free): it moves at most sticks, and the effect's own fields
                self._moves(state)
                self._effect(effect)
                return True
        elif phase == SETUP and before == SETUP:  # MS-7: a stick put, and the next seat to put one
            self._moves(state)
            self._turn(state)
            return True
        known = state.known
        size = self.deck[0]
        if len(known) != size:
            if len(known) == size - 1 and action == DRAW:  # the drawer took the top card
                first = self.deck[1]
                self.known = [c - (first >> s & 1) for s, c in enumerate(self.known)]
            elif len(known) == size + 1:  # a card went under the deck
                last = known[-1]
                self.known = [c + (last >> s & 1) for s, c in enumerate(self.known)]
            else:
                return False
            self._deck(state)
            auction = state.auction
            if action == DRAW and before == ACTION and auction is not None:
                self._open(auction)  # a draw opens an auction (none is written in the action phase)
                self._phase(phase)
                return True
            if action == DROP and before == AUCTION and phase == ACTION and self.bid[1] is None:
                # the auction ends unsold: the card went under the deck (above) and the round's next
                # action is given; no points move, and no payday (it would have made the phase lay)
                self._end_auction()
                self._turn(state)
                self._phase(phase)
                return True
        self._sync(state)
        return True

    def _sync(self, state: MaskeState) -> None:
        """Compare every field and rewrite what changed."""
        enc, cells, marks = self.enc, self.cells, self.marks
        self._moves(state)
        phase = state.phase
        if phase != self.phase:
            self._phase(phase)
        self._turn(state)
        mark = self.placer_at + state.placer
        if mark != marks[0]:
            self._mark(0, mark)
        self._laid(state)
        if state.round != self.round:
            self.round = state.round
            cells[enc.masks + 3] = min(self.round, len(MASKS)) / len(MASKS)
        if state.double != self.double:
            for s, on in enumerate(state.double):
                cells[enc.double + s] = float(on)
            self.double = state.double.copy()
        auction = state.auction
        if auction is not None:
            self._auction(auction)
        elif self.auction is not None:
            self._end_auction()
        if state.effect is not None or self.effect is not None:
            self._effect(state.effect)
        if len(state.known) != self.deck[0]:  # the deck changes only by a card drawn or put under it
            self._deck(state)

    def _moves(self, state: MaskeState) -> None:
        """The sticks, the points, and the steps paid in this move."""
        cells = self.cells
        sticks = state.sticks
        if sticks != self.sticks:
            old = self.sticks
            for g, hole in enumerate(sticks):
                if hole != old[g]:
                    if old[g] >= 0:
                        cells[self.stick_at[g] + old[g]] = 0.0
                    if hole >= 0:
                        cells[self.stick_at[g] + hole] = 1.0
            self.sticks = sticks.copy()
        points = state.points
        if points != self.points:
            old_points = self.points
            for s, p in enumerate(points):
                if p != old_points[s]:
                    cells[self.points_at + s] = min(p, POINTS_CAP) / POINTS_CAP
            self.points = points.copy()  # type: ignore[assignment]  # ints where it held None
        if state.steps_taken != self.steps_taken:
            self.steps_taken = state.steps_taken
            cells[self.steps_at] = min(self.steps_taken, POINTS_CAP) / POINTS_CAP

    def _step(self, state: MaskeState, action: int) -> None:
        """A paid step (MS-9 b): the stick it moved, its owner's points, the steps paid."""
        cells = self.cells
        g = (action - STEP) >> 2
        hole, old = state.sticks[g], self.sticks[g]
        cells[self.stick_at[g] + old] = 0.0
        cells[self.stick_at[g] + hole] = 1.0
        self.sticks[g] = hole
        seat = g >> 1
        p = self.points[seat] = state.points[seat]
        cells[self.points_at + seat] = min(p, POINTS_CAP) / POINTS_CAP
        taken = self.steps_taken = state.steps_taken
        cells[self.steps_at] = min(taken, POINTS_CAP) / POINTS_CAP

    def _turn(self, state: MaskeState) -> None:
        """Who acts, the slot of the round, whether the action is an extra one, the extra actions
        owed, the skips, the steps paid: what giving the next action changes."""
        cells, marks = self.cells, self.marks
        mark = self.actor_at + state.actor
        if mark != marks[3]:
            self._mark(3, mark)
        mark = self.round_pos_at + state.round_pos
        if mark != marks[1]:
            self._mark(1, mark)
        if state.in_extra != self.in_extra:
            self.in_extra = state.in_extra
            cells[self.in_extra_at] = float(self.in_extra)
        if state.steps_taken != self.steps_taken:
            self.steps_taken = state.steps_taken
            cells[self.steps_at] = min(self.steps_taken, POINTS_CAP) / POINTS_CAP
        if state.extra != self.extra:
            extra = self.enc.extra
            for s in range(self.n):
                cells[extra + s] = min(state.extra.count(s), EXTRA_CAP) / EXTRA_CAP
            self.extra = state.extra.copy()
        if state.skip != self.skip:
            skip = self.enc.skip
            for s, on in enumerate(state.skip):
                cells[skip + s] = float(on)
            self.skip = state.skip.copy()

    def _laid(self, state: MaskeState) -> None:
        """The mask on top, the mask to lay, the masks left."""
        enc = self.enc
        laid = state.laid
        top = laid[-1] if laid else None
        if top != self.top:
            self.base[enc.top_mask : enc.top_mask + HOLES] = 0.0 if top is None else RINGS[top[0]][top[1]]
            self.top = top
        stack = state.stack
        lay = stack[0] if state.phase == LAY else None
        if lay != self.lay:
            self.base[enc.mask_to_lay : enc.mask_to_lay + HOLES] = 0.0 if lay is None else RINGS[lay][0]
            self.lay = lay
        if len(stack) != self.left:
            self.left = len(stack)
            self.cells[enc.masks] = self.left / len(MASKS)

    def _phase(self, phase: str) -> None:
        self.phase = phase
        cells, marks = self.cells, self.marks
        if marks[2] >= 0:
            cells[marks[2]] = 0.0
        mark = marks[2] = self.phase_at + PHASE_INDEX[phase]
        cells[mark] = 1.0

    def _mark(self, k: int, mark: int) -> None:
        """Move the one of a one-hot block (``marks[k]``) to base index ``mark``."""
        cells = self.cells
        if self.marks[k] >= 0:
            cells[self.marks[k]] = 0.0
        cells[mark] = 1.0
        self.marks[k] = mark

    def _auction(self, auction: dict[str, Any]) -> None:
        key = (auction["card"], auction["knew"], auction["drawer"])
        if key != self.auction:  # a new auction
            self._end_auction()
            self._open(auction)
        else:
            self.bidding = auction
            self._bids(auction)

    def _open(self, auction: dict[str, Any]) -> None:
        """A new auction, where no auction is written."""
        self.bidding = auction
        card, knew, drawer = self.auction = (auction["card"], auction["knew"], auction["drawer"])
        cells, knew_at = self.cells, self.knew_at
        cells[self.enc.auction] = 1.0
        for s, private in enumerate(self.private):
            if knew >> s & 1:
                cells[knew_at + s] = 1.0
                cells[private + card] = 1.0  # the card, to those who know it
        cells[self.drawer_at + drawer] = 1.0
        self._bids(auction)

    def _bids(self, auction: dict[str, Any]) -> None:
        """The bid, the high bidder, whose turn, who is still in."""
        cells = self.cells
        bid = (auction["bid"], auction["high"], auction["turn"])
        if bid != self.bid:
            old_bid, old_high, old_turn = self.bid or (-1, None, -1)
            value, high, turn = bid
            if value != old_bid:
                cells[self.bid_at] = min(value, POINTS_CAP) / POINTS_CAP
            if high != old_high:
                if old_high is not None:
                    cells[self.high_at + old_high] = 0.0
                if high is not None:
                    cells[self.high_at + high] = 1.0
            if turn != old_turn:
                if old_turn >= 0:
                    cells[self.turn_at + old_turn] = 0.0
                cells[self.turn_at + turn] = 1.0
            self.bid = bid
        active = auction["active"]
        if active != self.active:
            at = self.active_at
            for s in self.active:
                cells[at + s] = 0.0
            for s in active:
                cells[at + s] = 1.0
            self.active = active.copy()

    def _end_auction(self) -> None:
        """Clear the auction block and every seat's view of the card."""
        self.bidding = None
        if self.auction is None:
            return
        enc, cells = self.enc, self.cells
        self.base[enc.auction : enc.effect] = 0.0
        card = self.auction[0]
        for s in range(self.n):
            cells[self.private[s] + card] = 0.0
        self.auction = None
        self.bid = ()
        self.active = []

    def _effect(self, effect: dict[str, Any] | None) -> None:
        self.effecting = effect
        key = None
        if effect is not None:
            key = (
                effect["card"],
                effect["holder"],
                effect["op"],
                effect["stage"],
                effect["decider"],
                effect["stick"],
                effect["left"],
            )
        if key == self.effect:
            return
        self.effect = key
        enc, cells, n = self.enc, self.cells, self.n
        self.base[enc.effect : enc.deck_top] = 0.0
        if key is None:
            return
        card, holder, op, stage, decider, stick, left = key
        start = enc.effect
        cells[start] = 1.0
        cells[start + 1 + card] = 1.0
        start += 1 + len(CARDS)
        cells[start + holder] = 1.0
        start += n
        cells[start + min(op, MAX_OPS - 1)] = 1.0
        start += MAX_OPS
        cells[start + STAGE_INDEX[stage]] = 1.0
        start += len(STAGES)
        cells[start + decider] = 1.0
        start += n
        if stick is not None:
            cells[start + stick] = 1.0
        start += 2 * n
        cells[start] = min(max(left, 0), MAX_LEFT) / MAX_LEFT

    def _deck(self, state: MaskeState) -> None:
        """Each seat's deck block: the top card if it knows it, and how many cards it knows."""
        cells, tops, counts = self.cells, self.tops, self.counts
        known = state.known
        if known:
            first, card = known[0], state.deck[0]
        else:
            first, card = 0, -1
        self.deck = (len(known), first, card)
        for s, at in enumerate(self.deck_at):
            top = at + card if first >> s & 1 else -1
            old = tops[s]
            if top != old:
                if old >= 0:
                    cells[old] = 0.0
                if top >= 0:
                    cells[top] = 1.0
                tops[s] = top
        for s, count in enumerate(self.known):
            if count != counts[s]:
                counts[s] = count
                cells[self.deck_at[s] + len(CARDS)] = count / len(CARDS)

    def view(self, state: MaskeState, seat: int) -> Array:
        return self.base.take(self.views[seat])
