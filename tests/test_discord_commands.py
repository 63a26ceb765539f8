"""The `/memory` slash commands, delivered as Discord delivers them: interaction payloads through discord.py's
gateway parser, command tree and view store (see `discord_harness.Slash`), answered through discord.py's
interaction responses, which the harness records instead of sending.

Every answer is ephemeral; each person sees and forgets only their own notes; forgetting everything asks
first, erases notes, mood and relationship, and catches an exchange still being written when it happened.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord.ext.test as dpytest
import pytest
from discord_harness import Slash, World, channel, member, world_of

from mneme_core.mood.settings import MoodSettings

EPHEMERAL = 64
MESSAGE, UPDATE, CHOICES = 4, 7, 8


@pytest.fixture
async def world(db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    made = await world_of(db_path, clock, monkeypatch)
    yield made
    await made.bot.unload_extension("mneme_discord")
    made.mneme.close()
    await dpytest.empty_queue()


@pytest.fixture
def slash(world: World, monkeypatch: pytest.MonkeyPatch) -> Slash:
    return Slash(world.bot, monkeypatch)


def private(response: dict[str, Any], kind: int = MESSAGE) -> str:
    """The content of an ephemeral answer, checking that it is one and that it can ping nobody."""
    assert response["type"] == kind
    data = response["data"]
    if kind == MESSAGE:
        assert data["flags"] & EPHEMERAL
        assert data["allowed_mentions"]["parse"] == []
    return data["content"]


async def test_show_lists_only_the_persons_own_notes(world: World, slash: Slash) -> None:
    leo, ann = world.subject("Leo"), world.subject("Ann")
    cat = world.mneme.remember(leo, "Leo adopted a cat called Mochi.", kind="fact")
    world.mneme.remember(ann, "Ann loves jasmine tea.", kind="preference")
    shown = private(await slash.command(member("Leo"), "show"))
    assert f"`#{cat.id}` Leo adopted a cat called Mochi. (fact)" in shown
    assert "jasmine" not in shown
    dm = await member("Leo").create_dm()
    assert "Mochi" in private(await slash.command(member("Leo"), "show", dm))  # in a direct message too
    nothing = private(await slash.command(member("Ann"), "show", dm))
    assert "jasmine" in nothing and "Mochi" not in nothing


async def test_a_long_listing_fits_one_message(world: World, slash: Slash) -> None:
    leo = world.subject("Leo")
    for n in range(60):
        world.mneme.remember(leo, f"Leo told me fact number {n} about his very long week at the office.")
    shown = private(await slash.command(member("Leo"), "show"))
    assert len(shown) <= 2000
    assert shown.startswith("What I remember about you (60 notes):")
    assert shown.rstrip().endswith("more.")


async def test_forget_takes_one_of_ones_own_notes(world: World, slash: Slash) -> None:
    leo, ann = world.subject("Leo"), world.subject("Ann")
    cat = world.mneme.remember(leo, "Leo adopted a cat called Mochi.")
    job = world.mneme.remember(leo, "Leo works at the bakery.")
    tea = world.mneme.remember(ann, "Ann loves jasmine tea.")
    choices = await slash.command(member("Leo"), "forget", focused="note", note="moch")
    assert choices["type"] == CHOICES
    assert choices["data"]["choices"] == [
        {"name": f"#{cat.id} Leo adopted a cat called Mochi.", "value": cat.id}
    ]

    said = private(await slash.command(member("Leo"), "forget", note=cat.id))
    assert said == f"Forgotten: note #{cat.id}."
    assert [n.text for n in world.mneme.notes(leo)] == [job.text]
    refused = private(await slash.command(member("Leo"), "forget", note=tea.id))
    assert refused.startswith(f"You have no note #{tea.id}")
    assert [n.text for n in world.mneme.notes(ann)] == [tea.text]


async def test_mood_says_how_it_feels_about_the_person(world: World, slash: Slash) -> None:
    leo = world.subject("Leo")
    world.mneme.feel(leo, delta=20, reason="he brought cake")
    said = private(await slash.command(member("Leo"), "mood"))
    assert said == world.mneme.describe_mood(leo)
    assert said != world.mneme.describe_mood(world.subject("Ann"))


async def test_forget_me_asks_first_then_erases_everything_about_the_person(
    world: World, slash: Slash
) -> None:
    leo, ann = world.subject("Leo"), world.subject("Ann")
    world.mneme.remember(leo, "Leo works at the bakery.", kind="fact")
    world.mneme.feel(leo, delta=20, reason="he brought cake")
    world.mneme.relate(leo, "friend")
    world.mneme.remember(ann, "Ann loves jasmine tea.")

    asked = await slash.command(member("Leo"), "forget-me")
    assert "cannot be undone" in private(asked)
    labels = [b["label"] for row in asked["data"]["components"] for b in row["components"]]
    assert labels == ["Forget everything", "Keep"]
    kept = await slash.press(member("Leo"), asked, "Keep")
    assert private(kept, UPDATE) == "Nothing was forgotten." and kept["data"]["components"] == []
    assert len(world.mneme.notes(leo)) == 1

    asked = await slash.command(member("Leo"), "forget-me")
    intruder = await slash.press(member("Ann"), asked, "Forget everything")
    assert private(intruder) == "This question was not asked of you."
    assert len(world.mneme.notes(leo)) == 1

    # Leo says something worth remembering just before confirming: its note is written after the erase
    # began, and must not survive it.
    await dpytest.message(
        f"{world.bot.user.mention} I adopted a cat called Mochi", channel=channel(), member=member("Leo")
    )
    done = await slash.press(member("Leo"), asked, "Forget everything")
    assert private(done, UPDATE).startswith("Done")
    await world.settle()
    assert world.mneme.notes(leo) == []
    assert world.mneme.relationship(leo) is None
    assert world.mneme.mood(leo).value == MoodSettings().baseline
    assert leo not in world.mneme.subjects()
    assert [n.text for n in world.mneme.notes(ann)] == ["Ann loves jasmine tea."]


async def test_a_command_that_fails_answers_with_a_sentence(
    world: World, slash: Slash, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(subject: str) -> list[Any]:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(world.mneme, "notes", broken)
    said = private(await slash.command(member("Leo"), "show"))
    assert said.startswith("Sorry")
    assert "/memory show failed: RuntimeError: the disk is gone" in caplog.text
