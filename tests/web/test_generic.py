"""The generic view: a game the browser has no module for is created from the lobby (every option
type as a field: a list, a number, a text, a checkbox, JSON) and played whole through the page.

The game is a tiny one defined here (Tally: add 1 or 2 to a shared total until it reaches the
target), registered only for this test; the server runs in this process, and a random bot decides in
the server, so both see it.  Its observation carries neither ``scores`` nor ``winners``: the end
table must come from the server's ``result``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import masques_web_e2e as e2e  # type: ignore[import-not-found]
import pytest
from playwright.sync_api import Page, expect

from masques.engine import (
    JSON,
    TERMINAL,
    Game,
    InvalidOptionError,
    MalformedActionError,
    OptionSpec,
    State,
    game_names,
    registry,
)

STEPS = ("add 1", "add 2")


class Tally(Game):
    name = "tally"
    title = "Tally"
    rules_version = "1"
    option_specs = (
        OptionSpec("players", "int", 2, "number of players", (2, 3)),
        OptionSpec("target", "int", 7, "the total that ends the game"),
        OptionSpec("label", "str", "tally", "a name for the table"),
        OptionSpec("doubles", "bool", False, "add 2 counts twice"),
        OptionSpec("handicap", "json", None, "points each seat starts with, e.g. [1, 0]"),
    )

    def check_options(self, options: dict[str, JSON]) -> None:
        target, handicap = options["target"], options["handicap"]
        if not 3 <= target <= 30:
            raise InvalidOptionError(self.name, "target", "must be 3 to 30")
        if handicap is not None and (
            not isinstance(handicap, list)
            or len(handicap) != options["players"]
            or not all(type(h) is int for h in handicap)
        ):
            raise InvalidOptionError(self.name, "handicap", "must be a list of one integer per seat")

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    @property
    def num_distinct_actions(self) -> int:
        return len(STEPS)

    @property
    def max_game_length(self) -> int:
        return int(self.options["target"])

    def new_initial_state(self, seed: int = 0, *, chance: int = 2) -> State:
        return TallyState(self, seed, chance)

    def _sample_from(self, seat: int | None, observation: JSON, rng: random.Random) -> State:
        state = TallyState(self, 0, 2)
        for action in observation["moves"]:
            state.apply(action)
        return state


class TallyState(State):
    def __init__(self, game: Tally, seed: int, chance: int) -> None:
        self.game, self.seed, self.chance = game, seed, chance
        self.history = []
        self.added = list(game.options["handicap"] or [0] * game.num_players)
        self.total = 0

    @property
    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.history) % self.game.num_players

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [0, 1]

    def is_legal(self, action: int) -> bool:
        return not self.is_terminal()

    def _apply(self, action: int) -> None:
        step = action + 1
        self.added[self.current_player] += step * (2 if step == 2 and self.game.options["doubles"] else 1)
        self.total += step

    def is_terminal(self) -> bool:
        return self.total >= int(self.game.options["target"])

    def scores(self) -> list[float]:
        return [float(a) for a in self.added]

    def winners(self) -> list[int]:
        if not self.is_terminal():
            return []
        best = max(self.added)
        return [seat for seat, a in enumerate(self.added) if a == best]

    def clone(self) -> State:
        other = TallyState(self.game, self.seed, self.chance)  # type: ignore[arg-type]
        other.history, other.added, other.total = list(self.history), list(self.added), self.total
        return other

    def observation(self, seat: int | None) -> JSON:
        return {
            "seat": seat,
            "label": self.game.options["label"],
            "target": self.game.options["target"],
            "total": self.total,
            "added": list(self.added),
            "handicap": self.game.options["handicap"],
            "doubles": self.game.options["doubles"],
            "track": [["x" if i < self.total else "." for i in range(r * 5, r * 5 + 5)] for r in range(2)],
            "moves": list(self.history),
        }

    def serialize(self) -> JSON:
        return self.observation(None)

    def action_to_json(self, action: int) -> JSON:
        return {"add": action + 1}

    def action_from_json(self, obj: JSON) -> int:
        if not isinstance(obj, dict) or obj.get("add") not in (1, 2):
            raise MalformedActionError("a tally action is {add: 1 or 2}", obj)
        return int(obj["add"]) - 1

    def action_to_str(self, action: int) -> str:
        return STEPS[action]

    def action_from_str(self, text: str) -> int:
        if text.strip() not in STEPS:
            raise MalformedActionError("a tally move is 'add 1' or 'add 2'", text)
        return STEPS.index(text.strip())


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tally is known to the registry for this test only (the other tests see the four games)."""
    game_names()  # the shipped games first, so removing Tally afterwards leaves them
    monkeypatch.setitem(registry._GAMES, Tally.name, Tally)
    yield


def test_a_game_without_a_view_module_is_played_whole_in_the_generic_view(
    page: Page, web_server: Any, tally: None
) -> None:
    rng = random.Random(18)
    frames = e2e.Frames(page)
    page.goto(web_server.base_url + "/")
    e2e.choose_game(page, "tally")
    form = page.get_by_test_id("create-form")
    # Every option type has its field: a list, a number, a text, a checkbox and JSON.
    expect(form.locator("select[name=players]")).to_have_value("2")
    expect(form.locator("input[name=target][type=number]")).to_have_value("7")
    expect(form.locator("input[name=label][type=text]")).to_have_value("tally")
    expect(form.locator("input[name=doubles][type=checkbox]")).not_to_be_checked()
    expect(form.locator("textarea[name=handicap]")).to_have_value("")
    form.locator("textarea[name=handicap]").fill("[1, 0")
    page.get_by_test_id("create").click()
    expect(form.get_by_role("alert")).to_contain_text("handicap")  # not JSON: said, and nothing sent
    form.locator("textarea[name=handicap]").fill("[1, 0]")
    form.locator("input[name=target]").fill("9")
    form.locator("input[name=label]").fill("Friday table")
    form.locator("input[name=doubles]").set_checked(True)
    form.locator("select[name=seat-1]").select_option("random")
    form.locator("input[name=player-name]").fill("Ada")
    page.get_by_test_id("create").click()
    e2e.wait_ready(page)
    assert frames.last_state()["match"]["options"] == {
        "players": 2,
        "target": 9,
        "label": "Friday table",
        "doubles": True,
        "handicap": [1, 0],
    }

    # The observation, readably: fields by name, lists inline, a grid as a table, booleans in words.
    observation = page.get_by_test_id("generic-observation")
    expect(observation.locator("dd[data-key=label]")).to_have_text("Friday table")
    expect(observation.locator("dd[data-key=handicap]")).to_have_text("1, 0")
    expect(observation.locator("dd[data-key=doubles]")).to_have_text("yes")
    expect(observation.locator("dd[data-key=track] table tr")).to_have_count(2)

    typed = {"bad": 0, "typed": 0, "clicked": 0, "keys": 0, "last_by_keys": 0}

    def move(page: Page) -> None:
        state = frames.last_state()
        legal = {a["id"]: a["label"] for a in state["legal"]}
        buttons = page.get_by_test_id("generic-move")
        offered = {int(b.get_attribute("data-action") or -1): b.text_content() for b in buttons.all()}
        assert offered == legal, "every legal move as a button named by its text, and nothing else"
        expect(observation.locator("dd[data-key=total]")).to_have_text(str(state["observation"]["total"]))
        box = page.get_by_test_id("generic-move-input")
        if not typed["bad"]:
            box.fill("add 3")
            box.press("Enter")
            expect(page.get_by_test_id("generic-moves").get_by_role("alert")).to_contain_text("add 3")
            typed["bad"] += 1
        focused = page.evaluate("document.activeElement?.dataset.testid ?? ''")
        if typed["last_by_keys"]:
            assert focused == "generic-move", "the keyboard stays on the moves across the other seats' turns"
        # Target 9 with steps of 1 or 2 gives the person at least 3 turns: one of each way to move first.
        turn = typed["typed"] + typed["clicked"] + typed["keys"]
        way = ("typed", "keys", "clicked")[turn] if turn < 3 else rng.choice(["typed", "keys", "clicked"])
        typed["last_by_keys"] = int(way == "keys")
        if way == "keys":
            if focused != "generic-move":
                buttons.first.focus()
            page.keyboard.press("Enter")
        elif way == "typed":
            box.fill(rng.choice(list(legal.values())).upper())
            box.press("Enter")
        else:
            buttons.nth(rng.randrange(buttons.count())).click()
        typed[way] += 1

    made = e2e.play_to_end(page, move)
    assert made >= 3 and typed["typed"] and typed["clicked"] and typed["keys"]

    # The end: the server's result, in the shell's end table and in the view.
    result = frames.last_state()["result"]
    assert result is not None and result["winners"]
    end = page.get_by_test_id("end")
    expect(end).to_be_visible()
    scores = [float(v) for v in end.locator(".scores tbody td").all_text_contents()]
    assert scores == result["scores"]
    expect(page.get_by_test_id("generic-moves")).to_contain_text("The game is over.")
    box = page.get_by_test_id("generic-result")
    expect(box).to_be_visible()
    winners = [int(s) for s in box.locator("tr.winner").evaluate_all("rows => rows.map(r => r.dataset.seat)")]
    assert winners == result["winners"]


def test_three_players_in_the_generic_view_with_the_e2e_helper(
    page: Page, web_server: Any, tally: None
) -> None:
    frames = e2e.Frames(page)
    e2e.create_match(
        page, web_server.base_url, "tally", options={"players": "3"}, seats=["you", "random", "random"]
    )
    made = e2e.play_to_end(page, e2e.generic_move(random.Random(3)))
    assert made >= 1
    result = frames.last_state()["result"]
    assert len(result["scores"]) == 3 and result["winners"]
    expect(page.get_by_test_id("end").locator(".scores tbody tr")).to_have_count(3)
