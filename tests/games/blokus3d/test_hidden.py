"""B3-11 perfect information: nothing to declare, so the mutation leak check has nothing to vary."""

from __future__ import annotations

from masques.engine import conformance, load_game
from masques.games.blokus3d.game import Blokus3DGame


def test_b3_11_declares_nothing_hidden_and_passes_the_mutation_check_trivially() -> None:
    """The only draw, the random first colour, is public from the start (every seat's observation)."""
    assert Blokus3DGame.hidden_information == ()
    for options in Blokus3DGame.conformance_configurations():
        game = load_game("blokus3d", options)
        assert conformance.check_hidden_information(game, 3) == 0
        state = game.new_initial_state(5)
        first = state.observation(None)["first_colour"]
        assert all(state.observation(s)["first_colour"] == first for s in range(game.num_players))
