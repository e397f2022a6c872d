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
