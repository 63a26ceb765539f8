"""Offline honesty, through click's runner on the real `mneme` group and the console adapter: `mneme chat`
without a model says in its first line that nothing is remembered, `mneme demo` that its scripted judge
remembers; `mneme chat` and `mneme run console` on one file are one person (the login name, or
`[adapters.console] user_id`); `/help` is answered at the terminal and never reaches the model."""

from __future__ import annotations

import getpass
import logging
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_cli import no_keys, ok

from mneme_core import Mneme
from mneme_core.bot.console import OFFLINE
from mneme_core.cli import main

SPACE = "mio"


@pytest.fixture(autouse=True)
def no_outside_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MNEME_DB", "MNEME_SPACE", "MNEME_CONFIG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def logging_kept() -> None:
    """`mneme run` turns the terminal's log into a bot's; the test's own handlers stay as they were."""
    root = logging.getLogger()
    level, handlers = root.level, [(h, h.level, h.formatter) for h in root.handlers]
    yield
    root.setLevel(level)
    for handler, was, formatter in handlers:
        handler.setLevel(was)
        handler.setFormatter(formatter)


def talk(db: Path, *args: str, said: str, config: Path | None = None) -> Result:
    where = ["--db", str(db), "--space", SPACE, *(["--config", str(config)] if config else [])]
    return CliRunner().invoke(main, [*where, *args], input=said, env=no_keys())


def lines(db: Path, subject: str, space: str = SPACE) -> list[tuple[str, str]]:
    with Mneme(db, space=space) as m:
        return [(line.role, line.text) for line in reversed(m.transcript.lines_of(subject))]


def test_chat_offline_says_first_that_nothing_is_remembered_and_keeps_help_from_the_model(db_path):
    shown = ok(talk(db_path, "chat", said="My cat is called Mochi.\n/help\n/quit\n")).splitlines()

    assert shown[0] == OFFLINE
    assert "nothing new is remembered" in shown[0] and "no judge" in shown[0] and "mneme demo" in shown[0]
    subject = f"console:{getpass.getuser()}"
    assert any(line.startswith(f"> You talk to the companion as {subject}.") for line in shown)
    kept = lines(db_path, subject)
    assert [role for role, _ in kept] == ["user", "assistant"]  # one message, one reply: /help went nowhere
    assert kept[0] == ("user", "My cat is called Mochi.")
    assert sum("[offline stand-in" in line for line in shown) == 1
    with Mneme(db_path, space=SPACE) as m:
        assert m.notes(subject) == []  # no judge: nothing remembered, as the first line said


def test_chat_and_run_console_are_one_person_by_default(db_path):
    ok(talk(db_path, "chat", said="I'm Leo.\n/quit\n"))
    second = ok(talk(db_path, "run", "console", said="Do you know me?\n/quit\n"))

    assert second.splitlines()[0] == OFFLINE
    assert "(with 2 earlier messages of this conversation)" in second  # the chat's two lines
    said = [text for role, text in lines(db_path, f"console:{getpass.getuser()}") if role == "user"]
    assert said == ["I'm Leo.", "Do you know me?"]


def test_chat_honours_the_console_table_as_run_console_does(db_path, tmp_path):
    bot = tmp_path / "bot.toml"
    bot.write_text('[adapters.console]\nuser_id = "leo"\nuser_name = "Leo"\n', encoding="utf-8")

    ok(talk(db_path, "chat", said="I'm Leo.\n/help\n/quit\n", config=bot))
    second = ok(talk(db_path, "run", "console", said="Remember me?\n/quit\n", config=bot))

    assert "(with 2 earlier messages of this conversation)" in second
    assert [text for role, text in lines(db_path, "console:leo") if role == "user"] == [
        "I'm Leo.",
        "Remember me?",
    ]
    assert lines(db_path, f"console:{getpass.getuser()}") == []


def test_the_demo_says_first_that_its_judge_is_scripted(db_path):
    first = ok(CliRunner().invoke(main, ["--db", str(db_path), "demo"], env=no_keys())).splitlines()[0]

    assert first.startswith("A scripted conversation, stored in ")
    assert "her judge is scripted, so she remembers" in first
    assert "`mneme chat` without a model remembers nothing" in first
