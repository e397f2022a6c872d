"""Maske's encoder: the sticks on the plate, the masks, points, the round, and the auction or card
effect under way, seen by one seat (the deck only as far as that seat knows it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import JSON
from ...rl.encoding import Array, Encoder, Index, Layout, Tracker, rank_of, relative_seats, remap
from .data import CARDS, MASK_VALUES, MASKS, SIZE
from .game import DRAW, LAY, MAX_BID, MaskeGame, MaskeState

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
        self.zero = layout.size  # the tracker's base ends with a 0 and a 1 for the seat block
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
        return index

    def tracker(self) -> MaskeTracker:
        return MaskeTracker(self)

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
    """Maske's fast path.  Each block is rewritten only when the state's fields behind it differ from
    what was written last.  Public facts go in the base with absolute seats; the seat block comes from
    the two constants at the end of the base.  What only some seats may see — the drawn card, the deck
    cards each knows — is written into each view from the seat's own knowledge bits, as the
    observation shows them."""

    def __init__(self, encoder: MaskeEncoder) -> None:
        super().__init__(encoder.size + 2)
        self.enc = encoder
        n = encoder.game.num_players
        self.n = n
        self.everyone = (1 << n) - 1
        self.sticks: list[int] = []
        self.top: tuple[int, int] | None = None
        self.lay: int | None = None
        self.points: list[int] = []
        self.ones: list[int] = []
        self.extra: list[int] = []
        self.skip: list[bool] = []
        self.double: list[bool] = []
        self.scalars: tuple[Any, ...] = ()
        self.steps_taken = -1
        self.auction: dict[str, Any] | None = None  # copies of the state's, as last written
        self.effect: dict[str, Any] | None = None
        self.known = [0] * n  # per seat: how many deck cards it knows
        self.deck = (0, 0)  # the deck's length and who knows its top card, as last counted

    def rebuild(self, state: MaskeState) -> None:
        enc, cells, n = self.enc, self.cells, self.n
        cells[enc.zero + 1] = 1.0
        cells[enc.masks + 1] = enc.game.num_masks / len(MASKS)
        cells[enc.masks + 2] = float(enc.game.options["unmasking"])
        self.sticks = [-1] * (2 * n)
        self.top = self.lay = self.auction = self.effect = None
        self.points, self.ones, self.extra, self.scalars = [], [], [], ()
        self.steps_taken = -1
        self.skip, self.double = [], []
        self.known = [sum(k >> s & 1 for k in state.known) for s in range(n)]
        self.deck = (len(state.known), state.known[0] if state.known else 0)
        self._sync(state)

    def advance(self, state: MaskeState, action: int) -> bool:
        known = state.known
        size, first = self.deck
        if len(known) == size - 1 and action == DRAW:  # the drawer took the top card
            self.known = [c - (first >> s & 1) for s, c in enumerate(self.known)]
        elif len(known) == size + 1:  # a card went under the deck
            last = known[-1]
            self.known = [c + (last >> s & 1) for s, c in enumerate(self.known)]
        elif len(known) != size:
            return False
        self.deck = (len(known), known[0] if known else 0)
        self._sync(state)
        return True

    def _sync(self, state: MaskeState) -> None:
        enc, cells, base, n = self.enc, self.cells, self.base, self.n
        sticks = state.sticks
        if sticks != self.sticks:
            for g, (old, new) in enumerate(zip(self.sticks, sticks, strict=True)):
                if old != new:
                    start = enc.sticks + g * HOLES
                    if old >= 0:
                        cells[start + old] = 0.0
                    if new >= 0:
                        cells[start + new] = 1.0
            self.sticks = sticks.copy()
        top = state.laid[-1] if state.laid else None
        if top != self.top:
            base[enc.top_mask : enc.top_mask + HOLES] = 0.0 if top is None else RINGS[top[0]][top[1]]
            self.top = top
        lay = state.stack[0] if state.phase == LAY else None
        if lay != self.lay:
            base[enc.mask_to_lay : enc.mask_to_lay + HOLES] = 0.0 if lay is None else RINGS[lay][0]
            self.lay = lay
        if state.points != self.points:
            for s, p in enumerate(state.points):
                cells[enc.points + s] = min(p, POINTS_CAP) / POINTS_CAP
            self.points = state.points.copy()
        steps = state.steps_taken  # every paid step changes it, and nothing else of these
        if steps != self.steps_taken:
            cells[enc.extra + n + 1] = min(steps, POINTS_CAP) / POINTS_CAP
            self.steps_taken = steps
        scalars = (
            len(state.stack),
            state.round,
            state.placer,
            state.round_pos,
            state.phase,
            state.actor,
            state.in_extra,
        )
        if scalars != self.scalars:
            self.scalars = scalars
            cells[enc.masks] = len(state.stack) / len(MASKS)
            cells[enc.masks + 3] = min(state.round, len(MASKS)) / len(MASKS)
            ones = [
                enc.placer + state.placer,
                enc.round_pos + state.round_pos + 1,
                enc.phase + PHASE_INDEX[state.phase],
                enc.actor + state.actor,
            ]
            if state.in_extra:
                ones.append(enc.extra + n)
            if ones != self.ones:
                for i in self.ones:
                    cells[i] = 0.0
                for i in ones:
                    cells[i] = 1.0
                self.ones = ones
        if state.extra != self.extra:
            for s in range(n):
                cells[enc.extra + s] = min(state.extra.count(s), EXTRA_CAP) / EXTRA_CAP
            self.extra = state.extra.copy()
        if state.skip != self.skip:
            for s, on in enumerate(state.skip):
                cells[enc.skip + s] = float(on)
            self.skip = state.skip.copy()
        if state.double != self.double:
            for s, on in enumerate(state.double):
                cells[enc.double + s] = float(on)
            self.double = state.double.copy()
        if state.auction != self.auction:
            self._auction(state.auction)
        if state.effect != self.effect:
            self._effect(state.effect)

    def _auction(self, auction: dict[str, Any] | None) -> None:
        old = self.auction
        self.auction = None if auction is None else {**auction, "active": list(auction["active"])}
        enc, cells, n = self.enc, self.cells, self.n
        if (
            old is not None
            and auction is not None
            and old["knew"] == auction["knew"]
            and old["drawer"] == auction["drawer"]
        ):  # a bid or a drop: rewrite the bid, the high bidder, whose turn and who is in
            start = enc.auction + 1 + len(CARDS) + 2 * n
            cells[start] = min(auction["bid"], POINTS_CAP) / POINTS_CAP
            start += 1
            if old["high"] is not None:
                cells[start + old["high"]] = 0.0
            if auction["high"] is not None:
                cells[start + auction["high"]] = 1.0
            start += n
            cells[start + old["turn"]] = 0.0
            cells[start + auction["turn"]] = 1.0
            start += n
            for s in old["active"]:
                cells[start + s] = 0.0
            for s in auction["active"]:
                cells[start + s] = 1.0
            return
        self.base[enc.auction : enc.effect] = 0.0
        if auction is None:
            return
        cells[enc.auction] = 1.0  # the card is each viewer's to see or not (view)
        start = enc.auction + 1 + len(CARDS)
        for s in range(n):
            if auction["knew"] >> s & 1:
                cells[start + s] = 1.0
        start += n
        cells[start + auction["drawer"]] = 1.0
        start += n
        cells[start] = min(auction["bid"], POINTS_CAP) / POINTS_CAP
        start += 1
        if auction["high"] is not None:
            cells[start + auction["high"]] = 1.0
        start += n
        cells[start + auction["turn"]] = 1.0
        start += n
        for s in auction["active"]:
            cells[start + s] = 1.0

    def _effect(self, effect: dict[str, Any] | None) -> None:
        self.effect = None if effect is None else {**effect, "queue": list(effect["queue"])}
        enc, cells, n = self.enc, self.cells, self.n
        self.base[enc.effect : enc.deck_top] = 0.0
        if effect is None:
            return
        start = enc.effect
        cells[start] = 1.0
        cells[start + 1 + effect["card"]] = 1.0
        start += 1 + len(CARDS)
        cells[start + effect["holder"]] = 1.0
        start += n
        cells[start + min(effect["op"], MAX_OPS - 1)] = 1.0
        start += MAX_OPS
        cells[start + STAGE_INDEX[effect["stage"]]] = 1.0
        start += len(STAGES)
        cells[start + effect["decider"]] = 1.0
        start += n
        if effect["stick"] is not None:
            cells[start + effect["stick"]] = 1.0
        start += 2 * n
        cells[start] = min(max(effect["left"], 0), MAX_LEFT) / MAX_LEFT

    def view(self, state: MaskeState, seat: int) -> Array:
        enc = self.enc
        out = self.base.take(enc.views[seat])
        mine = 1 << seat
        auction = state.auction
        if auction is not None and auction["knew"] & mine:  # the drawer, or everyone once it came round
            out[enc.auction + 1 + auction["card"]] = 1.0
        if state.known and state.known[0] & mine:
            out[enc.deck_top + state.deck[0]] = 1.0
        out[enc.deck_top + len(CARDS)] = self.known[seat] / len(CARDS)
        return out
