"""Match chat: what a line may hold, and who may read which channel.

A match has two channels.  Its players talk in ``players``, which its spectators read too.  Its
spectators talk in ``spectators``, which the players do not see while the match is played: a
spectator sees things a player may not (the moves of every seat as they are shown to all, a replay
in another tab) and must not be able to whisper them.  While the match is played, the spectators'
chat is read only by signed-in spectators: a player who opens the match in a private window sees
no more than the spectators' seats do.  A player who makes a second identity (a guest takes one
request) reads it as any spectator does: the channel keeps the players from reading the
spectators' talk by chance, it cannot stop a player bent on it, nor collusion by other means (a
spectator sees only what every seat's view shows to all).  Once the match is over, everyone
reads both.

A line is plain text: the server keeps it as sent (after Unicode normalisation) and the client shows
it as text, never as markup.  Characters that are not text (controls, invisible formatting such as
right-to-left overrides, unassigned code points) are refused, not stripped, so nobody is surprised
by what the others see; the zero-width joiners of emoji sequences and scripts are kept, as in names.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .errors import ServerError
from .security import MARKS, MAX_MARKS, hidden_characters, visible
from .storage import ChatRow, aware

PLAYERS = "players"
SPECTATORS = "spectators"
CHANNELS = (PLAYERS, SPECTATORS)
MAX_CHARACTERS = 500
NOT_TEXT = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
"""Unicode categories refused in a line: controls, format characters, private use, surrogates,
unassigned."""


def clean(text: Any) -> str:
    """The line to store, or a ServerError with a code saying what is wrong with it."""
    if not isinstance(text, str):
        raise ServerError(400, "bad_message", "'text' must be a string")
    line = unicodedata.normalize("NFC", text).strip()
    if not visible(line):  # blanks and characters drawn as nothing show nothing either
        raise ServerError(400, "chat_empty", "a chat line needs some text that shows")
    if MARKS.search(line):
        raise ServerError(
            400, "chat_bad_text", f"a letter of a chat line carries at most {MAX_MARKS} accents or marks"
        )
    if len(line) > MAX_CHARACTERS:
        raise ServerError(400, "chat_too_long", f"a chat line has at most {MAX_CHARACTERS} characters")
    for _position, char, _category in hidden_characters(line, NOT_TEXT):
        raise ServerError(
            400,
            "chat_bad_text",
            f"a chat line is plain text: U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')}) "
            "is a control or invisible character",
        )
    return line


def readable(channel: str, seat: int | None, status: str, *, signed: bool) -> bool:
    """Whether a reader of ``seat`` (None: a spectator; ``signed``: with a session) reads ``channel``
    in a match of ``status``."""
    if channel == PLAYERS or status not in ("open", "running"):
        return True
    return seat is None and signed


def line_json(row: ChatRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "seat": row.seat,
        "name": row.name,
        "player": row.player_id,
        "text": row.text,
        "at": aware(row.created).isoformat(),
        "version": row.version,
    }
