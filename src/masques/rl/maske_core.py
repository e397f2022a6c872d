"""Maske's compiled twin (MS-7 .. MS-15) and its observation vector, for the environments.

The position is one ``int32`` array (offsets below): the deck is a ring buffer, the auction and the
card under way are flat fields, and the cards' effects are tables built from ``cards.json`` with the
engine's primitives, so a new card is still data.  The functions are the engine's ``MaskeState``
methods of the same names, in the same order; the vector is
:class:`~masques.rl.maske.MaskeEncoder`'s, written straight for the seat, with the same float32
values.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..games.maske.data import CARDS, CENTRE, MASK_VALUES, MASKS, SIZE
from ..games.maske.game import (
    BID,
    DONE,
    DRAW,
    DROP,
    HOLE,
    MAX_BID,
    NEXT_HOLE,
    NUM_ACTIONS,
    ORIENT,
    PASS,
    PLAYER,
    STEP,
    STICK,
    TURN_CCW,
    TURN_CW,
    MaskeGame,
    MaskeState,
)
from .compiled import Core, Mask, Vector, Words, jit
from .maske import (
    EXTRA_CAP,
    MAX_LEFT,
    MAX_OPS,
    PHASE_INDEX,
    PHASES,
    POINTS_CAP,
    RINGS,
    STAGE_INDEX,
    STAGES,
    MaskeEncoder,
)

HOLES = SIZE * SIZE
NUM_CARDS = len(CARDS)
NUM_MASKS = len(MASKS)
MAX_PLAYERS = 6
MAX_EXTRA = 64  # owed extra actions (a card's "another action"): one at a time in practice

SETUP, LAY, ACTION, MOVING, AUCTION, EFFECT, OVER = range(len(PHASES))
START, CHOOSE_PLAYER, TURN, PICK, PLACE, PICK_OWN, PICK_OTHER, STEPS = range(len(STAGES))

# the cards' primitives: (kind, parameter, count) per op
PAY, JUMP, STEPS_OP, SWAP, TURN_OP, PAYDAY, DOUBLE_PAYDAY, SKIP_OP, EXTRA_ACTION, NOTHING = range(10)
OWN, OPPONENT, EVERYONE_WHOSE = range(3)
EACH_OTHER, EVERYONE_PAYS, BANK_TO_EVERYONE, BANK_TO_HOLDER, HOLDER_TO_BANK, TO_POOREST, CHOSEN = range(7)
CHOOSE = -1  # a turn whose direction the holder chooses

# the position
N = 0
MASKS_TOTAL = 1
UNMASKING = 2
EVERYONE = 3  # the bitmask of all seats
ROUND = 4
PLACER = 5
ROUND_POS = 6
PHASE = 7
ACTOR = 8
IN_EXTRA = 9
STEPS_TAKEN = 10
STACK_HEAD = 11  # the masks still to lay are STACK[STACK_HEAD:STACK_END]
STACK_END = 12
LAID_LEN = 13
DECK_HEAD = 14  # the deck is a ring buffer: position i at DECK + (DECK_HEAD + i) % NUM_CARDS
DECK_LEN = 15
EXTRA_LEN = 16
A_ON = 17  # an auction is under way
A_CARD = 18
A_KNEW = 19
A_DRAWER = 20
A_BID = 21
A_HIGH = 22  # -1: nobody yet
A_TURN = 23
A_ACTIVE = 24  # bitmask of the seats still in
E_ON = 25  # a bought card is being carried out
E_CARD = 26
E_HOLDER = 27
E_OP = 28
E_STAGE = 29
E_DECIDER = 30
E_STICK = 31  # -1: none
E_LEFT = 32
E_QHEAD = 33  # the players still to step are QUEUE[E_QHEAD:E_QEND]
E_QEND = 34
POINTS = 40
STICKS = POINTS + MAX_PLAYERS
SKIP = STICKS + 2 * MAX_PLAYERS
DOUBLE = SKIP + MAX_PLAYERS
QUEUE = DOUBLE + MAX_PLAYERS
EXTRA = QUEUE + MAX_PLAYERS
STACK = EXTRA + MAX_EXTRA
LAID = STACK + NUM_MASKS  # (mask, orientation) pairs, bottom first
DECK = LAID + 2 * NUM_MASKS
KNOWN = DECK + NUM_CARDS  # per deck slot: bitmask of the seats who know the card
WORDS = KNOWN + NUM_CARDS


def _op_row(op: dict[str, object]) -> tuple[int, int, int]:
    """One primitive as (kind, parameter, count), with the engine's reading of its fields."""
    kind = op["op"]
    whose = {"own": OWN, "opponent": OPPONENT, "everyone": EVERYONE_WHOSE}
    if kind == "pay":
        payer, payee = op["payer"], op["payee"]
        if payer == "each_other":
            mode = EACH_OTHER
        elif payer == "everyone":
            mode = EVERYONE_PAYS
        elif payer == "bank" and payee == "everyone":
            mode = BANK_TO_EVERYONE
        elif payer == "bank":
            mode = BANK_TO_HOLDER
        elif payer == "holder" and payee == "bank":
            mode = HOLDER_TO_BANK
        elif payer == "holder" and payee == "poorest":
            mode = TO_POOREST
        elif payer == "chosen":
            mode = CHOSEN
        else:
            raise ValueError(f"unknown payment {payer!r} -> {payee!r}")
        return PAY, mode, int(str(op["amount"]))
    if kind == "jump":
        return JUMP, whose[str(op["whose"])], int(str(op["sticks"]))
    if kind == "steps":
        return STEPS_OP, whose[str(op["whose"])], int(str(op["steps"]))
    if kind == "turn":
        quarters = op["quarters"]
        return TURN_OP, CHOOSE if quarters == "choose" else int(str(quarters)), 0
    simple = {
        "swap": SWAP,
        "payday": PAYDAY,
        "double_payday": DOUBLE_PAYDAY,
        "skip": SKIP_OP,
        "extra_action": EXTRA_ACTION,
        "nothing": NOTHING,
    }
    if kind not in simple:
        raise ValueError(f"unknown card primitive {kind!r}")
    return simple[str(kind)], 0, 0


OPS = np.zeros((NUM_CARDS, MAX_OPS, 3), dtype=np.int32)
"""``OPS[card, k]``: the card's k-th primitive."""
OPS_LEN = np.array([len(card.effect) for card in CARDS], dtype=np.int32)
for _card in CARDS:
    for _k, _op in enumerate(_card.effect):
        OPS[_card.id, _k] = _op_row(_op)
VALUES = np.array(MASK_VALUES, dtype=np.int32)
"""``VALUES[mask, orientation, position]``: MS-13 payday values."""
RING_VECTORS = np.array(RINGS, dtype=np.float32)
"""The encoder's top_mask block of each mask and orientation."""
NEXT = np.array(NEXT_HOLE, dtype=np.int32)


# -- board facts ------------------------------------------------------------------------------
@jit
def occupied(w: Words, hole: int) -> bool:
    for g in range(2 * w[N]):
        if w[STICKS + g] == hole:
            return True
    return False


@jit
def is_free(w: Words, hole: int) -> bool:
    return hole != CENTRE and not occupied(w, hole)


@jit
def step_target(w: Words, stick: int, direction: int) -> int:
    """MS-10: the hole a single step reaches, or -1 (edge, centre, or a stick in the way)."""
    target = NEXT[w[STICKS + stick], direction]
    if target < 0 or occupied(w, target):
        return -1
    return int(target)


@jit
def mark_steps(w: Words, stick: int, mask: Mask) -> bool:
    """Mark ``stick``'s possible steps in ``mask``; True if there is one."""
    found = False
    if w[STICKS + stick] >= 0:
        for d in range(4):
            if step_target(w, stick, d) >= 0:
                mask[STEP + 4 * stick + d] = 1
                found = True
    return found


@jit
def can_step(w: Words, seat: int) -> bool:
    for g in (2 * seat, 2 * seat + 1):
        if w[STICKS + g] >= 0:
            for d in range(4):
                if step_target(w, g, d) >= 0:
                    return True
    return False


@jit
def current_player(w: Words) -> int:
    phase = w[PHASE]
    if phase == OVER:
        return -1
    if phase == AUCTION:
        return int(w[A_TURN])
    if phase == EFFECT:
        return int(w[E_DECIDER])
    if phase == LAY:
        return int(w[PLACER])
    return int(w[ACTOR])


# -- legal actions ----------------------------------------------------------------------------
@jit
def effect_choices(w: Words, mask: Mask) -> None:
    n = w[N]
    card, k = w[E_CARD], w[E_OP]
    whose = OPS[card, k, 1]
    holder, stage = w[E_HOLDER], w[E_STAGE]
    if stage == CHOOSE_PLAYER:
        for p in range(n):
            if p != holder:
                mask[PLAYER + p] = 1
    elif stage == TURN:
        mask[TURN_CW] = 1
        mask[TURN_CCW] = 1
    elif stage == PLACE:
        for h in range(HOLES):
            if is_free(w, h):
                mask[HOLE + h] = 1
    elif stage in (PICK, PICK_OWN, PICK_OTHER):
        own = stage == PICK_OWN or (stage == PICK and whose == OWN)
        for g in range(2 * n):
            if (g // 2 == holder) == own:
                mask[STICK + g] = 1
    elif stage == STEPS:
        mask[DONE] = 1
        if w[E_LEFT] > 0:
            for g in range(2 * n):
                if whose == OWN:
                    mine = g // 2 == holder
                elif whose == EVERYONE_WHOSE:
                    mine = g // 2 == w[E_DECIDER]
                elif w[E_STICK] >= 0:
                    mine = g == w[E_STICK]
                else:
                    mine = g // 2 != holder
                if mine:
                    mark_steps(w, g, mask)


@jit
def legal_mask(w: Words, mask: Mask) -> None:
    mask[:] = 0
    phase = w[PHASE]
    if phase == OVER:
        return
    if phase == SETUP:
        for h in range(HOLES):
            if is_free(w, h):
                mask[HOLE + h] = 1
    elif phase == LAY:
        mask[ORIENT : ORIENT + 4] = 1
    elif phase in (ACTION, MOVING):
        seat = w[ACTOR]
        if w[POINTS + seat] > 0:  # MS-9 b, MS-10
            mark_steps(w, 2 * seat, mask)
            mark_steps(w, 2 * seat + 1, mask)
        if phase == ACTION:
            mask[PASS] = 1
            mask[DRAW] = 1
        else:
            mask[DONE] = 1
    elif phase == AUCTION:
        mask[DROP] = 1
        top = min(w[POINTS + w[A_TURN]], MAX_BID)
        for x in range(w[A_BID] + 1, top + 1):
            mask[BID + x - 1] = 1
    else:
        effect_choices(w, mask)


# -- turn flow --------------------------------------------------------------------------------
@jit
def payday(w: Words, double: bool, mask: int, orientation: int) -> None:
    """MS-13: the bank pays each stick's ring on a mask (doubled by the card, MS-4)."""
    for seat in range(w[N]):
        earned = VALUES[mask, orientation, w[STICKS + 2 * seat]]
        earned += VALUES[mask, orientation, w[STICKS + 2 * seat + 1]]
        if double and w[DOUBLE + seat]:
            earned *= 2
        w[POINTS + seat] += earned
    if double:
        for seat in range(w[N]):
            w[DOUBLE + seat] = 0


@jit
def top_payday(w: Words, double: bool) -> None:
    top = LAID + 2 * (w[LAID_LEN] - 1)
    payday(w, double, w[top], w[top + 1])


@jit
def finish(w: Words) -> None:
    """MS-14, MS-15: with unmasking, the masks below pay out one after another."""
    if w[UNMASKING]:
        for k in range(w[LAID_LEN] - 2, -1, -1):
            payday(w, False, w[LAID + 2 * k], w[LAID + 2 * k + 1])
    w[PHASE] = OVER


@jit
def start_round(w: Words) -> None:
    """MS-8: the placer lays the next mask; or the game ends after the last payday."""
    if w[STACK_HEAD] == w[STACK_END]:
        finish(w)
    else:
        w[PHASE] = LAY


@jit
def give_action(w: Words, seat: int, extra: bool) -> None:
    w[PHASE] = ACTION
    w[ACTOR] = seat
    w[IN_EXTRA] = extra
    w[STEPS_TAKEN] = 0


@jit
def next_action(w: Words) -> None:
    """Give the next action: an owed extra action first, else the round's next slot, else payday."""
    n = w[N]
    while True:
        if w[EXTRA_LEN]:
            w[EXTRA_LEN] -= 1
            give_action(w, w[EXTRA + w[EXTRA_LEN]], True)
            return
        w[ROUND_POS] += 1
        if w[ROUND_POS] >= n:
            top_payday(w, True)
            w[ROUND] += 1
            w[PLACER] = (w[PLACER] + 1) % n
            start_round(w)
            return
        seat = (w[PLACER] + 1 + w[ROUND_POS]) % n
        if w[SKIP + seat]:  # a card made this seat skip its next action
            w[SKIP + seat] = 0
            continue
        give_action(w, seat, False)
        return


@jit
def setup(w: Words, hole: int) -> None:
    """MS-7: each seat in turn from seat 0 puts its two sticks."""
    sticks = 2 * w[N]
    g = 0
    while w[STICKS + g] != -1:
        g += 1
    w[STICKS + g] = hole
    for other in range(g + 1, sticks):
        if w[STICKS + other] == -1:
            w[ACTOR] = other // 2
            return
    start_round(w)


@jit
def lay(w: Words, orientation: int) -> None:
    laid = LAID + 2 * w[LAID_LEN]
    w[laid] = w[STACK + w[STACK_HEAD]]
    w[laid + 1] = orientation
    w[LAID_LEN] += 1
    w[STACK_HEAD] += 1
    w[ROUND_POS] = -1
    next_action(w)


@jit
def deck_append(w: Words, card: int, knew: int) -> None:
    slot = (w[DECK_HEAD] + w[DECK_LEN]) % NUM_CARDS
    w[DECK + slot] = card
    w[KNOWN + slot] = knew
    w[DECK_LEN] += 1


@jit
def draw(w: Words, seat: int) -> None:
    head = w[DECK_HEAD]
    w[A_CARD] = w[DECK + head]
    w[A_KNEW] = w[KNOWN + head] | 1 << seat  # who already knew this card (it came round the deck)
    w[DECK_HEAD] = (head + 1) % NUM_CARDS
    w[DECK_LEN] -= 1
    w[PHASE] = AUCTION
    w[A_ON] = 1
    w[A_DRAWER] = seat
    w[A_BID] = 0
    w[A_HIGH] = -1
    w[A_TURN] = seat
    w[A_ACTIVE] = w[EVERYONE]


@jit
def act(w: Words, action: int) -> None:
    seat = w[ACTOR]
    if action in (PASS, DONE):
        next_action(w)
    elif action == DRAW:
        draw(w, seat)
    else:  # a paid step: 1 point to the bank (MS-9 b)
        g, d = divmod(action - STEP, 4)
        w[STICKS + g] = step_target(w, g, d)
        w[POINTS + seat] -= 1
        w[STEPS_TAKEN] += 1
        w[PHASE] = MOVING
        if w[POINTS + seat] == 0 or not can_step(w, seat):
            next_action(w)


# -- auction (MS-11) and card effects (MS-12) -------------------------------------------------
@jit
def transfer(w: Words, payer: int, payee: int, amount: int) -> None:
    """Rule 3: a payer pays until broke, the rest is forgiven; the bank (-1) never runs out."""
    if payer >= 0:
        amount = min(amount, w[POINTS + payer])
        w[POINTS + payer] -= amount
    if payee >= 0:
        w[POINTS + payee] += amount


@jit
def pay(w: Words, mode: int, amount: int, holder: int) -> None:
    n = w[N]
    if mode == EACH_OTHER:
        for k in range(1, n):
            transfer(w, (holder + k) % n, holder, amount)
    elif mode == EVERYONE_PAYS:
        for k in range(1, n + 1):
            transfer(w, (holder + k) % n, -1, amount)
    elif mode == BANK_TO_EVERYONE:
        for k in range(1, n + 1):
            transfer(w, -1, (holder + k) % n, amount)
    elif mode == BANK_TO_HOLDER:
        transfer(w, -1, holder, amount)
    elif mode == HOLDER_TO_BANK:
        transfer(w, holder, -1, amount)
    elif mode == TO_POOREST:
        fewest = w[POINTS]
        for s in range(n):
            fewest = min(fewest, w[POINTS + s])
        poorest = holder
        for k in range(1, n + 1):
            poorest = (holder + k) % n
            if w[POINTS + poorest] == fewest:
                break
        if poorest != holder:
            transfer(w, holder, poorest, amount)
    else:
        w[E_STAGE] = CHOOSE_PLAYER


@jit
def start_op(w: Words) -> bool:
    """Begin the card's current primitive; True if it finished without a decision."""
    n = w[N]
    holder = w[E_HOLDER]
    card, k = w[E_CARD], w[E_OP]
    kind, param, count = OPS[card, k, 0], OPS[card, k, 1], OPS[card, k, 2]
    w[E_DECIDER] = holder
    if kind == PAY:
        pay(w, param, count, holder)
        return bool(w[E_STAGE] != CHOOSE_PLAYER)
    if kind == JUMP:
        w[E_STAGE] = PICK
        w[E_LEFT] = count
        return False
    if kind == STEPS_OP:
        w[E_LEFT] = count
        w[E_STICK] = -1
        if param == EVERYONE_WHOSE:  # in turn, from the holder's left to the holder
            for k in range(n):
                w[QUEUE + k] = (holder + 1 + k) % n
            w[E_DECIDER] = w[QUEUE]
            w[E_QHEAD] = 1
            w[E_QEND] = n
        w[E_STAGE] = STEPS
        return False
    if kind == SWAP:
        w[E_STAGE] = PICK_OWN
        return False
    if kind == TURN_OP:
        if param == CHOOSE:
            w[E_STAGE] = TURN
            return False
        top = LAID + 2 * (w[LAID_LEN] - 1) + 1
        w[top] = (w[top] + param) % 4
        return True
    if kind == PAYDAY:
        top_payday(w, False)
    elif kind == DOUBLE_PAYDAY:
        w[DOUBLE + holder] = 1
    elif kind == SKIP_OP:
        w[SKIP + (holder + 1) % n] = 1
    elif kind == EXTRA_ACTION:
        w[EXTRA + w[EXTRA_LEN]] = holder
        w[EXTRA_LEN] += 1
    return True


@jit
def run_effect(w: Words) -> None:
    """Carry out the card's primitives in order, stopping where a decision is needed."""
    while w[E_OP] < OPS_LEN[w[E_CARD]]:
        if not start_op(w):
            return  # waiting for a decision
        w[E_OP] += 1
        w[E_STAGE] = START
    deck_append(w, w[E_CARD], w[EVERYONE])  # a sold card was seen by all
    w[E_ON] = 0
    next_action(w)


@jit
def close_auction(w: Words) -> None:
    card, drawer, high, bid = w[A_CARD], w[A_DRAWER], w[A_HIGH], w[A_BID]
    w[A_ON] = 0
    if high < 0:  # nobody bid: under the deck, unseen (only the drawer knows it)
        deck_append(w, card, w[A_KNEW])
        next_action(w)
        return
    w[POINTS + high] -= bid  # MS-11: paid before the card acts (rule 6)
    if high != drawer:
        w[POINTS + drawer] += bid
    w[E_ON] = 1
    w[E_CARD] = card
    w[E_HOLDER] = high
    w[E_OP] = 0
    w[E_STAGE] = START
    w[E_DECIDER] = high
    w[E_STICK] = -1
    w[E_LEFT] = 0
    w[E_QHEAD] = w[E_QEND] = 0
    w[PHASE] = EFFECT
    run_effect(w)


@jit
def bid(w: Words, action: int) -> None:
    seat = w[A_TURN]
    if action == DROP:
        w[A_ACTIVE] &= ~(1 << seat)
    else:
        w[A_BID] = action - BID + 1
        w[A_HIGH] = seat
    active, high = w[A_ACTIVE], w[A_HIGH]
    if active == 0 or (high >= 0 and active == 1 << high):
        close_auction(w)
        return
    n = w[N]
    nxt = seat
    for _ in range(n):
        nxt = (nxt + 1) % n
        if active >> nxt & 1 and nxt != high:
            break
    w[A_TURN] = nxt


@jit
def next_stepper(w: Words) -> bool:
    """For 'every player in turn may step': pass to the next player; True when all had theirs."""
    if OPS[w[E_CARD], w[E_OP], 1] != EVERYONE_WHOSE or w[E_QHEAD] == w[E_QEND]:
        return True
    w[E_DECIDER] = w[QUEUE + w[E_QHEAD]]
    w[E_QHEAD] += 1
    w[E_LEFT] = OPS[w[E_CARD], w[E_OP], 2]
    w[E_STICK] = -1
    return False


@jit
def effect_decision(w: Words, action: int) -> None:
    stage = w[E_STAGE]
    holder = w[E_HOLDER]
    done = False
    if stage == CHOOSE_PLAYER:
        transfer(w, action - PLAYER, holder, OPS[w[E_CARD], w[E_OP], 2])
        done = True
    elif stage == TURN:
        top = LAID + 2 * (w[LAID_LEN] - 1) + 1
        w[top] = (w[top] + (1 if action == TURN_CW else 3)) % 4
        done = True
    elif stage == PICK:
        w[E_STICK] = action - STICK
        w[E_STAGE] = PLACE
    elif stage == PLACE:
        w[STICKS + w[E_STICK]] = action - HOLE  # a jump: free, ignores steps (rule 5)
        w[E_LEFT] -= 1
        if w[E_LEFT] > 0:  # jump both: the other own stick next
            w[E_STICK] = 2 * holder + 1 if w[E_STICK] == 2 * holder else 2 * holder
        else:
            done = True
    elif stage == PICK_OWN:
        w[E_STICK] = action - STICK
        w[E_STAGE] = PICK_OTHER
    elif stage == PICK_OTHER:
        mine, theirs = w[E_STICK], action - STICK
        w[STICKS + mine], w[STICKS + theirs] = w[STICKS + theirs], w[STICKS + mine]
        done = True
    elif stage == STEPS:
        if action == DONE or w[E_LEFT] <= 0:
            done = next_stepper(w)
        else:
            g, d = divmod(action - STEP, 4)
            w[STICKS + g] = step_target(w, g, d)
            w[E_STICK] = g
            w[E_LEFT] -= 1
            if w[E_LEFT] == 0:
                done = next_stepper(w)
    if done:
        w[E_OP] += 1
        w[E_STAGE] = START
        run_effect(w)


@jit
def apply(w: Words, action: int) -> int:
    """Play ``action``: the next seat to act, -1 if the game is over, -2 (nothing changed) if illegal."""
    if action < 0 or action >= NUM_ACTIONS:
        return -2
    legal = np.empty(NUM_ACTIONS, dtype=np.int8)
    legal_mask(w, legal)
    if not legal[action]:
        return -2
    phase = w[PHASE]
    if phase == SETUP:
        setup(w, action - HOLE)
    elif phase == LAY:
        lay(w, action - ORIENT)
    elif phase in (ACTION, MOVING):
        act(w, action)
    elif phase == AUCTION:
        bid(w, action)
    else:
        effect_decision(w, action)
    return current_player(w)


# -- the vector ---------------------------------------------------------------------------------
@jit
def write(w: Words, seat: int, out: Vector, mask: Mask) -> None:
    """``seat``'s observation vector (the encoder's blocks, in its order) and mask."""
    if current_player(w) == seat:
        legal_mask(w, mask)
    else:
        mask[:] = 0
    out[:] = 0.0
    n = w[N]
    top_mask = n * 2 * HOLES
    mask_to_lay = top_mask + HOLES
    seat_block = mask_to_lay + HOLES
    points = seat_block + n
    masks = points + n
    placer = masks + 4
    round_pos = placer + n
    phase = round_pos + n + 1
    actor = phase + len(PHASES)
    extra = actor + n
    skip = extra + n + 2
    double = skip + n
    auction = double + n
    effect = auction + 1 + NUM_CARDS + 5 * n + 1
    deck_top = effect + 1 + NUM_CARDS + n + MAX_OPS + len(STAGES) + n + 2 * n + 1
    mine = 1 << seat
    for s in range(n):
        rank = (s - seat) % n
        for k in range(2):
            hole = w[STICKS + 2 * s + k]
            if hole >= 0:
                out[(rank * 2 + k) * HOLES + hole] = 1.0
        out[points + rank] = min(w[POINTS + s], POINTS_CAP) / POINTS_CAP
        if w[SKIP + s]:
            out[skip + rank] = 1.0
        if w[DOUBLE + s]:
            out[double + rank] = 1.0
    if w[LAID_LEN]:
        top = LAID + 2 * (w[LAID_LEN] - 1)
        out[top_mask : top_mask + HOLES] = RING_VECTORS[w[top], w[top + 1]]
    if w[PHASE] == LAY:
        out[mask_to_lay : mask_to_lay + HOLES] = RING_VECTORS[w[STACK + w[STACK_HEAD]], 0]
    out[seat_block + seat] = 1.0
    out[masks] = (w[STACK_END] - w[STACK_HEAD]) / NUM_MASKS
    out[masks + 1] = w[MASKS_TOTAL] / NUM_MASKS
    out[masks + 2] = w[UNMASKING]
    out[masks + 3] = min(w[ROUND], NUM_MASKS) / NUM_MASKS
    out[placer + (w[PLACER] - seat) % n] = 1.0
    out[round_pos + w[ROUND_POS] + 1] = 1.0
    out[phase + w[PHASE]] = 1.0
    out[actor + (w[ACTOR] - seat) % n] = 1.0
    for k in range(w[EXTRA_LEN]):
        s = w[EXTRA + k]
        count = 0
        for j in range(w[EXTRA_LEN]):
            count += w[EXTRA + j] == s
        out[extra + (s - seat) % n] = min(count, EXTRA_CAP) / EXTRA_CAP
    if w[IN_EXTRA]:
        out[extra + n] = 1.0
    out[extra + n + 1] = min(w[STEPS_TAKEN], POINTS_CAP) / POINTS_CAP
    if w[A_ON]:
        base = auction
        out[base] = 1.0
        if w[A_KNEW] & mine:
            out[base + 1 + w[A_CARD]] = 1.0
        base += 1 + NUM_CARDS
        for s in range(n):
            rank = (s - seat) % n
            if w[A_KNEW] >> s & 1:
                out[base + rank] = 1.0
            if w[A_ACTIVE] >> s & 1:
                out[base + 4 * n + 1 + rank] = 1.0
        out[base + n + (w[A_DRAWER] - seat) % n] = 1.0
        out[base + 2 * n] = min(w[A_BID], POINTS_CAP) / POINTS_CAP
        if w[A_HIGH] >= 0:
            out[base + 2 * n + 1 + (w[A_HIGH] - seat) % n] = 1.0
        out[base + 3 * n + 1 + (w[A_TURN] - seat) % n] = 1.0
    if w[E_ON]:
        base = effect
        out[base] = 1.0
        out[base + 1 + w[E_CARD]] = 1.0
        base += 1 + NUM_CARDS
        out[base + (w[E_HOLDER] - seat) % n] = 1.0
        base += n
        out[base + min(w[E_OP], MAX_OPS - 1)] = 1.0
        base += MAX_OPS
        out[base + w[E_STAGE]] = 1.0
        base += len(STAGES)
        out[base + (w[E_DECIDER] - seat) % n] = 1.0
        base += n
        if w[E_STICK] >= 0:
            out[base + w[E_STICK]] = 1.0
        base += 2 * n
        out[base] = min(max(w[E_LEFT], 0), MAX_LEFT) / MAX_LEFT
    known = 0
    everyone = w[EVERYONE]
    for i in range(w[DECK_LEN]):
        slot = (w[DECK_HEAD] + i) % NUM_CARDS
        if w[KNOWN + slot] & mine or w[KNOWN + slot] == everyone:
            known += 1
            if i == 0:
                out[deck_top + w[DECK + slot]] = 1.0
    out[deck_top + NUM_CARDS] = known / NUM_CARDS


@jit
def returns(w: Words, out: npt.NDArray[np.float64]) -> None:
    """MS-14: most points wins, a tie shared (the engine's ``winners``, then winners share 1)."""
    n = w[N]
    out[:] = 0.0
    if w[PHASE] != OVER:
        return
    best = w[POINTS]
    for s in range(n):
        best = max(best, w[POINTS + s])
    winners = 0
    for s in range(n):
        winners += w[POINTS + s] == best
    for s in range(n):
        if w[POINTS + s] == best:
            out[s] = 1.0 / winners


class MaskeCore(Core[MaskeGame, MaskeState]):
    """Maske's twin: ``load`` copies a ``MaskeState`` into the words."""

    def __init__(self, game: MaskeGame) -> None:
        super().__init__(game, MaskeEncoder(game).size, apply, write, returns)

    def words_size(self) -> int:
        return WORDS

    def load(self, state: MaskeState) -> None:
        game = self.game
        n = game.num_players
        words = [0] * WORDS
        words[N] = n
        words[MASKS_TOTAL] = game.num_masks
        words[UNMASKING] = bool(game.options["unmasking"])
        words[EVERYONE] = state.everyone
        words[ROUND] = state.round
        words[PLACER] = state.placer
        words[ROUND_POS] = state.round_pos
        words[PHASE] = PHASE_INDEX[state.phase]
        words[ACTOR] = state.actor
        words[IN_EXTRA] = state.in_extra
        words[STEPS_TAKEN] = state.steps_taken
        words[STACK_END] = len(state.stack)
        words[STACK : STACK + len(state.stack)] = state.stack
        words[LAID_LEN] = len(state.laid)
        words[LAID : LAID + 2 * len(state.laid)] = [x for pair in state.laid for x in pair]
        words[DECK_LEN] = len(state.deck)
        words[DECK : DECK + len(state.deck)] = state.deck
        words[KNOWN : KNOWN + len(state.known)] = state.known
        words[EXTRA_LEN] = len(state.extra)
        words[EXTRA : EXTRA + len(state.extra)] = state.extra
        words[POINTS : POINTS + n] = state.points
        words[STICKS : STICKS + 2 * n] = state.sticks
        words[SKIP : SKIP + n] = state.skip
        words[DOUBLE : DOUBLE + n] = state.double
        auction = state.auction
        if auction is not None:
            words[A_ON] = 1
            words[A_CARD] = auction["card"]
            words[A_KNEW] = auction["knew"]
            words[A_DRAWER] = auction["drawer"]
            words[A_BID] = auction["bid"]
            words[A_HIGH] = -1 if auction["high"] is None else auction["high"]
            words[A_TURN] = auction["turn"]
            words[A_ACTIVE] = sum(1 << s for s in auction["active"])
        effect = state.effect
        if effect is not None:
            words[E_ON] = 1
            words[E_CARD] = effect["card"]
            words[E_HOLDER] = effect["holder"]
            words[E_OP] = effect["op"]
            words[E_STAGE] = STAGE_INDEX[effect["stage"]]
            words[E_DECIDER] = effect["decider"]
            words[E_STICK] = -1 if effect["stick"] is None else effect["stick"]
            words[E_LEFT] = effect["left"]
            words[E_QEND] = len(effect["queue"])
            words[QUEUE : QUEUE + len(effect["queue"])] = effect["queue"]
        self.words[:] = words
