"""The `mneme` command line on a real SQLite file.

A few tests go through the real entry points (`python -m mneme_core` and the installed `mneme` script), in a
child process; the rest use click's runner on `mneme_core.cli.main`, which is the same group. `mneme config`
is covered by test_config_cli.py, `tools` and `mcp` by test_tools.py and test_mcp.py.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

import mneme_core
import mneme_core.bot
import mneme_core.cli.bot
import mneme_core.plugins
from mneme_core import Mneme
from mneme_core.bot.hooks import BUILT_IN
from mneme_core.cli import main
from mneme_core.hookspecs import hookimpl
from mneme_core.memory.note import KINDS
from mneme_core.plugins import PluginError
from mneme_core.plugins import make_manager as real_make_manager

SPACE = "fish"
ENVIRONMENT = ("MNEME_DB", "MNEME_SPACE", "MNEME_CONFIG")


@pytest.fixture(autouse=True)
def no_outside_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell's own MNEME_DB / MNEME_SPACE / MNEME_CONFIG stay out of these tests."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def run(db_path: Path):
    """`mneme --db <tmp file> --space fish ARGS...` through click's runner."""
    runner = CliRunner()

    def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
        return runner.invoke(main, ["--db", str(db_path), "--space", SPACE, *args], env=env)

    return invoke


def ok(result: Result) -> str:
    """The command's stdout, once it is known to have worked."""
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def refused(result: Result, *words: str) -> str:
    """A refusal: exit code 2, no traceback, and one line on stderr that says each of `words`."""
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def opened(path: Path, space: str = SPACE) -> Mneme:
    return Mneme(path, space=space)


def ids(output: str) -> list[int]:
    """The note ids at the start of each line (`#12 ...`)."""
    return [int(line.split()[0][1:]) for line in output.splitlines() if line.startswith("#")]


# -- the real entry points ----------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}
    env["MNEME_LOAD_PLUGINS"] = ""
    return env


def script() -> str:
    """The installed console script, the one beside this interpreter if there is one."""
    found = shutil.which("mneme", path=os.path.dirname(sys.executable)) or shutil.which("mneme")
    assert found, "the mneme console script is not installed (pip install -e .)"
    return found


def child(*args: str, cwd: Path, module: bool = True) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mneme_core"] if module else [script()]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=child_env(),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.mark.parametrize("module", [True, False], ids=["python -m mneme_core", "mneme script"])
def test_version_through_the_real_entry_points(tmp_path, module):
    done = child("--version", cwd=tmp_path, module=module)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mneme, version {mneme_core.__version__}"
    assert not list(tmp_path.iterdir())  # --version opens no file


def test_remember_then_notes_through_the_real_entry_points(tmp_path):
    db = tmp_path / "real.db"
    kept = child("--db", str(db), "remember", "leo", "Leo lives in Lyon", "--key", "user.city", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith("kept #")
    shown = child("--db", str(db), "notes", "leo", "--json", cwd=tmp_path, module=False)
    assert shown.returncode == 0, shown.stderr
    (note,) = json.loads(shown.stdout)
    assert (note["text"], note["key"], note["source"]) == ("Leo lives in Lyon", "user.city", "cli")
    assert kept.stdout.strip() == f"kept #{note['id']}"
    assert not (tmp_path / "mneme.db").exists()  # --db was used, not the default


@pytest.mark.parametrize("module", [True, False], ids=["python -m mneme_core", "mneme script"])
def test_an_error_is_one_line_and_exit_2_through_the_real_entry_points(tmp_path, module):
    db = tmp_path / "real.db"
    done = child("--db", str(db), "remember", "", "text", cwd=tmp_path, module=module)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "Error: a subject must not be empty: give whose memory this is, like 'discord:42'"
    ]


def test_a_newer_file_is_refused_through_the_real_entry_point(tmp_path):
    db = tmp_path / "real.db"
    assert child("--db", str(db), "remember", "leo", "hello", cwd=tmp_path).returncode == 0
    newer(db)
    done = child("--db", str(db), "notes", "leo", cwd=tmp_path, module=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "newer" in line and "99" in line


BROKEN_PLUGIN = """
import click
import mneme_core.plugins as plugins
from mneme_core.hookspecs import hookimpl

real = plugins.make_manager


class Broken:
    @hookimpl
    def register_commands(self, cli):
        raise RuntimeError("boom")


class Hello:
    @hookimpl
    def register_commands(self, cli):
        @cli.command()
        def hello():
            click.echo("hello from a plugin")


plugins.make_manager = lambda **_: real(plugins=[Broken(), Hello()], load_entry_points=False)

from mneme_core.cli import main

main(prog_name="mneme")
"""


def test_a_broken_plugin_is_named_in_one_line_without_a_traceback(tmp_path):
    """In a real process nothing configures logging: the plugin's failure must still reach the person as
    one line naming it, not as a traceback (`calling.failed`: "never to the person")."""
    path = tmp_path / "with_plugins.py"
    path.write_text(BROKEN_PLUGIN, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(path), "--db", str(tmp_path / "x.db"), "hello"],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello from a plugin\n"
    assert "boom" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


# -- remember and notes -------------------------------------------------------------------------------


def test_remember_says_what_happened(run, db_path):
    first = ok(run("remember", "leo", "Leo lives in Paris", "--key", "user.city", "--importance", "4"))
    assert first.startswith("kept #")
    second = ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    assert second.startswith("replaced #")
    assert ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city")) == second.replace(
        "replaced", "known"
    )
    with opened(db_path) as m:
        (live,) = m.notes("leo")
        assert (live.id, live.text, live.kind, live.importance, live.source) == (
            int(second.split("#")[1]),
            "Leo lives in Lyon",
            "fact",
            3,
            "cli",
        )
        (old,) = [n for n in m.history("leo", "user.city") if not n.live]
        assert (old.text, old.importance) == ("Leo lives in Paris", 4)


def test_remember_kind_date_and_json(run, db_path):
    found = json.loads(
        ok(
            run(
                "remember",
                "leo",
                "Leo retakes the maths exam",
                "--kind",
                "plan",
                "--key",
                "Exam.Math.Date",
                "--importance",
                "5",
                "--date",
                "2024-03-08",
                "--json",
            )
        )
    )
    assert found["outcome"] == "kept"
    note = found["note"]
    assert (note["kind"], note["key"], note["importance"], note["subject"]) == (
        "plan",
        "exam.math.date",
        5,
        "leo",
    )
    line = ok(run("notes", "leo")).strip()
    assert line == f"#{note['id']} 2024-03-08 12:00 plan 5 [exam.math.date] Leo retakes the maths exam"
    with opened(db_path) as m:
        assert m.get(note["id"]).happened_at == note["happened_at"]


def test_a_bad_date_or_importance_is_refused_and_nothing_kept(run, db_path):
    refused(run("remember", "leo", "x", "--date", "2024-13-01"), "--date", "'2024-13-01'")
    refused(run("remember", "leo", "x", "--date", "friday"), "--date")
    refused(run("remember", "leo", "x", "--importance", "9"), "importance", "1 to 5")
    with opened(db_path) as m:
        assert m.notes("leo") == []


def test_notes_newest_first_by_kind_and_as_json(run):
    fact = ok(run("remember", "leo", "Leo has a cat called Mochi", "--key", "pet.name"))
    plan = ok(run("remember", "leo", "Leo goes to Rome", "--kind", "plan"))
    taste = ok(run("remember", "leo", "Leo likes green tea", "--kind", "preference"))
    ok(run("remember", "ann", "Ann plays chess"))
    fact_id, plan_id, taste_id = (int(out.split("#")[1]) for out in (fact, plan, taste))
    everything = ok(run("notes", "leo"))
    assert ids(everything) == [taste_id, plan_id, fact_id]
    assert f"#{fact_id} " in everything and "fact 3 [pet.name] Leo has a cat called Mochi" in everything
    assert "Ann" not in everything
    assert ids(ok(run("notes", "leo", "--kind", "plan"))) == [plan_id]
    assert ids(ok(run("notes", "leo", "--kind", "plan", "--kind", "preference"))) == [taste_id, plan_id]
    found = json.loads(ok(run("notes", "leo", "--json")))
    assert [n["id"] for n in found] == [taste_id, plan_id, fact_id]
    assert [n["text"] for n in found] == [
        "Leo likes green tea",
        "Leo goes to Rome",
        "Leo has a cat called Mochi",
    ]
    assert {n["subject"] for n in found} == {"leo"}
    assert json.loads(ok(run("notes", "nobody", "--json"))) == []
    assert ok(run("notes", "nobody")) == ""


# -- recall, history, forget, purge, erase ------------------------------------------------------------


def test_recall_explains_and_logs_nothing(run, db_path):
    city = int(ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city")).split("#")[1])
    cat = int(ok(run("remember", "leo", "Leo has a cat called Mochi")).split("#")[1])
    plain = ok(run("recall", "leo", "Where does Leo live?", "--limit", "1"))
    assert plain == f"#{city} Leo lives in Lyon\n"
    lines = ok(run("recall", "leo", "Where does Leo live?", "--limit", "1", "--explain")).splitlines()
    assert lines[0] == "recall for 'Where does Leo live?' (words):"
    chosen = [line for line in lines if line.startswith("  + ")]
    assert len(chosen) == 1
    assert chosen[0].startswith(f"  + #{city} matched: ")
    assert "live" in chosen[0].split("matched:")[1] and chosen[0].endswith(": Leo lives in Lyon")
    skipped = [line for line in lines if line.startswith("  - ")]
    assert [line.split()[1] for line in skipped] == [f"#{cat}"]
    nothing = ok(run("recall", "nobody", "anything", "--explain")).splitlines()
    assert nothing[1] == "  nothing remembered about this person yet"
    with opened(db_path) as m:
        assert m.recalls("leo") == []  # the CLI's recall is a look, not a use


def test_explain_calls_a_plan_a_plan_and_gives_no_score_where_none_chose(run, db_path):
    ok(run("remember", "leo", "Leo likes green tea", "--kind", "preference", "--importance", "4"))
    plan = ok(run("remember", "leo", "Leo flies to Osaka", "--kind", "plan", "--date", "2099-05-01"))
    lines = ok(run("recall", "leo", "anything new?", "--explain")).splitlines()
    shown = {line.split(": ", 1)[1]: line for line in lines if line.startswith("  + ")}
    assert (
        shown["Leo flies to Osaka"]
        == f"  + #{plan.split('#')[1].strip()} a plan, among the newest notes: Leo flies to Osaka"
    )
    assert shown["Leo likes green tea"].endswith(
        " important (a lasting note of importance 4): Leo likes green tea"
    )
    assert "score 0.00" not in "\n".join(lines) and "recent" not in "\n".join(lines)


def test_context_prints_the_prompt_block_and_logs_nothing(run, db_path):
    ok(run("remember", "leo", "Leo has a cat called Mochi", "--key", "pet.name"))
    ok(run("relate", "leo", "friend"))
    block = ok(run("context", "leo", "how is my cat?", "--user-name", "Leo"))
    with opened(db_path) as m:
        assert block == m.prompt("leo", "how is my cat?", user_name="Leo", mark=False, log=False) + "\n"
        assert m.recalls("leo") == []  # a look by hand, not a use
    assert "- Leo has a cat called Mochi" in block
    assert ok(run("context", "leo")).count("Leo has a cat called Mochi") == 1  # no query: the overview
    refused(run("context", ""), "subject")
    nobody = run("context", "ann")
    assert (
        ok(nobody).strip() == ""
        and nobody.stderr == "mneme: the block is empty: nothing is known of ann yet\n"
    )


def test_recall_as_json(run):
    city = int(ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city")).split("#")[1])
    ok(run("remember", "leo", "Leo has a cat called Mochi"))
    found = json.loads(ok(run("recall", "leo", "Lyon", "--json", "--limit", "1")))
    assert found["query"] == "Lyon" and found["tier"] == "words"
    (first,) = found["chosen"]
    assert first["note"]["id"] == city and first["note"]["text"] == "Leo lives in Lyon"
    assert "lyon" in first["why"] and first["score"] > 0
    assert all(set(skip) == {"id", "reason"} for skip in found["skipped"])
    assert city not in [skip["id"] for skip in found["skipped"]]


def test_history_oldest_first_with_states(run):
    paris = ok(run("remember", "leo", "Leo lives in Paris", "--key", "user.city"))
    lyon = ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    paris_id, lyon_id = int(paris.split("#")[1]), int(lyon.split("#")[1])
    lines = ok(run("history", "leo", "USER.city")).splitlines()
    assert [line.split()[0] for line in lines] == [f"#{paris_id}", f"#{lyon_id}"]
    assert lines[0].endswith(" replaced: Leo lives in Paris")
    assert lines[1].endswith(" live: Leo lives in Lyon")
    assert ok(run("forget", "leo", "--key", "user.city")) == "forgot 1\n"
    lines = ok(run("history", "leo", "user.city")).splitlines()
    assert lines[0].endswith(" replaced: Leo lives in Paris")
    assert lines[1].endswith(" forgotten: Leo lives in Lyon")
    found = json.loads(ok(run("history", "leo", "user.city", "--json")))
    assert [n["id"] for n in found] == [paris_id, lyon_id]
    assert found[0]["superseded_by"] == lyon_id and found[1]["deleted_at"] is not None
    assert ok(run("history", "leo", "user.nothing")) == ""


def test_forget_by_id_or_key_and_not_neither(run, db_path):
    cat = int(ok(run("remember", "leo", "Leo has a cat called Mochi")).split("#")[1])
    ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    assert ok(run("forget", "leo", "--id", str(cat))) == "forgot 1\n"
    assert ok(run("forget", "leo", "--key", "user.city")) == "forgot 1\n"
    assert ok(run("forget", "leo", "--key", "user.city")) == "forgot 0\n"
    assert ok(run("notes", "leo")) == ""
    ok(run("remember", "leo", "Leo likes tea", "--key", "user.drink"))
    refused(run("forget", "leo"), "exactly one of id or key")
    refused(run("forget", "leo", "--id", str(cat), "--key", "user.drink"), "exactly one of id or key")
    refused(run("forget", "leo", "--id", "0"), "id")
    with opened(db_path) as m:
        assert [n.text for n in m.notes("leo")] == ["Leo likes tea"]  # the refusals forgot nothing


def test_purge_erases_hidden_and_replaced_notes(run):
    ok(run("remember", "leo", "Leo lives in Paris", "--key", "user.city"))
    ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    cat = int(ok(run("remember", "leo", "Leo has a cat")).split("#")[1])
    ok(run("forget", "leo", "--id", str(cat)))
    ok(run("remember", "ann", "Ann lives in Oslo", "--key", "user.city"))
    ok(run("remember", "ann", "Ann lives in Rome", "--key", "user.city"))
    assert ok(run("purge", "leo")) == "purged 2 notes\n"
    (left,) = ok(run("history", "leo", "user.city")).splitlines()
    assert left.endswith(" live: Leo lives in Lyon")
    assert len(ok(run("history", "ann", "user.city")).splitlines()) == 2  # only leo's were purged
    assert ok(run("purge")) == "purged 1 notes\n"
    assert len(ok(run("history", "ann", "user.city")).splitlines()) == 1
    assert ok(run("purge")) == "purged 0 notes\n"


def test_erase_needs_yes(run, db_path):
    ok(run("remember", "leo", "Leo has a cat"))
    ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    ok(run("relate", "leo", "friend"))
    ok(run("remember", "ann", "Ann plays chess"))
    refused(run("erase", "leo"), "--yes")
    assert len(ids(ok(run("notes", "leo")))) == 2  # nothing erased
    assert ok(run("erase", "leo", "--yes")) == "erased 2 notes\n"
    assert ok(run("notes", "leo")) == ""
    assert ok(run("history", "leo", "user.city")) == ""
    assert ok(run("relate", "leo")) == "leo has no role\n"
    assert ok(run("subjects")) == "ann\n"


def test_erase_without_yes_opens_nothing(tmp_path):
    db = tmp_path / "never.db"
    refused(CliRunner().invoke(main, ["--db", str(db), "erase", "leo"]), "--yes")
    assert not db.exists()


# -- mood, relationships, recalls, profile, subjects ---------------------------------------------------


def test_mood_line_timeline_reset_and_json(run, db_path):
    with opened(db_path) as m:
        baseline = m.mood_settings.baseline
        low = m.feel("leo", delta=-6, emotions={"worried": 20}, reason="a late reply", judge="tester")
        high = m.feel("leo", delta=5, emotions={"happy": 30}, reason="a kind word", judge="tester")
    assert low is not None and high is not None and high.value != baseline
    lines = ok(run("mood", "leo")).splitlines()
    assert lines[0].startswith(f"Mood {high.value:g}/100")
    assert "happy 30" in lines[0]
    assert len(lines) == 3
    assert lines[1].endswith(f"+5 -> {high.value:g} (happy 30) by tester (1.00): a kind word")
    assert lines[2].endswith(f"-6 -> {low.value:g} (worried 20) by tester (1.00): a late reply")
    assert len(ok(run("mood", "leo", "--limit", "1")).splitlines()) == 2
    found = json.loads(ok(run("mood", "leo", "--json")))
    assert round(found["mood"]["value"]) == high.value
    assert round(found["mood"]["emotions"]["happy"]) == 30
    assert [e["reason"] for e in found["timeline"]] == ["a kind word", "a late reply"]
    assert [e["judge"] for e in found["timeline"]] == ["tester", "tester"]
    reset = ok(run("mood", "leo", "--reset")).splitlines()
    assert reset == [f"Mood {baseline:g}/100 (good)"]
    after = json.loads(ok(run("mood", "leo", "--json")))
    assert after["timeline"] == [] and after["mood"]["value"] == baseline


def test_relate_set_show_remove(run):
    assert ok(run("relate", "leo", "friend")) == "leo: friend, closeness 50\n"
    assert ok(run("relate", "leo")) == "leo: friend, closeness 50\n"
    assert ok(run("relate", "leo", "family", "--closeness", "90")) == "leo: family, closeness 90\n"
    shown = json.loads(ok(run("relate", "leo", "--json")))
    assert (shown["subject"], shown["role"], shown["closeness"]) == ("leo", "family", 90)
    assert ok(run("relate", "leo", "--remove")) == "removed\n"
    assert ok(run("relate", "leo", "--remove")) == "had no role\n"
    assert ok(run("relate", "leo")) == "leo has no role\n"
    assert json.loads(ok(run("relate", "leo", "--json"))) is None


def test_relate_refusals(run):
    refused(run("relate", "leo", "boss"), "'boss'", "creator, family, friend, acquaintance")
    assert ok(run("relate", "leo")) == "leo has no role\n"
    ok(run("relate", "ann", "creator"))
    refused(run("relate", "bob", "creator"), "ann", "creator")
    assert ok(run("relate", "bob")) == "bob has no role\n"
    refused(run("relate", "leo", "friend", "--closeness", "99"), "closeness")
    assert ok(run("relate", "leo")) == "leo has no role\n"


def test_relations_closest_first(run):
    ok(run("remember", "zoe", "Zoe is new here"))
    assert ok(run("relations")) == ""
    assert json.loads(ok(run("relations", "--json"))) == []
    ok(run("relate", "leo", "acquaintance"))
    ok(run("relate", "ann", "creator"))
    ok(run("relate", "bob", "friend"))
    assert ok(run("relations")).splitlines() == [
        "ann: creator, closeness 100",
        "bob: friend, closeness 50",
        "leo: acquaintance, closeness 20",
    ]
    found = json.loads(ok(run("relations", "--json")))
    assert [(r["subject"], r["role"], r["closeness"]) for r in found] == [
        ("ann", "creator", 100),
        ("bob", "friend", 50),
        ("leo", "acquaintance", 20),
    ]


def test_recalls_show_what_was_recalled_through_the_api(run, db_path):
    with opened(db_path) as m:
        exam = m.remember("leo", "Leo retakes the maths exam on Friday", kind="plan")
        m.remember("leo", "Leo has a cat")
        m.recall("leo", "exam Friday")
    (line,) = ok(run("recalls", "leo")).splitlines()
    assert "'exam Friday': " in line
    assert f"#{exam.id} matched: " in line and "exam" in line.split("matched:")[1]
    (entry,) = json.loads(ok(run("recalls", "leo", "--json")))
    assert entry["query"] == "exam Friday"
    assert entry["chosen"][0][0] == exam.id and "exam" in entry["chosen"][0][1]
    assert ok(run("recalls", "ann")) == ""


def test_profile_set_show_clear(run):
    refused(run("profile", "leo"), "no companion file")
    assert ok(run("profile", "leo", "Leo is a student in Lyon.")) == "Leo is a student in Lyon.\n"
    assert ok(run("profile", "leo")) == "Leo is a student in Lyon.\n"
    assert ok(run("profile", "ann")) == "ann has no profile card\n"
    assert ok(run("profile", "leo", "--clear")) == "leo has no profile card\n"
    assert ok(run("profile", "leo")) == "leo has no profile card\n"


def test_subjects_with_live_notes(run):
    ok(run("remember", "leo", "Leo has a cat"))
    ok(run("remember", "discord:42", "Likes jazz"))
    gone = int(ok(run("remember", "ann", "Ann plays chess")).split("#")[1])
    ok(run("forget", "ann", "--id", str(gone)))
    assert set(ok(run("subjects")).splitlines()) == {"leo", "discord:42"}
    assert sorted(json.loads(ok(run("subjects", "--json")))) == ["discord:42", "leo"]


# -- export and import --------------------------------------------------------------------------------


def test_export_then_import_into_another_file(run, tmp_path, db_path):
    ok(run("remember", "leo", "Leo lives in Paris", "--key", "user.city"))
    ok(run("remember", "leo", "Leo lives in Lyon", "--key", "user.city"))
    ok(run("remember", "ann", "Ann plays chess", "--kind", "preference"))
    printed = json.loads(ok(run("export")))
    out = tmp_path / "export.json"
    said = ok(run("export", "--out", str(out)))
    assert said == (
        f"wrote {out}: space fish, 3 notes (their history included), 0 conversation lines, 0 relationships, "
        f"0 moods and {len(printed['config'])} config keys ({out.stat().st_size:,} bytes)\n"
    )
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [n["text"] for n in written["notes"]] == [n["text"] for n in printed["notes"]]
    assert len(written["notes"]) == 3  # history included

    other = tmp_path / "other.db"
    runner = CliRunner()
    added = ok(runner.invoke(main, ["--db", str(other), "import", str(out)]))
    assert added == "added 3 notes into fish\n"  # the export's own space
    into = ok(runner.invoke(main, ["--db", str(other), "import", str(out), "--into", "shark"]))
    assert into == "added 3 notes into shark\n"
    assert ok(runner.invoke(main, ["--db", str(other), "import", str(out)])) == "added 0 notes into fish\n"
    with Mneme(other, space=SPACE) as m:
        assert [n.text for n in m.notes("leo")] == ["Leo lives in Lyon"]
        assert [n.text for n in m.history("leo", "user.city")] == ["Leo lives in Paris", "Leo lives in Lyon"]
        assert [(n.text, n.kind) for n in m.notes("ann")] == [("Ann plays chess", "preference")]


def test_import_takes_the_config_only_when_asked(tmp_path, db_path):
    with opened(db_path) as m:
        m.remember("leo", "Leo has a cat")
        m.config.set("companion.name", "Mio")
    runner = CliRunner()
    out = tmp_path / "export.json"
    ok(runner.invoke(main, ["--db", str(db_path), "--space", SPACE, "export", "--out", str(out)]))
    plain, full = tmp_path / "plain.db", tmp_path / "full.db"
    assert ok(runner.invoke(main, ["--db", str(plain), "import", str(out)])) == "added 1 notes into fish\n"
    added = ok(runner.invoke(main, ["--db", str(full), "import", "--with-config", str(out)]))
    assert added == "added 1 notes into fish\n"
    with Mneme(plain, space=SPACE) as m:
        assert m.config.get("companion.name") != "Mio"
    with Mneme(full, space=SPACE) as m:
        assert m.config.get("companion.name") == "Mio"
        assert [n.text for n in m.notes("leo")] == ["Leo has a cat"]


def test_import_refuses_what_is_not_an_export(run, tmp_path, db_path):
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("not json at all", encoding="utf-8")
    refused(run("import", str(garbage)), "garbage.txt", "not JSON")
    assert not db_path.exists()  # refused before the file was opened
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    refused(run("import", str(other)), "not an export")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    refused(run("import", str(listed)), "export")
    assert ok(run("subjects")) == ""


# -- the environment ----------------------------------------------------------------------------------


def test_mneme_db_and_space_from_the_environment(tmp_path):
    db = tmp_path / "env.db"
    runner = CliRunner()
    env = {"MNEME_DB": str(db), "MNEME_SPACE": "one"}
    ok(runner.invoke(main, ["remember", "leo", "Leo in space one"], env=env))
    ok(runner.invoke(main, ["remember", "leo", "Leo in space two"], env={**env, "MNEME_SPACE": "two"}))
    assert db.exists()
    one = ok(runner.invoke(main, ["notes", "leo"], env=env))
    two = ok(runner.invoke(main, ["notes", "leo"], env={**env, "MNEME_SPACE": "two"}))
    assert "Leo in space one" in one and "two" not in one
    assert "Leo in space two" in two and "one" not in two
    given = ok(runner.invoke(main, ["--space", "two", "notes", "leo"], env=env))  # an option wins
    assert given == two
    with Mneme(db, space="one") as m:
        assert [n.text for n in m.notes("leo")] == ["Leo in space one"]


def test_the_default_file_is_mneme_db_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ok(CliRunner().invoke(main, ["remember", "leo", "Leo has a cat"]))
    with Mneme(tmp_path / "mneme.db") as m:
        assert [n.text for n in m.notes("leo")] == ["Leo has a cat"]


def test_mneme_config_is_taken_on_first_open_only(tmp_path, db_path):
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text('[companion]\nname = "Mio"\n', encoding="utf-8")
    second.write_text('[companion]\nname = "Other"\n', encoding="utf-8")
    runner = CliRunner()
    base = ["--db", str(db_path), "--space", SPACE]
    ok(runner.invoke(main, [*base, "remember", "leo", "hi"], env={"MNEME_CONFIG": str(first)}))
    ok(runner.invoke(main, [*base, "notes", "leo"], env={"MNEME_CONFIG": str(second)}))
    with opened(db_path) as m:
        assert m.config.get("companion.name") == "Mio"
    with Mneme(db_path, space="elsewhere") as m:  # another space has not met a file
        assert m.config.get("companion.name") != "Mio"


def test_a_config_file_with_a_bad_key_is_refused(tmp_path, db_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[companion]\nnmae = "Mio"\n', encoding="utf-8")
    runner = CliRunner()
    base = ["--db", str(db_path), "--space", SPACE]
    refused(runner.invoke(main, [*base, "--config", str(bad), "remember", "leo", "hi"]), "nmae")
    refused(runner.invoke(main, [*base, "notes", "leo"], env={"MNEME_CONFIG": str(bad)}), "nmae")
    good = tmp_path / "good.toml"
    good.write_text('[companion]\nname = "Mio"\n', encoding="utf-8")
    ok(runner.invoke(main, [*base, "--config", str(good), "notes", "leo"]))
    with opened(db_path) as m:
        assert m.notes("leo") == []  # the refused command kept nothing
        assert m.config.get("companion.name") == "Mio"  # and the refused file did not count as the first


# -- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "", "text"),
        ("remember", "   ", "text"),
        ("notes", ""),
        ("recall", "", "query"),
        ("history", "", "user.city"),
        ("forget", "", "--id", "1"),
        ("purge", ""),
        ("erase", "", "--yes"),
        ("mood", ""),
        ("relate", "", "friend"),
        ("recalls", ""),
        ("profile", ""),
    ],
    ids=lambda args: " ".join(map(repr, args)),
)
def test_a_bad_subject_is_one_line(run, args):
    refused(run(*args), "subject")


@pytest.mark.parametrize(
    "args",
    [("remember", "leo", "text", "--kind", "rumour"), ("notes", "leo", "--kind", "rumour")],
    ids=" ".join,
)
def test_a_bad_kind_is_refused(run, db_path, args):
    result = run(*args)
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(errors) == 1
    assert "'rumour'" in errors[0] and all(kind in errors[0] for kind in KINDS)
    assert not db_path.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "leo", "text", "--key", "user city"),
        ("remember", "leo", "text", "--key", "a.b.c.d.e"),
        ("history", "leo", "user..city"),
        ("forget", "leo", "--key", "user city!"),
    ],
    ids=lambda args: " ".join(map(repr, args)),
)
def test_a_bad_key_is_one_line(run, db_path, args):
    opened(db_path).close()  # a companion's file, so the commands that only read get as far as the key
    refused(run(*args), "is not a key")
    with opened(db_path) as m:
        assert m.subjects() == []


def test_history_without_a_key_is_refused(run):
    refused(run("history", "leo", " "), "key")


def newer(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        with conn:
            updated = conn.execute("update meta set value = '99' where key = 'schema_level'").rowcount
        assert updated == 1
    finally:
        conn.close()


def schema_level(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("select value from meta where key = 'schema_level'").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize(
    "args", [("notes", "leo"), ("remember", "leo", "x"), ("subjects",), ("export",)], ids=" ".join
)
def test_a_file_from_a_newer_version_is_refused(run, db_path, args):
    ok(run("remember", "leo", "hello"))
    newer(db_path)
    refused(run(*args), str(db_path), "newer", "99")
    assert schema_level(db_path) == "99"  # left as it was


# -- plugins ------------------------------------------------------------------------------------------


def test_plugins_lists_none_installed_and_the_built_in_ones_with_all(run):
    assert json.loads(ok(run("plugins", "--json"))) == []
    assert "no plugins installed" in ok(run("plugins"))
    found = json.loads(ok(run("plugins", "--all", "--json")))
    assert sorted(p["name"] for p in found) == sorted(BUILT_IN)
    by_name = {p["name"]: p for p in found}
    assert {p["kind"] for p in found} == {"built in"}
    assert {p["distribution"] for p in found} == {"mneme-bots"}
    assert "resolve_subject" in by_name["mneme_core.bot.default_plugins.subjects"]["hooks"]
    assert "register_providers" in by_name["mneme_core.bot.default_plugins.offline"]["hooks"]
    assert "register_adapters" in by_name["mneme_core.bot.default_plugins.adapters"]["hooks"]
    lines = ok(run("plugins", "--all")).splitlines()
    assert len(lines) == len(BUILT_IN)
    subjects = next(line for line in lines if line.startswith("mneme_core.bot.default_plugins.subjects "))
    assert "[built in; mneme-bots" in subjects and subjects.endswith("resolve_subject")


class Hello:
    """A plugin that adds `mneme hello`."""

    @hookimpl
    def register_commands(self, cli):
        @cli.command()
        @click.argument("name", default="world")
        def hello(name: str) -> None:
            """Say hello from a test plugin."""
            click.echo(f"hello {name}")


class Broken:
    """A plugin that adds a command, then fails."""

    @hookimpl
    def register_commands(self, cli):
        @cli.command()
        def half() -> None:
            click.echo("half")

        raise RuntimeError("boom")


class Usurper:
    """A plugin that tries to replace `mneme notes`."""

    @hookimpl
    def register_commands(self, cli):
        @cli.command(name="notes")
        @click.argument("subject")
        def notes(subject: str) -> None:
            click.echo("hijacked")


@pytest.fixture
def plug(monkeypatch: pytest.MonkeyPatch):
    """`plug(*plugins)`: the CLI's next plugin lookup finds these; `main` is put back afterwards."""

    def install(*plugins: object) -> None:
        monkeypatch.setattr(main, "_plugged", False)
        monkeypatch.setattr(main, "commands", dict(main.commands))

        def manager(**_: object):
            return real_make_manager(plugins=plugins, load_entry_points=False)

        monkeypatch.setattr(mneme_core.plugins, "make_manager", manager)
        monkeypatch.setattr(mneme_core.cli.bot, "make_manager", manager)

    return install


def test_a_plugin_adds_a_command(run, plug):
    plug(Hello())
    assert ok(run("hello")) == "hello world\n"
    assert ok(run("hello", "Leo")) == "hello Leo\n"
    listed = ok(run("--help"))
    assert "hello" in listed and "Say hello from a test plugin." in listed
    assert "remember" in listed
    (info,) = json.loads(ok(run("plugins", "--json")))
    assert info["kind"] == "registered" and info["hooks"] == ["register_commands"]


class Matrix:
    """A plugin that adds an adapter."""

    @hookimpl
    def register_adapters(self, register):
        class MatrixAdapter(mneme_core.bot.Adapter):
            name = "matrix"

        register(MatrixAdapter)


def test_run_help_lists_the_adapters_and_providers_installed(run, plug):
    assert "adapters         console\n" in ok(run("run", "--help"))
    plug(Matrix())
    shown = ok(run("run", "--help"))
    assert "Installed here:\n  adapters         console, matrix\n  model providers  offline\n" in shown
    assert "`mneme config template` lists every key they read" in " ".join(shown.split())


def test_help_lists_a_plugin_command_before_it_is_used(run, plug):
    plug(Hello())
    assert "Say hello from a test plugin." in ok(run("--help"))


def test_a_plugin_that_raises_leaves_the_rest_working(run, plug, caplog):
    plug(Broken(), Hello())
    assert ok(run("hello")) == "hello world\n"
    assert "boom" in caplog.text and "register_commands" in caplog.text
    listed = ok(run("--help"))
    assert "hello" in listed and "half" not in listed  # the broken plugin's commands are left out whole
    assert run("half").exit_code == 2
    assert ok(run("remember", "leo", "Leo has a cat")).startswith("kept #")
    assert "Leo has a cat" in ok(run("notes", "leo"))


def test_a_plugin_cannot_replace_a_core_command(run, plug, caplog):
    plug(Usurper(), Hello())
    ok(run("--help"))  # every plugin's commands are in now
    ok(run("remember", "leo", "Leo has a cat"))
    shown = ok(run("notes", "leo"))
    assert "hijacked" not in shown and "Leo has a cat" in shown
    assert "replace the command notes" in caplog.text
    assert ok(run("hello")) == "hello world\n"


def test_plugins_that_cannot_load_leave_the_core_commands(run, monkeypatch):
    def failing(**_: object):
        raise PluginError("plugin wobbly could not be loaded: ImportError: no")

    monkeypatch.setattr(main, "_plugged", False)
    monkeypatch.setattr(main, "commands", dict(main.commands))
    monkeypatch.setattr(mneme_core.plugins, "make_manager", failing)
    monkeypatch.setattr(mneme_core.cli.bot, "make_manager", failing)
    helped = run("--help")
    assert "remember" in ok(helped)
    assert "mneme: plugins left out: plugin wobbly could not be loaded" in helped.stderr
    assert ok(run("remember", "leo", "hi")).startswith("kept #")
    refused(run("plugins"), "wobbly")


# -- the demo -----------------------------------------------------------------------------------------


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No network: any connection or name lookup fails the test."""

    def refuse(*args: object, **kwargs: object):
        raise AssertionError(f"the demo reached for the network: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def no_keys() -> dict[str, str | None]:
    return {name: None for name in os.environ if name.endswith(("_API_KEY", "_TOKEN"))}


def test_the_demo_runs_offline_and_leaves_db_alone(run, db_path, offline):
    result = run("demo", env=no_keys())
    shown = ok(result)
    assert "offline" in shown
    assert "remembered: Leo has a cat called Mochi. (fact, importance 4)" in shown
    assert "remembered: Leo retakes the maths exam on Friday. (plan, importance 4)" in shown
    assert "felt: Mood " in shown
    assert not db_path.exists()


def test_the_demo_keeps_its_file_when_asked(run, tmp_path, db_path, offline):
    kept = tmp_path / "demo.db"
    ok(run("demo", "--keep", str(kept), env=no_keys()))
    assert not db_path.exists()
    with Mneme(kept, space="demo") as m:
        texts = {n.text for n in m.notes("console:leo")}
    assert {"Leo has a cat called Mochi.", "Leo retakes the maths exam on Friday."} <= texts
