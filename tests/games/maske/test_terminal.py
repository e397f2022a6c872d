"""Maske in the terminal: bots-only games and replays, a human at the keyboard, bad options, hot-seat
privacy of the drawn card (MS-11, MS-17), and the rich drawing of observations."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from masques.cli.main import app
from masques.cli.play import TerminalGame
from masques.engine import load_game
from masques.games.maske import terminal
from masques.games.maske.data import CARDS, CENTRE, MASK_VALUES, MASKS, SIZE
from masques.games.maske.game import DRAW, PASS, STEP, MaskeState, hole_name

runner = CliRunner()

KEYBOARD = "take the keyboard"
PROMPT = re.compile(r"seat \d move \(help for commands\): ")


def new_state(players: int = 4, seed: int = 0, **options: Any) -> MaskeState:
    state = load_game("maske", {"players": players, **options}).new_initial_state(seed)
    assert isinstance(state, MaskeState)
    return state


def render(obs: dict[str, Any], **kwargs: Any) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(terminal.board(json.loads(json.dumps(obs)), **kwargs))  # as plain data
    return console.export_text()


def play_until(state: MaskeState, rng: random.Random, stop: Callable[[MaskeState], bool]) -> bool:
    """Random moves until ``stop(state)``; False if the game ended first."""
    while not state.is_terminal():
        if stop(state):
            return True
        state.apply(rng.choice(state.legal_actions()))
    return False


def script_for(
    seats: list[str], seed: int, policy: Callable[[MaskeState, str], str], **options: Any
) -> list[str]:
    """The lines a terminal player types: ``TerminalGame`` is run with ``policy`` answering each prompt
    from the real position, and the answers are recorded.  The command line, run with the same seats
    and seed, replays exactly these positions (the bots are seeded the same way)."""
    game = load_game("maske", {"players": len(seats), **options})
    lines: list[str] = []
    session: TerminalGame

    def ask(prompt: str) -> str:
        state = session.state
        assert isinstance(state, MaskeState)
        line = policy(state, prompt)
        lines.append(line)
        if line == "quit":
            raise EOFError
        return line

    session = TerminalGame(game, seats, seed, Console(file=io.StringIO()), ask)
    session.run()
    return lines


# -- whole games on the command line ---------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        ["--players", "3"],
        ["--players", "4"],
        ["--players", "5"],
        ["--players", "6"],
        ["--players", "4", "--unmasking"],
        ["--players", "3", "--masks", "2", "--unmasking"],
        ["--masks", "2"],
    ],
)
def test_bots_play_to_the_end_and_the_record_replays(tmp_path: Path, options: list[str]) -> None:
    record = tmp_path / "game.json"
    result = runner.invoke(
        app, ["play", "maske", *options, "--seats", "random", "--seed", "3", "--save", str(record)]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Maske · " in out and "game over" in out
    assert re.search(r"Winners?( \(a shared win\))?: seat \d", out)
    assert "your card" not in out  # bots only: the spectator's view (MS-17)
    data = json.loads(record.read_text("utf-8"))
    players = int(options[options.index("--players") + 1]) if "--players" in options else 4
    assert data["game"] == "maske"
    assert data["options"]["players"] == players
    assert data["options"]["unmasking"] == ("--unmasking" in options)
    masks = int(options[options.index("--masks") + 1]) if "--masks" in options else 0
    assert data["options"]["masks"] == masks
    total = masks or {3: 18, 4: 16, 5: 15, 6: 12}[players]
    assert f"all {total} masks laid" in out
    if "--unmasking" in options:
        assert "variant: unmasking (MS-15)" in out and "the masks beneath have paid out (MS-15)" in out
        assert "masks beneath, top first" in out
    replayed = runner.invoke(app, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "game finished" in replayed.stdout and "game over" in replayed.stdout


def test_replay_every_draws_each_position(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    args = ["play", "maske", "--players", "3", "--masks", "2", "--seats", "random", "--save", str(record)]
    assert runner.invoke(app, args).exit_code == 0
    data = json.loads(record.read_text("utf-8"))
    replayed = runner.invoke(app, ["replay", str(record), "--every"])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout.count("Maske · 3 players") == len(data["actions"]) + 1
    assert replayed.stdout.count("game over") == 1
    assert "your card (only you see it)" not in replayed.stdout  # a spectator's replay


def test_a_human_sets_up_lays_steps_is_refused_and_quits(tmp_path: Path) -> None:
    seats = ["human", "random", "random", "random"]
    seed = 2
    seen: dict[str, str] = {}

    def policy(state: MaskeState, prompt: str) -> str:
        phase = state.phase
        if phase == "setup":
            if "centre" not in seen:
                seen["centre"] = "d4"
                return "d4"  # the centre is no hole (MS-1)
            return "a1" if state.sticks[0] < 0 else "g7"
        if phase == "lay":
            if "moves" not in seen:
                seen["moves"] = "moves"
                return "moves"
            return "lay 1"
        if phase == "auction":
            return "drop"
        if phase == "effect":
            return "done" if "done" in [state.action_to_str(a) for a in state.legal_actions()] else "quit"
        if phase == "action":
            if "bid" not in seen:
                seen["bid"] = "bid 3"
                return "bid 3"  # not an auction: refused
            if "malformed" not in seen:
                seen["malformed"] = "step 0 sideways"
                return "step 0 sideways"
            if "step" not in seen:
                steps = [a for a in state.legal_actions() if STEP <= a < PASS]
                assert steps, "seat 0 holds 10 points at its first action"
                seen["step"] = state.action_to_str(steps[0])
                return seen["step"]
        return "quit"

    lines = script_for(seats, seed, policy)
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        ["play", "maske", "--seats", ",".join(seats), "--seed", str(seed), "--save", str(record)],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "d4 is not legal here: put your stick in a free hole (not the centre, MS-7)" in out
    assert "seat 0 (you) puts stick 0 in a free hole" in out
    assert "seat 0 (you) puts stick 1 in a free hole" in out
    assert re.search(r"1\. lay 0\s+2\. lay 1\s+3\. lay 2\s+4\. lay 3", out)
    assert "seat 0 (you) lays the next mask (MS-8)" in out
    assert "bid 3 is not legal here: choose pass, a step, or draw (MS-9)" in out
    assert "cannot read 'step 0 sideways'" in out
    assert "seat 0 (you) is moving" in out  # after the paid step (MS-9 b)
    assert "Game stopped" in out and KEYBOARD not in out
    saved = json.loads(record.read_text("utf-8"))
    state = new_state(seed=seed)
    for action in saved["actions"]:
        state.apply(action)
    texts = [state.action_to_str(a) for a in saved["actions"]]
    assert texts[:2] == ["a1", "g7"] and texts[8] == "lay 1"
    assert seen["step"] in texts and texts[-1] == seen["step"]  # the last move: quit came next


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--players", "2"], "option 'players' must be one of 3, 4, 5, 6 (got 2)"),
        (["--masks", "19"], "option 'masks' must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"),
        (["--masks", "19"], "16, 17, 18 (got 19)"),
        (["--unmasking", "maybe"], "option 'unmasking' must be true or false"),
        (["--players", "3", "--seats", "human,random"], "lists 2 seats; this game has 3"),
    ],
)
def test_bad_options_are_one_line_and_exit_code_2(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["play", "maske", *args])
    assert result.exit_code == 2, result.output
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_help_names_the_maske_notation() -> None:
    result = runner.invoke(
        app, ["play", "maske", "--seats", "human,random,random,random"], input="help\nquit\n"
    )
    assert result.exit_code == 0, result.output
    for word in ("step STICK DIRECTION", "'bid N'", "'drop'", "'lay N'", "'turn cw|ccw'", "'player N'"):
        assert word in result.stdout
    assert "L4:5@c3" not in result.stdout


# -- the drawn card: its drawer's screen only (MS-11, MS-17) ---------------------------------------
def test_hot_seat_shows_the_drawn_card_to_its_drawer_only() -> None:
    seats = ["human", "human", "human"]
    holes = iter(["a1", "b1", "c1", "d1", "e1", "f1"])
    drawn: list[int] = []

    def policy(state: MaskeState, prompt: str) -> str:
        if KEYBOARD in prompt:
            return ""
        if state.phase == "setup":
            return next(holes)
        if state.phase == "lay":
            return "lay 0"
        if state.phase == "action":
            return "draw" if DRAW in state.legal_actions() and not drawn else "quit"
        if state.phase == "auction":
            assert state.auction is not None
            if not drawn:
                drawn.append(int(state.auction["card"]))
            if state.auction["turn"] == state.auction["drawer"] and state.auction["high"] is None:
                return "bid 1"
            return "drop"
        return "quit"

    lines = script_for(seats, 0, policy)
    result = runner.invoke(
        app,
        ["play", "maske", "--players", "3", "--seats", ",".join(seats), "--seed", "0"],
        input="\n".join(lines) + "\n",
        env={"MASQUES_ANY_SEED": "1"},  # a known deal for several people: to replay a known game
    )
    assert result.exit_code == 0, result.output
    card = drawn[0]
    text = CARDS[card].text["en"]
    pieces = re.split(r"Seat (\d): take the keyboard", result.stdout)
    screens = [(int(s), " ".join(sc.split())) for s, sc in zip(pieces[1::2], pieces[2::2], strict=True)]
    auction_screens = [(s, sc) for s, sc in screens if "auction (MS-11)" in sc]
    assert {s for s, _ in auction_screens} == {0, 1, 2}
    for seat, screen in auction_screens:
        if seat == 1:  # seat 1 acts first in round 1 (left of the placer, seat 0) and draws
            assert f"your card (only you see it): #{card} {text}" in screen
        else:
            assert "the card is face down: only seat 1 has seen it" in screen
            assert text not in screen and "your card" not in screen
    bought = [sc for _, sc in screens if f"seat 1 bought card {card} for 1" in sc]
    assert bought or any(f"carries out card #{card}" in sc for _, sc in screens)  # then public


def test_the_view_shows_the_drawn_card_to_the_drawer_alone() -> None:
    state = new_state(players=5, seed=7)
    assert play_until(state, random.Random(1), lambda s: s.phase == "auction")
    assert state.auction is not None
    drawer, card = int(state.auction["drawer"]), int(state.auction["card"])
    text = CARDS[card].text["en"]
    assert not any("bought card" in line for line in state.log)  # no card text has been public yet
    mine = render(state.observation(drawer))
    assert f"your card (only you see it): #{card} {text}" in mine
    for seat in [*(s for s in range(5) if s != drawer), None]:
        other = render(state.observation(seat))
        assert text not in other and "your card" not in other
        assert f"the card is face down: only seat {drawer} has seen it" in other


# -- drawing observations ---------------------------------------------------------------------------
def plate_rows(text: str) -> dict[int, list[str]]:
    """The plate's rows as cells of 4 characters (stick number + ring mark), by rank."""
    rows: dict[int, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"│ ?([ 1-7]\d) (.{28}) ?\s(\d) │", line)
        if m and int(m.group(1)) == int(m.group(3)):
            rows[int(m.group(1))] = [m.group(2)[i : i + 4] for i in range(0, 28, 4)]
    return rows


def test_plate_shows_coordinates_rings_of_the_turned_mask_centre_and_sticks() -> None:
    state = new_state(players=6, seed=4)
    assert play_until(state, random.Random(3), lambda s: s.round == 2 and s.phase == "action")
    obs = state.observation(2)
    text = render(obs)
    print(text)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert re.search(r"a\s+b\s+c\s+d\s+e\s+f\s+g", text)
    rows = plate_rows(text)
    assert sorted(rows) == list(range(1, 8))
    mask, orientation = state.laid[-1]
    values = MASK_VALUES[mask][orientation]
    where = {h: g for g, h in enumerate(state.sticks)}
    for r in range(SIZE):
        for c in range(SIZE):
            hole = r * SIZE + c
            cell = rows[r + 1][c]
            if hole == CENTRE:
                assert cell.strip() == "×"
                continue
            assert cell[2] == {0: "·", 3: "o", 5: "O"}[values[hole]], (hole_name(hole), cell)
            expected = f"{where[hole]:>2}" if hole in where else "  "
            assert cell[:2] == expected, (hole_name(hole), cell)
    assert MASKS[mask].name in text and f"(lay {orientation})" in text
    assert f"round 3 of {state.game.num_masks}" in text and f"masks left {len(state.stack)}" in text
    for seat in range(6):
        row = next(line for line in text.splitlines() if re.match(rf"│ [▶ ] seat {seat}\b", line))
        a, b = state.sticks[2 * seat], state.sticks[2 * seat + 1]
        assert f"{2 * seat}@{hole_name(a)}" in row and f"{2 * seat + 1}@{hole_name(b)}" in row
        assert row.split("│")[3].strip() == str(state.points[seat])
        earned = (values[a] + values[b]) * (2 if state.double[seat] else 1)
        assert row.split("│")[4].strip() == f"+{earned}"
    assert "seat 2 (you)" in text and "placer this round: seat 2" in text
    assert "legend:" in text and "step STICK DIRECTION" in text and "turn cw|ccw" in text


def test_each_decision_is_explained() -> None:
    """Random games until every kind of decision turns up; each is drawn with what it asks for."""
    expected = {
        "setup": "in a free hole (MS-7)",
        "lay": "'lay N' = N quarter turns clockwise",
        "action": "'pass', 'draw'",
        "moving": "is moving:",
        "auction": "current bid:",
        "effect:choose_player": "chooses the player to take 3 points from: 'player N'",
        "effect:turn": "'turn cw' or 'turn ccw'",
        "effect:pick": "to jump: 'stick N'",
        "effect:place": "chooses the free hole stick",
        "effect:pick_own": "chooses one of their sticks to swap",
        "effect:pick_other": "chooses the opponent's stick to swap with stick",
        "effect:steps": "step",
    }
    seen: set[str] = set()
    for seed in range(40):
        state = new_state(players=5, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            key = state.phase + (f":{state.effect['stage']}" if state.effect else "")
            if key not in seen:
                seat = state.current_player
                text = render(state.observation(seat))
                assert expected[key] in text, (key, text)
                assert re.search(rf"▶ seat {seat} \(you\)", text)
                if state.effect is not None:
                    card = state.effect["card"]
                    assert f"carries out card #{card} (MS-12):" in text
                    assert CARDS[card].text["en"] in text  # public once bought (MS-12)
                seen.add(key)
            state.apply(rng.choice(state.legal_actions()))
        if seen >= set(expected):
            break
    assert seen == set(expected)


def test_flags_skips_double_paydays_and_extra_actions_are_shown() -> None:
    found: set[str] = set()
    for seed in range(200):
        state = new_state(players=4, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal() and found != {"skip", "double", "extra"}:
            obs = state.observation(None)
            slot = (state.placer + 1 + state.round_pos) % 4
            if state.phase == "action" and state.actor != slot and "extra" not in found:
                # the card's extra action (MS-4) comes out of turn: the holder is not the slot's seat
                assert f"seat {state.actor} takes an extra action (card)" in render(obs)
                found.add("extra")
            for seat in range(4):
                flags = [
                    ("skip", obs["skip"][seat], "skips next action"),
                    ("double", obs["double_payday"][seat], "pays double"),
                ]
                for name, on, words in flags:
                    if on and name not in found:
                        row = next(
                            line
                            for line in render(obs).splitlines()
                            if re.match(rf"│ [▶ ] seat {seat}\b", line)
                        )
                        assert words in row, row
                        found.add(name)
            state.apply(rng.choice(state.legal_actions()))
        if found == {"skip", "double", "extra"}:
            break
    assert found == {"skip", "double", "extra"}


def test_auction_lines_name_the_bid_the_high_bidder_and_who_is_still_in() -> None:
    state = new_state(players=4, seed=11)
    rng = random.Random(5)
    assert play_until(
        state, rng, lambda s: s.auction is not None and s.auction["high"] is not None and s.auction["bid"] > 0
    )
    assert state.auction is not None
    auction = state.auction
    text = render(state.observation(None))
    print(text)
    assert f"current bid: {auction['bid']} by seat {auction['high']}" in text
    assert "still in: " + ", ".join(f"seat {s}" for s in auction["active"]) in text
    high_row = next(line for line in text.splitlines() if re.match(rf"│ [▶ ] seat {auction['high']}\b", line))
    assert f"high bid {auction['bid']}" in high_row


@pytest.mark.parametrize("rule", ["rounds", "open"])
def test_the_auction_help_says_what_drop_does_under_each_rule(rule: str) -> None:
    """MS-11: 'drop' leaves the auction for good; MS-11a (open): it is a pass, and the player may bid
    again once someone raises."""
    state = new_state(players=4, seed=11, auction=rule)
    rng = random.Random(5)
    assert play_until(
        state,
        rng,
        lambda s: (
            s.auction is not None
            and s.auction["high"] is not None
            and s.points[s.auction["turn"]] > s.auction["bid"]
        ),
    )
    text = " ".join(render(state.observation(None)).split())
    if rule == "open":
        assert "open auction (MS-11a)" in text and "'drop' to pass (you may bid again later)" in text
        assert "'drop' to leave" not in text
    else:
        assert "auction (MS-11)" in text and "'drop' to leave" in text and "MS-11a" not in text


def test_game_over_names_the_winners_and_the_log_spells_out_sold_cards() -> None:
    state = new_state(players=3, seed=5, unmasking=True)
    play_until(state, random.Random(2), lambda s: False)
    text = render(state.observation(None))
    best = max(state.points)
    winners = ", ".join(f"seat {w}" for w in state.winners())
    assert winners in text and f"with {best} points" in text
    assert "payday now" not in text and "WINNER" in text
    sold = [line for line in state.log[-terminal.LOG_LINES :] if "bought card" in line]
    for line in sold:
        card = int(re.findall(r"card (\d+)", line)[0])
        shown = next(t for t in text.splitlines() if t.startswith(f"log: {line}"))
        assert shown.split(": ", 2)[2].rstrip("…") in CARDS[card].text["en"]
        assert len(shown) <= 100
    assert "beneath, top first" in render(state.observation(None), show_layers=True)
    assert "beneath, top first" not in render(state.observation(None), show_layers=False)


# -- the mask being laid, and examples that are legal moves ---------------------------------------------
def test_the_placer_sees_the_mask_to_lay_in_each_orientation() -> None:
    """MS-8, MS-3: the observation names the mask being laid; the view draws it as each 'lay N' lays
    it, with the payday each seat's sticks would earn on it (MS-13)."""
    rng = random.Random(4)
    checked = 0
    for seed in range(3):
        state = new_state(players=4, seed=seed)
        while play_until(state, rng, lambda s: s.phase == "lay") and checked < 6:
            obs = state.observation(state.current_player)
            mask = state.stack[0]
            assert obs["mask_to_lay"] == mask
            text = render(obs)
            assert f"the mask to lay: {MASKS[mask].name} (#{mask})" in text
            assert "not shown" not in text
            for orientation in range(4):
                assert f"lay {orientation}" in text
                rows = terminal.lay_preview(obs, orientation).plain.splitlines()
                values = MASK_VALUES[mask][orientation]
                holes = [h for pair in obs["sticks"] for h in pair]
                for r in range(SIZE):
                    cells = [rows[r][2 * c : 2 * c + 2] for c in range(SIZE)]
                    for c, cell in enumerate(cells):
                        hole = r * SIZE + c
                        if hole in holes:
                            assert cell == f"{holes.index(hole):>2}"
                        elif hole == CENTRE:
                            assert cell == " ×"
                        else:
                            assert cell == " " + {0: "·", 3: "o", 5: "O"}[values[hole]]
                pays = [
                    sum(values[h] for h in state.sticks[2 * s : 2 * s + 2]) * (2 if state.double[s] else 1)
                    for s in range(4)
                ]
                assert rows[SIZE] == "payday by seat: " + " ".join(map(str, pays))
            checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked == 6


def test_hole_examples_are_legal_holes_never_the_centre() -> None:
    """MS-1, MS-7: the set-up hint (and a jump's, MS-12) suggests a free hole that is a legal move;
    the centre is no hole."""
    found = {"setup": 0, "effect:place": 0}
    for seed in range(30):
        state = new_state(players=5, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            key = state.phase + (f":{state.effect['stage']}" if state.effect else "")
            if key in found:
                text = render(state.observation(state.current_player))
                match = re.search(r"e\.g\. ([a-g][1-7])", text)
                assert match, text
                assert match.group(1) != hole_name(CENTRE)
                assert state.is_legal(state.action_from_str(match.group(1))), (key, match.group(1))
                found[key] += 1
            state.apply(rng.choice(state.legal_actions()))
        if min(found.values()) >= 3:
            break
    assert min(found.values()) >= 3, found


def test_ms_9_a_step_of_another_seats_stick_says_whose_it_is() -> None:
    state = new_state(players=3, seed=2)
    assert play_until(state, random.Random(3), lambda s: s.phase == "action")
    seat = state.current_player
    other = (seat + 1) % 3
    why = state.why_illegal(STEP + 4 * (2 * other))
    assert (
        why == f"stick {2 * other} is seat {other}'s: yours are sticks {2 * seat} and {2 * seat + 1} (MS-9)"
    )
