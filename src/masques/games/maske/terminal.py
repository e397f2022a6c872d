"""Maske in the terminal (its "terminal" part): the plate under the top mask, the seats and whose
decision it is, drawn with rich, and the move notation's help.

Everything here reads the observation dict only (what a seat may see), never the engine state.  The
public data tables (the masks' rings, the cards' texts) are used to draw the top mask and to spell
out a card once the observation names it: the card being carried out is public (MS-12), a drawn card
is named only in its drawer's observation (``obs["auction"]["card"]``, MS-17).
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...cli.parts import TerminalPart
from .data import CARDS, CENTRE, MASK_VALUES, MASKS, SIZE
from .game import hole_name

FILES = "abcdefg"
SEAT_STYLE = (
    "bold white on red",
    "bold white on blue",
    "bold black on green",
    "bold black on yellow",
    "bold white on magenta",
    "bold black on cyan",
)
SEAT_TEXT = ("bold red", "bold blue", "bold green", "bold yellow", "bold magenta", "bold cyan")
RING = {0: ("·", "dim"), 3: ("o", "bold yellow"), 5: ("O", "bold magenta")}
CENTRE_MARK = ("×", "bold red")
LOG_LINES = 10
NOTATION = (
    "moves: a hole (c4) · step STICK DIRECTION (step 2 up) · pass · draw · done\n"
    "       drop · bid N · lay N (N quarter turns clockwise) · turn cw|ccw\n"
    "       stick N · player N · directions: up right down left"
)


# -- small helpers ---------------------------------------------------------------------------------
def seat_text(seat: int, obs: dict[str, Any] | None = None) -> Text:
    """``seat N`` in the seat's colour, with ``(you)`` for the viewer."""
    out = Text(f"seat {seat}", style=SEAT_TEXT[seat % len(SEAT_TEXT)])
    if obs is not None and obs.get("seat") == seat:
        out.append(" (you)", style="bold")
    return out


def card_text(card: int) -> str:
    """A card's English text (public data; only call it for a card the observation names)."""
    return str(CARDS[card].text["en"])


def top_values(obs: dict[str, Any]) -> tuple[int, ...] | None:
    """What each of the 49 positions pays on the top mask as it lies now (MS-3, MS-13)."""
    top = obs["top_mask"]
    if top is None:
        return None
    return MASK_VALUES[int(top["mask"])][int(top["orientation"])]


def stick_holes(obs: dict[str, Any]) -> list[int]:
    """The hole of stick ``g`` (seat ``g // 2``) at index ``g``; -1 before set-up."""
    return [int(h) for pair in obs["sticks"] for h in pair]


def payday_value(obs: dict[str, Any], seat: int) -> int | None:
    """What the seat's sticks earn on the top mask now (MS-13), doubled by the card (MS-4)."""
    values = top_values(obs)
    if values is None:
        return None
    earned = sum(values[int(h)] for h in obs["sticks"][seat] if h >= 0)
    return earned * (2 if obs["double_payday"][seat] else 1)


def example_hole(obs: dict[str, Any]) -> str:
    """A free hole to give as an example, the nearest to the centre (which is no hole, MS-1)."""
    taken = {*stick_holes(obs), CENTRE}
    cr, cc = divmod(CENTRE, SIZE)
    free = [h for h in range(SIZE * SIZE) if h not in taken]
    return hole_name(min(free, key=lambda h: (abs(h // SIZE - cr) + abs(h % SIZE - cc), h)))


def orientation_words(orientation: int) -> str:
    return ("upright", "a quarter turn clockwise", "a half turn", "a quarter turn anticlockwise")[
        orientation % 4
    ]


# -- the plate ---------------------------------------------------------------------------------------
def plate(obs: dict[str, Any]) -> Text:
    """The 7x7 plate: files a..g along a row, ranks 1..7 down (a1 top-left, as ``hole_name``).  Each
    cell is its ring on the top mask (``o`` 3, ``O`` 5, ``·`` nothing) and the stick standing there."""
    values = top_values(obs)
    where = {h: g for g, h in enumerate(stick_holes(obs)) if h >= 0}
    out = Text()
    out.append("   " + "".join(f"  {FILES[c]} " for c in range(SIZE)) + "\n", style="dim")
    for r in range(SIZE):
        out.append(f"{r + 1:>2} ", style="dim")
        for c in range(SIZE):
            hole = r * SIZE + c
            if hole == CENTRE:
                mark, style = CENTRE_MARK
                out.append(f"  {mark} ", style=style)
                continue
            mark, style = RING[values[hole] if values else 0]
            if hole in where:
                g = where[hole]
                out.append(f"{g:>2}", style=SEAT_STYLE[(g // 2) % len(SEAT_STYLE)])
            else:
                out.append("  ")
            out.append(mark, style=style)
            out.append(" ")
        out.append(f" {r + 1}", style="dim")
        if r < SIZE - 1:
            out.append("\n")
    return out


def mask_lines(obs: dict[str, Any]) -> Text:
    """Round, masks, variant, placer; the top mask's name and how it lies; the deck's size."""
    total = int(obs["masks_total"])
    out = Text()
    if obs["terminal"]:
        out.append(f"all {total} masks laid", style="bold")
    elif obs["phase"] == "setup":
        out.append(f"set-up · {total} masks to lay", style="bold")
    else:
        out.append(f"round {int(obs['round']) + 1} of {total}", style="bold")
        out.append(f" · masks left {obs['masks_left']}")
    if obs["unmasking"]:
        out.append("\nvariant: unmasking (MS-15)")
    top = obs["top_mask"]
    out.append("\ntop mask: ")
    if top is None:
        out.append("none laid yet", style="dim")
    else:
        mask = int(top["mask"])
        out.append(MASKS[mask].name, style="bold")
        orientation = int(top["orientation"])
        out.append(f" (#{mask})\n  lies {orientation_words(orientation)} (lay {orientation})")
        if obs["phase"] == "lay":
            out.append("\n  the next mask is being laid on top of it", style="dim")
    if not obs["terminal"] and obs["phase"] != "setup":
        out.append("\nplacer this round: ")
        out.append_text(seat_text(int(obs["placer"]), obs))
    known = [c for c in obs["deck"] if c is not None]
    out.append(f"\ndeck: {len(obs['deck'])} cards, {len(known)} known to ")
    out.append("you" if obs.get("seat") is not None else "everyone")
    return out


def below_lines(obs: dict[str, Any], *, show_layers: bool) -> Text | None:
    """The masks beneath the top one (unmasking: they pay out at the end, MS-15) and the top card of
    the deck when this seat knows it."""
    out = Text()
    laid = obs["masks_laid"]
    if show_layers and obs["unmasking"] and len(laid) > 1:
        out.append("masks beneath, top first (each pays out at the end, MS-15):\n  ")
        below = [f"{MASKS[int(m['mask'])].name} ({int(m['orientation'])})" for m in reversed(laid[:-1])]
        out.append(", ".join(below), style="dim")
    if obs["deck"] and obs["deck"][0] is not None:
        card = int(obs["deck"][0])
        out.append(
            ("\n" if out else "") + f"top card of the deck, known: #{card} {card_text(card)}", style="dim"
        )
    return out or None


def beneath_value(obs: dict[str, Any], seat: int) -> int:
    """Unmasking (MS-15): what the masks beneath the top one would pay the seat's sticks where they stand."""
    holes = [int(h) for h in obs["sticks"][seat] if h >= 0]
    return sum(
        MASK_VALUES[int(m["mask"])][int(m["orientation"])][h] for m in obs["masks_laid"][:-1] for h in holes
    )


# -- seats -------------------------------------------------------------------------------------------
def status(obs: dict[str, Any]) -> Table:
    """Each seat: its sticks and where they stand, points, what the top mask pays it, and flags."""
    players = int(obs["players"])
    mover = obs["to_move"]
    auction = obs["auction"]
    title = f"Maske · {players} players"
    if obs["terminal"]:
        title += " · game over"
    table = Table(title=title, title_justify="left")
    beneath = bool(obs["unmasking"]) and not obs["terminal"]
    columns = ["seat", "sticks", "points"]
    if not obs["terminal"]:
        columns.append("payday now")
    if beneath:
        columns.append("beneath pays")
    for col in [*columns, "notes"]:
        table.add_column(col, justify="left" if col in ("seat", "sticks", "notes") else "right")
    extra = [int(s) for s in obs["extra_actions"]]
    winners = [int(w) for w in obs.get("winners", [])]
    for seat in range(players):
        name = Text("▶ " if seat == mover else "  ", style="bold")
        name.append_text(seat_text(seat, obs))
        sticks = Text()
        for k, hole in enumerate(obs["sticks"][seat]):
            g = 2 * seat + k
            if k:
                sticks.append(" ")
            sticks.append(f"{g:>2}", style=SEAT_STYLE[seat % len(SEAT_STYLE)])
            sticks.append(f"@{hole_name(int(hole))}" if hole >= 0 else "@--")
        value = payday_value(obs, seat)
        notes: list[str] = []
        if not obs["terminal"] and obs["phase"] != "setup" and seat == obs["placer"]:
            notes.append("placer")
        if obs["double_payday"][seat]:
            notes.append("pays double")
        if obs["skip"][seat]:
            notes.append("skips next action")
        if seat in extra:
            notes.append(f"owed {extra.count(seat)} extra action" + ("s" if extra.count(seat) > 1 else ""))
        if auction is not None:
            if seat == auction["drawer"]:
                notes.append("drew")
            if seat == auction["high"]:
                notes.append(f"high bid {auction['bid']}")
            notes.append("bidding" if seat in auction["active"] else "out")
        if seat in winners:
            notes.append("WINNER")
        cells = [name, sticks, Text(str(obs["points"][seat]), style="bold")]
        if not obs["terminal"]:
            cells.append(Text("—" if value is None else f"+{value}", style="dim" if not value else ""))
        if beneath:
            cells.append(Text(f"+{beneath_value(obs, seat)}", style="dim"))
        table.add_row(*cells, Text(", ".join(notes)))
    return table


# -- the decision ------------------------------------------------------------------------------------
def _slot_seat(obs: dict[str, Any]) -> int:
    """The seat whose regular action of the round comes now (MS-8)."""
    return (int(obs["placer"]) + 1 + int(obs["round_pos"])) % int(obs["players"])


def auction_lines(obs: dict[str, Any]) -> Text:
    """MS-11: the bid, the high bidder, who is still in, whose bid; the card only for its drawer."""
    auction = obs["auction"]
    drawer, turn, bid, high = (
        int(auction["drawer"]),
        int(auction["turn"]),
        int(auction["bid"]),
        auction["high"],
    )
    is_open = obs.get("auction_rule") == "open"  # MS-11a: a pass is not for good
    out = Text(f"{'open auction (MS-11a)' if is_open else 'auction (MS-11)'} of the card ", style="bold")
    out.append_text(seat_text(drawer, obs))
    out.append(" drew", style="bold")
    card = auction["card"]
    if card is not None:
        out.append("\nyour card (only you see it): ", style="bold cyan")
        out.append(f"#{card} {card_text(int(card))}")
    else:
        out.append(f"\nthe card is face down: only seat {drawer} has seen it", style="dim")
    out.append("\ncurrent bid: ")
    if high is None:
        out.append("none yet", style="dim")
    else:
        out.append(f"{bid} by ", style="bold")
        out.append_text(seat_text(int(high), obs))
    out.append(" · still in: " + (", ".join(f"seat {s}" for s in auction["active"]) or "nobody"))
    out.append("\n")
    out.append_text(seat_text(turn, obs))
    points = int(obs["points"][turn])
    if points <= bid:
        out.append(f" holds {points} point(s), not more than the bid: can only 'drop'", style="bold")
    elif turn == drawer and high is None:
        out.append(f" opens: 'bid N' (1 to {points}) or 'drop' to decline and stay out", style="bold")
    elif is_open:
        out.append(
            f" to bid: 'bid N' (N from {bid + 1} to {points}) or 'drop' to pass (you may bid again later)",
            style="bold",
        )
    else:
        out.append(f" to bid: 'bid N' (N from {bid + 1} to {points}) or 'drop' to leave", style="bold")
    out.append("\nthe buyer pays the drawer (the bank if the drawer buys) before the card acts", style="dim")
    return out


def effect_lines(obs: dict[str, Any]) -> Text:
    """MS-12: the card being carried out (public) and the choice it asks for now."""
    effect = obs["effect"]
    card, holder, decider = int(effect["card"]), int(effect["holder"]), int(effect["decider"])
    ops = CARDS[card].effect
    op = ops[min(int(effect["op"]), len(ops) - 1)]
    stage, left, stick = str(effect["stage"]), int(effect["left"]), effect["stick"]
    out = Text()
    out.append_text(seat_text(holder, obs))
    out.append(f" carries out card #{card} (MS-12):\n  ", style="bold")
    out.append(card_text(card), style="bold cyan")
    out.append("\n")
    out.append_text(seat_text(decider, obs))
    whose = op.get("whose")
    if stage == "choose_player":
        out.append(f" chooses the player to take {op['amount']} points from: 'player N'")
    elif stage == "turn":
        out.append(" turns the mask a quarter turn: 'turn cw' or 'turn ccw'")
    elif stage == "pick":
        which = "one of their own sticks" if whose == "own" else "an opponent's stick"
        out.append(f" chooses {which} to jump: 'stick N'")
    elif stage == "place":
        out.append(f" chooses the free hole stick {stick} jumps to: a hole, e.g. {example_hole(obs)}")
        if left > 1:
            out.append(f" ({left} jumps left)")
    elif stage == "pick_own":
        out.append(" chooses one of their sticks to swap: 'stick N'")
    elif stage == "pick_other":
        out.append(f" chooses the opponent's stick to swap with stick {stick}: 'stick N'")
    elif stage == "steps":
        if whose == "everyone":
            out.append(f" may move one own stick {left} step(s) for free, or 'done' (voluntary)")
            if effect["queue"]:
                out.append(" · then " + ", ".join(f"seat {s}" for s in effect["queue"]))
        elif whose == "own":
            out.append(f" moves their sticks for free: {left} step(s) left, 'step STICK DIRECTION' or 'done'")
        elif stick is None:
            out.append(f" steps an opponent's stick up to {left} step(s): 'step STICK DIRECTION' or 'done'")
        else:
            out.append(f" steps stick {stick} on: {left} step(s) left, 'step {stick} DIRECTION' or 'done'")
    else:
        out.append(f" decides ({stage})")
    return out


def turn_lines(obs: dict[str, Any]) -> Text:
    """Whose decision it is and what it is, with the notation to answer it."""
    phase = str(obs["phase"])
    if obs["terminal"]:
        winners = [int(w) for w in obs.get("winners", [])]
        out = Text("Game over. ", style="bold")
        best = max(int(p) for p in obs["points"])
        names = ", ".join(f"seat {w}" for w in winners) or "nobody"
        label = "Winners (a shared win): " if len(winners) > 1 else "Winner: "
        out.append(f"{label}{names} with {best} points", style="bold")
        if obs["unmasking"]:
            out.append("\nthe masks beneath have paid out (MS-15)")
        return out
    if phase == "auction":
        return auction_lines(obs)
    if phase == "effect":
        return effect_lines(obs)
    mover = int(obs["to_move"])
    out = seat_text(mover, obs)
    if phase == "setup":
        g = stick_holes(obs).index(-1)
        out.append(
            f" puts stick {g} in a free hole (MS-7): type a hole, e.g. {example_hole(obs)}"
            f" (not {hole_name(CENTRE)}, the centre)",
            style="bold",
        )
    elif phase == "lay":
        out.append(" lays the next mask (MS-8): 'lay N' = N quarter turns clockwise (0-3)", style="bold")
        if obs.get("mask_to_lay") is not None:
            mask = int(obs["mask_to_lay"])
            out.append(f"\nthe mask to lay: {MASKS[mask].name} (#{mask}); below, as each 'lay N' lays it")
            out.append(" (a stick hides the ring it stands on; the payday line counts it)", style="dim")
    elif phase == "action":
        extra = mover != _slot_seat(obs)
        out.append(f" {'takes an extra action (card)' if extra else 'takes their action'}", style="bold")
        if not extra:
            out.append(f" ({int(obs['round_pos']) + 1} of {obs['players']} this round)")
        out.append(":\n  'pass', 'draw' (auction the top card)")
        points = int(obs["points"][mover])
        if points > 0:
            out.append(f" or 'step STICK DIRECTION' (1 point a step, up to {points})")
        else:
            out.append("; no points: no steps")
    elif phase == "moving":
        out.append(f" is moving: {obs['points'][mover]} points left", style="bold")
        out.append(" · another 'step STICK DIRECTION' (1 point each) or 'done'")
    else:
        out.append(f" decides ({phase})")
    return out


def lay_preview(obs: dict[str, Any], orientation: int) -> Text:
    """The mask being laid (``obs["mask_to_lay"]``) as ``lay {orientation}`` would lay it: its rings,
    the centre and the sticks (a stick's number hides its ring), a row per rank, then what each seat
    would earn at payday on it (MS-13)."""
    values = MASK_VALUES[int(obs["mask_to_lay"])][orientation]
    holes = stick_holes(obs)
    text = Text()
    for r in range(SIZE):
        for c in range(SIZE):
            hole = r * SIZE + c
            mark, style = CENTRE_MARK if hole == CENTRE else RING[values[hole]]
            if hole in holes:
                g = holes.index(hole)
                text.append(f"{g:>2}", style=SEAT_STYLE[(g // 2) % len(SEAT_STYLE)])
            else:
                text.append(f" {mark}", style=style)
        text.append("\n")
    pays = [
        sum(values[int(h)] for h in sticks if h >= 0) * (1 + bool(double))
        for sticks, double in zip(obs["sticks"], obs["double_payday"], strict=True)
    ]
    text.append("payday by seat: " + " ".join(map(str, pays)), style="dim")
    return text


def mask_to_lay(obs: dict[str, Any]) -> RenderableType | None:
    """MS-8: the mask being laid (the observation names it) in each of its four orientations, so
    the placer sees what each ``lay N`` does before choosing."""
    if obs["phase"] != "lay" or obs.get("mask_to_lay") is None:
        return None
    row = Table.grid(padding=(0, 1))
    for _ in range(4):
        row.add_column()
    row.add_row(*(Panel(lay_preview(obs, o), title=f"lay {o}", expand=False) for o in range(4)))
    return row


def log_lines(obs: dict[str, Any], width: int = 100) -> Text:
    """The last lines of the public log, a sold card spelled out (it is public once bought), each
    line cut to ``width`` characters."""
    log = [str(line) for line in obs["log"]][-LOG_LINES:]
    out = Text()
    for line in log:
        out.append(("\n" if out else "") + "log: " + line, style="dim")
        sold = re.search(r"bought card (\d+) for", line)
        if sold:
            text = card_text(int(sold.group(1)))
            room = width - len(line) - 8
            out.append(": " + (text if len(text) <= room else text[: room - 1] + "…"), style="dim")
    if obs.get("last_move"):
        out.append(("\n" if out else "") + f"last move: {obs['last_move']}")
    return out


class FittedLog:
    """The log drawn to the width the console gives it (a card's text is cut, not wrapped)."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self.obs = obs

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield log_lines(self.obs, options.max_width)


def legend(obs: dict[str, Any]) -> Text:
    out = Text("legend: ", style="dim")
    for value in (3, 5):
        mark, style = RING[value]
        out.append(mark, style=style)
        out.append(f" {'single' if value == 3 else 'double'} ring pays {value}  ", style="dim")
    out.append(RING[0][0], style=RING[0][1])
    out.append(" pays 0  ", style="dim")
    out.append(CENTRE_MARK[0], style=CENTRE_MARK[1])
    out.append(" centre (no hole)\nsticks: ", style="dim")
    for seat in range(int(obs["players"])):
        out.append(f"{2 * seat:>2}", style=SEAT_STYLE[seat])
        out.append(" ")
        out.append(f"{2 * seat + 1:>2}", style=SEAT_STYLE[seat])
        out.append(f" seat {seat}  ", style="dim")
    out.append("\n" + NOTATION, style="dim")
    return out


def board(obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    """The whole view: seats, the plate beside the masks, the decision, the log, the legend."""
    side = Table.grid(padding=(0, 2))
    side.add_column()
    side.add_column()
    side.add_row(Panel(plate(obs), title="plate", expand=False), mask_lines(obs))
    parts: list[RenderableType] = [status(obs), side]
    below = below_lines(obs, show_layers=show_layers)
    if below is not None:
        parts.append(below)
    parts.append(turn_lines(obs))
    to_lay = mask_to_lay(obs)
    if to_lay is not None:
        parts.append(to_lay)
    if obs["log"] or obs.get("last_move"):
        parts.append(FittedLog(obs))
    parts.append(legend(obs))
    return Group(*parts)


TERMINAL = TerminalPart(
    board=board,
    move_help=(
        "Enter a move: a hole (c4) to place or jump a stick, 'step STICK DIRECTION'",
        "(e.g. step 2 up; up/right/down/left; seat s owns sticks 2s and 2s+1), 'pass',",
        "'draw', 'done' (end a move or free steps), 'bid N' or 'drop' in an auction",
        "(in the open auction, 'drop' passes and you may bid again),",
        "'lay N' (lay the mask N quarter turns clockwise), 'turn cw|ccw', 'stick N',",
        "'player N', or the number of a move from the last listing.",
    ),
    moves_help="moves           list legal moves",
)
"""Maske's terminal part (``MaskeGame.parts["terminal"]``)."""
