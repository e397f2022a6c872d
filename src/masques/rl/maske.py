"""Maske's encoder: the sticks on the plate, the masks, points, the round, and the auction or card
effect under way, seen by one seat (the deck only as far as that seat knows it)."""

from __future__ import annotations

from ..engine import JSON
from ..games.maske.data import CARDS, MASK_VALUES, MASKS, SIZE
from ..games.maske.game import MAX_BID, MaskeGame
from .encoding import Array, Encoder, Layout, rank_of

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


class MaskeEncoder(Encoder[MaskeGame]):
    """Blocks: sticks (seat x stick x hole), top_mask and mask_to_lay (hole, ring value / 5), seat
    (absolute: stick numbers in actions are absolute), points, masks (left, total, unmasking, round),
    placer, round_pos, phase, actor, extra, skip, double, auction (card, knew, drawer, bid, high,
    turn, active), effect (card, holder, op, stage, decider, stick, left), deck_top."""

    def __init__(self, game: MaskeGame) -> None:
        self.game = game
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
