"""The files a first hour hands the `mneme` command, each refused in one line with exit code 2 and no
traceback: a companion's file that is not there (a read command makes none, nor its folders), a file in
Latin-1 where UTF-8 is read (an import, `config set --file`, `--config`, `config apply`), a path that cannot
be written (an export, the database itself), and a hub that cannot be reached for `--meaning local`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import SPACE, child_env, ok, refused

from mneme_core import Mneme
from mneme_core.cli import main

LATIN_1 = "Café Müller, à côté".encode("latin-1")  # é is 0xe9: no UTF-8 character starts with it


@pytest.fixture
def run(tmp_path: Path):
    def invoke(db: Path | str, *args: str):
        return CliRunner().invoke(main, ["--db", str(db), "--space", SPACE, *args])

    return invoke


READS = [
    ("notes", "leo"),
    ("recall", "leo", "cat"),
    ("recall", "leo", "cat", "--meaning"),
    ("context", "leo"),
    ("history", "leo", "pet.name"),
    ("mood", "leo"),
    ("relate", "leo"),
    ("relations",),
    ("recalls", "leo"),
    ("profile", "leo"),
    ("subjects",),
    ("export",),
    ("forget", "leo", "--id", "1"),
    ("purge",),
    ("erase", "leo", "--yes"),
    ("config", "show"),
    ("config", "check"),
]


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_a_read_command_on_a_file_that_is_not_there_makes_nothing(run, tmp_path, args):
    missing = tmp_path / "typo" / "companion.db"

    line = refused(run(missing, *args), f"no companion file at {missing}")

    assert "--db" in line
    assert not missing.parent.exists()


def test_a_command_that_writes_still_makes_the_file_and_its_folders(run, tmp_path):
    made = tmp_path / "new" / "companion.db"
    ok(run(made, "remember", "leo", "Leo has a cat"))
    assert ok(run(made, "notes", "leo")).endswith("Leo has a cat\n")


@pytest.fixture
def latin_1(tmp_path: Path):
    def write(name: str, before: bytes = b"", after: bytes = b"") -> Path:
        path = tmp_path / name
        path.write_bytes(before + LATIN_1 + after)
        return path

    return write


def test_a_latin_1_export_is_refused_in_one_line(run, db_path, latin_1):
    export = latin_1("export.json", b'{"mneme_bots": 1, "notes": [{"text": "', b'"}]}')
    refused(run(db_path, "import", str(export)), str(export), "not UTF-8", "0xe9", "save it as UTF-8")
    assert not db_path.exists()  # refused before the file was opened


def test_a_latin_1_prompt_for_config_set_is_refused(run, db_path, latin_1):
    ok(run(db_path, "config", "set", "companion.name", "Mio"))
    prompt = latin_1("reflect.txt")
    refused(run(db_path, "config", "set", "prompts.reflect", "--file", str(prompt)), "reflect.txt", "0xe9")
    with Mneme(db_path, space=SPACE) as m:
        assert [r.origin for r in m.config.rows() if r.key == "prompts.reflect"] == ["default"]


@pytest.mark.parametrize("how", ["--config", "config apply"])
def test_a_latin_1_config_file_is_refused(run, db_path, latin_1, how):
    path = latin_1("bot.toml", b'[companion]\nname = "', b'"\n')
    given = ["--config", str(path), "remember", "leo", "hi"]
    args = given if how == "--config" else ["config", "apply", str(path)]
    refused(run(db_path, *args), "bot.toml is not UTF-8 text (byte 0xe9 at position 23")
    if db_path.exists():
        with Mneme(db_path, space=SPACE) as m:
            assert m.config.get("companion.name") == "the assistant"
            assert m.subjects() == []


def test_an_export_to_a_folder_that_is_not_there_says_so(run, db_path, tmp_path):
    ok(run(db_path, "remember", "leo", "Leo has a cat"))
    out = tmp_path / "no" / "such" / "export.json"
    refused(run(db_path, "export", "--out", str(out)), f"{out} cannot be written", "no folder")


def test_an_export_over_a_folder_says_so(run, db_path, tmp_path):
    ok(run(db_path, "remember", "leo", "Leo has a cat"))
    refused(run(db_path, "export", "--out", str(tmp_path)), f"{tmp_path} cannot be written")


def test_a_database_under_a_file_says_so(run, tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a folder", encoding="utf-8")
    refused(run(blocker / "companion.db", "remember", "leo", "hi"), "notes.txt is a file, not a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere: the folder's mode stops no one")
def test_a_database_in_a_folder_that_cannot_be_written_says_so(run, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    refused(run(locked / "companion.db", "remember", "leo", "hi"), "cannot be opened")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_hub_out_of_reach_for_meaning_local_is_one_line_and_recall_goes_on_by_words(tmp_path):
    pytest.importorskip("model2vec")
    db = tmp_path / "companion.db"
    with Mneme(db, space=SPACE) as m:
        m.remember("leo", "Leo has a cat called Mochi")
    env = child_env()
    env.update(
        MNEME_LOAD_PLUGINS="embed",
        HF_ENDPOINT=f"http://127.0.0.1:{closed_port()}",  # the hub, out of reach on loopback
        HF_HOME=str(tmp_path / "hf"),  # an empty cache: the model must come from the hub
        HF_HUB_OFFLINE="0",
        HF_HUB_ETAG_TIMEOUT="2",
        HF_HUB_DOWNLOAD_TIMEOUT="2",
    )
    command = ["--db", str(db), "--space", SPACE, "recall", "leo", "cat", "--meaning", "local"]
    done = subprocess.run(
        [sys.executable, "-m", "mneme_core", *command],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("mneme: embedding notes with model2vec:") and " failed: " in lines[0]
    assert done.stdout.splitlines() == [
        "recall for 'cat' (words; embedder model2vec:minishlab/potion-multilingual-128M):",
        "#1 Leo has a cat called Mochi",
    ]
