"""``masques chat``: the operator's moderation tool for match chat.

It works on the server's database directly, also while the server runs.  A deleted line leaves every
history and chat read at once; connections that already showed it lose it at their next connect or
sync.  To silence a person everywhere, disable their account (``masques users disable``).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from .output import console, fail
from .users import Database, _storage

app = typer.Typer(name="chat", help="Read a match's chat and delete lines from it.", no_args_is_help=True)


@app.command("list")
def list_lines(
    match_id: Annotated[str, typer.Argument(help="The match's id (as in its address).")],
    database: Database = None,
) -> None:
    """Every chat line of a match, both channels, with the ids ``delete`` takes."""
    storage = _storage(database, existing=True)
    if storage.match(match_id) is None:
        fail(f"no match {match_id!r}")
    table = Table("id", "channel", "when", "who", "player id", "text")
    for line in storage.chat(match_id):
        table.add_row(
            str(line.id),
            line.channel,
            line.created.strftime("%Y-%m-%d %H:%M"),
            line.name,
            line.player_id or "",
            line.text,
        )
    console.print(table)


@app.command()
def delete(
    line_id: Annotated[
        int, typer.Argument(help="The line's id (from `masques chat list`).", min=1, max=2**63 - 1)
    ],
    database: Database = None,
) -> None:
    """Take a line out of its match's chat and out of every history and replay."""
    storage = _storage(database, existing=True)
    row = storage.delete_chat(line_id)
    if row is None:
        fail(f"no chat line {line_id}")
    console.print(f"deleted line {line_id} of match {row.match_id} (said by {row.name})")
