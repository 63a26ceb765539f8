"""The transcript in the engine: lines kept per conversation, what erase takes, what export carries, and the
exchanges waiting to be observed (claimed in order, leased across companions on one file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mneme_core import InvalidType, InvalidValue, Mneme

LEO, ANN = "telegram:1", "telegram:2"
ROOM = "group:telegram:-100"


async def talk(m: Mneme) -> None:
    """Leo in his DM and in a room with Ann; the companion answers both."""
    dm = f"dm:{LEO}"
    first = await m.transcript.aadd_line(dm, subject=LEO, text="my PIN is 4711", name="Leo")
    await m.transcript.aadd_reply(dm, text="I'll keep that safe", reply_to=first.id, name="Mio", observe=LEO)
    said = await m.transcript.aadd_line(
        ROOM, subject=LEO, text="Leo in Friends: I moved to Porto", name="Leo"
    )
    await m.transcript.aadd_reply(ROOM, text="Porto is lovely, Leo!", reply_to=said.id, observe=LEO)
    await m.transcript.aadd_line(
        ROOM, subject=ANN, text="Ann in Friends: I like tea", addressed=False, keep=10
    )


async def test_erase_takes_a_persons_lines_the_replies_to_them_and_their_dm(mneme: Mneme) -> None:
    await talk(mneme)
    assert mneme.transcript.due() == [LEO]
    assert await mneme.aerase(LEO) == 0  # no notes, but every line of theirs goes
    assert mneme.transcript.recent(f"dm:{LEO}") == []
    assert [line.text for line in mneme.transcript.recent(ROOM)] == ["Ann in Friends: I like tea"]
    assert mneme.transcript.due() == []


async def test_lines_of_a_person_and_their_order(mneme: Mneme, clock: Any) -> None:
    await talk(mneme)
    mine = [line.text for line in mneme.transcript.lines_of(LEO)]
    assert mine == [
        "Porto is lovely, Leo!",
        "Leo in Friends: I moved to Porto",
        "I'll keep that safe",
        "my PIN is 4711",
    ]
    assert [line.text for line in mneme.transcript.lines_of(ANN)] == ["Ann in Friends: I like tea"]


async def test_export_carries_the_lines_and_importing_twice_adds_them_once(
    mneme: Mneme, locate: Any, clock: Any
) -> None:
    await talk(mneme)
    data = mneme.export_data()
    assert [row["text"] for row in data["lines"]][:2] == ["my PIN is 4711", "I'll keep that safe"]
    other = Mneme(locate("other.db"), space="test", clock=clock)
    try:
        other.import_data(data)
        other.import_data(data)
        moved = other.transcript.recent(f"dm:{LEO}")
        assert [(line.role, line.text) for line in moved] == [
            ("user", "my PIN is 4711"),
            ("assistant", "I'll keep that safe"),
        ]
        assert moved[1].reply_to == moved[0].id  # the reply points at the new id of what it answered
        assert len(other.export_data()["lines"]) == len(data["lines"])
    finally:
        other.close()


def test_bad_lines_are_refused_before_anything_is_written(mneme: Mneme) -> None:
    import asyncio

    async def add(**options: Any) -> Any:
        values = {"subject": LEO, "text": "hi", **options}
        conversation = values.pop("conversation", f"dm:{LEO}")
        return await mneme.transcript.aadd_line(conversation, **values)

    for options, error, match in [
        ({"conversation": "two\nlines"}, InvalidValue, "one line"),
        ({"conversation": ""}, InvalidValue, "a conversation is named"),
        ({"text": "   "}, InvalidValue, "must say something"),
        ({"text": 42}, InvalidType, "a line's text is a string"),
        ({"subject": "   "}, InvalidValue, "a subject must not be empty"),
        ({"addressed": "yes"}, InvalidType, "addressed is True or False"),
        ({"keep": 0}, InvalidValue, "keep is a whole number of 1 or more"),
    ]:
        with pytest.raises(error, match=match):
            asyncio.run(add(**options))
    assert mneme.transcript.recent(f"dm:{LEO}") == []


async def test_waiting_exchanges_are_claimed_oldest_first_and_leased_across_companions(
    db_path: Path, clock: Any
) -> None:
    one = Mneme(db_path, space="test", clock=clock)
    two = Mneme(db_path, space="test", clock=clock)  # another process on the same file
    try:
        await talk(one)
        first = await one.transcript.aclaim(LEO, lease=60)
        assert first is not None and first.said == "my PIN is 4711" and first.reply == "I'll keep that safe"
        assert await two.transcript.aclaim(LEO, lease=60) is None  # leased: nobody else observes it
        assert await two.transcript.adue() == []
        clock.advance(61)
        again = await two.transcript.aclaim(LEO, lease=60)  # the lease ran out (its process died, say)
        assert again is not None and again.id == first.id
        await two.transcript.adone(again)
        second = await one.transcript.aclaim(LEO, lease=60)
        assert second is not None and second.said == "Leo in Friends: I moved to Porto"
        assert not await one.transcript.afailed(second, "judge down", retry_in=10, tries=3, moved=True)
        assert await one.transcript.aclaim(LEO, lease=60) is None  # not due yet
        clock.advance(10)
        retried = await one.transcript.aclaim(LEO, lease=60)
        assert retried is not None and retried.attempts == 1 and retried.moved
    finally:
        await one.aclose()
        await two.aclose()
