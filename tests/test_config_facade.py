"""The config through `Mneme`: seeded once from the file, the database's copy after, arguments on top."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from mneme_core import ConfigError, Mneme

S = "discord:42"


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def config_rows(db_path) -> int:
    with closing(sqlite3.connect(db_path)) as conn:
        return conn.execute("select count(*) from config").fetchone()[0]


def test_the_file_is_taken_the_first_time_and_never_read_again(tmp_path, db_path, clock):
    first = write(tmp_path / "a.toml", '[companion]\nname = "大肥鱼"\ndisplay_language = "zh"\n')
    with Mneme(db_path, space="fish", config=first, clock=clock) as m:
        assert m.settings.companion_name == "大肥鱼"
        m.remember(S, "养了一只叫年糕的猫", kind="fact")
        assert m.prompt(S, "猫", user_name="Leo").startswith("关于Leo的笔记")
    other = write(tmp_path / "b.toml", '[companion]\nname = "Other"\ndisplay_language = "en"\n')
    with Mneme(db_path, space="fish", config=other, clock=clock) as m:
        assert m.settings.companion_name == "大肥鱼"
        assert m.settings.display_language == "zh"


def test_a_bad_file_is_refused_whole_and_nothing_is_written(tmp_path, db_path, clock):
    bad = write(tmp_path / "bad.toml", '[companion]\nname = "Fish"\n[memory]\ndaily_quota = -1\n')
    with pytest.raises(ConfigError, match=r"memory\.daily_quota") as refused:
        Mneme(db_path, space="fish", config=bad, clock=clock)
    assert isinstance(refused.value, ValueError)
    assert config_rows(db_path) == 0


def test_arguments_win_for_the_process_and_are_not_stored(tmp_path, db_path, clock):
    seeded = write(tmp_path / "c.toml", "[memory]\ndaily_quota = 5\n")
    with Mneme(db_path, space="fish", config=seeded, daily_quota=1, clock=clock) as m:
        assert m.settings.daily_quota == 1
        assert m.remember(S, "first model note", source="auto") is not None
        assert m.remember(S, "second model note", source="auto") is None
    with Mneme(db_path, space="fish", clock=clock) as m:
        assert m.settings.daily_quota == 5
        assert m.config.get("memory.daily_quota") == 5


def test_a_change_is_taken_the_next_time_the_file_is_opened(db_path, clock):
    with Mneme(db_path, space="fish", clock=clock) as m:
        m.config.set("companion.display_language", "zh")
        assert m.words.language == "en"  # a running companion keeps what it opened with
    with Mneme(db_path, space="fish", clock=clock) as m:
        assert m.words.language == "zh"


def test_own_sentences_and_prompts_are_used(tmp_path, db_path, clock):
    own = write(
        tmp_path / "own.toml",
        '[messages.en]\n"notes.header" = "What you know of {who} (data only):"\n'
        '[prompts]\nreflect = "Describe {user} briefly, as JSON {\\"card\\": ...}, from: {notes}"\n',
    )
    seen: list[str] = []

    def model(system: str, user: str) -> str:
        seen.append(system)
        return "Loves cats."

    with Mneme(db_path, space="fish", config=own, complete=model, clock=clock) as m:
        m.remember(S, "has a cat called Mochi", kind="fact")
        assert m.prompt(S, "cat", user_name="Leo").startswith("What you know of Leo (data only):")
        assert m.reflect(S, user_name="Leo") == "Loves cats."
    assert seen and seen[-1].startswith('Describe Leo briefly, as JSON {"card": ...}')


def test_another_display_language_falls_back_to_english(db_path, clock):
    with Mneme(db_path, space="fish", display_language="fr", clock=clock) as m:
        m.remember(S, "a un chat", kind="fact")
        assert m.prompt(S, "chat").startswith("Notes about discord:42")


def test_exports_carry_the_config_and_importing_it_is_opt_in(tmp_path, clock):
    with Mneme(tmp_path / "a.db", space="fish", clock=clock) as m:
        m.config.set("prompts.reflect", "Be brief about {user}: {notes}")
        m.remember(S, "likes tea", kind="preference")
        data = m.export_data()
    assert any(row["key"] == "prompts.reflect" for row in data["config"])
    with Mneme(tmp_path / "b.db", space="fish", clock=clock) as m:
        m.import_data(data)
        assert m.config.get("prompts.reflect") != "Be brief about {user}: {notes}"
        m.import_data(data, config=True)
        assert m.config.get("prompts.reflect") == "Be brief about {user}: {notes}"


def test_a_secret_is_stored_as_a_reference_only(tmp_path, db_path, clock, monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "very-secret-value")
    cfg = write(tmp_path / "bot.toml", '[adapters.discord]\ntoken = { "$env" = "DISCORD_TOKEN" }\n')
    with Mneme(db_path, space="fish", config=cfg, clock=clock) as m:
        assert "very-secret-value" not in m.config.to_toml()
    assert b"very-secret-value" not in db_path.read_bytes()
    plain = write(tmp_path / "plain.toml", '[adapters.discord]\ntoken = "very-secret-value"\n')
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        Mneme(tmp_path / "other.db", space="fish", config=plain, clock=clock)
