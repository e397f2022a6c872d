"""Generate Maske's 18 masks and 55 action cards (MS-2, MS-4) once, into the package's data files.

The printed masks and card texts are unknown, so Masques designs them.  Masks are drawn as faces on
the 7x7 plate: two eyes, a nose and a mouth made of single rings (``o``, pays 3) and double rings
(``O``, pays 5); ``.`` pays nothing and ``+`` is the centre, which is no hole.  A seeded generator
proposes faces and keeps those within MS-2's limits (5 to 10 rings, 1 to 4 double, no quarter-turn
symmetry, no two alike under rotation).  Cards are data: an effect made of primitives with
parameters, and the project's own texts in German, French and English, in MS-4's exact numbers.

The files are frozen: rerunning writes the same bytes; ``--check`` verifies them.
Usage: python scripts/generate_maske_data.py [--check]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 1995
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "masques" / "games" / "maske"
SIZE = 7
CENTRE = (3, 3)

MASK_NAMES = [
    "Grinning Jester",
    "Sulking Baron",
    "Winking Witch",
    "Toothless Sailor",
    "Crooked Judge",
    "Sleepy Giant",
    "Howling Wolf",
    "Sly Fox",
    "Gaping Fish",
    "Old Crone",
    "Mad Hatter",
    "Pouting Prince",
    "Laughing Devil",
    "Startled Owl",
    "Greedy Merchant",
    "Weeping Clown",
    "Snoring Monk",
    "Cackling Goblin",
]

Grid = list[list[str]]


def rotate(rows: list[str]) -> list[str]:
    """A quarter turn clockwise about the centre."""
    return ["".join(rows[SIZE - 1 - c][r] for c in range(SIZE)) for r in range(SIZE)]


def rotations(rows: list[str]) -> list[list[str]]:
    out = [rows]
    for _ in range(3):
        out.append(rotate(out[-1]))
    return out


def canonical(rows: list[str]) -> str:
    return min("/".join(r) for r in rotations(rows))


def propose(rng: random.Random) -> list[str]:
    grid: Grid = [["." for _ in range(SIZE)] for _ in range(SIZE)]
    grid[3][3] = "+"

    def ring(r: int, c: int) -> None:
        if (r, c) != CENTRE and 0 <= r < SIZE and 0 <= c < SIZE:
            grid[r][c] = "O" if rng.random() < 0.25 else "o"

    eye_row = rng.choice([1, 2])
    left, right = rng.choice([(1, 5), (2, 4), (1, 4), (2, 5), (0, 5), (1, 6)])
    ring(eye_row + rng.choice([0, 0, 1]) - (1 if eye_row == 2 and rng.random() < 0.3 else 0), left)
    ring(eye_row, right)
    if rng.random() < 0.4:  # a brow or a second eye ring
        ring(eye_row - 1, rng.choice([left, right]))
    for _ in range(rng.choice([1, 1, 2])):  # nose: beside or below the centre
        ring(rng.choice([2, 4, 3, 3]), rng.choice([2, 3, 4]))
    mouth_row = rng.choice([5, 5, 6])
    start = rng.randrange(0, 3)
    width = rng.randrange(2, 5)
    for c in range(start, min(SIZE, start + width)):
        ring(mouth_row if rng.random() < 0.75 else mouth_row - 1, c)
    return ["".join(row) for row in grid]


def valid(rows: list[str]) -> bool:
    text = "".join(rows)
    rings = sum(ch in "oO" for ch in text)
    doubles = text.count("O")
    return 5 <= rings <= 10 and 1 <= doubles <= 4 and rotate(rows) != rows and rows[3][3] == "+"


def generate_masks() -> list[dict[str, object]]:
    rng = random.Random(SEED)
    masks: list[dict[str, object]] = []
    seen: set[str] = set()
    for _ in range(100_000):  # bounded: in practice a few dozen proposals
        rows = propose(rng)
        if not valid(rows) or canonical(rows) in seen:
            continue
        seen.add(canonical(rows))
        masks.append({"id": len(masks), "name": MASK_NAMES[len(masks)], "rows": rows})
        if len(masks) == len(MASK_NAMES):
            return masks
    raise RuntimeError("could not design 18 masks")


# (count, effect, texts) — texts use {n}.  Effects are lists of primitives (see game.py).
CARD_KINDS: list[tuple[int, list[dict[str, object]], dict[str, str]]] = []


def kind(count: int, effect: list[dict[str, object]], de: str, fr: str, en: str) -> None:
    CARD_KINDS.append((count, effect, {"de": de, "fr": fr, "en": en}))


kind(
    4,
    [{"op": "jump", "whose": "own", "sticks": 1}],
    "Springe mit einem deiner Stäbe in ein beliebiges freies Loch.",
    "Fais sauter un de tes bâtons dans un trou libre de ton choix.",
    "Jump one of your sticks to any free hole.",
)
kind(
    2,
    [{"op": "jump", "whose": "own", "sticks": 2}],
    "Springe mit beiden Stäben in beliebige freie Löcher.",
    "Fais sauter tes deux bâtons dans des trous libres de ton choix.",
    "Jump both your sticks to any free holes.",
)
kind(
    3,
    [{"op": "jump", "whose": "opponent", "sticks": 1}],
    "Versetze einen Stab eines Mitspielers deiner Wahl in ein freies Loch deiner Wahl.",
    "Déplace un bâton d'un adversaire de ton choix dans un trou libre de ton choix.",
    "Jump one stick of an opponent of your choice to a free hole of your choice.",
)
for n in (2, 3, 4):
    kind(
        2,
        [{"op": "steps", "whose": "own", "steps": n}],
        f"Ziehe deine Stäbe bis zu {n} Schritte kostenlos.",
        f"Déplace tes bâtons jusqu'à {n} pas gratuitement.",
        f"Move your sticks up to {n} steps for free.",
    )
kind(
    3,
    [{"op": "steps", "whose": "opponent", "steps": 3}],
    "Ziehe einen Stab eines Mitspielers deiner Wahl bis zu 3 Schritte.",
    "Déplace un bâton d'un adversaire de ton choix jusqu'à 3 pas.",
    "Move one stick of an opponent of your choice up to 3 steps.",
)
kind(
    3,
    [{"op": "swap"}],
    "Tausche einen deiner Stäbe mit einem Stab eines Mitspielers deiner Wahl.",
    "Échange un de tes bâtons avec un bâton d'un adversaire de ton choix.",
    "Swap one of your sticks with a stick of an opponent of your choice.",
)
for n in (1, 2):
    kind(
        2,
        [{"op": "pay", "payer": "each_other", "payee": "holder", "amount": n}],
        f"Reihum zahlt dir jeder {n} Punkt{'e' if n > 1 else ''}.",
        f"Chacun à son tour te paie {n} point{'s' if n > 1 else ''}.",
        f"Every player in turn pays you {n} point{'s' if n > 1 else ''}.",
    )
kind(
    2,
    [{"op": "pay", "payer": "bank", "payee": "everyone", "amount": 2}],
    "Reihum erhält jeder 2 Punkte aus der Kasse.",
    "Chacun à son tour reçoit 2 points de la banque.",
    "Every player in turn receives 2 points from the bank.",
)
kind(
    2,
    [{"op": "pay", "payer": "everyone", "payee": "bank", "amount": 1}],
    "Reihum zahlt jeder 1 Punkt an die Kasse.",
    "Chacun à son tour paie 1 point à la banque.",
    "Every player in turn pays 1 point to the bank.",
)
kind(
    2,
    [{"op": "steps", "whose": "everyone", "steps": 1, "voluntary": True}],
    "Reihum darf jeder einen Stab 1 Schritt kostenlos ziehen (freiwillig).",
    "Chacun à son tour peut déplacer un bâton d'un pas gratuitement (facultatif).",
    "Every player in turn may move one stick 1 step for free (voluntary).",
)
for n in (3, 5):
    kind(
        2,
        [{"op": "pay", "payer": "bank", "payee": "holder", "amount": n}],
        f"Du erhältst {n} Punkte aus der Kasse.",
        f"Tu reçois {n} points de la banque.",
        f"Receive {n} points from the bank.",
    )
for n in (2, 4):
    kind(
        1,
        [{"op": "pay", "payer": "holder", "payee": "bank", "amount": n}],
        f"Zahle {n} Punkte an die Kasse.",
        f"Paie {n} points à la banque.",
        f"Pay {n} points to the bank.",
    )
kind(
    3,
    [{"op": "pay", "payer": "chosen", "payee": "holder", "amount": 3}],
    "Nimm einem Mitspieler deiner Wahl 3 Punkte ab.",
    "Prends 3 points à un joueur de ton choix.",
    "Take 3 points from a player of your choice.",
)
kind(
    1,
    [{"op": "pay", "payer": "holder", "payee": "poorest", "amount": 3}],
    "Gib dem Spieler mit den wenigsten Punkten 3 Punkte (bei Gleichstand dem ersten im Uhrzeigersinn).",
    "Donne 3 points au joueur qui en a le moins (en cas d'égalité, au premier dans le sens horaire).",
    "Give 3 points to the player with the fewest points (on a tie, the first of them clockwise).",
)
kind(
    3,
    [{"op": "turn", "quarters": "choose"}],
    "Drehe die liegende Maske um eine Vierteldrehung, in die Richtung deiner Wahl.",
    "Tourne le masque d'un quart de tour, dans le sens de ton choix.",
    "Turn the current mask a quarter turn, either way.",
)
kind(
    1,
    [{"op": "turn", "quarters": 2}],
    "Drehe die liegende Maske um eine halbe Drehung.",
    "Tourne le masque d'un demi-tour.",
    "Turn the current mask a half turn.",
)
kind(
    2,
    [{"op": "payday"}],
    "Sofort ein zusätzlicher Zahltag für alle auf der liegenden Maske.",
    "Une paie supplémentaire pour tous, tout de suite, sur le masque actuel.",
    "An extra payday for everyone, now, on the current mask.",
)
kind(
    2,
    [{"op": "double_payday"}],
    "Beim Zahltag dieser Runde zahlen deine Stäbe doppelt.",
    "À la paie de ce tour, tes bâtons rapportent le double.",
    "At this round's payday your sticks pay double.",
)
kind(
    2,
    [{"op": "skip", "who": "left"}],
    "Dein linker Nachbar setzt bei seiner nächsten Aktion aus.",
    "Ton voisin de gauche passe sa prochaine action.",
    "The player on your left skips their next action.",
)
kind(
    2,
    [{"op": "extra_action"}],
    "Du hast sofort eine weitere Aktion (passen, ziehen oder eine Karte abheben).",
    "Tu joues tout de suite une action de plus (passer, déplacer ou tirer une carte).",
    "Take another action now (pass, move or draw).",
)
kind(
    2,
    [{"op": "nothing"}],
    "Nichts geschieht. Gut geblufft?",
    "Il ne se passe rien. Bien bluffé ?",
    "Nothing happens. Nice bluff?",
)


def generate_cards() -> list[dict[str, object]]:
    cards = []
    for count, effect, texts in CARD_KINDS:
        for _ in range(count):
            cards.append({"id": len(cards), "effect": effect, "text": texts})
    assert len(cards) == 55, len(cards)
    return cards


def files() -> dict[Path, str]:
    masks = {"legend": {"o": 3, "O": 5, ".": 0, "+": "centre (no hole)"}, "masks": generate_masks()}
    mask_text = json.dumps(masks, ensure_ascii=False, indent=1)
    # Keep each mask's drawing on its lines, readable as a picture.
    cards_text = json.dumps({"cards": generate_cards()}, ensure_ascii=False, indent=1)
    return {PACKAGE / "masks.json": mask_text + "\n", PACKAGE / "cards.json": cards_text + "\n"}


def main() -> None:
    for path, text in files().items():
        if "--check" in sys.argv:
            if not path.exists() or path.read_text("utf-8") != text:
                sys.exit(f"{path} differs from what the generator writes")
            print(f"{path.name} is up to date")
        else:
            path.write_text(text, "utf-8")
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
