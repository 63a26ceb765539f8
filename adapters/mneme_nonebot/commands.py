"""The commands a person uses to see and correct the companion's memory of them, through NoneBot's
command system (`on_command`: the driver's `COMMAND_START`, `/` by default, and its aliases).

- `/memory` (`/记忆`): the live notes, newest first, numbered by their ids (at most `LISTED`, then how
  many more).
- `/forget <number>` (`/忘记 <编号>`): hides one note (`aforget`; only the person's own: another person's
  number finds nothing); `/forget <key>` the live note of a key.
- `/forgetme` (`/忘记我`, or `/forget all`): asks first, then waits for the same person's next message in
  the same chat (NoneBot's `pause`, until the driver's `SESSION_EXPIRE_TIMEOUT`); "yes" (是, 确认...) erases
  everything about them (`aerase`: notes, lines, mood, relationship), for good, and again once the observes
  under way finished; anything else keeps it.
- `/mood` (`/心情`): how the companion feels about them (`adescribe_mood`).

What the companion remembers and feels about a person is answered privately (`sending.privately`): in a
direct chat there, in a OneBot group by a private message (the group hears that one was sent); where the
platform has none, the group is asked to write privately instead and hears nothing of it. Forgetting is
answered where it was asked, since the question waits for the answer there and says nothing remembered.
Each command blocks the message: it is not conversation, and no lower matcher (the plugin's listener, a
host's chat) sees it.
"""

from __future__ import annotations

from typing import Annotated

from nonebot import get_driver, on_command
from nonebot.adapters import Event, Message
from nonebot.matcher import Matcher
from nonebot.params import CommandArg, RawCommand

from mneme_core import text

from .lifetime import Remembered, companion
from .memory import Memory
from .sending import privately
from .sentences import words_of

__all__ = ["EVERYTHING", "LISTED", "PRIORITY", "YES", "forget", "forget_me", "mood", "remembered"]

PRIORITY = 5
LISTED = 30
EVERYTHING = frozenset({"all", "everything", "me", "全部", "所有", "一切"})
YES = frozenset({"yes", "y", "ok", "是", "是的", "确认", "确定", "好", "好的", "对"})

remembered = on_command("memory", aliases={"记忆", "我的记忆"}, priority=PRIORITY, block=True)
forget = on_command("forget", aliases={"忘记"}, priority=PRIORITY, block=True)
forget_me = on_command("forgetme", aliases={"forget_me", "忘记我"}, priority=PRIORITY, block=True)
mood = on_command("mood", aliases={"心情"}, priority=PRIORITY, block=True)


def _say(key: str, **values: object) -> str:
    return words_of(companion.mneme).say(f"nonebot.{key}", **values)


def _command(name: str) -> str:
    """A command as the person types it, with the driver's first command start (`/`)."""
    starts = sorted(get_driver().config.command_start)
    return f"{'/' if '/' in starts or not starts else starts[0]}{name}"


async def _privately(matcher: type[Matcher], memory: Memory, said: str, command: str) -> None:
    if await privately(memory.bot, memory.event, memory.incoming, said):
        await matcher.finish(None if memory.is_direct else _say("private.sent"))
    await matcher.finish(_say("private.ask", command=command))


@remembered.handle()
async def _memory(memory: Remembered, command: Annotated[str, RawCommand()]) -> None:
    found = await companion.mneme.anotes(memory.subject)
    if not found:
        await _privately(remembered, memory, _say("memory.empty"), command)
    lines = [_say("memory.header", count=len(found))]
    lines += [_say("memory.line", id=n.id, text=text.one_line(n.text, 300)) for n in found[:LISTED]]
    if len(found) > LISTED:
        lines.append(_say("memory.more", count=len(found) - LISTED))
    await _privately(remembered, memory, "\n".join(lines), command)


@mood.handle()
async def _mood(memory: Remembered, command: Annotated[str, RawCommand()]) -> None:
    said = await companion.mneme.adescribe_mood(memory.subject)
    await _privately(mood, memory, said, command)


@forget.handle()
async def _forget(memory: Remembered, args: Annotated[Message, CommandArg()]) -> None:
    wanted = args.extract_plain_text().strip()
    usage = _say(
        "forget.usage", forget=_command("forget"), memory=_command("memory"), forget_me=_command("forgetme")
    )
    if not wanted:
        await forget.finish(usage)
    if wanted.casefold() in EVERYTHING:
        await forget.pause(_say("forget.ask"))
    number = wanted.removeprefix("#")
    try:
        if number.isascii() and number.isdigit():
            count = await companion.mneme.aforget(memory.subject, id=int(number))
        else:
            count = await companion.mneme.aforget(memory.subject, key=wanted)
    except (ValueError, TypeError):  # neither a note's number nor a key: say how it is used
        await forget.finish(usage)
    await forget.finish(_say("forget.done") if count else _say("forget.none", id=wanted))


@forget_me.handle()
async def _ask() -> None:
    await forget_me.pause(_say("forget.ask"))


async def _confirm(matcher: Matcher, event: Event, memory: Remembered) -> None:
    """The answer to the question (the same person's next message in the same chat)."""
    if event.get_plaintext().strip().casefold().rstrip("!.。！") not in YES:
        await matcher.finish(_say("forget.kept"))
    count = await companion.erase(memory.subject)
    await matcher.finish(_say("forget.erased", count=count))


forget.handle()(_confirm)
forget_me.handle()(_confirm)
