"""What the plugin's commands say, in the companion's display language (English and Chinese here; others
fall back to their base language, then English, through the core's `Words`). A companion's own sentences
of the same keys (its config's `[messages.<lang>]`) win over these."""

from __future__ import annotations

from typing import Any

from mneme_core.messages import Words

__all__ = ["SENTENCES", "words_of"]

SENTENCES: dict[str, dict[str, str]] = {
    "en": {
        "nonebot.memory.empty": "I don't remember anything about you yet.",
        "nonebot.memory.header": "What I remember about you ({count}):",
        "nonebot.memory.line": "#{id} {text}",
        "nonebot.memory.more": "… and {count} more.",
        "nonebot.private.sent": "I sent you a private message.",
        "nonebot.private.ask": "That is between us: write {command} to me in a private chat.",
        "nonebot.forget.usage": (
            "{forget} <number> forgets one thing I remember (the numbers are in {memory}); "
            "{forget_me} forgets everything about you."
        ),
        "nonebot.forget.done": "Forgotten.",
        "nonebot.forget.none": "I have no note #{id} about you.",
        "nonebot.forget.ask": (
            "Forget everything I remember about you, and how I feel about you? This can't be undone. "
            "Reply yes to forget it all; anything else keeps it."
        ),
        "nonebot.forget.erased": "Done: I forgot everything about you ({count} notes).",
        "nonebot.forget.kept": "All right, I keep what I remember.",
    },
    "zh": {
        "nonebot.memory.empty": "我还没有记住关于你的任何事。",
        "nonebot.memory.header": "我记得的关于你的事（{count} 条）：",
        "nonebot.memory.more": "……还有 {count} 条。",
        "nonebot.private.sent": "我私聊告诉你了。",
        "nonebot.private.ask": "这是我们之间的事：请私聊我发送 {command}。",
        "nonebot.forget.usage": (
            "{forget} <编号> 忘掉一件事（编号见 {memory}）；{forget_me} 忘掉关于你的一切。"
        ),
        "nonebot.forget.done": "已经忘掉了。",
        "nonebot.forget.none": "我没有关于你的第 {id} 条记录。",
        "nonebot.forget.ask": (
            "要忘掉我记得的关于你的一切，以及我对你的心情吗？这无法撤销。回复“是”全部忘掉，回复别的则保留。"
        ),
        "nonebot.forget.erased": "好了：关于你的一切我都忘了（{count} 条记录）。",
        "nonebot.forget.kept": "好的，我会继续记着。",
    },
}


def words_of(mneme: Any) -> Words:
    """The sentences in the companion's display language, its own (`[messages.<lang>]`) over these."""
    language = getattr(getattr(mneme, "words", None), "language", "en")
    config = getattr(mneme, "config", None)
    own = config.messages() if config is not None else {}
    merged = {lang: {**SENTENCES.get(lang, {}), **own.get(lang, {})} for lang in {*SENTENCES, *own}}
    return Words(language, merged)
