"""`mneme config ...` through click's runner on the real `main` group: the template round trip, show with
origins, set / apply / check / defaults, refusals as one line with exit code 2, and secrets never shown."""

from __future__ import annotations

import json
import sqlite3
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from mneme_core.cli import main
from mneme_core.config import KEYS, keys, load
from mneme_core.store import Store


@pytest.fixture
def run(db_path: Path):
    """`mneme --db <file> --space fish ARGS...` on a companion's file that exists and has met no config (a
    command that only reads refuses a file that is not there: test_cli_files.py)."""
    Store(db_path).close()
    runner = CliRunner()

    def invoke(*args: str, env: dict[str, str] | None = None):
        return runner.invoke(main, ["--db", str(db_path), "--space", "fish", *args], env=env)

    return invoke


def stored(db_path: Path) -> dict[str, tuple[object, str]]:
    """The config rows as written; none when the command never opened the file."""
    if not db_path.exists():
        return {}
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("select key, value, origin from config where space = 'fish'").fetchall()
    finally:
        conn.close()
    return {key: (json.loads(value), origin) for key, value, origin in rows}


def test_template_file_database_show(run, tmp_path, db_path):
    made = run("config", "template")
    assert made.exit_code == 0
    text = made.stdout.replace('name = "the assistant"', 'name = "大肥鱼"').replace(
        "step = 6.0", "step = 4.0"
    )
    path = tmp_path / "companion.toml"
    path.write_text(text, encoding="utf-8")
    shown = run("--config", str(path), "config", "show")
    assert shown.exit_code == 0, shown.output
    assert load(tomllib.loads(shown.stdout)) == load(tomllib.loads(text))
    assert stored(db_path)["companion.name"] == ("大肥鱼", "file")
    mood = tomllib.loads(run("config", "show", "mood").stdout)
    assert mood["mood"]["step"] == 4.0 and set(mood) == {"mood"}


def test_the_config_file_comes_from_the_environment(run, tmp_path, db_path):
    path = tmp_path / "c.toml"
    path.write_text('[companion]\nname = "Fish"\n', encoding="utf-8")
    assert run("config", "show", "companion", env={"MNEME_CONFIG": str(path)}).exit_code == 0
    assert stored(db_path)["companion.name"] == ("Fish", "file")


def test_show_with_origins(run, db_path):
    assert run("config", "set", "companion.name", "Fish").exit_code == 0
    lines = run("config", "show", "companion", "--origins").stdout.splitlines()
    assert lines[0] == 'companion.name = "Fish"  # set'
    assert lines[1] == 'companion.display_language = "en"  # default'
    assert len(lines) == len([key for key in KEYS if key.startswith("companion.")])


def test_show_reads_without_writing_a_config(run, db_path):
    assert run("config", "show").exit_code == 0
    assert stored(db_path) == {}


def test_set_text_values_and_files(run, tmp_path, db_path):
    assert run("config", "set", "mood.threshold", "0.5").stdout == "mood.threshold = 0.5\n"
    assert run("config", "set", "mood.thresholds", "{ luna = 0.4 }").exit_code == 0
    assert run("config", "set", "companion.zone", "Asia/Shanghai").exit_code == 0
    prompt = tmp_path / "reflect.txt"
    prompt.write_text('About {user}, as JSON {"text": "..."}\nin {lang}\n', encoding="utf-8")
    assert run("config", "set", "prompts.reflect", "--file", str(prompt)).exit_code == 0
    found = stored(db_path)
    assert found["mood.threshold"] == (0.5, "set")
    assert found["mood.thresholds"] == ({"luna": 0.4}, "set")
    assert found["companion.zone"] == ("Asia/Shanghai", "set")
    assert found["prompts.reflect"] == ('About {user}, as JSON {"text": "..."}\nin {lang}', "set")


REFUSED = [
    (("config", "set", "mood.step", "80"), "mood.step is a number from 0 to 50, not 80"),
    (("config", "set", "mood.floor", "90"), "mood.floor <= mood.baseline <= mood.ceiling must hold"),
    (("config", "set", "prompts.reflect", "hi {usr}"), "prompts.reflect: no placeholder {usr} here"),
    (("config", "set", "mood.stp", "3"), "mood.stp: no such key (did you mean step?)"),
    (("config", "set", "companion.zone", "Nowhere/City"), "companion.zone is"),
    (("config", "set", "adapters.discord.token", "abc"), "adapters.discord.token is a secret"),
    (("config", "set", "mood.step"), "config set takes a VALUE or --file FILE"),
    (("config", "show", "nonsense"), "nonsense: no such section"),
    (("config", "defaults", "nonsense"), "nonsense: no such section"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED)
def test_refusals_are_one_line_and_exit_2(run, db_path, args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert message in result.stderr
    assert all(origin == "default" for _, origin in stored(db_path).values())


def test_a_bad_file_is_refused_whole(run, tmp_path, db_path):
    assert run("config", "set", "companion.name", "Fish").exit_code == 0
    before = stored(db_path)
    path = tmp_path / "bad.toml"
    path.write_text('[companion]\nname = "Shark"\n[mood]\nfloor = 90\n', encoding="utf-8")
    result = run("config", "apply", str(path))
    assert result.exit_code == 2
    assert "bad.toml is refused: mood.floor <= mood.baseline <= mood.ceiling must hold" in result.stderr
    assert stored(db_path) == before
    missing = run("config", "apply", str(tmp_path / "missing.toml"))
    assert missing.exit_code == 2 and "no such config file" in missing.stderr


def test_apply(run, tmp_path, db_path):
    path = tmp_path / "more.toml"
    path.write_text('[mood]\nstep = 3\n[messages.fr]\n"notes.line" = "• {text}"\n', encoding="utf-8")
    result = run("config", "apply", str(path))
    assert result.exit_code == 0 and result.stdout == f"applied 2 keys from {path}\n"
    assert stored(db_path)["messages.fr.notes.line"] == ("• {text}", "file")


def test_check_and_defaults(run, db_path):
    assert run("config", "check").stdout == "the config is up to date\n"
    assert run("config", "set", "mood.gain", "30").exit_code == 0
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("update config set value = '\"Old wording.\"' where key = 'prompts.worth'")
        conn.execute("update config set value = '1', origin = 'file' where key = 'memory.max_notes'")
        conn.execute("delete from config where key = 'relations.growth'")
    conn.close()
    lines = run("config", "check").stdout.splitlines()
    assert "newer default: prompts.worth (take it with `mneme config defaults prompts.worth`)" in lines
    assert "new key: relations.growth (its default is used; `mneme config defaults` stores it)" in lines
    assert any(line.startswith("not used: memory.max_notes is a whole number from 10") for line in lines)
    loaded = run("config", "defaults")
    assert loaded.stdout == "loaded 2 defaults: prompts.worth, relations.growth\n"
    assert run("config", "defaults", "memory.max_notes").exit_code == 0
    assert run("config", "check").stdout == "the config is up to date\n"
    assert stored(db_path)["mood.gain"] == (30.0, "set")


def test_secrets_are_never_shown(run, db_path):
    ref = '{ "$env" = "DISCORD_TOKEN" }'
    assert run("config", "set", "adapters.discord.token", ref).exit_code == 0
    env = {"DISCORD_TOKEN": "super-secret-token"}
    for args in (("config", "show"), ("config", "show", "adapters", "--origins"), ("export",)):
        result = run(*args, env=env)
        assert "super-secret-token" not in result.output
    assert f"token = {ref}" in run("config", "show", "adapters.discord").stdout
    assert stored(db_path)["adapters.discord.token"] == ({"$env": "DISCORD_TOKEN"}, "set")


def test_template_round_trips_on_its_own(run):
    assert load(tomllib.loads(run("config", "template").stdout)) == keys.defaults()


def test_an_unreadable_stored_value_is_shown_and_checked(run, db_path):
    assert run("config", "set", "mood.step", "3").exit_code == 0
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("update config set value = 'not json' where key = 'mood.step'")
    conn.close()
    assert "mood.step = (not readable)  # set" in run("config", "show", "mood", "--origins").stdout
    assert "not used: mood.step: the stored value is not JSON" in run("config", "check").stdout
    assert "step = 6.0" in run("config", "show", "mood").stdout


# -- the keys adapters and plugins declare (register_settings) ----------------------------------------------

INSTALLED = {"MNEME_LOAD_PLUGINS": "discord,onebot,telegram,openai,centroids,unify"}


def test_the_template_lists_every_key_each_installed_adapter_and_plugin_reads(run):
    shown = run("config", "template", env=INSTALLED).stdout
    for table in ("adapters.console", "adapters.discord", "adapters.onebot", "adapters.telegram"):
        assert f"\n# [{table}]  (read by " in shown
    for table in ("plugins.openai", "plugins.centroids", "plugins.unify"):
        assert f"\n# [{table}]  (read by the plugin {table.split('.')[1]}; uncomment what you set)" in shown
    assert '\n# base_url = "https://api.openai.com/v1"\n' in shown
    model = "#   the chat model to ask (required for replies) (no default; an example below)\n"
    model += '# model = "deepseek-chat"'
    assert model in shown
    assert '\n# api_key = { "$env" = "DEEPSEEK_API_KEY" }\n' in shown
    assert "\n# port = 8080\n" in shown and "\n# min_notes = 40\n" in shown
    assert load(tomllib.loads(shown)) == keys.defaults()  # every one of them commented out
    bare = run("config", "template", env={"MNEME_LOAD_PLUGINS": ""}).stdout
    assert (
        "# [adapters.discord]  (read by" not in bare and "# [adapters.console]  (read by mneme-bots" in bare
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("adapters.onebot.port", "70000"),
            "adapters.onebot.port is a whole number from 0 to 65535, not 70000",
        ),
        (("adapters.discord.respond_in", '["dm", "everywhere"]'), "adapters.discord.respond_in is a list of"),
        (("plugins.openai.modle", "x"), "plugins.openai.modle: no such setting (did you mean model?)"),
        (("plugins.openai.base_url", "ftp://x"), "plugins.openai.base_url is an http(s) URL"),
        (("plugins.unify.batch", "0"), "plugins.unify.batch is a whole number from 1 to 256, not 0"),
        (("adapters.console.user", "leo"), "adapters.console.user: no such setting (did you mean user_id?)"),
    ],
)
def test_config_set_checks_a_declared_setting_as_its_owner_would(run, db_path, args, says):
    result = run("config", "set", *args, env=INSTALLED)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and says in result.stderr
    assert args[0] not in stored(db_path)
    # Without its owner installed, a table is free-form; the console is built in, so always checked.
    free = run("config", "set", *args, env={"MNEME_LOAD_PLUGINS": ""})
    assert free.exit_code == (2 if args[0].startswith("adapters.console") else 0)
    assert run("config", "set", "plugins.openai.model", "deepseek-chat", env=INSTALLED).exit_code == 0


def test_config_check_names_a_stored_setting_its_plugin_refuses(run, db_path):
    assert run("config", "set", "plugins.openai.timeout", "30").exit_code == 0
    with sqlite3.connect(db_path) as conn:
        conn.execute("update config set value = '-1' where key = 'plugins.openai.timeout'")
        conn.execute("insert into config values ('fish', 'plugins.openai.modle', '\"x\"', 'set', 0)")
    conn.close()
    lines = run("config", "check", env=INSTALLED).stdout.splitlines()
    assert (
        "refused by its plugin: plugins.openai.timeout is a number of 0.001 or more, not -1 (fix it with "
        "`mneme config set plugins.openai.timeout VALUE`)" in lines
    )
    assert any(
        line.startswith("refused by its plugin: plugins.openai.modle: no such setting") for line in lines
    )
    assert run("config", "check", env={"MNEME_LOAD_PLUGINS": ""}).stdout == "the config is up to date\n"
