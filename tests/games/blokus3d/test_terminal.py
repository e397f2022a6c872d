"""Blokus 3D's terminal part: the solitaire commands it adds to ``masques`` (B3-10), ``show PIECE`` at
the move prompt, and its help."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from masques.cli.main import app
from masques.games.blokus3d import terminal

runner = CliRunner()


def test_solve_single_colour_cube_prints_the_table_and_the_soma_count() -> None:
    """B3-10: the table per piece set, totals, impossible sets; Soma = 240."""
    result = runner.invoke(app, ["solve", "cube", "--size", "3", "--single-colour"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "the Soma cube" in out
    soma_row = next(line for line in out.splitlines() if "Soma" in line)
    assert "480" in soma_row and "240" in soma_row
    assert "13 of 56 piece sets are possible" in out
    assert "3372 distinct cubes up to rotation" in out
    assert "Impossible piece sets (43)" in out


@pytest.mark.parametrize("size", [3, 4, 5])
def test_solve_multi_colour_packing_prints_every_layer(size: int) -> None:
    """B3-10 (a): one packing per size, printed layer by layer."""
    result = runner.invoke(app, ["solve", "cube", "--size", str(size)])
    assert result.exit_code == 0, result.output
    assert f"z = {size - 1}" in result.stdout
    cells = [w for line in result.stdout.splitlines() for w in line.split() if len(w) == 3 and w[0] in "byrg"]
    assert len(cells) == size**3


@pytest.mark.parametrize(
    ("args", "fragment"),
    [(["--size", "6"], "one of 3, 4, 5"), (["--size", "4", "--single-colour"], "needs --size 3")],
)
def test_solve_refuses_bad_sizes(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["solve", "cube", *args])
    assert result.exit_code == 2
    assert fragment in result.stderr


def test_show_draws_every_orientation_or_names_the_pieces() -> None:
    """B3-3: ``show PIECE`` numbers the orientations as the move notation does."""
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(terminal.TERMINAL.commands["show"].run(" v3 ", {}))
    drawn = console.export_text()
    assert "V3:0" in drawn and "V3:11" in drawn and "V3:12" not in drawn
    console.print(terminal.TERMINAL.commands["show"].run("Q9", {}))
    assert "unknown piece 'Q9': I2 (" in console.export_text()
    console.print(terminal.TERMINAL.commands["show"].run("  ", {}))
    assert "show which piece? Type 'show PIECE', one of: I2 (" in console.export_text()


def test_help_names_the_notation_the_pieces_and_show() -> None:
    result = runner.invoke(
        app, ["play", "blokus3d", "--seats", "human,random,random,random"], input="help\nquit\n"
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Blokus 3D (blokus3d; players=4" in out
    assert "L4:5@c3 = piece L4, orientation 5, anchor on c3" in out
    assert "show PIECE" in out and "moves [PIECE]" in out and "Pieces: I2 (" in out
