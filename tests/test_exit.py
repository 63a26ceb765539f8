"""A process that used the async API and never closed its `Mneme` exits, at once, with its own exit code:
aiosqlite's worker threads (the store's threads then) were not daemons, so such a process used to hang at
exit forever (and one whose `main()` raised printed the traceback, then hung, so a supervisor never saw the
crash). What it wrote is in the file afterwards, and so are the recall-log entries that were still waiting."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing

import pytest

SCRIPT = """
import asyncio, sys
from mneme_core import Mneme

async def main():
    m = Mneme(sys.argv[1], space="s")
    await m.aremember("discord:42", "my cat is called Mochi", kind="fact")
    print(await m.aprompt("discord:42", "cat"), flush=True)
    {ending}

asyncio.run(main())
"""

ENDINGS = {
    "returns": "pass",
    "raises": "raise RuntimeError('the bot crashed')",
    "plain exit": "sys.exit(3)",
}


def run(db_path, ending: str, *, plain: bool = False) -> subprocess.CompletedProcess:
    script = textwrap.dedent(SCRIPT).format(ending=ENDINGS[ending])
    if plain:  # the plain twins only, which never need the store's threads
        script = script.replace("await m.aremember", "m.remember").replace("await m.aprompt", "m.prompt")
    # A hang is what failed: without the fix the process never ends, so any limit tells them apart.
    return subprocess.run(
        [sys.executable, "-c", script, str(db_path)], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(("ending", "code"), [("returns", 0), ("raises", 1), ("plain exit", 3)])
def test_a_process_that_never_closed_exits_with_its_own_code(db_path, ending, code):
    done = run(db_path, ending)
    assert done.returncode == code, done.stderr
    assert "Mochi" in done.stdout
    if ending == "raises":
        assert "RuntimeError: the bot crashed" in done.stderr
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select text from notes").fetchall() == [("my cat is called Mochi",)]
        assert conn.execute("select query from recalls").fetchall() == [("cat",)]  # written at exit


def test_a_plain_process_that_never_closed_keeps_its_recall_log(db_path):
    done = run(db_path, "returns", plain=True)
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select query from recalls").fetchall() == [("cat",)]
