"""A config file changed between two starts is never silently unread (`config.meeting`): its adapters' and
plugins' tables are taken from it at each start, the companion's own keys it differs in are named in one
line with what to run, and `mneme config check FILE` shows each difference. Through the engine, click's
runner with the console adapter, and the real entry point."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import child_env, no_keys, ok, refused
from test_console_honesty import lines, logging_kept  # noqa: F401  (autouse: `mneme run` logs as a bot)

from mneme_core import ConfigError, Mneme
from mneme_core.cli import main

SPACE = "mio"

FIRST = """\
[companion]
persona = "You are Mio."

[adapters.console]
user_id = "leo"

[plugins.openai]
base_url = "http://127.0.0.1:9/v1"
model = "qwen"
temperature = 0.7
"""

SECOND = """\
[companion]
persona = "You are Mio, and you are kind."

[adapters.console]
user_id = "ann"

[plugins.openai]
base_url = "http://127.0.0.1:9/v1"
model = "qwen-max"
"""


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    path = tmp_path / "bot.toml"
    path.write_text(FIRST, encoding="utf-8")
    return path


def stored(db: Path) -> dict[str, tuple[object, str]]:
    with Mneme(db, space=SPACE) as m:
        return {row.key: (row.value, row.origin) for row in m.config.rows()}


def test_a_file_changed_between_two_starts_gives_its_tables_and_names_the_rest(db_path, bot, caplog):
    Mneme(db_path, space=SPACE, config=bot).close()
    with Mneme(db_path, space=SPACE) as m:  # set by hand, in a table the file has and one it has not
        m.config.set("plugins.openai.max_tokens", 300)
        m.config.set("adapters.telegram.opted_out", ["7"])
    bot.write_text(SECOND, encoding="utf-8")

    with (
        caplog.at_level(logging.INFO, logger="mneme_core.config"),
        Mneme(db_path, space=SPACE, config=bot) as m,
    ):
        met = m.config.meet(bot)  # a third start, on the same file: nothing more to take
        persona = m.config.get("companion.persona")

    assert not met.taken and [d.key for d in met.kept] == ["companion.persona"]
    now = stored(db_path)
    assert now["adapters.console.user_id"] == ("ann", "file")
    assert now["plugins.openai.model"] == ("qwen-max", "file")
    assert "plugins.openai.temperature" not in now  # an earlier file's, no longer given: gone
    assert now["plugins.openai.max_tokens"] == (300, "set")  # set by hand: kept
    assert now["adapters.telegram.opted_out"] == (["7"], "set")  # a table the file has not: left alone
    assert persona == "You are Mio." and now["companion.persona"] == ("You are Mio.", "file")
    said = [r.getMessage() for r in caplog.records]
    took = [line for line in said if " took " in line]
    assert took == [
        f"{bot}: took adapters.console.user_id, plugins.openai.model, plugins.openai.temperature from the "
        "file ([adapters.*] and [plugins.*] are read at every start)"
    ]
    unread = [line for line in said if " differs " in line]
    assert len(unread) == 2  # each start that meets the file says it, once
    assert unread[0] == (
        f"{bot} differs from the database's copy of the companion's config in companion.persona: the "
        f"database's is used; `mneme --db {db_path} --space mio config apply {bot}` takes the file's, "
        f"`mneme --db {db_path} --space mio config check {bot}` shows each"
    )


def test_a_file_given_again_that_is_gone_or_wrong_is_refused_not_skipped(db_path, bot, tmp_path):
    Mneme(db_path, space=SPACE, config=bot).close()
    with pytest.raises(ConfigError, match="no such config file"):
        Mneme(db_path, space=SPACE, config=tmp_path / "gone.toml")
    bot.write_text('[companion]\nname = ""\n[adapters.console]\nuser_id = "ann"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"companion\.name is one line of 1 to 80 characters"):
        Mneme(db_path, space=SPACE, config=bot)
    assert stored(db_path)["adapters.console.user_id"] == ("leo", "file")  # refused whole: nothing taken


def run_console(db: Path, bot: Path, said: str) -> str:
    where = ["--db", str(db), "--space", SPACE, "run", "console", "--config", str(bot)]
    return ok(CliRunner().invoke(main, where, input=said, env=no_keys()))


def test_mneme_run_console_with_a_changed_file(db_path, bot, caplog):
    run_console(db_path, bot, "I'm Leo.\n/quit\n")
    bot.write_text(SECOND, encoding="utf-8")
    with caplog.at_level(logging.INFO):
        run_console(db_path, bot, "I'm Ann.\n/quit\n")

    assert [text for role, text in lines(db_path, "console:leo") if role == "user"] == ["I'm Leo."]
    assert [text for role, text in lines(db_path, "console:ann") if role == "user"] == ["I'm Ann."]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "differs from the database's copy" in warned[0]
    assert "companion.persona" in warned[0] and "config apply" in warned[0]


def test_the_real_command_says_it_in_one_line(db_path, bot):
    def mneme(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "mneme_core", "--db", str(db_path), "--space", SPACE, *args]
        return subprocess.run(command, capture_output=True, text=True, env=child_env(), timeout=60)

    assert mneme("--config", str(bot), "remember", "leo", "Leo has a cat").returncode == 0
    bot.write_text(SECOND, encoding="utf-8")
    done = mneme("--config", str(bot), "notes", "leo")

    assert done.returncode == 0 and done.stdout.rstrip().endswith("Leo has a cat")
    assert done.stderr.splitlines() == [
        f"mneme: {bot} differs from the database's copy of the companion's config in companion.persona: the "
        f"database's is used; `mneme --db {db_path} --space mio config apply {bot}` takes the file's, "
        f"`mneme --db {db_path} --space mio config check {bot}` shows each"
    ]


def test_config_check_file_shows_each_difference_and_writes_nothing(db_path, bot, tmp_path):
    base = ["--db", str(db_path), "--space", SPACE]
    runner = CliRunner()
    refused(runner.invoke(main, [*base, "config", "check", str(bot)]), "no companion file")
    Mneme(db_path, space="other").close()
    shown = ok(runner.invoke(main, [*base, "config", "check", str(bot)]))
    assert shown == f"mio has no config of its own yet: {bot} is taken whole the first time\n"
    Mneme(db_path, space=SPACE, config=bot).close()
    assert (
        ok(runner.invoke(main, [*base, "config", "check", str(bot)]))
        == f"{bot} and the database's copy agree\n"
    )
    bot.write_text(SECOND, encoding="utf-8")
    before = stored(db_path)

    shown = ok(runner.invoke(main, [*base, "config", "check", str(bot)])).splitlines()

    assert shown == [
        'not read: companion.persona: the file has "You are Mio, and you are kind.", the database "You are '
        'Mio."',
        'taken at the next start: adapters.console.user_id: the file has "ann", the database "leo"',
        'taken at the next start: plugins.openai.model: the file has "qwen-max", the database "qwen"',
        "taken at the next start: plugins.openai.temperature: the file has nothing, the database 0.7",
        f"the database's copy is used where the file is not read: `mneme --db {db_path} --space mio config "
        f"apply {bot}` takes the file's ([adapters.*] and [plugins.*] are taken from it at each start)",
    ]
    assert stored(db_path) == before
    latin = tmp_path / "latin.toml"
    latin.write_bytes('[companion]\npersona = "Café"\n'.encode("latin-1"))
    refused(runner.invoke(main, [*base, "config", "check", str(latin)]), "latin.toml is not UTF-8 text")
