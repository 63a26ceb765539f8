"""The Discord cog in conversation: a real discord.py bot driven offline by dpytest (see `discord_harness`),
the cog loaded as an extension, a real `Mneme` on a temporary file with a frozen clock, scripted models.

A direct conversation remembered the next day; two speakers in a server kept apart, each told where they
spoke; when the bot answers in a server and when it keeps quiet; long replies split under 2,000 characters
without pinging anyone; attachments noted; a failing model; a malformed event; a host bot making its own
model call around `prompt_for` and `observe`.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
import mneme_discord
import pytest
from discord.ext import commands
from discord.ext.test import factories
from discord_harness import World, bot_member, channel, member, post, world_of

QUIET = {"parse": [], "replied_user": False}


@pytest.fixture
async def world(db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    made = await world_of(db_path, clock, monkeypatch)
    yield made
    await made.bot.unload_extension("mneme_discord")
    made.mneme.close()
    await dpytest.empty_queue()


async def mention(world: World, who: str, said: str, where: str = "general") -> discord.Message:
    return await dpytest.message(
        f"{world.bot.user.mention} {said}", channel=channel(where), member=member(who)
    )


async def test_a_direct_conversation_is_remembered_the_next_day(world: World, clock: Any) -> None:
    leo = member("Leo")
    dm = await leo.create_dm()
    await dpytest.message("I adopted a cat called Mochi!", channel=dm, member=leo)
    await world.settle()
    assert world.sent.texts() == ["re: I adopted a cat called Mochi!"]
    assert "message_reference" not in world.sent.payloads[0]  # in a direct message: a plain message
    assert world.sent.typing == [dm.id]
    assert world.notes("Leo") == ["Leo adopted a cat called Mochi."]
    assert world.model.systems[0].startswith("You are Mio.")

    clock.advance(days=1)
    await dpytest.message("How is my cat doing?", channel=dm, member=leo)
    await world.settle()
    system = world.model.systems[-1]
    assert "Leo adopted a cat called Mochi." in system
    assert world.sent.texts()[-1] == "re: How is my cat doing?"
    assert world.mneme.mood(world.subject("Leo")).value > 50  # two exchanges judged warm


async def test_two_speakers_in_a_server_are_kept_apart(world: World) -> None:
    general = channel()
    leo_said = await mention(world, "Leo", "I adopted a cat called Mochi")
    ann_said = await mention(world, "Ann", "I love jasmine tea")
    await world.settle()
    assert world.notes("Leo") == ["Leo adopted a cat called Mochi."]
    assert world.notes("Ann") == ["Ann loves jasmine tea."]
    # The model and the note writer are told who spoke and where; each reply answers its own message (two
    # people's turns run side by side, so in either order).
    assert sorted(world.model.users) == [
        "Ann in #general: I love jasmine tea",
        "Leo in #general: I adopted a cat called Mochi",
    ]
    assert any("Leo in #general: I adopted a cat called Mochi" in shown for shown in world.judge.written)
    answered = {p["message_reference"]["message_id"]: p["content"] for p in world.sent.payloads}
    assert answered == {
        leo_said.id: "re: Leo in #general: I adopted a cat called Mochi",
        ann_said.id: "re: Ann in #general: I love jasmine tea",
    }
    assert all(p["channel_id"] == general.id for p in world.sent.payloads)

    await mention(world, "Ann", "what do I like to drink?")
    await world.settle()
    asked = world.model.systems[-1]
    assert "Ann loves jasmine tea." in asked and "Mochi" not in asked


async def test_in_a_server_it_answers_mentions_and_replies_to_itself_only(world: World) -> None:
    general, leo, ann = channel(), member("Leo"), member("Ann")
    await dpytest.message("hello everyone, nice weather", channel=general, member=leo)
    everyone = factories.make_message_dict(general, ann, content="@everyone party!", mention_everyone=True)
    await post(everyone)
    await world.settle()
    assert world.sent.payloads == []

    leo_asked = await mention(world, "Leo", "are you there?")
    await world.settle()
    assert world.sent.texts() == ["re: Leo in #general: are you there?"]

    bot_said = next(m for m in world.bot.cached_messages if m.author == world.bot.user)
    await post(reply_to(bot_said, ann, "yes he is, and so am I"))
    await post(reply_to(leo_asked, ann, "Leo, same here"))
    await world.settle()
    assert world.sent.texts()[1:] == ["re: Ann in #general: yes he is, and so am I"]

    other_bot = bot_member("Otterbot", general.guild)
    await dpytest.message(f"{world.bot.user.mention} beep", channel=general, member=other_bot)
    await world.settle()
    assert len(world.sent.payloads) == 2
    assert world.cog.runner.report()["ignored"] == 3  # chatter, @everyone, a reply to someone else


def reply_to(original: discord.Message, author: discord.Member, said: str) -> dict[str, Any]:
    data = factories.make_message_dict(original.channel, author, content=said, type=19)
    data["message_reference"] = {
        "message_id": str(original.id),
        "channel_id": str(original.channel.id),
        "guild_id": str(original.guild.id),
    }
    data["referenced_message"] = {
        **factories.dict_from_message(original),
        "channel_id": str(original.channel.id),
        "timestamp": original.created_at.isoformat(),
    }
    return data


async def test_the_settings_choose_channels_and_direct_messages(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await world_of(db_path, clock, monkeypatch, respond_in=["mention"], channels=[])
    try:
        general_id = channel("general").id
        await made.bot.unload_extension("mneme_discord")
        made.mneme.config.set("adapters.discord.channels", [str(general_id)])
        await made.bot.load_extension("mneme_discord")
        made.cog = made.bot.get_cog("Mneme")
        await mention(made, "Leo", "in the right place", "general")
        await mention(made, "Leo", "in the wrong place", "random")
        leo = member("Leo")
        await dpytest.message("a direct message", channel=await leo.create_dm(), member=leo)
        await made.settle()
        assert made.sent.texts() == ["re: Leo in #general: in the right place"]
    finally:
        await made.bot.unload_extension("mneme_discord")
        made.mneme.close()
        await dpytest.empty_queue()


async def test_with_name_in_respond_in_saying_its_name_addresses_it(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await world_of(db_path, clock, monkeypatch, respond_in=["name"], names=["Mio"])
    try:
        general, leo = channel(), member("Leo")
        await dpytest.message("good morning, mio!", channel=general, member=leo)
        await dpytest.message("I read about miosis today", channel=general, member=leo)
        await mention(made, "Leo", "a mention alone is not enough here")
        await made.settle()
        assert made.sent.texts() == ["re: Leo in #general: good morning, mio!"]
    finally:
        await made.bot.unload_extension("mneme_discord")
        made.mneme.close()
        await dpytest.empty_queue()


async def test_a_long_reply_is_split_under_the_limit_and_pings_nobody(world: World) -> None:
    code = "```python\n" + "\n".join(f"print({n})  # a line of the example" for n in range(30)) + "\n```"
    prose = " ".join(
        f"Sentence number {n} says a little more about cats and why they nap." for n in range(60)
    )
    long = f"@everyone {prose}\n\n{code}\n\n{prose}"
    world.model.reply = lambda user: long
    asked = await mention(world, "Leo", "tell me everything about cats")
    await world.settle()
    parts = world.sent.texts()
    assert len(parts) >= 4 and all(len(part) <= 2000 for part in parts)
    assert " ".join(parts).split() == long.split()
    assert sum(code in part for part in parts) == 1  # the code block is whole, in one part
    assert all(part.count("```") % 2 == 0 for part in parts)
    assert all(p["allowed_mentions"]["parse"] == [] for p in world.sent.payloads)  # no @everyone, no pings
    assert world.sent.payloads[0]["allowed_mentions"] == QUIET  # nor the person it replies to
    assert world.sent.payloads[0]["message_reference"]["message_id"] == asked.id
    assert all("message_reference" not in p for p in world.sent.payloads[1:])
    assert world.sent.typing and set(world.sent.typing) == {channel().id}


async def test_attachments_and_stickers_are_noted_not_fetched(world: World) -> None:
    general, leo = channel(), member("Leo")
    data = factories.make_message_dict(general, leo, content=f"{world.bot.user.mention} look at her")
    data["mentions"] = [factories.dict_from_user(world.bot.user)]
    data["attachments"] = [
        {
            "id": "1",
            "filename": "mochi.png",
            "size": 10,
            "url": "https://cdn.invalid/mochi.png",
            "proxy_url": "",
            "content_type": "image/png",
        },
        {
            "id": "2",
            "filename": "notes.pdf",
            "size": 10,
            "url": "https://cdn.invalid/notes.pdf",
            "proxy_url": "",
        },
    ]
    data["sticker_items"] = [{"id": "3", "name": "wave", "format_type": 1}]
    await post(data)
    await world.settle()
    assert world.model.users == [
        "Leo in #general: look at her\n[image: mochi.png] [attachment: notes.pdf] [sticker: wave]"
    ]


async def test_a_failing_model_gets_the_person_a_sentence(world: World) -> None:
    def broken(user: str) -> str:
        raise RuntimeError("the model is down")

    world.model.reply = broken
    await mention(world, "Leo", "hello?")
    await world.settle()
    assert world.sent.texts() == [world.cog.runner.failure_sentence]
    assert world.notes("Leo") == []


async def test_a_malformed_event_is_logged_and_skipped(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    world.bot.dispatch("message", object())
    await dpytest.run_all_events()
    assert "skipping a Discord message that could not be read" in caplog.text
    await mention(world, "Leo", "still there?")
    await world.settle()
    assert world.sent.texts() == ["re: Leo in #general: still there?"]


def example() -> Any:
    """`examples/discord_bot.py`, whose `Companion` cog is a host bot's own conversation."""
    path = Path(__file__).parent.parent / "examples" / "discord_bot.py"
    spec = importlib.util.spec_from_file_location("discord_bot_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_a_host_bot_makes_its_own_model_call_around_prompt_for_and_observe(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await world_of(db_path, clock, monkeypatch, answer=False)
    try:
        await made.bot.add_cog(example().Companion(made.bot))
        leo = member("Leo")
        dm = await leo.create_dm()
        await dpytest.message("I adopted a cat called Mochi!", channel=dm, member=leo)
        await made.settle()
        assert made.sent.texts() == ["Tell me more!"]  # the example's model; the cog itself kept quiet
        assert made.notes("Leo") == ["Leo adopted a cat called Mochi."]
        assert made.sent.typing == [dm.id]
        clock.advance(days=2)
        await mention(made, "Leo", "remember my cat?")
        await made.settle()
        assert made.sent.texts()[-1] == "I remember: Leo adopted a cat called Mochi. What's new?"
        assert made.sent.payloads[-1]["allowed_mentions"] == QUIET
        bot_message = next(m for m in made.bot.cached_messages if m.author == made.bot.user)
        assert await made.cog.prompt_for(bot_message) == ""
        assert await made.cog.observe(bot_message, "anything") is None
    finally:
        await made.bot.unload_extension("mneme_discord")
        made.mneme.close()
        await dpytest.empty_queue()


# -- the host's commands, failures of the memory, Red's data contract -------------------------------------


async def test_the_hosts_prefix_commands_are_not_answered_as_conversation(world: World) -> None:
    @world.bot.command()
    async def ping(ctx: Any) -> None:
        await ctx.send("pong")

    world.bot.command_prefix = commands.when_mentioned_or("!")
    leo = member("Leo")
    dm = await leo.create_dm()
    await dpytest.message("!ping", channel=dm, member=leo)
    await world.settle()
    assert world.sent.texts() == ["pong"]  # the command answered, and nothing else
    await mention(world, "Leo", "ping")
    await world.settle()
    assert world.sent.texts() == ["pong", "pong"]
    await dpytest.message("ping me later", channel=dm, member=leo)
    await world.settle()
    assert world.sent.texts()[-1] == "re: ping me later"  # a command's name without its prefix is talk


async def test_prompt_for_gives_nothing_when_the_memory_fails(
    db_path: Path, clock: Any, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    made = await world_of(db_path, clock, monkeypatch, answer=False)
    try:

        async def broken(*args: Any, **kwargs: Any) -> str:
            raise OSError("database is locked")

        monkeypatch.setattr(made.mneme, "aprompt", broken)
        leo = member("Leo")
        dm = await leo.create_dm()
        said = await dpytest.message("hello", channel=dm, member=leo)
        assert await made.cog.prompt_for(said) == ""  # the host's reply goes on without the block
        assert "prompt for discord:" in caplog.text and "database is locked" in caplog.text
        assert made.cog.runner.report()["prompt_failed"] == 1
    finally:
        await made.bot.unload_extension("mneme_discord")
        made.mneme.close()
        await dpytest.empty_queue()


async def test_red_deletes_and_gives_a_persons_data(world: World) -> None:
    leo = member("Leo")
    dm = await leo.create_dm()
    await dpytest.message("I adopted a cat called Mochi!", channel=dm, member=leo)
    await world.settle()
    assert world.notes("Leo") == ["Leo adopted a cat called Mochi."]
    given = await world.cog.red_get_data_for_user(user_id=leo.id)
    data = json.loads(given["mneme_memory.json"].getvalue())
    assert [note["text"] for note in data["notes"]] == ["Leo adopted a cat called Mochi."]
    assert "I adopted a cat called Mochi!" in [line["text"] for line in data["lines"]]
    await world.cog.red_delete_data_for_user(requester="discord_deleted_user", user_id=leo.id)
    await world.settle()
    assert world.notes("Leo") == []
    assert world.mneme.transcript.lines_of(world.subject("Leo")) == []
    assert mneme_discord.__red_end_user_data_statement__.startswith("This cog keeps")
