"""Masker's compiled twin (MK-5 .. MK-12) and its observation vector, for the environments.

The position is one ``int32`` array (offsets below); the functions are the engine's
``MaskerState`` methods of the same names, in the same order of checks, so that the parity tests can
hold them to the engine action by action.  The vector is :class:`~masques.rl.masker.MaskerEncoder`'s,
written straight for the seat (its colours and seats relative to it), with the same float32 values:
counts times the same reciprocals, sums of quarters.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..games.masker.game import (
    CAPACITY,
    COMPLETE,
    MAX_STEPS,
    RUNNER,
    STOP,
    TAKE,
    WHITE,
    MaskerGame,
    MaskerState,
)
from .compiled import Core, Mask, Vector, Words, jit
from .masker import COLOUR_COUNT, WHITE_COUNT, MaskerEncoder

CODES = 7  # five colours, white, the runner
NUM_COLOURS = 5
MAX_CELLS = 36
MAX_HEIGHT = 4
MAX_PILE = max(CAPACITY.values())
COLOUR_SCALE = 1.0 / COLOUR_COUNT  # the encoder's scales, as it multiplies by them
WHITE_SCALE = 1.0 / WHITE_COUNT

# the position: header fields, then arrays
N = 0  # players
CELLS = 1
HEIGHT = 2
CAP = 3  # MK-9 capacity
TEAMS = 4
RUNNER_AT = 5
PLAYER = 6
STEPS = 7
FREE = 8  # a free step is pending (MK-7, MK-8)
PHASE = 9  # 0 step, 1 completion (MK-11)
TO_FILL = 10
OVER = 11
STUCK = 12
ELIMS = 13  # how many eliminations
TOKENS = 16  # per team
ELIMINATED = 20  # per seat
ELIM_COLOURS = 24  # the colour of each elimination, in order
ON_BOARD = 28  # per code but the runner
NEAR = 34  # per cell: four neighbours, -1 padded
STACK_LEN = NEAR + 4 * MAX_CELLS
STACKS = STACK_LEN + MAX_CELLS  # cell * MAX_HEIGHT + level, bottom first
PILE_LEN = STACKS + MAX_CELLS * MAX_HEIGHT
PILES = PILE_LEN + 4  # seat * MAX_PILE + k, oldest first
WORDS = PILES + 4 * MAX_PILE


@jit
def team_of(w: Words, seat: int) -> int:
    return seat % 2 if w[N] == 4 else seat


@jit
def top(w: Words, cell: int) -> int:
    """The code on top of a stack, or -1 for a hole."""
    length = w[STACK_LEN + cell]
    return w[STACKS + cell * MAX_HEIGHT + length - 1] if length else -1


@jit
def is_isolated(w: Words) -> bool:
    """MK-7: no orthogonal neighbour of the runner holds a cross."""
    at = NEAR + 4 * w[RUNNER_AT]
    for k in range(4):
        cell = w[at + k]
        if cell >= 0 and w[STACK_LEN + cell]:
            return False
    return True


@jit
def is_target(w: Words, cell: int) -> bool:
    """A cell the runner may step to now (the engine's ``step_targets``)."""
    if w[STACK_LEN + cell] == 0:
        return False
    if w[FREE]:  # MK-7, MK-8: the top of any stack holding a cross
        return bool(top(w, cell) != RUNNER)
    at = NEAR + 4 * w[RUNNER_AT]
    for k in range(4):
        if w[at + k] == cell:
            return True
    return False


@jit
def has_targets(w: Words) -> bool:
    if w[FREE]:
        for cell in range(w[CELLS]):
            if is_target(w, cell):
                return True
        return False
    return not is_isolated(w)


@jit
def can_act(w: Words, seat: int) -> bool:
    return bool(w[ELIMINATED + seat] == 0 and w[PILE_LEN + seat] < w[CAP])


@jit
def finish(w: Words, stuck: bool) -> None:
    w[OVER] = 1
    w[STUCK] = stuck


@jit
def start_turn(w: Words, seat: int) -> None:
    """Give the turn to ``seat`` or the next seat that can step; end the game if none can."""
    n = w[N]
    for k in range(n):
        candidate = (seat + k) % n
        if can_act(w, candidate):
            w[PLAYER] = candidate
            w[STEPS] = 0
            w[PHASE] = 0
            if not has_targets(w):
                break
            return
    finish(w, True)


@jit
def end_turn(w: Words) -> None:
    """MK-7: if the runner is isolated when a turn ends, the next first step is free."""
    if is_isolated(w):
        w[FREE] = 1
    start_turn(w, (w[PLAYER] + 1) % w[N])


@jit
def move_cross(w: Words, source: int, target: int) -> None:
    """The most recent cross of ``source``'s piles goes on ``target``'s."""
    w[PILE_LEN + source] -= 1
    code = w[PILES + source * MAX_PILE + w[PILE_LEN + source]]
    w[PILES + target * MAX_PILE + w[PILE_LEN + target]] = code
    w[PILE_LEN + target] += 1


@jit
def others_hold(w: Words, victim: int) -> bool:
    for s in range(3):
        if s != victim and w[PILE_LEN + s]:
            return True
    return False


@jit
def eliminate_colour(w: Words, colour: int, capturer: int) -> bool:
    """MK-10: the team whose colour just left the board is out.  True if the turn is over."""
    n = w[N]
    team = -1
    for t in range(w[TEAMS]):
        if w[TOKENS + t] == colour:
            team = t
    if team < 0:
        return False  # a neutral colour
    capturer_out = False
    for s in range(n):
        if team_of(w, s) == team:
            w[ELIMINATED + s] = 1
            w[ELIM_COLOURS + w[ELIMS]] = colour
            w[ELIMS] += 1
            capturer_out = capturer_out or s == capturer
    teams_left = 0
    for t in range(w[TEAMS]):
        for s in range(n):
            if team_of(w, s) == t and not w[ELIMINATED + s]:
                teams_left += 1
                break
    if teams_left <= 1:
        finish(w, False)  # MK-12: the last team standing wins
        return True
    if n == 3:  # MK-11 (only the first elimination can get here)
        victim = team
        need = w[CAP] - w[PILE_LEN + victim]
        if capturer != victim:
            for _ in range(min(need, w[PILE_LEN + capturer])):
                move_cross(w, capturer, victim)
        elif need > 0 and others_hold(w, victim):
            w[PHASE] = 1  # the self-eliminated player chooses, cross by cross
            w[TO_FILL] = need
            return True
    if capturer_out:  # self-elimination ends the turn at once
        end_turn(w)
        return True
    return False


@jit
def step(w: Words, target: int) -> None:
    """MK-5: move the runner onto ``target`` and capture the cross there."""
    seat = w[PLAYER]
    runner = w[RUNNER_AT]
    w[STACK_LEN + target] -= 1
    captured = w[STACKS + target * MAX_HEIGHT + w[STACK_LEN + target]]
    w[STACK_LEN + runner] -= 1  # the runner leaves; in 2D its cell becomes a hole
    w[STACKS + target * MAX_HEIGHT + w[STACK_LEN + target]] = RUNNER
    w[STACK_LEN + target] += 1
    w[RUNNER_AT] = target
    w[PILES + seat * MAX_PILE + w[PILE_LEN + seat]] = captured
    w[PILE_LEN + seat] += 1
    w[ON_BOARD + captured] -= 1
    w[STEPS] += 1
    w[FREE] = captured == WHITE  # MK-8: the next step is free; never stacks
    if captured != WHITE and w[ON_BOARD + captured] == 0 and eliminate_colour(w, captured, seat):
        return
    if w[STEPS] >= MAX_STEPS or w[PILE_LEN + seat] >= w[CAP]:
        end_turn(w)  # MK-6, MK-9
    elif is_isolated(w) and not w[FREE]:
        end_turn(w)  # MK-7: the turn ends at once
    elif not has_targets(w):
        end_turn(w)


@jit
def take_for_completion(w: Words, source: int) -> None:
    victim = w[PLAYER]
    move_cross(w, source, victim)
    w[TO_FILL] -= 1
    if w[TO_FILL] == 0 or not others_hold(w, victim):
        w[TO_FILL] = 0
        w[PHASE] = 0
        end_turn(w)


@jit
def is_legal(w: Words, action: int) -> bool:
    if w[OVER] or action < 0:
        return False
    if w[PHASE] == 1:
        source = action - TAKE
        return bool(0 <= source < w[N] and source != w[PLAYER] and w[PILE_LEN + source] > 0)
    if action == STOP:
        return bool(w[STEPS] > 0)  # MK-6: the first step is compulsory
    return action < w[CELLS] and is_target(w, action)


@jit
def apply(w: Words, action: int) -> int:
    """Play ``action``: the next seat to act, -1 if the game is over, -2 (nothing changed) if illegal."""
    if not is_legal(w, action):
        return -2
    if w[PHASE] == 1:
        take_for_completion(w, action - TAKE)
    elif action == STOP:
        end_turn(w)
    else:
        step(w, action)
    return -1 if w[OVER] else int(w[PLAYER])


@jit
def legal_mask(w: Words, mask: Mask) -> None:
    mask[:] = 0
    if w[OVER]:
        return
    if w[PHASE] == 1:
        for s in range(w[N]):
            if s != w[PLAYER] and w[PILE_LEN + s]:
                mask[TAKE + s] = 1
        return
    for cell in range(w[CELLS]):
        if is_target(w, cell):
            mask[cell] = 1
    if w[STEPS] > 0:
        mask[STOP] = 1


@jit
def relative(code: int, mine: int) -> int:
    """A code as the viewer whose colour is ``mine`` sees it: its own colour first (the encoder's)."""
    return (code - mine) % NUM_COLOURS if code < NUM_COLOURS else code


@jit
def write(w: Words, seat: int, out: Vector, mask: Mask) -> None:
    """``seat``'s observation vector (the encoder's blocks, in its order) and mask."""
    if w[OVER] == 0 and w[PLAYER] == seat:
        legal_mask(w, mask)
    else:
        mask[:] = 0
    n, cells, height, cap = w[N], w[CELLS], w[HEIGHT], w[CAP]
    reach = cells * height * CODES
    around = reach + cells
    piles = around + cells * CODES
    held = piles + n * (CODES - 1)
    on_board = held + n
    out_seats = on_board + CODES - 1
    out_colours = out_seats + n
    to_move = out_colours + NUM_COLOURS
    steps = to_move + n
    flags = steps + MAX_STEPS + 1
    out[:] = 0.0
    mine = w[TOKENS + team_of(w, seat)]  # MK-15: the seat's own colour, the one token it knows
    for cell in range(cells):
        length = w[STACK_LEN + cell]
        for z in range(length):
            out[(cell * height + z) * CODES + relative(w[STACKS + cell * MAX_HEIGHT + z], mine)] = 1.0
        if length:
            code = relative(w[STACKS + cell * MAX_HEIGHT + length - 1], mine)
            for k in range(4):
                near = w[NEAR + 4 * cell + k]
                if near >= 0:
                    out[around + near * CODES + code] += 0.25
    if w[OVER] == 0 and w[PHASE] == 0:
        for cell in range(cells):
            if is_target(w, cell):
                out[reach + cell] = 1.0
    for s in range(n):
        length = w[PILE_LEN + s]
        if length:
            base = piles + ((s - seat) % n) * (CODES - 1)
            for k in range(length):  # counts first (exact in float32), then scaled as the encoder does
                out[base + relative(w[PILES + s * MAX_PILE + k], mine)] += 1.0
            for k in range(NUM_COLOURS):
                out[base + k] = out[base + k] * COLOUR_SCALE
            out[base + WHITE] = out[base + WHITE] * WHITE_SCALE
            out[held + (s - seat) % n] = length / cap
        if w[ELIMINATED + s]:
            out[out_seats + (s - seat) % n] = 1.0
    for code in range(NUM_COLOURS):
        out[on_board + relative(code, mine)] = w[ON_BOARD + code] * COLOUR_SCALE
    out[on_board + WHITE] = w[ON_BOARD + WHITE] * WHITE_SCALE
    for e in range(w[ELIMS]):
        out[out_colours + relative(w[ELIM_COLOURS + e], mine)] = 1.0
    if w[OVER] == 0:
        out[to_move + (w[PLAYER] - seat) % n] = 1.0
    out[steps + w[STEPS]] = 1.0
    if w[FREE]:
        out[flags] = 1.0
    if w[PHASE] == 1:
        out[flags + 1] = 1.0
        out[flags + 2] = w[TO_FILL] / cap


@jit
def returns(w: Words, out: npt.NDArray[np.float64]) -> None:
    """MK-12: the last team standing; if play is stuck, most crosses of their colour on the board
    among the teams still in, a tie shared (the engine's ``winners``, then winners share 1)."""
    n = w[N]
    out[:] = 0.0
    if not w[OVER]:
        return
    best = -1
    for s in range(n):
        if not w[ELIMINATED + s]:
            best = max(best, w[ON_BOARD + w[TOKENS + team_of(w, s)]])
    winners = 0
    for s in range(n):
        if not w[ELIMINATED + s] and (not w[STUCK] or w[ON_BOARD + w[TOKENS + team_of(w, s)]] == best):
            out[s] = 1.0
            winners += 1
    for s in range(n):
        if out[s]:
            out[s] = 1.0 / winners


class MaskerCore(Core[MaskerGame, MaskerState]):
    """Masker's twin: ``load`` copies a ``MaskerState`` into the words."""

    def __init__(self, game: MaskerGame) -> None:
        super().__init__(game, MaskerEncoder(game).size, apply, write, returns)
        header = [0] * NEAR
        header[N] = game.num_players
        header[CELLS] = game.cells
        header[HEIGHT] = game.height
        header[CAP] = game.capacity
        header[TEAMS] = game.num_teams
        near = [-1] * (4 * MAX_CELLS)
        for cell, cells in enumerate(game.neighbours):
            near[4 * cell : 4 * cell + len(cells)] = cells
        self.header = header
        self.words[NEAR:STACK_LEN] = near  # fixed by the options: written once

    def words_size(self) -> int:
        return WORDS

    def load(self, state: MaskerState) -> None:
        words = self.header.copy()
        words[RUNNER_AT] = state.runner
        words[PLAYER] = state.player
        words[STEPS] = state.steps
        words[FREE] = state.free_pending
        words[PHASE] = state.phase == COMPLETE
        words[TO_FILL] = state.to_fill
        words[OVER] = state.over
        words[STUCK] = state.stuck_end
        words[ELIMS] = len(state.eliminations)
        words[TOKENS : TOKENS + len(state.tokens)] = state.tokens
        words[ELIMINATED : ELIMINATED + len(state.eliminated)] = state.eliminated
        colours = [colour for _, colour, _ in state.eliminations]
        words[ELIM_COLOURS : ELIM_COLOURS + len(colours)] = colours
        words[ON_BOARD : ON_BOARD + len(state.on_board)] = state.on_board
        self.words[:NEAR] = words
        stacks = state.stacks
        words = [len(stack) for stack in stacks]
        words += [0] * (MAX_CELLS - len(words))
        for stack in stacks:
            words += stack
            words += [0] * (MAX_HEIGHT - len(stack))
        words += [0] * (PILE_LEN - STACK_LEN - len(words))
        piles = state.piles
        words += [len(pile) for pile in piles]
        words += [0] * (PILES - STACK_LEN - len(words))
        for pile in piles:
            words += pile
            words += [0] * (MAX_PILE - len(pile))
        words += [0] * (WORDS - STACK_LEN - len(words))
        self.words[STACK_LEN:] = words
