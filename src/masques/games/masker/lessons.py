"""Masker's rules figures (example positions) and guided first game, played by the engine (MK-5..MK-8)."""

from __future__ import annotations

from ...engine import State
from ...engine.teaching import Lesson, Position, Step

GRID = Position("masker", 18, options={"players": 2, "variant": "2d"})
STACKS = Position("masker", 18, options={"players": 2, "variant": "3d"})
FIGURES = {"masker-grid": GRID, "masker-stacks": STACKS}
"""The rules page's figures: the starting layouts also drawn as docs/rules/figures/*.svg (seed 18)."""

START = GRID
"""The figure's grid: seat 0 moves first and owns green; a white cross touches the runner."""


def _colour_at(state: State, action: int) -> str:
    """The colour of the cross a step takes (from the mover's own view of the board)."""
    obs = state.observation(state.current_player)
    assert isinstance(obs, dict)
    move = state.action_to_json(action)
    if not isinstance(move, dict) or "step" not in move:
        return ""
    square = str(move["step"])
    cell = (int(square[1:]) - 1) * int(obs["cols"]) + "abcdef".index(square[0])
    return str(obs["stacks"][cell][-1])


def _own(state: State) -> str:
    obs = state.observation(state.current_player)
    assert isinstance(obs, dict)
    return str(obs["your_colour"])


def white_steps(state: State) -> list[int]:
    return [a for a in state.legal_actions() if _colour_at(state, a) == "white"]


def not_own_colour(state: State) -> list[int]:
    own = _own(state)
    return [a for a in state.legal_actions() if _colour_at(state, a) not in ("", own)]


def stop(state: State) -> list[int]:
    return [a for a in state.legal_actions() if state.action_to_str(a) == "stop"]


LESSON = Lesson(
    title={"en": "Masker: your first turn", "fr": "Masker : votre premier tour"},
    intro={
        "en": "You play against one opponent. Your colour is secret: here it is green, shown only "
        "to you "
        "above the board. You want the other colours gone while green stays on the board.",
        "fr": "Vous jouez contre un adversaire. Votre couleur est secrète : ici, le vert, "
        "montré à vous "
        "seul au-dessus du plateau. Il s'agit de faire disparaître les autres couleurs en gardant du vert "
        "en jeu.",
    },
    steps=(
        Step(
            text={
                "en": "The runner is the uncoloured cross with a ring. A step moves it onto a cross that "
                "touches "
                "it (up, down, left or right) and you capture that cross (MK-5). A white cross gives a "
                "free step "
                "(MK-8): capture the white cross next to the runner.",
                "fr": "La croix incolore porte un anneau. Un déplacement l'amène sur une croix qui la "
                "touche (haut, "
                "bas, gauche ou droite) et vous capturez cette croix (MK-5). Une croix blanche donne un "
                "déplacement "
                "libre (MK-8) : capturez la croix blanche voisine de la croix incolore.",
            },
            position=START,
            right=white_steps,
            wrong={
                "en": "That cross is not white. Look at the crosses touching the runner: one of them is "
                "white.",
                "fr": "Cette croix n'est pas blanche. Regardez les croix qui touchent la croix incolore : "
                "l'une d'elles est blanche.",
            },
            done={
                "en": "Well done: the white cross is yours, and your next step is free.",
                "fr": "Bien joué : la croix blanche est à vous, et votre prochain déplacement est libre.",
            },
        ),
        Step(
            text={
                "en": "A free step may take any cross on the board, wherever it is (MK-8). Take a cross "
                "that is "
                "not green: every green cross that leaves the board brings you closer to being out (MK-10).",
                "fr": "Un déplacement libre peut prendre n'importe quelle croix du plateau (MK-8). Prenez "
                "une croix "
                "qui n'est pas verte : chaque croix verte qui quitte le plateau vous rapproche de "
                "l'élimination "
                "(MK-10).",
            },
            position=START.then("f5"),
            right=not_own_colour,
            wrong={
                "en": "Take a cross that is not green: green is your own colour, and when the last green "
                "cross leaves the board, you are out.",
                "fr": "Prenez une croix qui n'est pas verte : le vert est votre couleur, et quand la "
                "dernière croix verte quitte le plateau, vous êtes éliminé.",
            },
            done={
                "en": "Good: a cross of another colour, and nobody has learnt which colour is yours.",
                "fr": "Bien : une croix d'une autre couleur, et personne n'a appris quelle est la vôtre.",
            },
        ),
        Step(
            text={
                "en": "A turn is one to three steps (MK-6). Here the runner stands next to green crosses "
                "only: "
                'another step would take your own colour. End your turn with the "Stop my turn" button.',
                "fr": "Un tour compte d'un à trois déplacements (MK-6). Ici, la croix incolore ne touche "
                "que des "
                "croix vertes : un autre déplacement prendrait votre couleur. Terminez votre tour avec le "
                "bouton « Finir mon tour ».",
            },
            position=START.then("f5", "f1"),
            right=stop,
            wrong={
                "en": 'That step takes a green cross, your own colour. Press "Stop my turn" to end it.',
                "fr": "Ce déplacement prend une croix verte, votre couleur. Appuyez sur « Finir mon tour » "
                "pour le terminer.",
            },
            done={
                "en": "Your turn is over; your opponent plays next.",
                "fr": "Votre tour est fini ; votre adversaire joue.",
            },
        ),
    ),
    outro={
        "en": "That is a whole turn of Masker. The last player whose colour is still on the board wins "
        "(MK-12).",
        "fr": "Voilà un tour complet de Masker. Le dernier joueur dont la couleur reste sur le plateau "
        "gagne (MK-12).",
    },
)
