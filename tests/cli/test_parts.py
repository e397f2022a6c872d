"""The terminal part type and its default: a game with no terminal part plays in ``masques play``.

The game here exists only in this file and brings no parts; it is registered for a test at a time.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from masques.cli import parts
from masques.cli.main import add_game_commands, app
from masques.engine import (
    TERMINAL,
    Game,
    GameRecord,
    MalformedActionError,
    OptionSpec,
    State,
    registry,
)

runner = CliRunner()


class PebblesGame(Game):
    """Take 1 or 2 pebbles from a pile; who takes the last one wins.  Each take is logged as a
    record, so the observation has scalars, a grid, a list of records and a nested mapping."""

    name = "pebbles"
    title = "Pebbles"
    rules_version = "1"
    option_specs = (OptionSpec("pile", "int", 7, "pebbles at the start", (5, 7, 9)),)

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_distinct_actions(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return int(self.options["pile"])

    def new_initial_state(self, seed: int = 0, *, chance: int = 2) -> State:
        return PebblesState(self, seed, chance)

    def _sample_from(self, seat: int | None, observation: Any, rng: random.Random) -> State:
        state = PebblesState(self, 0, 2)
        for take in observation["takes"]:
            state.apply(int(take["took"]) - 1)
        return state


class PebblesState(State):
    def __init__(self, game: PebblesGame, seed: int, chance: int) -> None:
        self.game = game
        self.seed = seed
        self.chance = chance
        self.history = []
        self.pile = int(game.options["pile"])

    @property
    def current_player(self) -> int:
        return TERMINAL if self.pile == 0 else len(self.history) % 2

    def legal_actions(self) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= self.pile]

    def is_legal(self, action: int) -> bool:
        return action + 1 <= self.pile

    def _apply(self, action: int) -> None:
        self.pile -= action + 1

    def is_terminal(self) -> bool:
        return self.pile == 0

    def scores(self) -> list[float]:
        return [float(w in self.winners()) for w in range(2)]

    def winners(self) -> list[int]:
        return [(len(self.history) - 1) % 2] if self.is_terminal() else []

    def clone(self) -> State:
        other = PebblesState(self.game, self.seed, self.chance)  # type: ignore[arg-type]
        for action in self.history:
            other.apply(action)
        return other

    def observation(self, seat: int | None) -> Any:
        return {
            "game": self.game.name,
            "seat": seat,
            "pile": self.pile,
            "rows": [[1 if i < self.pile else 0 for i in range(r * 3, r * 3 + 3)] for r in range(3)],
            "takes": [{"seat": i % 2, "took": a + 1} for i, a in enumerate(self.history)],
            "rules": {"last_wins": True, "max_take": 2},
            "winner": self.winners()[0] if self.is_terminal() else None,
        }

    def serialize(self) -> Any:
        return {"game": self.game.name, "options": self.game.options, "history": list(self.history)}

    def action_to_json(self, action: int) -> Any:
        return {"take": action + 1}

    def action_from_json(self, obj: Any) -> int:
        return int(obj["take"]) - 1

    def action_to_str(self, action: int) -> str:
        return f"take {action + 1}"

    def action_from_str(self, text: str) -> int:
        word, _, count = text.strip().partition(" ")
        if word != "take" or count not in ("1", "2"):
            raise MalformedActionError(f"cannot read {text!r}: a move is 'take 1' or 'take 2'", text)
        return int(count) - 1


@pytest.fixture
def pebbles(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[PebblesGame]]:
    """Pebbles registered for one test (the shipped games stay as they are)."""
    registry.game_names()  # the shipped games first, as any command would load them
    monkeypatch.setitem(registry._GAMES, PebblesGame.name, PebblesGame)
    monkeypatch.setattr(registry, "_PARTS", {})
    yield PebblesGame


def test_a_game_without_a_terminal_part_plays_to_the_end_in_masques_play(
    pebbles: type[PebblesGame], tmp_path: Path
) -> None:
    assert parts.terminal_part("pebbles") is parts.DEFAULT
    record = tmp_path / "pebbles.json"
    # '3' is past the listing; '2' on the next turn comes before its listing (a listing is per position)
    typed = ["help", "moves", "3", "take 3", "take 1", "2", *["moves", "1"] * 9]
    result = runner.invoke(
        app,
        ["play", "pebbles", "--pile", "9", "--seats", "human,random", "--seed", "3", "--save", str(record)],
        input="\n".join(typed) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    # the help: the game's title and options, the notation by example, the generic commands
    assert "Pebbles (pebbles; pile=9)" in out
    assert "Enter a move in the game's notation (e.g. take 1)" in out
    assert "moves [WORD]" in out and "save [FILE]" in out
    # the listing is in the game's own notation, and numbers refer to it
    assert "1. take 1" in out and "2. take 2" in out
    assert "No move 3: the list has moves 1 to 2." in out  # '3' is past the listing
    assert "No such number: list moves first with 'moves'." in out  # '2' on a turn not yet listed
    assert "cannot read 'take 3': a move is 'take 1' or 'take 2'" in out
    # the default board: every field of the observation, grids and records drawn as tables
    assert "pebbles · seat 0's view" in out
    assert "pile" in out and "takes" in out and "last_wins" in out and "max_take" in out
    assert "Game over. Record saved" in out
    saved = GameRecord.loads(record.read_text("utf-8"))
    final = saved.replay()
    assert final.is_terminal()
    assert f"Result: scores by seat {', '.join(f'{s:g}' for s in final.scores())}" in out
    assert f"winner: seat {final.winners()[0]}" in out
    assert saved.actions[0::2] == [0] * len(saved.actions[0::2])  # 'take 1', typed or listed first
    replayed = runner.invoke(app, ["replay", str(record), "--every"])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout.count("pebbles · spectator") == len(saved.actions) + 1


def render(value: Any) -> str:
    console = Console(record=True, width=120, file=io.StringIO())
    console.print(parts.default_board(value))
    return console.export_text()


def test_default_board_draws_grids_records_mappings_and_plain_values() -> None:
    obs = {
        "game": "demo",
        "seat": None,
        "to_move": 1,
        "over": False,
        "none": None,
        "grid": [[1, 0, 2], [0, 3, 0]],
        "players": [{"seat": 0, "points": 4}, {"seat": 1, "points": 7, "note": "leads"}],
        "counts": list(range(45)),
        "nested": {"a": {"b": {"c": {"d": [1, 2]}}}},
        "empty": [],
        "log": [{"turn": t} for t in range(30)],
    }
    text = render(obs)
    lines = text.splitlines()
    assert lines[0].strip() == "demo · spectator"
    assert any(line.split()[:2] == ["to_move", "1"] for line in lines)
    assert any(line.split()[:2] == ["over", "no"] for line in lines)
    assert any(line.split()[:2] == ["none", "—"] for line in lines)
    assert any(line.split() == ["grid", "0", "1", "2"] for line in lines)  # the grid's column indices
    assert any(line.split() == ["0", "1", "0", "2"] for line in lines)
    assert any(line.split() == ["1", "0", "3", "0"] for line in lines)
    assert any(line.split() == ["players", "seat", "points", "note"] for line in lines)
    assert any(line.split() == ["1", "7", "leads"] for line in lines)
    assert "0, 1, 2, 3" in text and "43, 44" in text  # a long list of plain values, wrapped
    assert any(line.split() == ["log", "the", "latest", "12", "of", "30:"] for line in lines)
    assert [line.split() for line in lines].count(["turn"]) == 1
    assert ["29"] in [line.split() for line in lines] and ["17"] not in [line.split() for line in lines]
    assert "'d': [1, 2]" in text  # deep nesting printed as data
    assert any(line.split() == ["empty", "(none)"] for line in lines)
    assert render([1, 2]).strip() == "[1, 2]"  # not a dict: printed as data


def test_terminal_part_is_the_default_for_an_unknown_game_and_checks_the_type(
    pebbles: type[PebblesGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert parts.terminal_part("no-such-game") is parts.DEFAULT
    monkeypatch.setitem(registry._PARTS, ("pebbles", "terminal"), object())
    with pytest.raises(TypeError, match="not a TerminalPart"):
        parts.terminal_part("pebbles")


def test_shipped_games_name_their_terminal_part() -> None:
    shipped = [
        n for n in registry.game_names() if registry.game_class(n).__module__.startswith("masques.games.")
    ]
    assert len(shipped) >= 4
    for name in shipped:
        part = parts.terminal_part(name)
        assert part is not parts.DEFAULT and part.move_help, name


def test_game_commands_are_mounted_and_a_taken_name_is_refused(
    pebbles: type[PebblesGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = typer.Typer(name="pile-up", help="Pebbles puzzles.")

    @extra.command("count")
    def count(pile: int = 3) -> None:
        print(f"{pile} pebbles")

    monkeypatch.setitem(registry._PARTS, ("pebbles", "terminal"), parts.TerminalPart(app=extra))
    fresh = typer.Typer()

    @fresh.command()
    def games() -> None:
        print("games")

    add_game_commands(fresh)
    result = runner.invoke(fresh, ["pile-up", "count", "--pile", "5"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "5 pebbles"
    assert runner.invoke(fresh, ["solve", "--help"]).exit_code == 0  # Blokus 3D's, from its part
    taken = typer.Typer()

    @taken.command("pile-up")
    def pile_up() -> None:
        print("taken")

    with pytest.raises(ValueError, match="game 'pebbles': the command name 'pile-up' is already taken"):
        add_game_commands(taken)
    unnamed = parts.TerminalPart(app=typer.Typer())
    monkeypatch.setitem(registry._PARTS, ("pebbles", "terminal"), unnamed)
    with pytest.raises(ValueError, match="needs a name"):
        add_game_commands(typer.Typer())


def test_help_lists_a_game_commands_and_notes(
    pebbles: type[PebblesGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part's prompt commands run on the seat's observation; its help and notes are shown."""
    seen: list[tuple[str, int]] = []

    def peek(argument: str, obs: dict[str, Any]) -> str:
        seen.append((argument, obs["pile"]))
        return f"the pile holds {obs['pile']}"

    part = parts.TerminalPart(
        move_help=("Type take N.",),
        commands={"peek": parts.Command("peek [WHAT]", "look at the pile", peek)},
        notes=("Last pebble wins.",),
    )
    monkeypatch.setitem(registry._PARTS, ("pebbles", "terminal"), part)
    result = runner.invoke(
        app, ["play", "pebbles", "--seats", "human,random", "--seed", "1"], input="help\npeek closely\nquit\n"
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Type take N." in out and "e.g. take 1" not in out
    assert "peek [WHAT]" in out and "look at the pile" in out and "Last pebble wins." in out
    assert "the pile holds 7" in out and seen == [("closely", 7)]
