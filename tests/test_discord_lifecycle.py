"""The Discord package's lifetime: the extension loaded, unloaded and reloaded (opening and closing its own
engine, never the host's), a load that fails leaving nothing behind, the adapter registered like a third
party's and run by `mneme run discord` (the gateway login replaced, nothing else), the slash commands synced
only when asked, the settings table checked, and discord.py never imported to list plugins.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
import mneme_discord
import pytest
from discord.ext import commands
from discord_harness import Judge, Scripted, Sent, channel, member, offline_bot
from mneme_discord import DiscordAdapter, DiscordSettings

from mneme_core import Mneme
from mneme_core.plugins import PluginError, make_manager
from mneme_core.runner import Runner, build_adapters, run_bot

ADAPTERS = Path(mneme_discord.__file__).parent.parent
CONFIG = """
[companion]
persona = "You are Mio, from the file."

[adapters.discord]
respond_in = ["dm", "mention"]
"""


@pytest.fixture
async def bot() -> AsyncIterator[commands.Bot]:
    made = await offline_bot(["Leo"])
    made.mneme_model = Scripted()
    yield made
    await dpytest.empty_queue()


@pytest.fixture
def from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The environment a drop-in cog reads: its file, space and config."""
    config = tmp_path / "bot.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = tmp_path / "companion.db"
    monkeypatch.setenv("MNEME_DB", str(db))
    monkeypatch.setenv("MNEME_SPACE", "mio")
    monkeypatch.setenv("MNEME_CONFIG", str(config))
    return db


async def direct(said: str) -> None:
    leo = member("Leo")
    await dpytest.message(said, channel=await leo.create_dm(), member=leo)


async def test_the_extension_opens_its_engine_on_load_closes_it_on_unload_and_reloads(
    bot: commands.Bot, from_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = Sent(monkeypatch)
    await bot.load_extension("mneme_discord")
    first = bot.get_cog("Mneme")
    engine = first.mneme
    assert str(engine.store.path) == str(from_env) and engine.space == "mio"
    assert not engine.store.closed
    group = bot.tree.get_command("memory")
    assert sorted(c.name for c in group.commands) == ["forget", "forget-me", "mood", "show"]
    await direct("hello")
    assert await first.drain(5)
    assert sent.texts() == ["re: hello"]
    assert bot.mneme_model.systems[0].startswith("You are Mio, from the file.")
    subject = f"discord:{member('Leo').id}"
    engine.remember(subject, "Leo likes rainy days.")

    await bot.reload_extension("mneme_discord")
    second = bot.get_cog("Mneme")
    assert second is not first and engine.store.closed and first.mneme is None
    engine = second.mneme
    assert [n.text for n in second.mneme.notes(subject)] == ["Leo likes rainy days."]  # the same file
    assert [c.name for c in bot.tree.get_commands()] == ["memory"]
    await direct("still you?")
    assert await second.drain(5)
    assert sent.texts()[-1] == "re: still you?"

    await bot.unload_extension("mneme_discord")
    assert bot.get_cog("Mneme") is None and bot.tree.get_command("memory") is None
    assert engine.store.closed
    await direct("anyone?")
    assert sent.texts()[-1] == "re: still you?"  # nobody answers any more

    await bot.load_extension("mneme_discord")
    third = bot.get_cog("Mneme")
    assert [n.text for n in third.mneme.notes(subject)] == ["Leo likes rainy days."]
    await bot.unload_extension("mneme_discord")


async def test_the_hosts_engine_is_used_and_left_open(bot: commands.Bot, db_path: Path, clock: Any) -> None:
    mneme = Mneme(db_path, space="host", clock=clock, complete=Judge({}))
    try:
        bot.mneme = mneme
        await bot.load_extension("mneme_discord")
        assert bot.get_cog("Mneme").mneme is mneme
        await bot.reload_extension("mneme_discord")
        await bot.unload_extension("mneme_discord")
        assert not mneme.store.closed
        assert mneme.notes("discord:1") == []  # still usable
    finally:
        mneme.close()


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("MNEME_MODEL", "nonexistent", "no model provider is called 'nonexistent'"),
        ("MNEME_DISCORD_CHANNELS", "general", "adapters.discord.channels holds Discord ids"),
    ],
)
async def test_a_load_that_fails_leaves_nothing_behind(
    bot: commands.Bot,
    from_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
    value: str,
    named: str,
) -> None:
    closed: list[str] = []
    original = Mneme.aclose

    async def aclose(self: Mneme) -> None:
        closed.append(str(self.store.path))
        await original(self)

    monkeypatch.setattr(Mneme, "aclose", aclose)
    monkeypatch.setenv(setting, value)
    if setting == "MNEME_MODEL":
        del bot.mneme_model
    with pytest.raises(commands.ExtensionFailed, match=named):
        await bot.load_extension("mneme_discord")
    assert bot.get_cog("Mneme") is None and bot.tree.get_command("memory") is None
    assert "mneme_discord" not in bot.extensions
    assert closed == [str(from_env)]  # the engine it had opened was closed again


async def test_commands_are_synced_only_when_an_admin_asks(
    bot: commands.Bot, from_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[tuple[Any, ...]] = []

    async def upsert_global(self: Any, application_id: int, payload: list[Any]) -> list[Any]:
        synced.append(("global", payload))
        return []

    async def upsert_guild(self: Any, application_id: int, guild_id: int, payload: list[Any]) -> list[Any]:
        synced.append((guild_id, payload))
        return []

    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_global_commands", upsert_global)
    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_guild_commands", upsert_guild)
    await bot.load_extension("mneme_discord")
    await bot.reload_extension("mneme_discord")
    assert synced == []  # loading never syncs
    cog = bot.get_cog("Mneme")
    await cog.sync_commands()
    guild = channel().guild
    await cog.sync_commands(guild=guild)
    (where, payload), (server, copied) = synced
    assert where == "global" and [c["name"] for c in payload] == ["memory"]
    subcommands = {o["name"] for o in payload[0]["options"]}
    assert subcommands == {"show", "forget", "forget-me", "mood"}
    assert server == guild.id and [c["name"] for c in copied] == ["memory"]
    await bot.unload_extension("mneme_discord")


def test_the_sync_helper_logs_in_syncs_and_leaves(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from mneme_discord.__main__ import main

    calls: list[Any] = []

    async def login(self: discord.Client, token: str) -> None:
        calls.append(("login", token))
        self._connection.application_id = 42

    async def upsert_guild(self: Any, application_id: int, guild_id: int, payload: list[Any]) -> list[Any]:
        calls.append(("sync", guild_id, [c["name"] for c in payload]))
        return []

    monkeypatch.setattr(discord.Client, "login", login)
    monkeypatch.setattr(discord.http.HTTPClient, "bulk_upsert_guild_commands", upsert_guild)
    monkeypatch.setenv("MY_TOKEN", "s3cret")
    assert main(["sync", "--guild", "123", "--token-env", "MY_TOKEN"]) == 0
    assert calls == [("login", "s3cret"), ("sync", 123, ["memory"])]
    monkeypatch.delenv("MY_TOKEN")
    with pytest.raises(SystemExit):
        main(["sync", "--token-env", "MY_TOKEN"])
    assert "MY_TOKEN is not set" in capsys.readouterr().err


# -- the adapter, as `mneme run discord` uses it ------------------------------------------------------------


def test_the_adapter_registers_through_the_plugin_hook_and_checks_its_table() -> None:
    manager = make_manager(load_entry_points=False, environ={}, plugins=[mneme_discord])
    assert manager.adapters["discord"] is DiscordAdapter
    (made,) = build_adapters(manager, ["discord"], {"discord": {"respond_in": ["dm"], "channels": [12]}})
    assert made.options == DiscordSettings(respond_in=("dm",), channels=frozenset({"12"}))
    with pytest.raises(PluginError, match=r"adapter discord .*adapters\.discord\.respond_in is a list of"):
        build_adapters(manager, ["discord"], {"discord": {"respond_in": ["everywhere"]}})
    with pytest.raises(
        PluginError, match=r"adapters\.discord\.prefix: no such setting; \[adapters\.discord\] has token, "
    ):
        build_adapters(manager, ["discord"], {"discord": {"prefix": "!"}})


def test_listing_plugins_never_imports_discord() -> None:
    code = "import sys, mneme_discord; assert 'discord' not in sys.modules, 'imported discord'"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ADAPTERS), str(ADAPTERS.parent)])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)


async def test_run_discord_logs_in_with_the_token_the_config_names(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []

    async def login(self: discord.Client, token: str) -> None:
        seen.append(("login", token, self.intents.message_content, self.get_cog("Mneme") is not None))

    async def connect(self: discord.Client, *, reconnect: bool = True) -> None:
        seen.append("connect")  # the gateway closes at once: the run ends

    monkeypatch.setattr(discord.Client, "login", login)
    monkeypatch.setattr(discord.Client, "connect", connect)
    config = {"adapters": {"discord": {"token": {"$env": "MIO_DISCORD_TOKEN"}}}}
    mneme = Mneme(db_path, space="run", clock=clock, config=config, plugins=[mneme_discord])
    try:
        with pytest.raises(
            ValueError, match=r"adapters\.discord\.token: the environment variable MIO_DISCORD"
        ):
            await run_bot(mneme, ["discord"], plugins=mneme.plugins)
        assert seen == []  # refused before anything reached Discord
        monkeypatch.setenv("MIO_DISCORD_TOKEN", "s3cret")
        report = await run_bot(mneme, ["discord"], plugins=mneme.plugins)
        assert seen == [("login", "s3cret", False, True), "connect"]
        assert isinstance(report, dict)
    finally:
        await mneme.aclose()


async def test_the_adapter_answers_through_the_runner_on_a_bot_it_is_given(
    bot: commands.Bot, db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = Sent(monkeypatch)
    mneme = Mneme(db_path, space="run", clock=clock, complete=Judge({"rain": "Leo likes rain."}))
    try:
        runner = Runner(mneme, bot.mneme_model, plugins=mneme.plugins)
        adapter = DiscordAdapter({}, bot=bot)
        await adapter.start(runner)
        await direct("I like rain")
        assert await runner.drain(5)
        assert sent.texts() == ["re: I like rain"]
        assert [n.text for n in mneme.notes(f"discord:{member('Leo').id}")] == ["Leo likes rain."]
        await adapter.stop()
        assert bot.get_cog("Mneme") is None and not mneme.store.closed
        await runner.aclose()
    finally:
        mneme.close()


def test_settings_are_checked_and_named() -> None:
    assert DiscordSettings.from_table({}) == DiscordSettings()
    found = DiscordSettings.from_table({"channels": ["1", 2]}, {"MNEME_DISCORD_CHANNELS": "3, 4"})
    assert found.channels == frozenset({"3", "4"})  # the environment wins
    assert found.answers_in("3") and found.answers_in("99", parent_id="4") and not found.answers_in("1")
    for table, message in [
        ({"respond_in": "dm"}, "adapters.discord.respond_in is a list"),
        ({"answer": "yes"}, "adapters.discord.answer is true or false"),
        ({"names": ["Mio\nBot"]}, "adapters.discord.names is a list of one-line words"),
        ({"channels": [-5]}, "adapters.discord.channels holds Discord ids"),
    ]:
        with pytest.raises((ValueError, TypeError), match=message):
            DiscordSettings.from_table(table)
