"""Maske's rules figure (an example position) and guided first game: laying the mask, stepping onto a
ring, ending the move (MS-8, MS-9, MS-10, MS-13)."""

from __future__ import annotations

from ...engine import State
from ...engine.teaching import Lesson, Position, Step, after, best
from .game import MaskeState

OPTIONS = {"players": 3}
SET_UP = Position("maske", 1, ("d5", "g2", "a1", "a7", "g1", "g7"), OPTIONS, seat=0)
"""Every stick is in its hole (MS-7): yours on d5 and g2; seat 0 lays the first mask."""
LAID = SET_UP.then("lay 0", "pass", "pass")
STEPPED = LAID.then("step 1 down")

FIGURES = {"maske-masks": LAID}
"""The rules page's figure: a mask laid on the plate, its rings paying 3 and 5 (the sticks stand in holes)."""


def _round_value(state: State, seat: int) -> float:
    """Points now, plus what the top mask pays the seat's sticks if this round's payday is still to come."""
    obs = state.observation(seat)
    assert isinstance(obs, dict)
    points = float(obs["points"][seat])
    if obs["phase"] in ("setup", "lay") or not obs["masks_laid"]:
        return points
    assert isinstance(state, MaskeState)
    values = state.top_values()
    return points + sum(values[int(h)] for h in obs["sticks"][seat] if int(h) >= 0)


def richest_payday(state: State) -> list[int]:
    """The moves after which the mover holds the most once the round has paid (MS-9, MS-13)."""
    seat = state.current_player
    start = state.observation(seat)
    assert isinstance(start, dict)

    def value(s: State, action: int) -> float:
        nxt = after(s, action)
        obs = nxt.observation(seat)
        assert isinstance(obs, dict)
        if obs["round"] != start["round"]:
            return float(obs["points"][seat])  # this round has paid
        return _round_value(nxt, seat)

    return best(state, value)


LESSON = Lesson(
    title={"en": "Maske: your first round", "fr": "Maske : votre première manche"},
    intro={
        "en": "Three players; you have the two sticks of your colour, on d5 and g2, and 10 points. The "
        "sticks "
        "are in place; now comes the first mask.",
        "fr": "Trois joueurs ; vous avez les deux bâtons de votre couleur, en d5 et g2, et 10 points. Les "
        "bâtons "
        "sont en place ; voici le premier masque.",
    },
    steps=(
        Step(
            text={
                "en": "You are the placer: you lay the mask, turned as you choose (MS-8). At payday a "
                "stick under "
                "a single ring earns 3 points, under a double ring 5 (MS-13). Turn the mask so that a "
                "double ring "
                "lies over one of your sticks.",
                "fr": "Vous êtes le poseur : vous posez le masque, tourné comme vous voulez (MS-8). Au "
                "jour de "
                "paie, un bâton sous un anneau simple rapporte 3 points, sous un double anneau 5 (MS-13). "
                "Tournez le masque pour qu'un double anneau couvre l'un de vos bâtons.",
            },
            position=SET_UP,
            right=richest_payday,
            wrong={
                "en": "Turned this way the mask pays your sticks less. Try another quarter turn.",
                "fr": "Tourné ainsi, le masque paie moins vos bâtons. Essayez un autre quart de tour.",
            },
            done={
                "en": "Your stick on d5 sits under a double ring: 5 points at payday.",
                "fr": "Votre bâton en d5 est sous un double anneau : 5 points au jour de paie.",
            },
        ),
        Step(
            text={
                "en": "The others passed; now it is your action (MS-9). You may move your sticks, one "
                "point a "
                "step, never onto the centre or over a stick (MS-10). Your stick on g2 is one step from a "
                "double "
                "ring: step it there.",
                "fr": "Les autres ont passé ; à vous d'agir (MS-9). Vous pouvez avancer vos bâtons, un "
                "point par "
                "pas, jamais sur le centre ni par-dessus un bâton (MS-10). Votre bâton en g2 est à un pas "
                "d'un "
                "double anneau : avancez-le.",
            },
            position=LAID,
            right=richest_payday,
            wrong={
                "en": "That move earns less: the double ring next to g2 pays 5 for a step that costs 1.",
                "fr": "Ce coup rapporte moins : le double anneau voisin de g2 paie 5 pour un pas qui "
                "coûte 1.",
            },
            done={
                "en": "Both sticks now stand under double rings.",
                "fr": "Vos deux bâtons sont maintenant sous des doubles anneaux.",
            },
        ),
        Step(
            text={
                "en": "Every further step would cost a point and leave a ring. End your move with Done; then "
                "payday comes (MS-13).",
                "fr": "Tout autre pas coûterait un point et quitterait un anneau. Finissez votre coup "
                "avec Terminé ; "
                "puis vient le jour de paie (MS-13).",
            },
            position=STEPPED,
            right=richest_payday,
            wrong={
                "en": "Another step costs a point and moves a stick off its ring. Press Done.",
                "fr": "Un pas de plus coûte un point et sort un bâton de son anneau. Appuyez sur Terminé.",
            },
            done={
                "en": "Payday: 9 + 5 + 5 = 19 points.",
                "fr": "Jour de paie : 9 + 5 + 5 = 19 points.",
            },
        ),
    ),
    outro={
        "en": "Instead of moving you may also draw a card and auction it (MS-11). After the last mask has "
        "paid, "
        "the most points wins (MS-14).",
        "fr": "Au lieu d'avancer, vous pouvez aussi piocher une carte et la mettre aux enchères (MS-11). "
        "Après la "
        "paie du dernier masque, le plus riche gagne (MS-14).",
    },
)

CAPTIONS = {
    "maske-masks": {
        "en": "A mask laid on the plate: a single ring pays 3 points, a double ring 5; the sticks stand "
        "in holes, "
        "never on the centre",
        "fr": "Un masque posé sur le socle : un anneau simple paie 3 points, un double anneau 5 ; les "
        "bâtons sont "
        "dans des trous, jamais au centre",
    },
}
"""The caption of the position drawn in place of the figure (its alternative text describes the SVG)."""
