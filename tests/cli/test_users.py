"""``masques users``: the operator creates, lists, resets and disables accounts in the server's
database; a name that is taken, or looks like one that is, is refused before the password is asked."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from masques.cli.main import app
from masques.server import accounts
from masques.server.storage import Storage

runner = CliRunner()
PASSWORD = "violet-lantern-harbour-42"


def test_create_list_reset_and_disable_an_account(tmp_path: Path) -> None:
    database = ["--database", f"sqlite:///{tmp_path / 'site.db'}"]
    made = runner.invoke(
        app, ["users", "create", "paul", *database, "--password-stdin"], input=PASSWORD + "\n"
    )
    assert made.exit_code == 0, made.output
    storage = Storage(f"sqlite:///{tmp_path / 'site.db'}")
    row = storage.player_by_username("paul")
    assert row is not None and row.username_look == "paul" and row.id in made.output
    assert accounts.password_matches(row.password_hash, PASSWORD)
    assert "paul" in runner.invoke(app, ["users", "list", *database]).output

    new = PASSWORD + "-renewed"
    reset = runner.invoke(
        app, ["users", "reset-password", "PAUL", *database, "--password-stdin"], input=new + "\n"
    )
    assert reset.exit_code == 0, reset.output
    assert accounts.password_matches(storage.player(row.id).password_hash, new)  # type: ignore[union-attr]
    assert runner.invoke(app, ["users", "disable", "paul", *database]).exit_code == 0
    assert storage.player(row.id).disabled  # type: ignore[union-attr]
    storage.engine.dispose()


def test_a_taken_or_look_alike_username_is_refused_before_the_password(tmp_path: Path) -> None:
    database = ["--database", f"sqlite:///{tmp_path / 'site.db'}"]
    runner.invoke(app, ["users", "create", "paul", *database, "--password-stdin"], input=PASSWORD + "\n")
    for name, why in (("Paul", "'Paul' is taken"), ("pauI", "'pauI' looks like 'paul', which is taken")):
        # no password on standard input: the refusal comes before it is read
        refused = runner.invoke(app, ["users", "create", name, *database, "--password-stdin"], input="")
        assert refused.exit_code != 0 and why in refused.output, refused.output
    storage = Storage(f"sqlite:///{tmp_path / 'site.db'}")
    assert [row.name for row in storage.players()] == ["paul"]
    storage.engine.dispose()


def _older_database(path: Path) -> str:
    """A database left on the schema of an older release (revision 0004)."""
    from alembic import command

    url = f"sqlite:///{path}"
    storage = Storage(url)
    config = storage._alembic()
    with storage.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0004")
    storage.dispose()
    return url


def test_operator_commands_leave_an_older_schema_alone_and_migrate_upgrades_it(tmp_path: Path) -> None:
    """A newer release's `users`, `chat` or `export` must not change the schema under the servers of
    the release before: they say to run `masques migrate`, which does it."""
    url = _older_database(tmp_path / "old.db")
    for command in (["users", "list"], ["chat", "list", "0123456789abcdef"], ["export", "0123456789abcdef"]):
        refused = runner.invoke(app, [*command, "--database", url])
        assert refused.exit_code == 2, (command, refused.output)
        assert "schema is at revision 0004" in refused.stderr and "masques migrate" in refused.stderr
        assert Storage(url).schema()[0] == "0004"
    migrated = runner.invoke(app, ["migrate", "--database", url])
    assert migrated.exit_code == 0, migrated.output
    current, head, older = Storage(url).schema()
    assert current == head and not older and head in migrated.stdout
    assert runner.invoke(app, ["users", "list", "--database", url]).exit_code == 0
    again = runner.invoke(app, ["migrate", "--database", url])  # nothing left to do
    assert again.exit_code == 0 and head in again.stdout


def test_a_new_database_gets_the_schema_from_an_operator_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    made = runner.invoke(
        app, ["users", "create", "ada", "--database", url, "--password-stdin"], input=PASSWORD + "\n"
    )
    assert made.exit_code == 0, made.output
    current, head, _ = Storage(url).schema()
    assert current == head


def test_migrate_refuses_what_it_cannot_use_in_one_line(tmp_path: Path) -> None:
    """A mistyped file is not made; a URL that is none, or a file that is no database, is said."""
    missing = tmp_path / "typo.db"
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    for url, said in (
        (f"sqlite:///{missing}", "no such database file"),
        ("not a url", "is not a database URL"),
        (f"sqlite:///{junk}", "cannot use the database"),
    ):
        refused = runner.invoke(app, ["migrate", "--database", url])
        assert refused.exit_code == 2, (url, refused.output)
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0] and "Traceback" not in refused.output
    assert not missing.exists()
