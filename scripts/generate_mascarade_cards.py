"""Generate the 100 Mascarade mask cards (MC-2) once, with a fixed seed, into the package's cards.json.

The printed set is unknown, so Masques designs its own: 5 features per card (face shape with 4
values; hair, eyes, nose and mouth with 5 values each), all 100 cards distinct, each face value on
exactly 25 cards and each other value on exactly 20.  Each feature column is a shuffled balanced list
(so the counts hold by construction); duplicate cards are then repaired by swapping one feature
between two cards, which keeps every count.  The output is frozen: rerunning gives the same file.

Usage: python scripts/generate_mascarade_cards.py [--check]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 20261125
OUT = Path(__file__).resolve().parents[1] / "src" / "masques" / "games" / "mascarade" / "cards.json"

FEATURES: dict[str, list[dict[str, str]]] = {
    "face": [
        {"key": "round", "en": "round", "fr": "rond", "de": "rund", "nl": "rond"},
        {"key": "oval", "en": "oval", "fr": "ovale", "de": "oval", "nl": "ovaal"},
        {"key": "square", "en": "square", "fr": "carré", "de": "eckig", "nl": "hoekig"},
        {"key": "heart", "en": "heart", "fr": "en cœur", "de": "herzförmig", "nl": "hartvormig"},
    ],
    "hair": [
        {"key": "curly", "en": "curly", "fr": "bouclés", "de": "lockig", "nl": "krullend"},
        {"key": "straight", "en": "straight", "fr": "raides", "de": "glatt", "nl": "steil"},
        {"key": "spiky", "en": "spiky", "fr": "en pointes", "de": "stachelig", "nl": "stekelig"},
        {"key": "bald", "en": "bald", "fr": "chauve", "de": "kahl", "nl": "kaal"},
        {"key": "braids", "en": "braids", "fr": "tresses", "de": "Zöpfe", "nl": "vlechten"},
    ],
    "eyes": [
        {"key": "round", "en": "round", "fr": "ronds", "de": "rund", "nl": "rond"},
        {"key": "almond", "en": "almond", "fr": "en amande", "de": "mandelförmig", "nl": "amandelvormig"},
        {"key": "sleepy", "en": "sleepy", "fr": "endormis", "de": "verschlafen", "nl": "slaperig"},
        {"key": "starry", "en": "starry", "fr": "étoilés", "de": "Sternaugen", "nl": "sterretjes"},
        {"key": "winking", "en": "winking", "fr": "clin d'œil", "de": "zwinkernd", "nl": "knipogend"},
    ],
    "nose": [
        {"key": "button", "en": "button", "fr": "en bouton", "de": "Stupsnase", "nl": "wipneus"},
        {"key": "long", "en": "long", "fr": "long", "de": "lang", "nl": "lang"},
        {"key": "hooked", "en": "hooked", "fr": "crochu", "de": "Hakennase", "nl": "haakneus"},
        {"key": "round", "en": "round", "fr": "rond", "de": "Knollennase", "nl": "knolneus"},
        {"key": "pointed", "en": "pointed", "fr": "pointu", "de": "spitz", "nl": "spits"},
    ],
    "mouth": [
        {"key": "smile", "en": "smile", "fr": "sourire", "de": "Lächeln", "nl": "glimlach"},
        {"key": "frown", "en": "frown", "fr": "moue", "de": "Schmollmund", "nl": "pruillip"},
        {"key": "open", "en": "open", "fr": "ouverte", "de": "offen", "nl": "open"},
        {"key": "teeth", "en": "toothy grin", "fr": "dents", "de": "Zähne", "nl": "tanden"},
        {"key": "moustache", "en": "moustache", "fr": "moustache", "de": "Schnurrbart", "nl": "snor"},
    ],
}
FEATURE_NAMES = {
    "face": {"en": "face", "fr": "visage", "de": "Gesicht", "nl": "gezicht"},
    "hair": {"en": "hair", "fr": "cheveux", "de": "Haare", "nl": "haar"},
    "eyes": {"en": "eyes", "fr": "yeux", "de": "Augen", "nl": "ogen"},
    "nose": {"en": "nose", "fr": "nez", "de": "Nase", "nl": "neus"},
    "mouth": {"en": "mouth", "fr": "bouche", "de": "Mund", "nl": "mond"},
}
NUM_CARDS = 100


def generate() -> dict[str, object]:
    rng = random.Random(SEED)
    columns: dict[str, list[int]] = {}
    for feature, values in FEATURES.items():
        column = [v for v in range(len(values)) for _ in range(NUM_CARDS // len(values))]
        rng.shuffle(column)
        columns[feature] = column
    names = list(FEATURES)
    for _ in range(100_000):  # bounded repair; in practice a handful of swaps
        cards = [tuple(columns[f][i] for f in names) for i in range(NUM_CARDS)]
        seen: dict[tuple[int, ...], int] = {}
        duplicate = None
        for i, card in enumerate(cards):
            if card in seen:
                duplicate = i
                break
            seen[card] = i
        if duplicate is None:
            break
        feature = rng.choice(names)
        other = rng.randrange(NUM_CARDS)
        col = columns[feature]
        col[duplicate], col[other] = col[other], col[duplicate]
    else:
        raise RuntimeError("could not make 100 distinct cards")
    return {
        "seed": SEED,
        "features": {f: {"names": FEATURE_NAMES[f], "values": FEATURES[f]} for f in names},
        "cards": [
            {"id": i, **{f: FEATURES[f][columns[f][i]]["key"] for f in names}} for i in range(NUM_CARDS)
        ],
    }


def main() -> None:
    text = json.dumps(generate(), ensure_ascii=False, indent=1) + "\n"
    if "--check" in sys.argv:
        if OUT.read_text("utf-8") != text:
            sys.exit(f"{OUT} differs from what the generator writes")
        print(f"{OUT.name} is up to date")
        return
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
