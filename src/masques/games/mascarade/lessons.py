"""Mascarade's rules figures (example positions) and guided first game, in the points variant (MC-5, MC-9)."""

from __future__ import annotations

from ...engine import State
from ...engine.teaching import Lesson, Position, Step, after, best

OPTIONS = {"players": 2, "scoring": True}
OPENING = Position("mascarade", 2, ("3@e5",), OPTIONS, seat=1)
"""Seat 0 laid the first card on the start square e5; seat 1 (the lesson's) is to move."""
MIDDLE = OPENING.then("21@e4", "74@d5")
LATER = MIDDLE.then("78@d4", "71@c5")

SAMPLE = Position(
    "mascarade",
    18,  # figures.SAMPLE_SEED (a rules module does not import its game's parts; a test checks both agree)
    (
        *("7@e5", "20@e4", "84@d5", "9@f5", "93@f4", "57@d4", "79@c5", "41@g5", "24@c4", "39@g4"),
        *("60@d6", "36@c3", "43@c6", "33@e6", "73@f6", "48@g6", "29@d3", "30@e3", "4@b5", "2@b6"),
    ),
    seat=2,
)
"""The sample game of the rules page's layout figure (``figures.sample_layout``), seen by the seat to move."""

FIGURES = {
    "mascarade-features": OPENING,
    "mascarade-layout": SAMPLE,
}
"""The rules page's figures: a hand of five masks next to the start card, and the sample board the
page describes (the same twenty cards as its drawing)."""


def most_points(state: State) -> list[int]:
    """The placements that score the most for the mover (MC-9)."""
    seat = state.current_player

    def points(s: State, action: int) -> float:
        return after(s, action).scores()[seat]

    return best(state, points)


LESSON = Lesson(
    title={"en": "Mascarade: your first cards", "fr": "Mascarade : vos premières cartes"},
    intro={
        "en": "You play against one opponent, in the points variant. Each mask has five features: face, "
        "hair, "
        "eyes, nose and mouth. Your hand is below the board; the cards laid are on it.",
        "fr": "Vous jouez contre un adversaire, dans la variante à points. Chaque masque a cinq traits : "
        "visage, "
        "cheveux, yeux, nez et bouche. Votre main est sous le plateau ; les cartes posées sont dessus.",
    },
    steps=(
        Step(
            text={
                "en": "A card goes next to a card already laid and must share at least one feature with each "
                "card it touches (MC-5). Every shared feature scores a point (MC-9): choose a card of "
                "your hand, "
                "then a square beside the start card, so that it shares two features.",
                "fr": "Une carte se pose à côté d'une carte déjà posée et doit partager au moins un trait "
                "avec "
                "chaque carte qu'elle touche (MC-5). Chaque trait partagé rapporte un point (MC-9) : "
                "choisissez "
                "une carte de votre main, puis une case à côté de la carte de départ, pour partager deux "
                "traits.",
            },
            position=OPENING,
            right=most_points,
            wrong={
                "en": "That card fits, but it shares only one feature. Another card of your hand shares two.",
                "fr": "Cette carte convient, mais ne partage qu'un trait. Une autre carte de votre main en "
                "partage deux.",
            },
            done={"en": "Two features shared: two points.", "fr": "Deux traits partagés : deux points."},
        ),
        Step(
            text={
                "en": "A card that touches two cards must match both, and it scores with both. Find the "
                "square "
                "where one of your cards touches two cards and shares four features in all.",
                "fr": "Une carte qui en touche deux doit convenir aux deux, et marque avec les deux. "
                "Trouvez la "
                "case où l'une de vos cartes touche deux cartes et partage quatre traits en tout.",
            },
            position=MIDDLE,
            right=most_points,
            wrong={
                "en": "That placement is legal but scores less. Look for a square between two cards.",
                "fr": "Cette pose est permise mais rapporte moins. Cherchez une case entre deux cartes.",
            },
            done={"en": "Four points in one card.", "fr": "Quatre points d'un coup."},
        ),
        Step(
            text={
                "en": "Your opponent answered. Once more, find the placement that scores the most.",
                "fr": "Votre adversaire a répondu. Encore une fois, trouvez la pose qui rapporte le plus.",
            },
            position=LATER,
            right=most_points,
            wrong={
                "en": "Legal, but another card or square shares more features.",
                "fr": "Permis, mais une autre carte ou une autre case partage plus de traits.",
            },
            done={"en": "Three points.", "fr": "Trois points."},
        ),
    ),
    outro={
        "en": "After each card you draw back up to five; when nothing fits you draw (MC-7). Without "
        "points, the "
        "first to empty their hand once the pool is empty wins.",
        "fr": "Après chaque carte, vous complétez votre main à cinq ; si rien ne convient, vous piochez "
        "(MC-7). "
        "Sans les points, le premier à vider sa main une fois la pioche vide gagne.",
    },
)

CAPTIONS = {
    "mascarade-features": {
        "en": "The start card on e5 and a hand of five masks: each drawn feature is one value of the "
        "table above",
        "fr": "La carte de départ en e5 et une main de cinq masques : chaque trait dessiné est une valeur du "
        "tableau ci-dessus",
    },
    "mascarade-layout": {
        "en": "A sample board after twenty cards, the first on the start square e5",
        "fr": "Un plateau d'exemple après vingt cartes, la première sur la case de départ e5",
    },
}
"""Captions of the positions drawn in place of the figures (the alternative texts describe the SVGs)."""
