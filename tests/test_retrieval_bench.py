"""The retrieval benchmark's own parts: its dev set, the LoCoMo layout it reads, and its scoring."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
# The benchmarks are imported as a package from the project's root.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import retrieval  # noqa: E402
from benchmarks.data import build_dev  # noqa: E402


@pytest.fixture(scope="module")
def dev() -> list[dict]:
    return json.loads((BENCH / "data" / "dev.json").read_text(encoding="utf-8"))


def test_the_dev_set_is_built_from_its_sources(dev):
    built = [build_dev.parse(p) for p in sorted((BENCH / "data").glob("dev_*.txt"))]
    assert built == dev


def test_the_dev_set_is_in_the_locomo_layout_with_english_and_chinese(dev):
    assert {s["sample_id"] for s in dev} >= {"dev-en-1", "dev-zh-1", "dev-zh-2", "dev-mix-1"}
    assert {retrieval.language_of(s) for s in dev} == {"en", "zh", "mix"}
    for sample in dev:
        conv = sample["conversation"]
        assert {"speaker_a", "speaker_b"} <= set(conv)
        turns = retrieval.turns_of(sample)
        ids = {dia_id for dia_id, _text, _when in turns}
        assert len(turns) >= 35  # the later samples are short, for multi-hop and temporal questions
        assert 15 <= len(sample["qa"]) <= 100
        assert {q["category"] for q in sample["qa"]} == {1, 2, 3, 4}
        for q in sample["qa"]:
            assert q["evidence"] and set(q["evidence"]) <= ids
        assert all(
            re.fullmatch(r"\d{1,2}:\d\d [ap]m on \d{1,2} \w+, \d{4}", conv[k])
            for k in conv
            if k.endswith("_date_time")
        )


def test_locomo_dates_and_packed_evidence_are_read():
    assert retrieval.parse_when("1:56 pm on 8 May, 2023") < retrieval.parse_when("10:12 am on 9 May, 2023")
    assert retrieval.evidence_of({"evidence": ["D8:6; D9:17", "D1:3"]}) == ["D8:6", "D9:17", "D1:3"]
    assert retrieval.evidence_of({"evidence": ["D30:05", "D2:7 D02:7"]}) == ["D30:5", "D2:7"]
    sample = {
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "A", "dia_id": "D1:01", "text": "look", "blip_caption": "a cat"}],
        },
        "qa": [{"question": "q", "answer": "a", "evidence": [], "category": 5}],
    }
    assert retrieval.turns_of(sample)[0][:2] == ("D1:1", "A: look [shares a photo: a cat]")
    assert retrieval.questions_of(sample) == []  # no evidence, nothing to score


def test_evidence_recall_is_the_share_of_evidence_turns_found():
    holds = {1: ["D1:1"], 2: ["D1:2", "D1:5"]}
    assert retrieval.score([2], holds, ["D1:1", "D1:5"]) == 0.5
    assert retrieval.score([1, 2], holds, ["D1:1", "D1:5"]) == 1.0


def test_words_and_fts5_run_on_the_dev_set(dev, tmp_path):
    sample = [s for s in dev if s["sample_id"] == "dev-en-1"]
    words = retrieval.summary(
        {"engine": "words", "rows": retrieval.run_engine("words", sample, str(tmp_path))}
    )
    fts5 = retrieval.summary({"engine": "fts5", "rows": retrieval.run_fts5(sample)})

    assert words["n"] == fts5["n"] == len(sample[0]["qa"])
    assert 0.0 < fts5["overall@6"] <= fts5["overall@10"] <= 1.0
    assert words["overall@6"] <= words["overall@10"]
    assert words["overall@10"] > fts5["overall@10"]  # a floor the engine keeps on its own dev set


@pytest.fixture(scope="module")
def dialogues() -> list[dict]:
    return json.loads((BENCH / "data" / "dialogues.json").read_text(encoding="utf-8"))


def test_the_dialogue_dev_set_is_built_from_its_sources_in_both_languages(dialogues):
    built = [build_dev.parse_dialogues(p) for p in sorted((BENCH / "data").glob("dialogue_*.txt"))]
    assert built == dialogues
    assert {retrieval.language_of(s) for s in dialogues} == {"en", "zh"}
    for sample in dialogues:
        assert len(sample["people"]) == 2
        labels = {m["id"] for m in sample["memories"]}
        assert {m["about"] for m in sample["memories"]} == set(sample["people"])
        for d in sample["dialogues"]:
            assert d["memories"] and set(d["memories"]) <= labels
            assert {t["speaker"] for t in d["turns"]} <= set(sample["people"])


def test_a_dialogue_is_asked_with_both_speakers_turns_and_scored_by_its_memories(dialogues, tmp_path):
    sample = [s for s in dialogues if s["sample_id"] == "dlg-en-1"]
    (first, category, wanted), *_ = retrieval.questions_of(sample[0])
    assert category == retrieval.DIALOGUE and wanted == ["n02"]
    assert first.splitlines()[1] == "Oh no, what happened? Was it a leak?"  # the other speaker's turn too
    rows = retrieval.run_engine("words", sample, str(tmp_path))
    found = retrieval.summary({"engine": "words", "rows": rows})
    assert found["dialogue en#"] == len(sample[0]["dialogues"]) and "overall#" not in found
    assert 0.0 < found["dialogue en@6"] <= found["dialogue en@10"] <= 1.0


def test_a_drifted_dialogue_comes_after_the_ones_before_it_and_keeps_its_memories(dialogues):
    sample = next(s for s in dialogues if s["sample_id"] == "dlg-zh-2")
    talks = sample["dialogues"]

    drifted = retrieval.drifted(sample, 2)["dialogues"]

    assert drifted[0]["turns"] == talks[0]["turns"]  # nothing before the first
    assert drifted[1]["turns"] == talks[0]["turns"] + talks[1]["turns"]
    assert drifted[5]["turns"] == talks[3]["turns"] + talks[4]["turns"] + talks[5]["turns"]
    assert [d["memories"] for d in drifted] == [d["memories"] for d in talks]
    assert sample["dialogues"] is talks and retrieval.drifted(sample, 0) is sample  # the source is kept


def test_a_conversation_is_kept_as_the_transcript_and_recalled_as_lines(dev, tmp_path):
    sample = [s for s in dev if s["sample_id"] == "dev-mix-1"]
    said = retrieval.said_turns(sample[0])
    assert said[0][:3] == ("D1:1", "Emily", "Hey 张伟! I finally landed in Shanghai, 时差好难受。")
    lines = retrieval.summary(
        {"engine": "words", "rows": retrieval.run_engine("words", sample, str(tmp_path))}
    )
    notes = retrieval.summary(
        {"engine": "words", "rows": retrieval.run_engine("words", sample, str(tmp_path), memory="notes")}
    )
    assert lines["n"] == notes["n"] == len(sample[0]["qa"])
    assert lines["overall@10"] > 0.0 and notes["overall@10"] > 0.0


def test_the_linked_set_asks_what_only_a_link_can_find_and_refuses_a_question_that_names_it(tmp_path):
    linked = json.loads((BENCH / "data" / "linked.json").read_text(encoding="utf-8"))
    for sample in linked:
        retrieval.check_linked(sample)  # every linked answer shares no term with its question
    broken = json.loads(json.dumps(linked[0]))
    broken["questions"][0]["question"] = "Is Biscuit a beagle?"
    with pytest.raises(ValueError, match="shares"):
        retrieval.check_linked(broken)
    rows = {
        engine: retrieval.summary(
            {"engine": engine, "rows": retrieval.run_engine(engine, linked, str(tmp_path))}
        )
        for engine in ("words", "words-off")
    }
    assert rows["words"]["direct@6"] == rows["words-off"]["direct@6"]
    assert rows["words"]["linked@6"] > rows["words-off"]["linked@6"] + 0.5  # what the links bring up


def test_the_long_set_is_built_from_its_sources_with_turns_as_long_as_locomos():
    long = json.loads((BENCH / "data" / "long.json").read_text(encoding="utf-8"))
    built = [build_dev.parse(p) for p in sorted((BENCH / "data").glob("long_*.txt"))]
    assert built == long
    lengths = [len(said) for sample in long for _dia, _who, said, _at in retrieval.said_turns(sample)]
    assert sum(lengths) / len(lengths) > 120  # LoCoMo's turns: ~130 characters, the dev set's ~40


def test_the_answer_words_quoted_count_what_an_excerpt_leaves_out():
    from dataclasses import replace

    from mneme_core.transcript.lines import Line
    from mneme_core.transcript.recall import RecalledLine

    said = "Work was mad. Then Leah got engaged to Marcus at the lake in June!"
    line = Line(7, "dm:x", "x", "user", "Ann", said, 0.0, True)
    texts = {"D1:1": said, "D1:2": "nothing else"}
    whole = RecalledLine(line, 1.0, "", ("leah",))
    cut = RecalledLine(replace(line, text="…Then Leah got engaged to Marcus…"), 1.0, "", ("leah",))

    assert retrieval.quoted([whole], {7: ["D1:1"]}, ["D1:1", "D1:2"], "Marcus, in June", texts) == {
        "answer_held": 2,
        "answer_found": 2,
        "answer_quoted": 2,
    }
    assert retrieval.quoted([cut], {7: ["D1:1"]}, ["D1:1"], "Marcus, in June", texts)["answer_quoted"] == 1
    assert retrieval.quoted([cut], {7: ["D1:3"]}, ["D1:1"], "Marcus, in June", texts)["answer_found"] == 0


def test_concurrent_py_runs_the_many_people_benchmark_and_leaves_the_standard_librarys_package_alone(
    tmp_path,
):
    env = {**os.environ, "MNEME_LOAD_PLUGINS": ""}
    run = subprocess.run(
        [sys.executable, str(BENCH / "concurrent.py"), "--people", "4", "--turns", "1", "--notes", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "| notes written / expected | 4 / 4 |" in run.stdout
    found = subprocess.run(  # a script in benchmarks/ has the folder first on its path
        [sys.executable, "-c", "import concurrent.futures as f; print(f.ThreadPoolExecutor.__module__)"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=BENCH,
    )
    assert found.stdout.strip() == "concurrent.futures.thread"


def test_an_adversarial_question_is_a_single_hop_one_asked_of_the_other_speaker():
    sample = {
        "sample_id": "s",
        "conversation": {"speaker_a": "Ruth Ames", "speaker_b": "Dev"},
        "qa": [
            {
                "question": "What did Ruth's dad do?",
                "answer": "a mechanic",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {"question": "Where did Dev move?", "answer": "Portobello", "evidence": ["D2:1"], "category": 4},
            {"question": "Did Ruth meet Dev?", "answer": "yes", "evidence": ["D1:1"], "category": 4},
            {"question": "Was it ruthless?", "answer": "no", "evidence": ["D1:2"], "category": 4},
            {"question": "What has Ruth grown?", "answer": "chillies", "evidence": ["D3:1"], "category": 1},
            {"question": "What did Ruth say?", "answer": "-", "evidence": [], "category": 4},
        ],
    }
    asked = retrieval.with_adversarial(sample)
    assert asked["qa"][:6] == sample["qa"]  # every question is still asked as it was
    assert [(q["question"], q["evidence"], q["category"]) for q in asked["qa"][6:]] == [
        ("What did Dev's dad do?", ["D1:3"], 5),
        ("Where did Ruth move?", ["D2:1"], 5),
    ]
    assert len(sample["qa"]) == 6  # the sample it was given is left as it was
