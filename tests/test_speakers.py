"""A question's speakers' names lean less on its vector (`meaning.speakers`): which names a question names,
what the lean does to a vector, whose names a person's lines give, and a question asked of the wrong speaker
finding the line by what it asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mneme_core import Mneme
from mneme_core.meaning import Embeddings, speakers

LEO, ANA = "telegram:1", "telegram:2"
DM = f"dm:{LEO}"
DAY = 86400.0


def test_a_name_is_named_as_a_word_as_written() -> None:
    names = ["Ruth", "Dev", "Leo Park", "Al"]
    assert speakers.named("What did Ruth buy for swimming?", names) == ["Ruth"]
    assert speakers.named("What is Ruth's plot number?", names) == ["Ruth"]
    assert speakers.named("Was she ruthless? did ruth go?", names) == []  # not a word of it, not its case
    assert speakers.named("What did Leo say to Dev?", names) == ["Dev", "Leo"]  # a name's first word too
    assert speakers.named("Did Leo Park move?", names) == ["Leo Park", "Leo"]
    assert speakers.named("Also, Alice came", names) == []


def test_an_unspaced_name_is_named_as_text_of_two_characters_or_more() -> None:
    names = ["林晓", "陈默", "雯"]
    assert speakers.named("林晓什么时候去新公司报到？", names) == ["林晓"]
    assert speakers.named("雯雯最近怎么样", names) == []  # one character is too little to tell a name
    assert speakers.named("", names) == []


def test_the_lean_takes_its_share_of_the_names_direction_out() -> None:
    vector = np.array([0.8, 0.6], dtype=np.float32)
    name = np.array([1.0, 0.0])
    leaned = speakers.unnamed(vector, [name], 0.5)
    assert leaned.dtype == np.float32
    expected = np.array([0.4, 0.6]) / np.linalg.norm([0.4, 0.6])
    assert np.allclose(leaned, expected, atol=1e-6)
    assert np.allclose(vector, [0.8, 0.6])  # the vector it was given is left as it was
    assert np.allclose(speakers.unnamed(vector, [name], 0.0), vector)
    rows = speakers.unnamed(np.array([[0.8, 0.6], [0.0, 1.0]], dtype=np.float32), [name], 1.0)
    assert np.allclose(rows, [[0.0, 1.0], [0.0, 1.0]])  # each row of a query placed by several texts


async def test_a_persons_speakers_are_their_lines_and_the_replies_to_them(db_path: Path, clock: Any) -> None:
    room = "discord:room"
    m = Mneme(db_path, space="test", clock=clock)
    try:
        first = await m.transcript.aadd_line(room, subject=LEO, text="hi all", name="Leo")
        await m.transcript.aadd_reply(room, text="Hello Leo", reply_to=first.id, name="Mio", observe=LEO)
        await m.transcript.aadd_line(room, subject=ANA, text="hey", name="Ana")  # another person's
        aside = await m.transcript.aadd_line(room, subject=LEO, text="brb", name="Leo X", addressed=False)
        await m.transcript.aadd_reply(room, text="ok", reply_to=aside.id, name="Bot2")  # not indexed
        await m.transcript.aadd_line(DM, subject=LEO, text="it's me", name="Leo P")
        assert m.store.read(speakers.of_person, "test", LEO) == ["Leo", "Leo P", "Mio"]
        assert m.store.read(speakers.of_person, "test", ANA) == ["Ana"]
        assert m.store.read(speakers.of_person, "test", "telegram:9") == []  # never met
    finally:
        m.close()


# A scripted embedder: a text is placed by its last line alone (a line's vector is made after the line
# before it, `vectors.line_texts_of`), on one axis for each speaker's name it names and one for its topic.
NAMES = {"Leo": 0, "Mio": 1}
TOPICS = ["dryrobe", "bread", "dentist", "train", "chess", "garden", "taxes", "piano", "movie", "cousin"]
GEAR = "Which swim gear did Leo mention?"  # Mio said it: no word in common with the line


def _scripted(texts: list[str]) -> list[list[float]]:
    out = []
    for whole in texts:
        last = whole.split("\n")[-1]
        v = np.zeros(2 + len(TOPICS) + 1)
        for name, axis in NAMES.items():
            if last == name or last.startswith(f"{name}:") or f" {name} " in f" {last} ":
                v[axis] = 1.0
        topic = "dryrobe" if "swim gear" in last else next((t for t in TOPICS if t in last), None)
        if topic is not None:
            v[2 + TOPICS.index(topic)] = 0.8
        if not v.any():  # the embedder's own calibration texts
            v[-1] = 1.0
        out.append(v.tolist())
    return out


async def _found_as_similar(db_path: Path, clock: Any) -> dict[str, str]:
    m = _named(db_path, clock)
    try:
        for i in range(3):
            for topic in TOPICS[1:]:
                line = await m.transcript.aadd_line(DM, subject=LEO, text=f"my {topic} story {i}", name="Leo")
                clock.now += 60
                await m.transcript.aadd_reply(DM, text="I see", reply_to=line.id, name="Mio", observe=LEO)
                clock.now += DAY
        line = await m.transcript.aadd_line(DM, subject=LEO, text="going to the lake on Sunday", name="Leo")
        await m.transcript.aadd_reply(DM, text="take a dryrobe", reply_to=line.id, name="Mio", observe=LEO)
        clock.now += DAY
        m.embed_pending()
        found = await m.arecall(LEO, GEAR, lines=4)
    finally:
        m.close()
    return {r.line.text: r.why for r in found.lines}


async def test_a_question_asked_of_the_wrong_speaker_finds_the_line_by_what_it_asks(
    db_path: Path, clock: Any
) -> None:
    why = await _found_as_similar(db_path, clock)
    assert "similar" in why["take a dryrobe"]


async def test_without_the_lean_the_name_pulls_the_question_to_its_speakers_lines(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(speakers, "SHARE", 0.0)
    why = await _found_as_similar(db_path, clock)
    assert "take a dryrobe" not in why  # Leo's own lines, near the name, took the places


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """Each read of a person's speakers: (whose, what it found)."""
    found: list[tuple[str, list[str]]] = []
    read = speakers.of_person

    def counted(conn: Any, space: str, subject: str) -> list[str]:
        found.append((subject, read(conn, space, subject)))
        return found[-1][1]

    monkeypatch.setattr(speakers, "of_person", counted)
    return found


def _named(db_path: Path, clock: Any) -> Mneme:
    return Mneme(
        db_path, space="test", clock=clock, embed=Embeddings(_scripted, name="scripted:names", weight=1)
    )


async def _asked_once(m: Mneme) -> None:
    """Leo's one line and the companion's reply, embedded, and a question asked of them."""
    line = await m.transcript.aadd_line(DM, subject=LEO, text="my bread story", name="Leo")
    await m.transcript.aadd_reply(DM, text="take a dryrobe", reply_to=line.id, name="Mio", observe=LEO)
    m.embed_pending()
    await m.arecall(LEO, GEAR, lines=2)


async def test_a_persons_speakers_are_read_once_a_minute(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch, reads: list[tuple[str, list[str]]]
) -> None:
    from mneme_core.meaning import tiers

    m = _named(db_path, clock)
    try:
        await _asked_once(m)
        await m.arecall(LEO, "What did Leo bake?", lines=2)
        assert len(reads) == 1  # the second query took them as they were
        monkeypatch.setattr(tiers, "SPEAKERS_FRESH", 0.0)
        await m.arecall(LEO, "What did Leo bake?", lines=2)
        assert reads == [(LEO, ["Leo", "Mio"])] * 2
    finally:
        m.close()


async def test_an_erased_persons_speakers_are_not_kept(
    db_path: Path, clock: Any, reads: list[tuple[str, list[str]]]
) -> None:
    m = _named(db_path, clock)
    try:
        await _asked_once(m)
        m.erase(LEO)
        await m.transcript.aadd_line(DM, subject=LEO, text="my chess story", name="Lee")
        m.embed_pending()
        await m.arecall(LEO, "What did Lee play?", lines=2)
        assert reads == [(LEO, ["Leo", "Mio"]), (LEO, ["Lee"])]  # read again, not kept from before the erase
    finally:
        m.close()


async def test_a_names_vector_is_placed_once_and_kept(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme_core.meaning import tiers

    placed: list[str] = []

    def counted(texts: list[str]) -> list[list[float]]:
        placed.extend(texts)
        return _scripted(texts)

    monkeypatch.setattr(tiers, "SPEAKERS_FRESH", 0.0)  # the speakers read each time: the name still kept
    m = Mneme(db_path, space="test", clock=clock, embed=Embeddings(counted, name="scripted:names", weight=1))
    try:
        await _asked_once(m)
        await m.arecall(LEO, "What did Leo bake?", lines=2)
        assert placed.count("Leo") == 1  # named by both questions, placed for the first
        m.erase(LEO)
        await _asked_once(m)
        assert placed.count("Leo") == 2  # the erase took the kept vectors with it
    finally:
        m.close()
