"""Mascarade in the terminal (its "terminal" part): the 10x10 layout with every card's five features,
and the move notation's help.

Each card is five letters, one per feature in the order face, hair, eyes, nose, mouth (the legend
says which letter is which value), so a player can see at a glance what two cards share.  Everything
here reads the observation only.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...cli.parts import TerminalPart
from .game import CARDS, FEATURE_TABLE, FEATURES, SIZE, START

FILES = "abcdefghij"
FEATURE_STYLES = ("bold magenta", "yellow", "cyan", "green", "red")


def _letters() -> dict[str, dict[str, str]]:
    """A distinct letter per value within each feature (upper case for the face shape)."""
    out: dict[str, dict[str, str]] = {}
    for feature in FEATURES:
        used: set[str] = set()
        letters: dict[str, str] = {}
        for value in FEATURE_TABLE[feature]["values"]:
            key = value["key"]
            letter = next(ch for ch in key + "xyzqw" if ch not in used)
            used.add(letter)
            letters[key] = letter.upper() if feature == "face" else letter
        out[feature] = letters
    return out


LETTERS = _letters()


def card_code(card: int) -> Text:
    """Five coloured letters: face, hair, eyes, nose, mouth."""
    text = Text()
    for feature, value, style in zip(FEATURES, CARDS[card].features(), FEATURE_STYLES, strict=True):
        text.append(LETTERS[feature][value], style=style)
    return text


def card_words(card: int, language: str = "en") -> str:
    values = []
    for feature, value in zip(FEATURES, CARDS[card].features(), strict=True):
        entry = next(v for v in FEATURE_TABLE[feature]["values"] if v["key"] == value)
        values.append(f"{FEATURE_TABLE[feature]['names'][language]} {entry[language]}")
    return ", ".join(values)


def layout(obs: dict[str, Any]) -> Table:
    """The board: each placed card as its code and number; the start square marked while empty."""
    board: dict[int, int] = {p["square"]: p["card"] for p in obs["placed"]}
    table = Table(box=None, padding=(0, 1), show_header=True, title="the layout (card number over features)")
    table.add_column("")
    for c in range(SIZE):
        table.add_column(FILES[c], justify="center")
    for r in range(SIZE):
        cells: list[Text] = [Text(f"{r + 1:>2}", style="dim")]
        for c in range(SIZE):
            square = r * SIZE + c
            if square in board:
                cell = Text(f"#{board[square]}\n", style="dim")
                cell.append_text(card_code(board[square]))
                cells.append(cell)
            elif square == START and not board:
                cells.append(Text("start\n  ★  ", style="bold"))
            else:
                cells.append(Text("\n  ·  ", style="dim"))
        table.add_row(*cells)
    return table


def hand(obs: dict[str, Any]) -> RenderableType:
    """The viewer's own hand, with every feature spelled out."""
    if obs.get("hand") is None:
        return Text("(spectator: hands are hidden)", style="dim")
    table = Table(title=Text(f"your hand (seat {obs['seat']})", style="table.title"))
    table.add_column("card", justify="right")
    table.add_column("code")
    table.add_column("features")
    for card in obs["hand"]:
        table.add_row(str(card), card_code(card), card_words(card))
    return table


def status(obs: dict[str, Any]) -> Table:
    table = Table(title="Mascarade" + (" (scoring)" if obs["scoring"] else ""))
    for col in ("seat", "cards in hand", "forced draws", *(["points"] if obs["scoring"] else [])):
        table.add_column(col)
    for seat in range(obs["players"]):
        marker = "▶ " if obs["to_move"] == seat else "  "
        row = [Text(f"{marker}{seat}"), Text(str(obs["hand_sizes"][seat])), Text(str(obs["draws"][seat]))]
        if obs["scoring"]:
            row.append(Text(str(obs["scores"][seat])))
        table.add_row(*row)
    table.caption = Text(f"pool: {obs['pool_size']} cards", style="table.caption")
    return table


def legend() -> Text:
    text = Text("Legend — ", style="dim")
    for feature, style in zip(FEATURES, FEATURE_STYLES, strict=True):
        pairs = ", ".join(f"{letter}={key}" for key, letter in LETTERS[feature].items())
        text.append(f"{feature}: ", style=style)
        text.append(pairs + "  ")
    return text


def board(obs: dict[str, Any], *, show_layers: bool = True) -> RenderableType:
    parts: list[RenderableType] = [status(obs), layout(obs), legend(), hand(obs)]
    if obs.get("last_move"):
        parts.append(Text(f"last move: {obs['last_move']}"))
    if obs.get("drew_this_turn") and obs.get("to_move") is not None:
        parts.append(Text(f"seat {obs['to_move']} could place nothing and drew a card (MC-7)"))
    if obs["terminal"]:
        line = f"Game over. Winner: seat {obs['winners'][0]}."
        if obs.get("tie_break"):
            *tied, lot = obs["tie_break"]
            line += f" Seats {', '.join(map(str, tied))} were tied; the lot chose seat {lot}."
        parts.append(Text(line, style="bold"))
    return Group(*parts)


TERMINAL = TerminalPart(
    board=board,
    move_help=(
        "Enter CARD@SQUARE to place a card of your hand (e.g. 12@e5), or 'pass' when",
        "nothing fits, or the number of a move from the last listing.",
    ),
    moves_help="moves [CARD]    list legal moves (of one card)",
)
"""Mascarade's terminal part (``MascaradeGame.parts["terminal"]``)."""
