"""`Memory`: what the companion remembers of the person behind one message, for a matcher of one's own.

    from nonebot import on_message, require
    from nonebot.params import Depends
    from nonebot.rule import to_me

    require("mneme_nonebot")
    from mneme_nonebot import Memory, memory_of

    chat = on_message(rule=to_me(), priority=50)

    @chat.handle()
    async def _(memory: Memory = Depends(memory_of)):
        messages = await memory.messages(PERSONA)   # persona + memory block, the recent lines, this one
        reply = await my_model(messages)
        await memory.reply(reply)                    # sent, then kept and observed off the reply's path

Everything goes through the bot layer's turn service (`mneme_core.bot.Turns`), as the runner's turns do:
`prompt()` is `Turns.block` (within `bot.prompt_timeout`; "" when the memory fails or hangs, the reply goes
on without it), `messages()` is `Turns.prompt` with the conversation's earlier lines, and `observe(reply)`
is `Turns.finish`: the reply is kept and the exchange observed in the background, in order per person,
kept in the database until it was. The person's line is kept the first time any of them is asked for
(once per message, however many matchers ask), so a command that only reads `memory.subject` keeps no line.
A host that sends its reply some other way calls `memory.observe(reply)` after sending it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mneme_core.bot import Incoming, Turn, Turns, split_reply

__all__ = ["Memory"]


class Memory:
    """The companion's memory of the person behind one NoneBot message event. (A plain class, not a
    dataclass: NoneBot checks a dependency's value against its annotation with pydantic, which would try
    to describe every field of a dataclass.)"""

    def __init__(self, *, turns: Turns, adapter: Any, incoming: Incoming, subject: str, turn: Turn) -> None:
        self.turns = turns
        self.adapter = adapter
        """The bot layer's adapter the reply goes through (`sending.NoneBotAdapter`)."""
        self.incoming = incoming
        self.subject = subject
        self.turn = turn
        self.block: str | None = None
        """The memory block, once `prompt()` made it: what to put in the system prompt after the persona."""
        self.used = False
        """Whether a host's handler asked for anything (the plugin then leaves the message to it)."""
        self._kept: asyncio.Future[Turn] | None = None
        self._making: asyncio.Future[str] | None = None

    def __repr__(self) -> str:
        return f"Memory(subject={self.subject!r}, addressed={self.addressed})"

    @property
    def user_id(self) -> str:
        return self.incoming.user_id

    @property
    def user_name(self) -> str | None:
        return self.incoming.user_name

    @property
    def text(self) -> str:
        """The message as the model sees it (in a group, `Leo in group 777: ...`)."""
        return self.incoming.text

    @property
    def is_direct(self) -> bool:
        return self.incoming.is_direct

    @property
    def addressed(self) -> bool:
        return self.turn.wanted

    @property
    def bot(self) -> Any:
        return self.incoming.raw.bot

    @property
    def event(self) -> Any:
        return self.incoming.raw.event

    def keep(self) -> asyncio.Future[Turn]:
        """Keep the person's line (once), in the background; the future gives the turn as kept."""
        if self._kept is None:
            self._kept = self.turns.chore(self.turns.keep(self.turn), name=f"mneme line {self.subject}")
        return self._kept

    async def kept(self) -> Turn:
        """The turn with the person's line kept (the write bounded by the bot layer)."""
        self.used = True
        return await self.keep()

    async def prompt(self) -> str:
        """The memory block for this message (made once), and the plugins' sections."""
        self.used = True
        self.keep()
        if self._making is None:
            self._making = asyncio.ensure_future(self.turns.block(self.turn))
        self.block = await self._making
        return self.block

    async def messages(self, persona: str = "") -> list[dict[str, str]]:
        """The chat messages for a model: `persona` and the memory block as the system message, the
        conversation's earlier lines, this message last."""
        turn = await self.kept()
        return (await self.turns.prompt(turn, persona)).messages()

    def observe(self, reply: str) -> asyncio.Task[None]:
        """Keep `reply` (what was sent) and observe the exchange in the background; the task ends once the
        exchange is kept (it is observed soon after, and kept until it was)."""
        self.used = True
        kept = self.keep()

        async def finish() -> None:
            await self.turns.finish(await kept, reply)

        return self.turns.chore(finish(), name=f"mneme observe {self.subject} (keeping)")

    async def reply(self, text: str) -> int:
        """Send `text` where the message was said (in parts the platform takes), then observe it; returns
        how many parts went out."""
        self.used = True
        parts = split_reply(text, self.adapter.limit)
        for part in parts:
            await self.adapter.send(self.incoming, part)
        if parts:
            self.observe(text)
        return len(parts)
