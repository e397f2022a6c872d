"""Terminal play: humans and bots in seats, one game, its record saved at the end.

Humans type moves in the game's notation, or a number from the last ``moves`` listing.  When the
game has hidden information and several humans share the terminal, the screen is cleared and a
prompt asks the next player to take the keyboard before their private view is shown.

A game is never lost: ``quit``, the end of input or Ctrl-C, wherever they come (at the move prompt,
at the hand-over, while a bot thinks), stop the game, and the caller saves its record.  What a
person typed is printed as typed (no markup).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir
from rich.console import Console
from rich.text import Text

from ..ai import Bot, make_bot
from ..engine import ActionError, Game, GameRecord, MalformedActionError, State
from ..engine.chance import stream
from .files import make_parent, parse_json, read_text, reason
from .output import printable
from .parts import TerminalPart, terminal_part

HUMAN = "human"
MAX_LISTED = 80
# Longer than any move or command (a file to save to aside), so never one to read or echo.
MAX_LINE = 200
HAND_OVER_BLANK_LINES = 200
"""Blank lines that push a seat's view out of sight where the screen cannot be cleared."""


def records_dir() -> Path:
    """Where finished games are saved by default (the user's data directory)."""
    return Path(user_data_dir("masques")) / "records"


def default_record_path(game: Game) -> Path:
    """A new file in :func:`records_dir` for a record of ``game``, named by the time (to the
    microsecond) and numbered if that name is taken.  The file is created, empty, so that no other
    game, in this process or another, is saved over it (OSError if the folder cannot be written)."""
    folder = records_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S-%f")
    for number in itertools.count(1):
        path = folder / (f"{game.name}-{stamp}.json" if number == 1 else f"{game.name}-{stamp}-{number}.json")
        try:
            path.open("x", encoding="utf-8").close()
        except FileExistsError:
            continue
        return path
    raise AssertionError("unreachable")


def parse_seats(spec: str, num_players: int) -> list[str]:
    """``human,random,random``: one entry per seat; a single entry is used for every seat; empty: a
    human in seat 0 and random bots in the others."""
    seats = [s.strip().lower() for s in spec.split(",") if s.strip()]
    if not seats:
        return [HUMAN] + ["random"] * (num_players - 1)
    for s in seats:
        if s != HUMAN:
            make_bot(s)  # raises with the known kinds
    if len(seats) == 1:
        seats *= num_players
    if len(seats) != num_players:
        raise ValueError(f"--seats lists {len(seats)} seats; this game has {num_players} players")
    return seats


@dataclass
class TerminalGame:
    """One game in the terminal.  ``ask`` reads a line (raises EOFError when input ends)."""

    game: Game
    seats: list[str]
    seed: int
    console: Console
    ask: Callable[[str], str]
    show_layers: bool = True
    bot_seed: int | None = None
    save_path: Path | None = None
    """Where ``save`` without a file writes (``--save``), else this game's file in the records folder."""
    state: State = field(init=False)
    listed: list[int] = field(default_factory=list)
    part: TerminalPart = field(init=False)
    saved_to: Path | None = field(default=None, init=False)
    """This game's file in the records folder, once a save without a path has made it."""
    interrupted: bool = field(default=False, init=False)
    """Ctrl-C (or a signal acting like it) stopped the game, not ``quit`` or the end of input."""

    def __post_init__(self) -> None:
        self.part = terminal_part(self.game.name)
        self.state = self.game.new_initial_state(self.seed)
        # The bots draw from a stream of their own: what they play reveals nothing of the deal.
        self.rng = stream(self.seed if self.bot_seed is None else self.bot_seed, "play/bots")
        self.bots: dict[int, Bot] = {
            seat: make_bot(kind, self.game.name) for seat, kind in enumerate(self.seats) if kind != HUMAN
        }
        self.histories: list[list[Any]] = [[] for _ in self.seats]
        self.humans = [seat for seat, kind in enumerate(self.seats) if kind == HUMAN]

    def record(self) -> GameRecord:
        return GameRecord.of(self.state)

    def record_path(self) -> Path:
        """This game's own file in the records folder (made at the first call; OSError if it cannot be)."""
        if self.saved_to is None:
            self.saved_to = default_record_path(self.game)
        return self.saved_to

    def say(self, text: str, style: str = "") -> None:
        """Print a line as it is (no markup): it may hold what a person typed."""
        self.console.print(Text(printable(text), style=style), soft_wrap=True)

    def _observe(self) -> None:
        for seat in range(len(self.seats)):
            self.histories[seat].append(self.state.observation(seat))

    def _viewer(self) -> int | None:
        """Whose view the screen shows: the only human, or the spectator's for bots-only games."""
        if len(self.humans) == 1:
            return self.humans[0]
        return None

    def run(self) -> bool:
        """Play to the end; False if the game stopped first: a human quit, or input ended or Ctrl-C
        came, at any prompt or while a bot thought.  The state keeps every move played (a move is
        in it whole or not at all), so the caller saves the record either way."""
        try:
            return self._play()
        except (EOFError, KeyboardInterrupt) as exc:
            self.interrupted = isinstance(exc, KeyboardInterrupt)
            with contextlib.suppress(OSError):  # a closed terminal: the game is still saved
                self.console.print()
            return False

    def _play(self) -> bool:
        hidden = bool(self.game.hidden_information)
        self._observe()
        last_human: int | None = None
        while not self.state.is_terminal():
            seat = self.state.current_player
            if seat in self.bots:
                action = self.bots[seat].act(
                    self.game, seat, self.histories[seat], self.state.legal_actions(), self.rng
                )
                self.console.print(
                    Text.assemble(
                        f"seat {seat} ({self.seats[seat]}) plays ",
                        (self.state.action_to_str(action), "bold"),
                    )
                )
            else:
                if hidden and len(self.humans) > 1 and last_human != seat:
                    self.hide_screen()
                    answer = self.ask(f"Seat {seat}: take the keyboard and press Enter (others look away) ")
                    if answer.strip().lower() in ("quit", "q", "exit"):
                        return False  # before this seat's view is drawn for whoever typed it
                last_human = seat
                self.show(seat)
                chosen = self.prompt(seat)
                if chosen is None:
                    return False
                action = chosen
            self.state.apply(action)
            self._observe()
        self.show(self._viewer() if hidden else None)
        self.say(result_line(self.state))
        return True

    def hide_screen(self) -> None:
        """Take the last seat's view off the screen before the hand-over.  A terminal that cannot
        be cleared (a dumb one, output through a pipe) gets a screenful of blank lines and more, so
        that the view is at least scrolled out of sight."""
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            self.console.clear()
            self.console.file.write("\x1b[3J")  # also wipe the scrollback: it holds the last view
        else:
            self.console.file.write("\n" * HAND_OVER_BLANK_LINES)
            self.console.file.flush()

    def show(self, seat: int | None) -> None:
        obs = self.state.observation(seat)
        self.console.print(self.part.board(obs, show_layers=self.show_layers))

    def help_text(self) -> str:
        """The game's title and options, how to type a move, the commands, the game's notes."""
        options = ", ".join(f"{k}={json.dumps(v)}" for k, v in self.game.options.items())
        lines = [f"{self.game.title} ({self.game.name}" + (f"; {options})" if options else ")")]
        if self.part.move_help:
            lines += self.part.move_help
        else:
            legal = self.state.legal_actions()
            example = f" (e.g. {self.state.action_to_str(legal[0])})" if legal else ""
            lines += [
                f"Enter a move in the game's notation{example},",
                "or the number of a move from the last listing ('moves').",
            ]
        lines.append("  " + self.part.moves_help)
        lines += [f"  {c.usage:<15} {c.help}" for c in self.part.commands.values()]
        lines += [
            "  board           draw the board again (layers on/off: layers)",
            "  save [FILE]     save the game record now",
            "  quit            stop (the record is saved)",
            *self.part.notes,
        ]
        return "\n".join(lines)

    def list_moves(self, piece: str | None) -> None:
        legal = self.state.legal_actions()
        texts = [(a, self.state.action_to_str(a)) for a in legal]
        if piece:
            texts = [(a, t) for a, t in texts if _group(t).upper() == piece.upper()]
        if len(texts) > MAX_LISTED and not piece:
            counts: dict[str, int] = {}
            for _, t in texts:
                counts[_group(t)] = counts.get(_group(t), 0) + 1
            summary = ", ".join(f"{p}: {n}" for p, n in counts.items())
            self.say(f"{len(texts)} legal moves ({summary}). Type 'moves PIECE' to list one piece.")
            return
        if not texts:
            self.say(f"No legal move uses {piece!r}.")
            return
        self.listed = [a for a, _ in texts]
        width = max(len(t) for _, t in texts) + 6
        per_row = max(1, 100 // width)
        for i in range(0, len(texts), per_row):
            row = texts[i : i + per_row]
            self.say("".join(f"{i + j + 1:>3}. {t:<{width - 5}}" for j, (_, t) in enumerate(row)))

    def prompt(self, seat: int) -> int | None:
        """Read commands until a legal move is given; None if the player quits."""
        self.listed = []  # a listing numbers the moves of the position it was made in
        while True:
            try:
                line = self.ask(f"seat {seat} move (help for commands): ").strip()
            except (EOFError, KeyboardInterrupt) as exc:
                self.interrupted = isinstance(exc, KeyboardInterrupt)
                with contextlib.suppress(OSError):
                    self.console.print()
                return None
            if not line:
                continue
            word, _, rest = line.partition(" ")
            word = word.lower()
            if len(line) > MAX_LINE and word != "save":  # a paste gone wrong: not echoed back
                self.say(f"That line is {len(line)} characters long: no move or command is.", style="red")
                continue
            if word in ("help", "?", "h"):
                self.say(self.help_text())
            elif word in ("quit", "q", "exit"):
                return None
            elif word in ("moves", "m", "list"):
                self.list_moves(rest.strip() or None)
            elif word in self.part.commands:
                self.console.print(self.part.commands[word].run(rest, self.state.observation(seat)))
            elif word == "board":
                self.show(seat)
            elif word == "layers":
                self.show_layers = not self.show_layers
                self.show(seat)
            elif word == "save":
                self.save_now(rest.strip())
            elif _listed_number(line) and self.listed and 1 <= int(line) <= len(self.listed):
                return self.listed[int(line) - 1]
            else:
                try:
                    action = self.state.action_from_str(line)
                    self.state.check_action(action)
                except ActionError as exc:
                    if line.isdigit() and isinstance(exc, MalformedActionError):
                        # a number that is no listed move and not a move of the game's notation
                        if self.listed:
                            self.say(f"No move {line}: the list has moves 1 to {len(self.listed)}.")
                        else:
                            self.say("No such number: list moves first with 'moves'.")
                    else:
                        self.say(str(exc), style="red")
                    continue
                return action

    def hidden_from_a_person(self) -> bool:
        """Whether a person at this table may not see what another seat holds: the game hides
        something and more than one person plays (then the deal's seed is nobody's to know)."""
        return bool(self.game.hidden_information) and len(self.humans) > 1

    def save_now(self, where: str) -> None:
        """The ``save [FILE]`` command: a file that cannot be written is said, and the game goes on.
        A table of several people in a game that hides something is not saved before its end: the
        record holds the seed, which would show whoever saved it every seat's secrets."""
        if self.hidden_from_a_person() and not self.state.is_terminal():
            self.say(
                "not saved before the game ends: the record holds the deal's seed, which would show "
                "every seat's secrets; it is saved when the game ends or stops",
                style="red",
            )
            return
        try:
            path = save_record(
                self.record(),
                Path(where).expanduser() if where else (self.save_path or self.record_path()),
            )
        except (OSError, ValueError, RuntimeError) as exc:  # a NUL in the name; ~nosuchuser
            problem = reason(exc) if isinstance(exc, OSError) else str(exc)
            target = repr(where) if where else "the records folder"
            self.say(f"cannot save to {target}: {problem}; the game goes on", style="red")
            return
        self.say(f"saved to {path}")


def _listed_number(line: str) -> bool:
    """A number a listing could give (ASCII digits, a few of them): '²' passes ``isdigit`` but not
    ``int``, and Python refuses to convert numbers of thousands of digits."""
    return line.isascii() and line.isdigit() and len(line) <= 6


def _group(move_text: str) -> str:
    """What 'moves X' filters on: the piece (L4:5@c3), the card (12@e5) or the kind (bid 12)."""
    return re.split(r"[:@ ]", move_text, maxsplit=1)[0]


def result_line(state: State) -> str:
    """The end of a game in any game's terms: scores by seat and the winners."""
    winners = state.winners()
    scores = ", ".join(f"{score:g}" for score in state.scores())
    who = ", ".join(f"seat {w}" for w in winners) or "nobody"
    return f"Result: scores by seat {scores}; winner{'s' if len(winners) > 1 else ''}: {who}"


def save_record(record: GameRecord, path: Path) -> Path:
    """Write the record to ``path`` (its folders are made); OSError if it cannot be."""
    make_parent(path)
    path.write_text(record.dumps() + "\n", "utf-8")
    return path


def load_record_file(path: Path) -> dict[str, Any]:
    """Read a record or a redacted record as JSON (the caller decides which it is): OSError if it
    cannot be read, ValueError if it is too big (64 MiB), not UTF-8, not JSON, nested too deeply or
    not a JSON object."""
    data = parse_json(read_text(path))
    if not isinstance(data, dict):
        raise ValueError("it does not hold a game record (a JSON object)")
    return data
