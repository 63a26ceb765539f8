"""The layers hold in the code: adapter -> bot layer -> engine -> store, never back. Making a `Mneme` and
using every engine verb loads no module of the bot layer, even with every installed plugin loaded; no
engine module imports it; and the adapters' and the bot layer's modules import each other without cycles
(no import hidden inside a function to dodge one)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
ENGINE = ROOT / "mneme_core"
# The layers above the engine, and the modules kept so old imports of bot names keep working.
ABOVE = {"bot", "cli", "__main__.py", "adapters.py", "runner.py", "console.py"}

EVERY_VERB = """
import asyncio, sys, tempfile, os
from mneme_core import Mneme

path = os.path.join(tempfile.mkdtemp(), "m.db")
m = Mneme(path, space="s")
n = m.remember("discord:1", "Leo has a cat called Mochi", kind="fact", key="pet.name")
m.recall("discord:1", "cat"); m.prompt("discord:1", "cat"); m.prompt("discord:1", "")
m.observe("discord:1", [("Leo", "hi"), ("Mio", "hello")])
m.relate("discord:1", "friend"); m.relationship("discord:1"); m.relationships()
m.feel("discord:1", delta=-5); m.mood("discord:1"); m.news("discord:1"); m.describe_mood("discord:1")
m.notes("discord:1"); m.history("discord:1", "pet.name"); m.subjects(); m.recalls("discord:1")
m.set_profile("discord:1", "A cat person."); m.profile("discord:1"); m.report()
m.remember("discord:1", "none"); m.check(fix=True); m.undo_fix(m.fixes()[0]["id"])
m.notes("discord:1", archived=True); m.tend(); m.journal("A quiet day.", about="discord:1")
m.journal_entries()
data = m.export_data(); m.import_data(data)
m.forget("discord:1", id=n.id); m.purge(); m.erase("discord:1")

async def main():
    await m.aremember("discord:2", "Ann likes tea")
    await m.arecall("discord:2", "tea"); await m.aprompt("discord:2", "tea")
    await m.aobserve("discord:2", [("Ann", "hi"), ("Mio", "hello")])
    line = await m.transcript.aadd_line("dm:discord:2", subject="discord:2", text="hi")
    await m.transcript.aadd_reply("dm:discord:2", text="hello", reply_to=line.id, observe="discord:2")
    await m.transcript.arecent("dm:discord:2")
    await m.aerase("discord:2")
    await m.aclose()

asyncio.run(main())
loaded = sorted(name for name in sys.modules if name.startswith(("mneme_core.bot", "mneme_core.adapters",
    "mneme_core.runner", "mneme_core.console", "mneme_core.cli")))
print("LOADED", loaded)
"""


def test_making_a_mneme_and_every_engine_verb_load_no_module_of_the_bot_layer() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MNEME_LOAD_PLUGINS"}  # every installed plugin loads
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "adapters"), str(ROOT / "plugins")])
    done = subprocess.run(
        [sys.executable, "-c", EVERY_VERB], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout, done.stdout


def _imports(path: Path, package: str) -> list[tuple[str, int]]:
    """Every import a module makes (outside `if TYPE_CHECKING:`), resolved to module names, with the line."""
    tree = ast.parse(path.read_text())
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(child) for child in ast.walk(node)}
    here = package.split(".")
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here[: len(here) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found += [(base, node.lineno)]
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return found


def _modules(folder: Path, package: str) -> dict[str, Path]:
    found = {}
    for path in folder.rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        name = ".".join([package, *parts]).removesuffix(".__init__")
        found[name] = path
    return found


def test_no_engine_module_imports_the_bot_layer() -> None:
    offenders = []
    for name, path in _modules(ENGINE, "mneme_core").items():
        top = path.relative_to(ENGINE).parts[0]
        if top in ABOVE:
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for imported, line in _imports(path, package):
            if imported.startswith(("mneme_core.bot", "mneme_core.adapters", "mneme_core.runner")):
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert offenders == []


@pytest.mark.parametrize(
    ("folder", "package"),
    [
        (ENGINE / "bot", "mneme_core.bot"),
        (ROOT / "adapters" / "mneme_discord", "mneme_discord"),
        (ROOT / "adapters" / "mneme_telegram", "mneme_telegram"),
        (ROOT / "adapters" / "mneme_onebot", "mneme_onebot"),
        (ROOT / "adapters" / "mneme_nonebot", "mneme_nonebot"),
    ],
)
def test_the_modules_of_a_package_import_each_other_without_cycles(folder: Path, package: str) -> None:
    modules = _modules(folder, package)
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        own = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for imported, _line in _imports(path, own):
            if imported in modules and imported != name and imported != package:
                edges[name].add(imported)
    cycles = []

    def visit(name: str, trail: list[str]) -> None:
        for nxt in edges[name]:
            if nxt in trail:
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif len(trail) < 12:
                visit(nxt, [*trail, nxt])

    for name in modules:
        visit(name, [name])
    assert cycles == []
