"""``masques users``: the operator's accounts tool (no mail server needed).

It works on the server's database directly, also while the server runs: the server reads accounts and
sessions from the database on every request, so a disabled account or a reset password takes effect
at once (its sessions end).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.table import Table
from sqlalchemy.exc import IntegrityError

from ..extras import MissingExtraError
from .output import console, fail

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

    from ..server.storage import PlayerRow, Storage

app = typer.Typer(name="users", help="List, create, reset or disable player accounts.", no_args_is_help=True)

Database = Annotated[
    str | None,
    typer.Option(
        envvar="MASQUES_DATABASE_URL",
        help="SQLAlchemy URL (default: SQLite in the user data dir, as `serve`).",
    ),
]
Username = Annotated[str, typer.Argument(help="The account's username (in any case).", show_default=False)]
PasswordStdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from standard input (for scripts).")
]


def database_url(text: str) -> URL:
    """The parsed URL of ``--database``, or one line saying what one looks like (exit 2)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(text)
    except (ArgumentError, ValueError):
        fail(
            "--database (or MASQUES_DATABASE_URL) is not a database URL: it looks like "
            "sqlite:///FILE or postgresql+psycopg://USER:PASSWORD@HOST/NAME"
        )


def _storage(database: str | None, *, existing: bool = False, upgrade: bool = False) -> Storage:
    """The server's database, on this release's schema.  A URL that does not parse, a dialect
    or driver that is not installed, a database that cannot be reached or is not one: one line, exit 2.
    With ``existing``, a SQLite file that does not exist is refused instead of made.

    A new database gets the schema.  One on an older schema is upgraded only with ``upgrade``
    (``serve``, ``migrate``): an operator's command run by a newer release must not change the
    schema under the servers still running the one before; it says what to run instead."""
    from alembic.util.exc import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.storage import Storage
    from .main import default_database_url

    text = database or default_database_url()
    url = database_url(text)
    if existing and url.get_backend_name() == "sqlite":
        name = url.database or ""
        if name not in ("", ":memory:") and not name.startswith("file:") and not Path(name).is_file():
            fail(f"no such database file: {name}")
    try:
        storage = Storage(text)
        current, head, older = storage.schema()
        if older and not upgrade:
            storage.dispose()
            fail(
                f"the database's schema is at revision {current}, older than this release's ({head}): "
                "upgrade it first with 'masques migrate' (or start this release's 'masques serve'), "
                "once no server of the release before uses it"
            )
        storage.migrate()
    except (SQLAlchemyError, CommandError, ImportError, ValueError) as exc:
        database_failed(url, exc)
    return storage


def database_failed(url: URL, exc: Exception) -> NoReturn:
    """One line for a database that cannot be used (the URL shown without its password)."""
    from sqlalchemy.exc import DBAPIError

    cause: BaseException = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    why = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    if isinstance(exc, ImportError) and not isinstance(exc, MissingExtraError):
        why = f"its driver is not installed ({why})"
        if url.get_backend_name() == "postgresql":
            why += (
                "; Masques reaches PostgreSQL through psycopg 3: write the URL as "
                "postgresql+psycopg://USER:PASSWORD@HOST/NAME and pip install 'masques[postgres]'"
            )
    fail(f"cannot use the database {url.render_as_string(hide_password=True)}: {why}")


def _password(from_stdin: bool, username: str) -> str:
    from ..server import accounts
    from ..server.errors import ServerError

    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        try:
            password.encode("utf-8")
        except UnicodeEncodeError:  # bytes that were not UTF-8 text, kept as escapes by Python
            fail("the password on standard input is not UTF-8 text")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        accounts.check_password(password, username)
    except ServerError as exc:
        fail(exc.message)
    return password


def _account(storage: Storage, username: str) -> PlayerRow:
    from ..server import accounts

    row = storage.player_by_username(accounts.username_key(username))
    if row is None or row.kind != "account":
        fail(f"no account named {username!r}")
    return row


def _taken(storage: Storage, username: str) -> str | None:
    """Why ``username`` cannot be a new account (taken, or looks like one taken), or None."""
    from ..server import accounts

    if storage.player_by_username(accounts.username_key(username)) is not None:
        return f"the username {username!r} is taken"
    twin = storage.player_by_look(accounts.username_look(username))
    if twin is not None:
        return f"the username {username!r} looks like {twin.name!r}, which is taken"
    return None


@app.command("list")
def list_users(database: Database = None) -> None:
    """Every account: username, player id, creation date, and whether it is disabled."""
    storage = _storage(database, existing=True)
    table = Table("username", "id", "created", "status")
    for row in storage.players():
        status = "disabled" if row.disabled else "ok"
        table.add_row(row.name, row.id, row.created.strftime("%Y-%m-%d %H:%M"), status)
    console.print(table)


@app.command()
def create(username: Username, database: Database = None, password_stdin: PasswordStdin = False) -> None:
    """Create an account (the password is asked twice, or read from standard input)."""
    from ..server import accounts
    from ..server.errors import ServerError

    try:
        accounts.check_username(username)
    except ServerError as exc:
        fail(exc.message)
    storage = _storage(database)
    taken = _taken(storage, username)
    if taken:
        fail(taken)
    password = _password(password_stdin, username)
    digest = accounts.password_hash(password)
    try:
        row = storage.create_player(
            accounts.new_player_id(),
            "account",
            username,
            username_key=accounts.username_key(username),
            username_look=accounts.username_look(username),
            password_hash=digest,
        )
    except IntegrityError:  # taken by another command or server meanwhile
        fail(_taken(storage, username) or f"the username {username!r} is taken")
    console.print(f"created account {username} (player id {row.id})")


@app.command("reset-password")
def reset_password(
    username: Username, database: Database = None, password_stdin: PasswordStdin = False
) -> None:
    """Set a new password for an account; its sessions and seat tokens end (it logs in again)."""
    from ..server import accounts

    storage = _storage(database, existing=True)
    row = _account(storage, username)
    password = _password(password_stdin, row.name)
    storage.set_password(row.id, accounts.password_hash(password))  # all of it, or nothing
    console.print(f"new password set for {row.name}; its sessions and seat tokens have ended")


@app.command()
def disable(
    username: Username,
    database: Database = None,
    enable: Annotated[bool, typer.Option("--enable", help="Enable the account again instead.")] = False,
) -> None:
    """Disable an account (it can no longer log in, its sessions end), or enable it again."""
    storage = _storage(database, existing=True)
    row = _account(storage, username)
    storage.update_player(row.id, disabled=not enable)
    if not enable:
        storage.end_auth_sessions(row.id)
    console.print(f"{row.name} is {'enabled' if enable else 'disabled'}")
