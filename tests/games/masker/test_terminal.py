"""Masker in the terminal: bots-only games and replays, a human at the keyboard, hot-seat privacy
(MK-15), bad options, and the rich drawing of observations (2D grid, 3D stacks, status)."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.style import Style
from typer.testing import CliRunner

from masques.cli.main import app
from masques.engine import MalformedActionError, load_game
from masques.games.masker import terminal
from masques.games.masker.game import STOP, MaskerState

runner = CliRunner()

KEYBOARD = "take the keyboard"
PLAY_3D = ["play", "masker", "--players", "3", "--variant", "3d"]
HOT_SEAT = ["play", "masker", "--seats", "human,human"]
YOUR_COLOUR = re.compile(r"your colour: (\w+)")


def new_state(players: int = 2, variant: str = "2d", seed: int = 0) -> MaskerState:
    state = load_game("masker", {"players": players, "variant": variant}).new_initial_state(seed)
    assert isinstance(state, MaskerState)
    return state


def render(obs: dict[str, Any]) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(terminal.board(json.loads(json.dumps(obs))))  # the observation as plain data
    return console.export_text()


def play_randomly(state: MaskerState, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_actions()))


# -- whole games on the command line ---------------------------------------------------------------
@pytest.mark.parametrize("variant", ["2d", "3d"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_play_to_the_end_and_the_record_replays(tmp_path: Path, players: int, variant: str) -> None:
    record = tmp_path / "game.json"
    args = ["play", "masker", "--players", str(players), "--variant", variant, "--seats", "random"]
    result = runner.invoke(app, [*args, "--seed", "3", "--save", str(record)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game over." in out and "tokens: seat 0 " in out
    assert re.search(r"Winners?: seat \d", out)
    assert "your colour" not in out  # bots only: the spectator's view (MK-15)
    data = json.loads(record.read_text("utf-8"))
    assert data["game"] == "masker" and data["options"] == {"players": players, "variant": variant}
    replayed = runner.invoke(app, ["replay", str(record), "--every"])
    assert replayed.exit_code == 0, replayed.output
    assert "game finished" in replayed.stdout
    assert "your colour" not in replayed.stdout
    # every position is drawn, the tokens only in the last one (MK-15)
    assert replayed.stdout.count("Masker · ") == len(data["actions"]) + 1
    assert replayed.stdout.count("tokens: ") == 1
    assert replayed.stdout.index("tokens: ") > replayed.stdout.rindex("Masker · ")


def test_a_human_lists_moves_is_refused_and_quits(tmp_path: Path) -> None:
    seed = next(s for s in range(50) if new_state(seed=s).current_player == 0)
    state = new_state(seed=seed)
    neighbours = state.legal_actions()
    far = next(c for c in range(36) if c not in neighbours and c != state.runner and state.stacks[c])
    far_name = state.action_to_str(far)
    record = tmp_path / "game.json"
    commands = ["help", "moves", "stop", far_name, "z9", "1", "board", "quit"]
    result = runner.invoke(
        app,
        ["play", "masker", "--seats", "human,random", "--seed", str(seed), "--save", str(record)],
        input="\n".join(commands) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "'take N'" in out and "L4:5@c3" not in out  # Masker's own help
    listing = r"\s+".join(rf"{i + 1}\. {state.action_to_str(a)}" for i, a in enumerate(neighbours))
    assert re.search(listing, out), listing
    assert "stop is not legal here: the first step of a turn is compulsory (MK-6)" in out
    assert f"{far_name} is not legal here: the runner moves to an orthogonally adjacent cross" in out
    assert "cannot read square 'z9'" in out
    assert "step 1 of 3 (compulsory)" in out
    assert "step 2 of 3 (or 'stop')" in out or "free step pending" in out  # after the first step
    assert len(re.findall(r"your colour: \w+", out)) >= 2  # before each prompt's board
    assert "Game stopped" in out
    saved = json.loads(record.read_text("utf-8"))
    assert saved["actions"] == [neighbours[0]]


def test_a_human_plays_three_player_3d_to_the_end(tmp_path: Path) -> None:
    """Always the first listed move: steps, stops and any MK-11 choice go through the prompt."""
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        [*PLAY_3D, "--seats", "human,random,random", "--seed", "2", "--save", str(record)],
        input="moves\n1\n" * 200,
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game over." in out and "stacks from above" in out and "z = 3" in out
    assert KEYBOARD not in out  # a single human: no hand-over
    colours = set(YOUR_COLOUR.findall(out))
    assert len(colours) == 1  # only seat 0's own colour, every time
    data = json.loads(record.read_text("utf-8"))
    assert data["options"] == {"players": 3, "variant": "3d"}
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0 and "game finished" in replayed.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--players", "5"], "option 'players' must be one of 2, 3, 4 (got 5)"),
        (["--variant", "4d"], "option 'variant' must be one of 2d, 3d (got 4d)"),
        (["--players", "3", "--seats", "human,random"], "lists 2 seats; this game has 3"),
    ],
)
def test_bad_options_are_one_line_and_exit_code_2(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["play", "masker", *args])
    assert result.exit_code == 2, result.output
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# -- hot seat: the screen is handed over and a seat never sees another's colour (MK-15) ------------
def hot_seat_script(seed: int, turns: int) -> tuple[str, list[int]]:
    """The keystrokes of two humans who step to the first listed square and stop at once: an Enter
    for every hand-over prompt (as play.py asks them), then the move.  Also the seats in order."""
    state = new_state(seed=seed)
    lines: list[str] = []
    order: list[int] = []
    last: int | None = None
    while len(order) < turns and not state.is_terminal():
        seat = state.current_player
        if seat != last:
            lines.append("")  # take the keyboard
            order.append(seat)
        last = seat
        legal = state.legal_actions()
        action = STOP if STOP in legal else legal[0]
        lines.append(state.action_to_str(action))
        state.apply(action)
    lines.append("quit" if not state.is_terminal() else "")
    return "\n".join(lines) + "\n", order


def check_screens(out: str, colour: dict[int, str]) -> None:
    """The output after a hand-over prompt, up to the next one (or the final reveal), is that seat's
    screen: it shows that seat's colour on its "your colour" line and in its status row, and "?" for
    the other seat (MK-15)."""
    pieces = re.split(r"Seat (\d): take the keyboard", out)
    assert not YOUR_COLOUR.search(pieces[0])  # nothing before the first hand-over
    screens = list(zip(pieces[1::2], pieces[2::2], strict=True))
    assert screens
    for seat_text, whole in screens:
        seat, other = int(seat_text), 1 - int(seat_text)
        screen = whole.split("game over")[0]  # the final board is the spectator's, all revealed
        shown = YOUR_COLOUR.findall(screen)
        assert shown, screen
        assert set(shown) == {colour[seat]}, f"seat {seat}'s screen shows {shown}"
        rows = [line for line in screen.splitlines() if re.match(rf"│ [▶ ] seat {other} ", line)]
        assert rows and all(line.split("│")[2].strip() == "?" for line in rows)  # hidden in the table
        mine = [line for line in screen.splitlines() if re.match(rf"│ [▶ ] seat {seat} you", line)]
        assert mine and all(line.split("│")[2].strip() == colour[seat] for line in mine)


def test_hot_seat_hands_over_the_keyboard_and_hides_the_other_colour() -> None:
    seed = 1
    state = new_state(seed=seed)
    colour = {seat: state.observation(seat)["your_colour"] for seat in (0, 1)}
    assert colour[0] != colour[1]
    script, order = hot_seat_script(seed, turns=6)
    result = runner.invoke(  # a chosen deal for two people: allowed here to replay a known game
        app,
        ["play", "masker", "--seats", "human,human", "--seed", str(seed)],
        input=script,
        env={"MASQUES_ANY_SEED": "1"},
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    prompts = re.findall(r"Seat (\d): take the keyboard and press Enter \(others look away\)", out)
    assert [int(p) for p in prompts] == order and len(order) >= 6
    assert order == [order[0], 1 - order[0]] * 3  # a prompt between every two turns
    check_screens(out, colour)
    assert "Game stopped" in out
    assert "tokens:" not in out  # nothing revealed: the game did not end


def test_hot_seat_to_the_end_reveals_everything_only_at_the_end() -> None:
    seed = 4
    state = new_state(seed=seed)
    colour = {seat: state.observation(seat)["your_colour"] for seat in (0, 1)}
    script, order = hot_seat_script(seed, turns=200)
    result = runner.invoke(  # a chosen deal for two people: allowed here to replay a known game
        app,
        ["play", "masker", "--seats", "human,human", "--seed", str(seed)],
        input=script,
        env={"MASQUES_ANY_SEED": "1"},
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Game over." in out
    final = out[out.rindex(KEYBOARD) :]
    ending = final[final.index("game over") :]
    assert "tokens: seat 0 " in ending and "your colour" not in ending  # the spectator's final view
    assert out.count("tokens:") == 1
    assert out.count(KEYBOARD) == len(order) > 10
    check_screens(out, colour)


# -- drawing observations ---------------------------------------------------------------------------
def test_2d_board_draws_every_cell_with_coordinates_and_the_runner() -> None:
    state = new_state(seed=5)
    play_randomly(state, 4, random.Random(0))
    obs = state.observation(0)
    text = render(obs)
    print(text)
    lines = text.splitlines()
    assert all(len(line) <= 100 for line in lines)
    header = next(line for line in lines if re.search(r"a\s+b\s+c\s+d\s+e\s+f", line))
    assert header
    for r in range(6):
        row = next(line for line in lines if re.match(rf"│\s+{r + 1}\s", line))
        cells = row.split("│")[1].split()[1:-1]
        expected = []
        for c in range(6):
            stack = obs["stacks"][r * 6 + c]
            expected.append(terminal.LETTER[stack[-1]] if stack else "·")
        assert cells == expected, (row, expected)
    runner_line = next(line for line in lines if "runner @ " in line)
    assert f"runner @ {state.game.square_name(state.runner)}" in runner_line
    assert f"your colour: {obs['your_colour']}" in text
    assert "legend:" in text and "@ runner" in text and "· hole" in text


def test_3d_board_draws_heights_tops_and_each_stack_bottom_to_top() -> None:
    state = new_state(players=3, variant="3d", seed=2)
    play_randomly(state, 5, random.Random(1))
    obs = state.observation(None)
    text = render(obs)
    print(text)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert "your colour" not in text and "stacks from above" in text
    for cell, stack in enumerate(obs["stacks"]):
        name = state.game.square_name(cell)
        listed = next(line for line in text.splitlines() if re.search(rf"\s{name}\s{{2,}}", line))
        letters = listed.split(name, 1)[1].split()
        if stack:
            assert letters[: len(stack)] == [terminal.LETTER[c] for c in stack]
    tops = [f"{terminal.LETTER[s[-1]]}{len(s)}" for s in obs["stacks"] if s]
    grid_text = "".join(text.split("stacks from above")[1].split("z = 0")[0])
    for top in tops:
        assert top in grid_text
    assert "z = 0" in text and "z = 3" in text


def test_status_shows_seats_partners_piles_and_the_secret_only_to_its_team() -> None:
    state = new_state(players=4, seed=3)
    play_randomly(state, 12, random.Random(2))
    for seat in range(4):
        obs = state.observation(seat)
        text = render(obs)
        assert f"your colour: {obs['your_colour']} (shared with your partner, seat {(seat + 2) % 4})" in text
        assert f"seat {seat} (partner {(seat + 2) % 4}) you" in text
        for other in range(4):
            if other in obs["eliminated"]:
                continue
            row = next(line for line in text.splitlines() if f"seat {other} (partner" in line)
            expected = obs["your_colour"] if other % 2 == seat % 2 else "?"
            assert row.split("│")[2].strip() == expected
            held = len(obs["piles"][other])
            assert f"{held}/9" in row
            piles = row.split("│")[4].split()
            assert "".join(piles) == "".join(terminal.LETTER[c] for c in obs["piles"][other])
            assert all(len(p) == 3 for p in piles[:-1])  # piles of 3 (MK-9)
    spectator = render(state.observation(None))
    assert "your colour" not in spectator


def test_free_step_completion_elimination_and_end_are_explained() -> None:
    """Random 3-player games until each situation turns up; each is drawn with its rule."""
    seen: set[str] = set()
    for seed in range(200):
        state = new_state(players=3, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            obs = state.observation(state.current_player)
            if obs["free_step"] and "free" not in seen:
                assert "free step pending" in render(obs)
                seen.add("free")
            if obs["phase"] == "complete" and "complete" not in seen:
                text = render(obs)
                assert f"completes their piles (MK-11): {obs['to_fill']} more to take" in text
                seen.add("complete")
            if obs["eliminations"] and "out" not in seen:
                e = obs["eliminations"][0]
                row = next(line for line in render(obs).splitlines() if f"seat {e['seat']}" in line)
                assert f"out: lost {e['colour']}" in row and e["colour"] in row.split("│")[2]
                seen.add("out")
            state.apply(rng.choice(state.legal_actions()))
        final = state.observation(None)
        text = render(final)
        tokens = ", ".join(f"seat {s} {c}" for s, c in enumerate(final["tokens"]))
        assert f"tokens: {tokens}" in text and "Game over." in text
        if seen >= {"free", "complete", "out"}:
            break
    assert seen == {"free", "complete", "out"}


def test_black_crosses_are_visible_on_a_dark_terminal() -> None:
    for style_text in (terminal.CELL_STYLE["black"], terminal.TEXT_STYLE["black"]):
        style = Style.parse(style_text)
        assert style.bgcolor is not None and style.bgcolor.name != "black"
        assert style.color is not None and style.color.name in ("white", "bright_white")


def test_hot_seat_output_that_cannot_be_cleared_scrolls_each_view_out_of_sight() -> None:
    """Through a pipe (or on a dumb terminal) the screen cannot be cleared: a screenful of blank
    lines and more comes between a seat's view and the next hand-over prompt (MK-15)."""
    script, _ = hot_seat_script(1, turns=3)
    result = runner.invoke(
        app,
        ["play", "masker", "--seats", "human,human", "--seed", "1"],
        input=script,
        env={"MASQUES_ANY_SEED": "1"},
    )
    assert result.exit_code == 0, result.output
    before_prompts = re.findall(r"(\n*)Seat \d: take the keyboard", result.stdout)
    assert len(before_prompts) >= 3 and all(len(gap) >= 100 for gap in before_prompts)


def test_quit_at_the_hand_over_stops_before_the_next_seat_is_shown() -> None:
    """Whoever types quit at "take the keyboard" does not get the next seat's colour drawn (MK-15)."""
    result = runner.invoke(
        app,
        ["play", "masker", "--seats", "human,human", "--seed", "1", "--no-layers"],
        input="quit\n",
        env={"MASQUES_ANY_SEED": "1"},
    )
    assert result.exit_code == 0, result.output
    assert KEYBOARD in result.stdout and "Game stopped" in result.stdout
    assert not YOUR_COLOUR.search(result.stdout)


@pytest.mark.parametrize("text", ["take " + "9" * 5000, "take 99999", "take ²"])
def test_a_take_of_a_seat_number_too_long_is_a_malformed_move(text: str) -> None:
    state = new_state(seed=1)
    with pytest.raises(MalformedActionError):
        state.action_from_str(text)
