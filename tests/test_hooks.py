"""A test per hook, and the calling rules: call order, awaiting, None dropped, a raising plugin named in the
log and skipped. Each test has a fresh plugin manager that loads no installed plugin; test plugins are
registered through `plug`, which unregisters them afterwards."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterator

import click
import click.testing
import pytest

from mneme_core import calling
from mneme_core.bot import Adapter, hooks
from mneme_core.bot.console import ConsoleAdapter
from mneme_core.config import Config, checks
from mneme_core.hookspecs import hookimpl
from mneme_core.memory.note import NoteFields
from mneme_core.mood.feelings import Emotion
from mneme_core.plugins import Event, Manager, PluginError, make_manager
from mneme_core.relations import Role
from mneme_core.store import Store

CALLING = "mneme_core.calling"


@pytest.fixture
def manager() -> Manager:
    """A manager as a bot has it: the engine's, with the bot layer's built-in plugins (`hooks.ready`)."""
    return hooks.ready(make_manager(load_entry_points=False, environ={}))


@pytest.fixture
def plug(manager: Manager) -> Iterator[Callable[..., object]]:
    names: list[str] = []

    def register(plugin: object, name: str | None = None) -> object:
        names.append(manager.register(plugin, name=name))
        return plugin

    yield register
    for name in names:
        if manager.has_plugin(name):
            manager.unregister(name=name)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []


# -- calling ----------------------------------------------------------------------------------------------


async def test_acall_keeps_call_order_awaits_and_drops_none(manager: Manager, plug) -> None:
    class First:
        @hookimpl(tryfirst=True)
        async def extra_prompt_sections(self, query):
            await asyncio.sleep(0.01)
            return "first"

    class Middle:
        @hookimpl
        def extra_prompt_sections(self):
            return None

    class Last:
        @hookimpl(trylast=True)
        def extra_prompt_sections(self, subject):
            return f"last for {subject}"

    plug(Last(), "last")
    plug(First(), "first")
    plug(Middle(), "middle")
    found = await calling.acall(manager.hook.extra_prompt_sections, mneme=None, subject="s", query="q")
    assert found == ["first", "last for s"]
    named = await calling.aeach(manager.hook.extra_prompt_sections, mneme=None, subject="s", query="q")
    assert [name for name, _ in named] == ["first", "last"]


async def test_a_raising_plugin_is_named_in_the_log_and_skipped(manager: Manager, plug, caplog) -> None:
    class Good:
        @hookimpl
        def extra_prompt_sections(self):
            return "good"

    class Broken:
        @hookimpl
        def extra_prompt_sections(self):
            raise RuntimeError("sync boom")

    class BrokenLater:
        @hookimpl
        async def extra_prompt_sections(self):
            raise ValueError("async boom")

    plug(Good(), "good")
    plug(Broken(), "broken")
    plug(BrokenLater(), "broken-later")
    with caplog.at_level(logging.WARNING, logger=CALLING):
        found = await calling.acall(manager.hook.extra_prompt_sections, mneme=None, subject="s", query="q")
    assert found == ["good"]
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        "plugin broken failed in hook extra_prompt_sections" in m and "sync boom" in m for m in messages
    )
    assert any("plugin broken-later failed" in m and "async boom" in m for m in messages)


async def test_afirst_honours_tryfirst_and_asks_one_at_a_time(manager: Manager, plug) -> None:
    asked: list[str] = []

    class Early:
        @hookimpl(tryfirst=True)
        async def resolve_subject(self, user_id):
            asked.append("early")
            return None

    class Late:
        @hookimpl
        def resolve_subject(self, platform, user_id):
            asked.append("late")
            return f"person:{user_id}"

    class Never:
        @hookimpl(trylast=True)
        def resolve_subject(self):
            asked.append("never")
            return "never"

    plug(Never(), "never")
    plug(Late(), "late")
    plug(Early(), "early")
    found = await calling.afirst(manager.hook.resolve_subject, platform="discord", user_id="42")
    assert found == "person:42"
    assert asked == ["early", "late"]


def test_the_plain_twins_run_async_plugins_too(manager: Manager, plug) -> None:
    class Async:
        @hookimpl
        async def extra_prompt_sections(self, query):
            await asyncio.sleep(0)
            return query.upper()

    plug(Async(), "async")
    assert calling.call(manager.hook.extra_prompt_sections, mneme=None, subject="s", query="hi") == ["HI"]


def test_a_hook_is_called_with_exactly_its_arguments(manager: Manager) -> None:
    with pytest.raises(TypeError, match="extra_prompt_sections takes mneme, subject, query"):
        calling.call(manager.hook.extra_prompt_sections, subject="s")


def test_hook_wrappers_are_refused_naming_the_plugin(manager: Manager) -> None:
    class Wrapper:
        @hookimpl(wrapper=True)
        def extra_prompt_sections(self):
            return (yield)

    with pytest.raises(PluginError, match="plugin wrapping wraps extra_prompt_sections"):
        manager.register(Wrapper(), name="wrapping")
    assert not manager.has_plugin("wrapping")


def test_arguments_the_spec_does_not_have_are_refused_naming_the_plugin(manager: Manager) -> None:
    class Wrong:
        @hookimpl
        def extra_prompt_sections(self, subjct):
            return None

    with pytest.raises(PluginError, match=r"Plugin 'wrong' for hook 'extra_prompt_sections'.*subjct"):
        manager.register(Wrong(), name="wrong")


# -- lifetime ---------------------------------------------------------------------------------------------


async def test_startup_runs_once_sync_and_async(manager: Manager, plug, caplog) -> None:
    seen: list[str] = []

    class Sync:
        @hookimpl
        def startup(self, mneme):
            seen.append(f"sync {mneme}")

    class Async:
        @hookimpl
        async def startup(self, mneme):
            seen.append(f"async {mneme}")

    class Broken:
        @hookimpl
        def startup(self):
            raise OSError("no cache")

    plug(Sync(), "sync")
    plug(Async(), "async")
    plug(Broken(), "broken")
    with caplog.at_level(logging.WARNING, logger=CALLING):
        await manager.astartup("m")
        await manager.astartup("m")
    assert sorted(seen) == ["async m", "sync m"]
    assert "plugin broken failed in hook startup" in caplog.text


async def test_shutdown_runs_once_and_only_after_startup(manager: Manager, plug) -> None:
    seen: list[str] = []

    class Plugin:
        @hookimpl
        async def shutdown(self, mneme):
            seen.append(mneme)

    plug(Plugin(), "plugin")
    await manager.ashutdown("m")
    assert seen == []
    manager.startup("m")
    manager.shutdown("m")
    await manager.ashutdown("m")
    assert seen == ["m"]


# -- registries -------------------------------------------------------------------------------------------


class Echo(Adapter):
    name = "echo"
    limit = 100


def test_register_adapters_checks_names_and_remembers_who(manager: Manager, plug) -> None:
    class Plugin:
        @hookimpl
        def register_adapters(self, register):
            register(Echo)
            register(lambda settings: Echo(settings), name="echo2")

    assert manager.adapters["console"] is ConsoleAdapter
    assert manager.adapters.owner("console") == "mneme_core.bot.default_plugins.adapters"
    plug(Plugin(), "echoes")
    assert set(manager.adapters) == {"console", "echo", "echo2"}
    assert manager.adapters["echo"] is Echo
    assert manager.adapters.owner("echo2") == "echoes"
    with pytest.raises(KeyError, match=r"no adapter named 'nope'.*known: "):
        manager.adapters["nope"]


def test_a_duplicate_registration_names_both_plugins(manager: Manager, plug) -> None:
    class One:
        @hookimpl
        def register_adapters(self, register):
            register(Echo)

    class Two:
        @hookimpl
        def register_adapters(self, register):
            register(Echo)

    plug(One(), "one")
    plug(Two(), "two")
    with pytest.raises(
        PluginError, match=r"'echo' is registered twice: by plugin (one|two) and by plugin (one|two)"
    ):
        _ = manager.adapters


def test_a_bad_registration_names_the_plugin(manager: Manager, plug) -> None:
    class Bad:
        @hookimpl
        def register_adapters(self, register):
            register(Echo, name="Not A Name")

    plug(Bad(), "bad")
    with pytest.raises(PluginError, match="plugin bad, register_adapters: an adapter's name is"):
        manager.registry("adapters")


def test_register_providers(manager: Manager, plug) -> None:
    class Model:
        name = "scripted"

        def __init__(self, settings):
            self.settings = settings

        async def complete(self, system, user):
            return "hi"

    class Plugin:
        @hookimpl
        def register_providers(self, register):
            register(Model)

    plug(Plugin(), "models")
    assert set(manager.providers) == {"offline", "scripted"}
    assert manager.providers.owner("scripted") == "models"
    assert manager.providers["scripted"]({"x": 1}).settings == {"x": 1}


def test_register_embedders(manager: Manager, plug) -> None:
    class Local:
        name = "local"

        def embed(self, texts):
            return [[1.0] for _ in texts]

    def make() -> Local:
        return Local()

    class Plugin:
        @hookimpl
        def register_embedders(self, register):
            register(Local())
            register(make, name="lazy")

    plug(Plugin(), "vectors")
    assert isinstance(manager.embedders["local"], Local)
    assert manager.embedders["lazy"] is make
    assert manager.embedders.owner("lazy") == "vectors"

    class Nameless:
        @hookimpl
        def register_embedders(self, register):
            register(make)

    plug(Nameless(), "nameless")
    with pytest.raises(
        PluginError, match=r"plugin nameless, register_embedders: an embedder's name is one line"
    ):
        _ = manager.embedders


def test_register_tiers(manager: Manager, plug) -> None:
    class Tier:
        name = "glossary"
        order = 250

        async def place(self, query):
            return None

    def make(mneme):
        return Tier()

    class Plugin:
        @hookimpl
        def register_tiers(self, register):
            register(make, name="glossary")

    plug(Plugin(), "glossing")
    assert manager.tiers["glossary"] is make
    assert manager.tiers.owner("glossary") == "glossing"

    class Shadowing:
        @hookimpl
        def register_tiers(self, register):
            register(make, name="words")

    plug(Shadowing(), "shadowing")
    with pytest.raises(PluginError, match=r"plugin shadowing, register_tiers: a tier's name is its own"):
        _ = manager.tiers


def test_register_emotions(manager: Manager, plug) -> None:
    proud = Emotion("proud", names={"en": "proud", "zh": "自豪"})

    class Plugin:
        @hookimpl
        def register_emotions(self, register):
            register(proud)

    plug(Plugin(), "feelings")
    assert dict(manager.emotions) == {"proud": proud}

    class Wrong:
        @hookimpl
        def register_emotions(self, register):
            register("proud")

    plug(Wrong(), "wrong")
    with pytest.raises(PluginError, match="plugin wrong, register_emotions: a feeling is registered as"):
        _ = manager.emotions


def test_register_roles(manager: Manager, plug) -> None:
    teacher = Role("teacher", 40, 95, 70, names={"en": "your teacher"})

    class Plugin:
        @hookimpl
        def register_roles(self, register):
            register(teacher)

    plug(Plugin(), "roles")
    assert manager.roles["teacher"] is teacher
    assert manager.roles.owner("teacher") == "roles"


def test_register_tools(manager: Manager, plug) -> None:
    def weather(city: str, days: int = 1) -> str:
        """Today's weather in a city.

        More words that are not the description."""
        return "sunny"

    class Plugin:
        @hookimpl
        def register_tools(self, register):
            register(weather)
            register(lambda: "one", name="one", description="Always one.")

    plug(Plugin(), "tools")
    tool = manager.tools["weather"]
    assert (tool.name, tool.description, tool.plugin) == ("weather", "Today's weather in a city.", "tools")
    assert tool.parameters["required"] == ["city"]
    assert tool.parameters["properties"] == {"city": {"type": "string"}, "days": {"type": "integer"}}
    assert manager.tools["one"].description == "Always one."
    assert manager.tools.owner("one") == "tools"

    class Undescribed:
        @hookimpl
        def register_tools(self, register):
            register(lambda: 2, name="two")

    plug(Undescribed(), "undescribed")
    with pytest.raises(
        PluginError, match=r"plugin undescribed, register_tools: tool 'two': a spec needs a description"
    ):
        _ = manager.tools


def test_register_commands_adds_but_never_replaces(manager: Manager, plug, caplog) -> None:
    cli = click.Group("mneme")

    @cli.command()
    def notes() -> None:
        click.echo("the core's notes")

    class Adds:
        @hookimpl
        def register_commands(self, cli):
            @cli.command()
            def weather() -> None:
                click.echo("sunny")

    class Replaces:
        @hookimpl
        def register_commands(self, cli):
            @cli.command(name="notes")
            def mine() -> None:
                click.echo("hijacked")

    class Broken:
        @hookimpl
        def register_commands(self, cli):
            @cli.command()
            def half() -> None:
                pass

            raise RuntimeError("broken halfway")

    plug(Adds(), "adds")
    plug(Replaces(), "replaces")
    plug(Broken(), "broken")
    with caplog.at_level(logging.WARNING):
        manager.add_commands(cli)
    assert set(cli.commands) == {"notes", "weather"}
    assert cli.commands["notes"] is notes
    assert manager.command_owners["weather"] == "adds"
    assert "plugin replaces tried to replace the command notes" in caplog.text
    assert "plugin broken failed in hook register_commands" in caplog.text
    result = click.testing.CliRunner().invoke(cli, ["weather"])
    assert result.output == "sunny\n"


def test_register_migrations(manager: Manager, plug) -> None:
    class Plugin:
        @hookimpl
        def register_migrations(self, register):
            register(
                "0001_weather",
                """
                create table weather(city text primary key, sky text);
                create trigger weather_upper after insert on weather begin
                    update weather set sky = upper(new.sky) where city = new.city;
                end;
                """,
            )
            register("0002_seed", lambda conn: conn.execute("insert into weather values ('Oslo', 'grey')"))

    plug(Plugin(), "weather")
    assert list(manager.migrations) == ["weather:0001_weather", "weather:0002_seed"]
    conn = sqlite3.connect(":memory:")
    for migration in manager.migrations.values():
        migration.apply(conn)
    assert conn.execute("select sky from weather").fetchone() == ("GREY",)

    class Empty:
        @hookimpl
        def register_migrations(self, register):
            register("0001_nothing", " ;; ")

    plug(Empty(), "empty")
    with pytest.raises(
        PluginError, match="plugin empty, register_migrations: the migration 0001_nothing has no SQL"
    ):
        _ = manager.migrations


KEY = {"$env": "WX_KEY"}


def test_register_settings(manager: Manager, plug, tmp_path) -> None:
    class Weather:
        @hookimpl
        def register_settings(self, register):
            register(
                "plugins.weather.city", checks.text(80), "the city whose weather is told", example="Lyon"
            )
            register("plugins.weather.days", checks.number(1, 7, whole=True), "days told (1 to 7)", default=2)
            register("plugins.weather.api_key", lambda key, value: value, "by reference", example=KEY)

    assert manager.settings["adapters.console.user_id"].example == "leo"  # the bot's own console
    plug(Weather(), "weather")
    days = manager.settings["plugins.weather.days"]
    assert (days.default, days.rule, manager.settings.owner("plugins.weather.days")) == (
        2,
        "days told (1 to 7)",
        "weather",
    )
    store = Store(tmp_path / "m.db")
    try:
        config = Config(store, "s", declared=manager.settings)
        assert config.set("plugins.weather.days", 3) == 3
        with pytest.raises(ValueError, match=r"plugins.weather.days is a whole number from 1 to 7, not 9"):
            config.set("plugins.weather.days", 9)
        with pytest.raises(
            ValueError, match=r"plugins.weather.dyas: no such setting \(did you mean days\?\)"
        ):
            config.set("plugins.weather.dyas", 3)
        with pytest.raises(ValueError, match=r"plugins.weather.api_key is a secret: never write it"):
            config.set("plugins.weather.api_key", "sk-123")  # what every such table refuses, first
        assert config.set("plugins.other.anything", 1) == 1  # a table nobody declared is free
    finally:
        store.close()

    class Twice:
        @hookimpl
        def register_settings(self, register):
            register("plugins.weather.city", checks.text(80), "the city", example="Paris")

    plug(Twice(), "twice")
    with pytest.raises(PluginError, match=r"'plugins.weather.city' is registered twice: by plugin"):
        _ = manager.settings

    class Wrong:
        @hookimpl
        def register_settings(self, register):
            register("plugins.wrong.days", checks.number(1, 7), "days", default=30)

    manager.unregister(name="twice")
    plug(Wrong(), "wrong")
    with pytest.raises(
        PluginError, match=r"plugin wrong, register_settings: plugins.wrong.days: its default does not pass"
    ):
        _ = manager.settings


# -- a message --------------------------------------------------------------------------------------------


async def test_resolve_subject_defaults_to_platform_and_id(manager: Manager) -> None:
    assert await hooks.resolve_subject(manager, "discord", "42") == "discord:42"
    assert await hooks.resolve_subject(manager, "onebot:wechat", "wxid_abc") == "onebot:wechat:wxid_abc"


async def test_resolve_subject_maps_several_ids_to_one_person(manager: Manager, plug, caplog) -> None:
    class Linked:
        @hookimpl
        async def resolve_subject(self, platform, user_id):
            if (platform, user_id) in {("discord", "42"), ("telegram", "-1001")}:
                return "person:leo"
            return None

    class Silly:
        @hookimpl(tryfirst=True)
        def resolve_subject(self, user_id):
            return "two\nlines" if user_id == "7" else None

    plug(Linked(), "linked")
    plug(Silly(), "silly")
    assert await hooks.resolve_subject(manager, "discord", "42") == "person:leo"
    assert await hooks.resolve_subject(manager, "telegram", "-1001") == "person:leo"
    assert await hooks.resolve_subject(manager, "telegram", "5") == "telegram:5"
    with caplog.at_level(logging.WARNING, logger=CALLING):
        assert await hooks.resolve_subject(manager, "discord", "7") == "discord:7"
    assert "plugin silly failed in hook resolve_subject (answer passed over)" in caplog.text


async def test_extra_prompt_sections(manager: Manager, plug, caplog) -> None:
    class Several:
        @hookimpl(tryfirst=True)
        async def extra_prompt_sections(self, mneme, subject, query):
            return [f"About {subject}.", "  ", f"They asked: {query}"]

    class One:
        @hookimpl
        def extra_prompt_sections(self):
            return "  Be brief.  "

    class Odd:
        @hookimpl(trylast=True)
        def extra_prompt_sections(self):
            return 42

    plug(One(), "one")
    plug(Several(), "several")
    plug(Odd(), "odd")
    with caplog.at_level(logging.WARNING):
        found = await hooks.extra_sections(manager, None, "discord:42", "hello")
    assert found == ["About discord:42.", "They asked: hello", "Be brief."]
    assert "plugin odd gave a prompt section that is not text: 42" in caplog.text


def note(text: str = "Leo lives at Main Street 5.") -> NoteFields:
    return NoteFields.strict(text, kind="fact", importance=3)


async def test_filter_note_passes_rewrites_and_vetoes(manager: Manager, plug) -> None:
    class Redact:
        @hookimpl(tryfirst=True)
        async def filter_note(self, note):
            return NoteFields.strict(note.text.replace("Main Street 5", "[address]"), kind=note.kind)

    class Secrets:
        @hookimpl
        def filter_note(self, subject, note):
            return False if "password" in note.text else None

    assert await manager.afilter_note(None, "discord:42", note()) == note()
    plug(Redact(), "redact")
    plug(Secrets(), "secrets")
    kept = await manager.afilter_note(None, "discord:42", note())
    assert kept is not None and kept.text == "Leo lives at [address]." and kept.kind == "fact"
    assert await manager.afilter_note(None, "discord:42", note("My password is hunter2.")) is None
    assert manager.filter_note(None, "discord:42", note()).text == "Leo lives at [address]."


async def test_filter_note_fails_closed(manager: Manager, plug, caplog) -> None:
    class Broken:
        @hookimpl
        def filter_note(self, note):
            raise RuntimeError("redaction service down")

    plug(Broken(), "broken")
    with caplog.at_level(logging.WARNING, logger=CALLING):
        assert await manager.afilter_note(None, "discord:42", note()) is None
    assert "plugin broken failed in hook filter_note (note vetoed)" in caplog.text

    class Blank:
        @hookimpl
        def filter_note(self, note):
            return "not a note"

    manager.unregister(name="broken")
    plug(Blank(), "blank")
    assert await manager.afilter_note(None, "discord:42", note()) is None


async def test_track_event(manager: Manager, plug, caplog) -> None:
    seen: list[Event] = []

    class Meter:
        @hookimpl
        async def track_event(self, mneme, event):
            seen.append(event)

    class Broken:
        @hookimpl
        def track_event(self, event):
            raise RuntimeError("metrics down")

    plug(Meter(), "meter")
    plug(Broken(), "broken")
    event = Event("replied", "discord:42", "discord", {"length": 5}, 1.0)
    with caplog.at_level(logging.WARNING, logger=CALLING):
        await manager.atrack("m", event)
    assert seen == [event]
    assert "plugin broken failed in hook track_event" in caplog.text
    manager.track("m", event)  # the plain twin, for the facade's plain calls
    assert seen == [event, event]
