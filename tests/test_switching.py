"""Switching from mneme-llm 0.1.0: the calls a switching user writes first work as mneme-llm documents them.

mneme-llm's README keeps everything local with `Mneme(..., luna=False, micro=False, meaning_micro=False,
embed=False, memory_language=None)`; its switches are accepted with their documented meanings, and one that
asks for a tier Mneme does not have is refused in one line that says so, before the file is created.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tomllib
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import mneme_centroids
import mneme_openai
import mneme_unify
import pytest
from click.testing import CliRunner

from mneme_core import Mneme, text
from mneme_core.cli import main
from mneme_core.config import ConfigError, load
from mneme_core.config.toml import flatten
from mneme_core.decide import Answer
from mneme_core.errors import InvalidType, InvalidValue, SchemaError
from mneme_core.from_mneme_llm import database as mneme_llm_database
from mneme_core.meaning import Embeddings
from mneme_core.plugins import make_manager
from mneme_core.prompts import PROMPTS

LEO = "discord:42"
LOCAL = dict(luna=False, micro=False, meaning_micro=False, embed=False, memory_language=None)


def model(system: str, user: str) -> str:
    """The host's model: judges every exchange a little better, writes no notes, glosses nothing."""
    if system == PROMPTS["judge"]:
        return json.dumps({"mood_change": {"level": "1", "confidence": 0.9}})
    return "[]"


def vectors(texts: list[str]) -> list[list[float]]:
    return [[1.0, float(len(t) % 3) + 0.1] for t in texts]


def every_tier() -> Any:
    """A plugin manager with the word centroids and unify tiers, and the OpenAI embedder family."""
    return make_manager(
        load_entry_points=False, environ={}, plugins=[mneme_centroids, mneme_unify, mneme_openai]
    )


@pytest.fixture(autouse=True)
def no_outside_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell's own MNEME_SPACE / MNEME_CONFIG stay out of the command-line tests here."""
    for name in ("MNEME_SPACE", "MNEME_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def test_the_keep_everything_local_call_opens_a_companion_with_words_only(db_path, clock):
    config = {"memory": {"embed": "openai:text-embedding-3-small@256"}}
    with Mneme(
        db_path, "dafeiyu", config=config, complete=model, plugins=every_tier(), clock=clock, **LOCAL
    ) as m:
        m.remember(LEO, "Leo has a cat named Mochi", kind="fact")

        assert m.meaning is None  # embed=False wins over memory.embed for this process
        assert m.memory_language == ""  # None turns unify off, as in mneme-llm
        assert m.tiers.names == []
        assert [r.note.text for r in m.recall(LEO, "cat").chosen] == ["Leo has a cat named Mochi"]
        assert m.config.get("memory.embed") == "openai:text-embedding-3-small@256"  # nothing was stored


def test_without_the_switches_the_same_companion_has_its_tiers(db_path, clock):
    embed = Embeddings(vectors, name="fake:two", floor=0.2)
    with Mneme(db_path, "dafeiyu", complete=model, embed=embed, plugins=every_tier(), clock=clock) as m:
        assert m.memory_language == "English"
        assert m.tiers.names == ["embeddings", "centroids", "unify"]


def test_meaning_micro_false_leaves_the_word_centroids_out(db_path, clock):
    embed = Embeddings(vectors, name="fake:two", floor=0.2)
    with Mneme(
        db_path, "t", complete=model, embed=embed, meaning_micro=False, plugins=every_tier(), clock=clock
    ) as m:
        assert m.tiers.names == ["embeddings", "unify"]


def test_embed_true_is_openais_small_model_at_256_dimensions(db_path, clock):
    with Mneme(db_path, "t", embed=True, plugins=every_tier(), clock=clock) as m:
        assert m.meaning is not None
        assert m.meaning.embedder.name == "openai:text-embedding-3-small@256"


@pytest.mark.parametrize("language", ["", None])
def test_memory_language_off_means_no_glossing(db_path, clock, language):
    with Mneme(
        db_path, "t", complete=model, memory_language=language, plugins=every_tier(), clock=clock
    ) as m:
        assert "unify" not in m.tiers.names


@pytest.mark.parametrize(
    ("switch", "named"),
    [("luna", "GPT-6 Luna's Decisions API"), ("micro", "the micro model trained on Luna's answers")],
)
def test_a_tier_mneme_does_not_have_is_refused_in_one_line_before_the_file_exists(db_path, switch, named):
    with pytest.raises(InvalidValue) as refused:
        Mneme(db_path, "t", **{switch: True})

    message = str(refused.value)
    assert "\n" not in message
    assert f"{switch}=True asks for {named}, a decision tier Mneme does not have" in message
    assert f"{switch}=False" in message
    assert not db_path.exists()


@pytest.mark.parametrize(
    ("options", "kind"),
    [
        ({"luna": "yes"}, InvalidType),
        ({"micro": 1}, InvalidType),
        ({"meaning_micro": "off"}, InvalidType),
        ({"memory_language": object()}, InvalidType),
    ],
)
def test_a_switch_of_the_wrong_kind_is_refused_naming_what_it_takes(db_path, options, kind):
    with pytest.raises(kind, match=next(iter(options))):
        Mneme(db_path, "t", **options)
    assert not db_path.exists()


class Judge:
    """A decision tier of the caller's own, as mneme-llm's `luna=` and `micro=` take one."""

    name = "mine"

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def adecide(self, input: str, questions: Any) -> dict[str, Answer]:
        self.asked.append([q.name for q in questions])
        return {"feeling": Answer("feeling", "choice", {"happy": 0.9, "none": 0.1}, 0.9, self.name)}


def test_a_tier_of_your_own_given_as_luna_is_asked_before_the_companions_model(db_path, clock):
    judge = Judge()
    with Mneme(db_path, "t", complete=model, luna=judge, clock=clock) as m:
        seen = m.observe(LEO, [("Leo", "I got the job!")], user_name="Leo", capture=False)
        report = m.report()["decisions"]

    assert judge.asked == [["mood_change", "feeling"]]
    assert list(report) == ["mine", "prompt"]
    assert report["mine"]["answered"] == 1 and report["prompt"]["answered"] == 1  # the rest fell through
    assert seen.mood is not None and seen.mood.emotions.get("happy", 0) > 0


# -- a mneme-llm config file ----------------------------------------------------------------------------

DATA = Path(__file__).parent / "data"
THEIR_CONFIG = DATA / "mneme_llm_0.1.0_config.toml"  # written for, and read by, mneme-llm 0.1.0 itself
THEIR_TEMPLATE = DATA / "mneme_llm_0.1.0_template.toml"  # `mneme-llm config template`: every key it has


def test_a_mneme_llm_config_seeds_a_companion_with_what_has_an_equivalent(db_path, clock):
    with Mneme(db_path, "dafeiyu", config=THEIR_CONFIG, clock=clock) as m:
        values = m.config.values()
        m.relate(LEO, "creator")
        block = m.prompt(LEO, user_name="Leo")
        left_out = dict(m.config.left_out)

    assert values["companion.name"] == "大肥鱼"
    assert values["companion.display_language"] == "zh"
    assert (values["memory.daily_quota"], values["mood.baseline"], values["relations.growth"]) == (
        6,
        72.0,
        2.0,
    )
    assert values["prompts.started_speak_up"] == "{name}主动去找{user}聊天，因为想念对方。"  # {assistant}
    assert values["prompts.translate"].startswith("Translate the text into {lang}.")  # {language}
    assert values["messages.zh.relation.very_close"] == "特别亲"  # near.very_close
    assert values["messages.zh.tool.over_quota"] == "今天记得够多了，明天再说。"  # tool.quota
    assert values["messages.zh.tool.error"] == "出错了：{problem}"  # error.value's {detail}
    assert values["messages.zh.notes.impression"] == "印象：{card}"
    assert [r["key"] for r in values["roles"]] == ["creator", "friend", "teacher"]
    assert values["roles"][0]["names"]["zh"] == "造出你的那个人"  # messages.zh.role.creator
    assert {e["key"]: e["names"]["zh"] for e in values["emotions"]}["tender"] == "心疼他"
    assert block == "（Leo是造出你的那个人，你们特别亲。）"
    assert set(left_out) == {
        "memory.semantic_window",
        "prompts.frame",
        "prompts.note_gloss",
        "messages.zh.date.today",
        "messages.zh.mood.now",
    }
    assert "dates are built in" in left_out["messages.zh.date.today"]


def test_every_key_of_mneme_llms_template_is_mapped_or_named(tmp_path):
    left_out: dict[str, str] = {}
    values = load(THEIR_TEMPLATE, left_out)

    theirs = flatten(tomllib.loads(THEIR_TEMPLATE.read_text(encoding="utf-8")))[0]
    assert len(theirs) == 167  # mneme-llm 0.1.0's every key
    # their role and feeling names go into the roles' and feelings' names
    named = [k for k in theirs if k.split(".")[2:3] in (["role"], ["emotion"])]
    assert len(named) == 22
    assert len(values) + len(left_out) + len(named) == len(theirs)  # every key accounted for
    assert values["messages.en.notes.impression"] == "Impression: {card}"
    assert values["messages.zh.relation.barely"] == "几乎不认识"  # near.stranger
    assert all(why for why in left_out.values())


def test_a_mneme_llm_config_with_a_value_wrong_in_both_is_refused_whole(db_path, tmp_path):
    path = tmp_path / "old.toml"
    path.write_text("[memory]\nsemantic_window = 3000\n[mood]\nstep = 999\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"mood\.step"):
        Mneme(db_path, "t", config=path)
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from config").fetchone() == (0,)


def test_a_key_neither_knows_refuses_the_file_as_mnemes_own_would(tmp_path):
    path = tmp_path / "old.toml"
    path.write_text("[memory]\nsemantic_window = 3000\n[voice]\npitch = 1\n", encoding="utf-8")

    with pytest.raises(ConfigError, match="voice: no such section"):
        load(path)


def test_a_mneme_config_with_a_mistake_is_not_taken_for_a_mneme_llm_one(tmp_path):
    path = tmp_path / "ours.toml"
    path.write_text('[prompts]\nreflect = "About {usr}: {notes}"\n', encoding="utf-8")

    with pytest.raises(ConfigError, match=r"no placeholder \{usr\}"):
        load(path)


def test_config_apply_says_what_a_mneme_llm_config_left_out(db_path):
    ran = CliRunner().invoke(
        main, ["--db", str(db_path), "--space", "dafeiyu", "config", "apply", str(THEIR_CONFIG)]
    )

    assert ran.exit_code == 0, ran.output
    assert "applied" in ran.stdout
    assert "left out memory.semantic_window: Mneme looks for meaning" in ran.stderr
    assert ran.stderr.count("left out ") == 5


# -- a mneme-llm database -------------------------------------------------------------------------------

THEIR_DATABASE = DATA / "mneme_llm_0.1.0.db"  # written by mneme-llm 0.1.0 (make_mneme_llm_files.py)
THEIR_TABLES = {"memories", "meta", "profiles", "moods", "mood_events", "relationships", "config"}


@pytest.fixture
def theirs(tmp_path) -> Path:
    """A copy of the shipped mneme-llm database, to open."""
    path = tmp_path / "companion.db"
    shutil.copyfile(THEIR_DATABASE, path)
    return path


def tables(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        return {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}


def test_a_mneme_llm_database_is_opened_and_converted_with_everything_in_it(theirs, clock):
    with Mneme(theirs, "dafeiyu", clock=clock) as m:
        backup = m.mneme_llm_backup
        people = {s: {(n.text, n.key) for n in m.notes(s)} for s in m.subjects()}
        history = [(n.text, n.live) for n in m.history("discord:42", "user.city")]
        values = m.config.values()
        card = m.profile("discord:42")
        teacher = m.relationship("qq:10086")
        timeline = m.mood_timeline("qq:10086")

    assert people == {
        "discord:42": {
            ("Leo lives in Lisbon", "user.city"),
            ("Leo has a cat named Mochi", "pet.name"),
            ("Leo likes oat milk lattes", None),
            ("Leo went hiking in Kyoto", None),
            ("Leo has a math exam", "exam.math.date"),
        },
        "qq:10086": {("美玲养了一只叫年糕的猫", "pet.name"), ("美玲下周五考数学", None)},
    }
    assert history == [
        ("Leo lives in Berlin", False),
        ("Leo lives in Porto", False),
        ("Leo lives in Lisbon", True),
    ]
    assert card == "Leo is a curious student who loves his cat Mochi."
    assert (teacher.role, teacher.closeness) == ("teacher", 80.0)
    assert [e.reason for e in timeline] == ["美玲说考砸了"]
    assert (values["companion.name"], values["memory.daily_quota"], values["mood.threshold"]) == (
        "大肥鱼",
        6,
        0.55,
    )
    assert values["prompts.started_speak_up"] == "{name}主动去找{user}聊天，因为想念对方。"
    assert backup == f"{theirs}.mneme-llm.bak"
    assert "migrations" in tables(theirs) and "memories" not in tables(theirs)
    with closing(sqlite3.connect(theirs)) as conn:  # indexed as it came in: the first open rebuilds nothing
        assert conn.execute("select value from meta where key = 'terms_version'").fetchone() == (
            text.version(),
        )


def test_every_space_of_the_file_comes_across_and_the_second_open_changes_nothing(theirs, clock):
    with Mneme(theirs, "dafeiyu", clock=clock):
        pass
    with Mneme(theirs, "other", clock=clock) as m:
        assert m.mneme_llm_backup is None  # converted already: no second copy
        assert [n.text for n in m.notes("telegram:9")] == ["Sam plays the cello"]
        assert m.config.get("companion.name") == "the assistant"  # it never had a config of its own
        m.remember("telegram:9", "Sam moved to Oslo", kind="fact")
        assert [r.note.text for r in m.recall("telegram:9", "cello").chosen] == ["Sam plays the cello"]
    assert sorted(p.name for p in theirs.parent.iterdir() if ".bak" in p.name) == [
        "companion.db.mneme-llm.bak"
    ]


def test_the_backup_copy_is_mneme_llms_file_as_it_was(theirs, clock):
    with Mneme(theirs, "dafeiyu", clock=clock) as m:
        backup = Path(m.mneme_llm_backup)

    assert tables(backup) >= THEIR_TABLES
    with closing(sqlite3.connect(backup)) as copy, closing(sqlite3.connect(THEIR_DATABASE)) as original:
        for table in THEIR_TABLES:
            assert (
                copy.execute(f"select * from {table}").fetchall()
                == original.execute(f"select * from {table}").fetchall()
            )
        assert copy.execute("pragma quick_check").fetchone() == ("ok",)


def test_a_conversion_that_fails_leaves_the_file_as_mneme_llm_wrote_it(theirs, clock, monkeypatch):
    before = theirs.read_bytes()

    def broken(*args: object) -> int:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(mneme_llm_database.transfer, "bring_in", broken)
    with pytest.raises(RuntimeError, match="the disk is full"):
        Mneme(theirs, "dafeiyu", clock=clock)

    assert theirs.read_bytes() == before
    assert mneme_llm_database.is_mneme_llm(theirs)


def test_two_openers_at_once_convert_the_file_once(theirs, clock):
    with ThreadPoolExecutor(max_workers=2) as pool:
        backups = list(pool.map(lambda _: mneme_llm_database.adopt(theirs, clock()), range(2)))

    assert sorted(backups, key=lambda b: b is None) == [f"{theirs}.mneme-llm.bak", None]  # one found it done
    assert sorted(p.name for p in theirs.parent.iterdir() if ".bak" in p.name) == [
        "companion.db.mneme-llm.bak"
    ]
    with Mneme(theirs, "dafeiyu", clock=clock) as m:
        assert len(m.notes("discord:42")) == 5


def test_the_command_line_opens_a_mneme_llm_database(theirs):
    ran = CliRunner().invoke(main, ["--db", str(theirs), "--space", "dafeiyu", "notes", "qq:10086"])

    assert ran.exit_code == 0, ran.output
    assert "美玲养了一只叫年糕的猫" in ran.stdout


def test_a_file_of_another_mneme_llm_schema_is_refused_untouched_with_how_to_export_it(theirs, clock):
    with closing(sqlite3.connect(theirs)) as conn:
        conn.execute("update meta set value = '2' where key = 'schema_version'")
        conn.commit()
    before = theirs.read_bytes()

    with pytest.raises(SchemaError, match=r"mneme-llm \(schema 2\).*mneme import data.json"):
        Mneme(theirs, "dafeiyu", clock=clock)

    assert theirs.read_bytes() == before
    assert not Path(f"{theirs}.mneme-llm.bak").exists()


# -- `mneme import FILE` --------------------------------------------------------------------------------

THEIR_EXPORT = DATA / "mneme_llm_0.1.0_export.json"  # written by mneme-llm 0.1.0, its space "old"


def spaces_with_notes(path: Path) -> dict[str, int]:
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("select space, sum(live) from subjects group by space having sum(live) > 0")
        return dict(rows.fetchall())


def importing(db: Path, *args: str, env: dict[str, str] | None = None) -> str:
    ran = CliRunner().invoke(main, ["--db", str(db), *args], env=env)
    assert ran.exit_code == 0, ran.output
    return ran.stdout


def test_an_export_goes_back_into_its_own_space(tmp_path):
    db = tmp_path / "new.db"

    said = importing(db, "import", str(THEIR_EXPORT))

    assert said.startswith("added ") and said.endswith(" notes into old\n")
    assert set(spaces_with_notes(db)) == {"old"}


def test_into_names_another_space(tmp_path):
    db = tmp_path / "new.db"

    assert importing(db, "import", str(THEIR_EXPORT), "--into", "dafeiyu").endswith("into dafeiyu\n")
    assert set(spaces_with_notes(db)) == {"dafeiyu"}


def test_a_space_written_on_the_command_line_is_told_otherwise_but_the_environment_is_not(tmp_path):
    told, environment = tmp_path / "told.db", tmp_path / "env.db"

    importing(told, "--space", "mine", "import", str(THEIR_EXPORT))
    importing(environment, "import", str(THEIR_EXPORT), env={"MNEME_SPACE": "session"})

    assert set(spaces_with_notes(told)) == {"mine"}
    assert set(spaces_with_notes(environment)) == {"old"}


def test_an_export_naming_no_usable_space_goes_into_the_default_one(tmp_path):
    path = tmp_path / "export.json"
    row = {"id": 1, "subject": LEO, "text": "Leo plays the cello"}
    path.write_text(json.dumps({"mneme_llm": 1, "space": "two\nlines", "memories": [row]}), encoding="utf-8")

    assert importing(tmp_path / "new.db", "import", str(path)) == "added 1 notes into default\n"


def test_a_mneme_llm_exports_config_is_mapped_when_asked_for(mneme: Mneme):
    data = json.loads(THEIR_EXPORT.read_text(encoding="utf-8"))
    data["config"] += [
        {"key": "prompts.started_duty", "value": "{assistant} checks the calendar.", "origin": "set"},
        {"key": "messages.en.near.close", "value": "quite close", "origin": "file"},
        {"key": "memory.semantic_window", "value": 3000, "origin": "file"},
    ]

    mneme.import_data(data, config=True)

    assert mneme.config.get("prompts.started_duty") == "{name} checks the calendar."
    assert mneme.config.get("messages.en.relation.close") == "quite close"
    assert mneme.config.get("companion.name") == "the assistant"  # mneme-llm's defaults are left to Mneme's


# -- the switching page ---------------------------------------------------------------------------------

PAGE = Path(__file__).parent.parent / "docs" / "switching_from_mneme_llm.md"


def command_rows() -> list[tuple[str, str]]:
    """The Commands table: (mneme-llm's command, what the page says Mneme's is)."""
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| `")]
    return [(cells[0].strip("| `"), cells[1]) for cells in rows]


def test_every_command_the_page_calls_the_same_exists_with_its_options():
    claimed = [(theirs, ours) for theirs, ours in command_rows() if ours.startswith("the same")]
    assert len(claimed) >= 15
    for theirs, _ in claimed:
        commands = theirs.split("`, `")
        if commands[0].startswith("config "):  # `config show ...`, `template`, `set ...`: its subcommands
            commands = [commands[0], *(f"config {c}" for c in commands[1:])]
        for command in commands:
            words = command.replace("`", "").split()
            if words[0].startswith("--"):
                found = main
            else:
                found = main.get_command(None, words[0])  # type: ignore[arg-type]
                assert found is not None, command
            if words[0] == "config":
                found = found.get_command(None, words[1])  # type: ignore[union-attr, arg-type]
                assert found is not None, command
            options = {o for p in found.params for o in p.opts}  # type: ignore[union-attr]
            for word in words:
                for option in re.findall(r"--[a-z-]+", word):
                    assert option in options, f"{command}: {option}"


def test_every_call_of_mneme_the_page_names_exists_but_mneme_llms_own():
    text = PAGE.read_text(encoding="utf-8")
    calls = set(re.findall(r"`(?:await )?m\.(\w+)\(", text.split("## Calls", 1)[1].split("\n## ", 1)[0]))
    assert len(calls) >= 30
    assert {name for name in calls if not callable(getattr(Mneme, name, None))} == {"regloss", "aregloss"}
