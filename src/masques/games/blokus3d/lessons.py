"""Blokus 3D's rules figures (example positions) and guided first game: big blocks first, squares seen
from above, covering the other colour (B3-4, B3-6)."""

from __future__ import annotations

from ...engine import State
from ...engine.teaching import Lesson, Position, Step, after, best
from .pieces import PIECE_CUBES

OPTIONS = {"players": 2}
START = Position("blokus3d", 1, (), OPTIONS, seat=0)
SECOND = START.then("O4:0@e5", "I4:1@d2")
THIRD = SECOND.then("I4:1@f2", "O4:2@b2")


FIGURES = {
    "blokus3d-pieces": START,
    "blokus3d-structure-A": Position("blokus3d", 1, (), {"players": 2, "structure": "A"}),
    "blokus3d-structure-B": Position("blokus3d", 1, (), {"players": 2, "structure": "B"}),
    "blokus3d-structure-C": Position("blokus3d", 1, (), {"players": 2, "structure": "C"}),
    "blokus3d-structure-D": SECOND,
}
"""The rules page's figures: the tray of eleven blocks on the empty Pyramid, the four structures (the
Pyramid with two blocks laid)."""

_SIZE = {name: len(cubes) for name, cubes in PIECE_CUBES.items()}


def _colour_score(state: State, colour: int) -> float:
    obs = state.observation(0)
    assert isinstance(obs, dict)
    return float(obs["colours"][colour]["score"])


def four_cubes(state: State) -> list[int]:
    """Placements of a block of four cubes."""
    return [a for a in state.legal_actions() if _SIZE[state.action_to_str(a).split(":")[0]] == 4]


def most_own_squares(state: State) -> list[int]:
    """The placements that raise the mover's own score the most (B3-6)."""
    me = state.current_player
    return best(state, lambda s, a: _colour_score(after(s, a), me))


def widest_lead(state: State) -> list[int]:
    """The placements that leave the mover furthest ahead of the other colour (B3-6)."""
    me = state.current_player

    def lead(s: State, a: int) -> float:
        nxt = after(s, a)
        return _colour_score(nxt, me) - _colour_score(nxt, 1 - me)

    return best(state, lead)


LESSON = Lesson(
    title={"en": "Blokus 3D: your first blocks", "fr": "Blokus 3D : vos premiers blocs"},
    intro={
        "en": "Two players on the Pyramid: you play blue, your opponent yellow. Pick a block in the tray "
        "below "
        "the board, point at the board, turn it with R, and place it with a click or Enter.",
        "fr": "Deux joueurs sur la Pyramide : vous jouez le bleu, votre adversaire le jaune. Choisissez "
        "un bloc "
        "sous le plateau, visez le plateau, tournez-le avec R, et posez-le d'un clic ou avec Entrée.",
    },
    steps=(
        Step(
            text={
                "en": "The very first block may go anywhere inside the frame (B3-4). Small blocks fit "
                "into late "
                "gaps, and every block left over costs a point at the end (B3-6): start with a block of "
                "four cubes.",
                "fr": "Le tout premier bloc peut aller n'importe où dans le cadre (B3-4). Les petits "
                "blocs se "
                "glissent dans les derniers trous, et chaque bloc restant coûte un point à la fin (B3-6) : "
                "commencez par un bloc de quatre cubes.",
            },
            position=START,
            right=four_cubes,
            wrong={
                "en": "That block has fewer than four cubes. Keep the small ones for later.",
                "fr": "Ce bloc a moins de quatre cubes. Gardez les petits pour plus tard.",
            },
            done={"en": "A big block is down.", "fr": "Un gros bloc est posé."},
        ),
        Step(
            text={
                "en": "Every later block must touch a cube of your colour face to face (B3-4). At the "
                "end, each "
                "square whose top cube is blue scores a point (B3-6): lay a block flat so that it shows "
                "as many "
                "new blue squares as possible from above.",
                "fr": "Chaque bloc suivant doit toucher un cube de votre couleur par une face (B3-4). À "
                "la fin, "
                "chaque case dont le cube du dessus est bleu rapporte un point (B3-6) : posez un bloc à "
                "plat pour "
                "montrer le plus de nouvelles cases bleues vues de dessus.",
            },
            position=SECOND,
            right=most_own_squares,
            wrong={
                "en": "That block shows fewer new blue squares from above. Lay a four-cube block flat.",
                "fr": "Ce bloc montre moins de nouvelles cases bleues vues de dessus. Posez à plat un "
                "bloc de "
                "quatre cubes.",
            },
            done={
                "en": "Four more blue squares seen from above.",
                "fr": "Quatre cases bleues de plus vues de dessus.",
            },
        ),
        Step(
            text={
                "en": "A cube on top of a yellow square takes that square's point from yellow (B3-6). "
                "Blocks may rest on any colour, never over a gap (B3-4): climb onto yellow with the block "
                "that puts you furthest ahead.",
                "fr": "Un cube posé sur une case jaune retire son point au jaune (B3-6). Un bloc peut "
                "reposer sur n'importe quelle couleur, jamais au-dessus d'un vide (B3-4) : montez sur le "
                "jaune avec le bloc qui vous met le plus loin devant.",
            },
            position=THIRD,
            right=widest_lead,
            wrong={
                "en": "Another block would put you further ahead: cover more yellow squares, and show more "
                "blue from above.",
                "fr": "Un autre bloc vous mettrait plus loin devant : couvrez plus de cases jaunes, et "
                "montrez plus de bleu vu de dessus.",
            },
            done={
                "en": "Yellow lost squares and you gained some.",
                "fr": "Le jaune perd des cases, vous en gagnez.",
            },
        ),
    ),
    outro={
        "en": "Play goes on until no colour can place a block (B3-5). The highest score wins (B3-6).",
        "fr": "On joue jusqu'à ce qu'aucune couleur ne puisse poser de bloc (B3-5). Le meilleur score "
        "gagne (B3-6).",
    },
)

CAPTIONS = {
    "blokus3d-pieces": {
        "en": "The eleven blocks of one colour, in the tray under the empty Pyramid",
        "fr": "Les onze blocs d'une couleur, sous la Pyramide vide",
    },
    "blokus3d-structure-A": {
        "en": "Structure A, the Tower, for two players",
        "fr": "Structure A, la Tour, à deux",
    },
    "blokus3d-structure-B": {
        "en": "Structure B, the Wall, for two players",
        "fr": "Structure B, le Mur, à deux",
    },
    "blokus3d-structure-C": {
        "en": "Structure C, the Stairs, for two players",
        "fr": "Structure C, l'Escalier, à deux",
    },
    "blokus3d-structure-D": {
        "en": "Structure D, the Pyramid, for two players, with a blue and a yellow block laid",
        "fr": "Structure D, la Pyramide, à deux, avec un bloc bleu et un bloc jaune posés",
    },
}
"""Captions of the positions drawn in place of the figures (the alternative texts describe the SVGs)."""
