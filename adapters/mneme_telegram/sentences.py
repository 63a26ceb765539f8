"""What the Telegram commands say, in the companion's display language (English and Chinese here; other
languages fall back to their base language, then English, as the core's sentences do).

These live here rather than in `mneme_core.messages` because the core has no command sentences yet; a
companion changes them through `[adapters.telegram.sentences]` (`key = "text"`), which win over these.
Placeholders are `{name}`; only the names a sentence is given are filled.
"""

from __future__ import annotations

from collections.abc import Mapping

from mneme_core.messages import base, fill

__all__ = ["SENTENCES", "Sentences"]

SENTENCES: dict[str, dict[str, str]] = {
    "en": {
        "help": (
            "I'm {name}. Talk to me here; in a group, mention me or reply to me.\n"
            "/memory: what I remember about you\n"
            "/forget <number>: forget one thing (numbers are in /memory); /forget all: everything\n"
            "/mood: how I feel about you\n"
            "/optout: I stop reading and remembering you; /optin: back again"
        ),
        "memory.empty": "I don't remember anything about you yet.",
        "memory.header": "What I remember about you ({count}):",
        "memory.line": "#{id} {text}",
        "memory.line_dated": "#{id} [{date}] {text}",
        "memory.more": "… and {count} more.",
        "memory.private": "I'll only show what I remember about you in our private chat: {link}",
        "forget.usage": (
            "/forget <number> forgets one thing I remember (the numbers are in /memory); "
            "/forget all forgets everything about you."
        ),
        "forget.done": "Forgotten.",
        "forget.none": "I have no note #{id} about you.",
        "forget.ask": (
            "Forget everything I remember about you, and how I feel about you? This can't be undone."
        ),
        "forget.yes": "Yes, forget everything",
        "forget.no": "No, keep it",
        "forget.erased": "Done: I forgot everything about you ({count} notes).",
        "forget.kept": "All right, I keep what I remember.",
        "forget.not_yours": "Only the person who asked can answer this.",
        "forget.expired": "This question has expired; send /forget all again.",
        "mood": "{mood}",
        "optout.done": (
            "All right: I won't read or remember anything you write from now on, and I won't answer. "
            "What I already remember stays until you send /forget all. /optin brings me back."
        ),
        "optin.done": "Welcome back: I'm listening again.",
        "optin.already": "I'm already listening to you.",
    },
    "zh": {
        "help": (
            "我是{name}。在这里和我聊天吧；在群里请 @ 我或回复我。\n"
            "/memory：我记得的关于你的事\n"
            "/forget <编号>：忘掉一件事（编号见 /memory）；/forget all：忘掉全部\n"
            "/mood：我对你的心情\n"
            "/optout：我不再读取和记住你的消息；/optin：恢复"
        ),
        "memory.empty": "我还没有记住关于你的任何事。",
        "memory.header": "我记得的关于你的事（{count} 条）：",
        "memory.more": "……还有 {count} 条。",
        "memory.private": "我只在私聊里告诉你我记得什么：{link}",
        "forget.usage": "/forget <编号> 忘掉一件事（编号见 /memory）；/forget all 忘掉关于你的一切。",
        "forget.done": "已经忘掉了。",
        "forget.none": "我没有关于你的第 {id} 条记录。",
        "forget.ask": "要忘掉我记得的关于你的一切，以及我对你的心情吗？这无法撤销。",
        "forget.yes": "是的，全部忘掉",
        "forget.no": "不，留着吧",
        "forget.erased": "好了：关于你的一切我都忘了（{count} 条记录）。",
        "forget.kept": "好的，我会继续记着。",
        "forget.not_yours": "只有提问的人才能回答这个。",
        "forget.expired": "这个问题已经过期了，请重新发送 /forget all。",
        "optout.done": (
            "好的：从现在起我不会读取或记住你写的任何内容，也不会回复。"
            "我已经记住的内容会保留，直到你发送 /forget all。发送 /optin 可以恢复。"
        ),
        "optin.done": "欢迎回来：我又在听了。",
        "optin.already": "我一直在听呀。",
    },
}


class Sentences:
    """The sentences of one display language, with the companion's own (`own`) over the ones above."""

    def __init__(self, language: str = "en", own: Mapping[str, str] | None = None) -> None:
        self.language = language
        self.own = {str(k): str(v) for k, v in (own or {}).items()}

    def say(self, key: str, **values: object) -> str:
        if key in self.own:
            return fill(self.own[key], values)
        for lang in dict.fromkeys((self.language, base(self.language), "en")):
            if key in SENTENCES.get(lang, {}):
                return fill(SENTENCES[lang][key], values)
        raise KeyError(f"no Telegram sentence {key!r}")
