"""Mneme in one minute: a real SQLite file, no keys, no network.

    python examples/quickstart.py [path-to.db]

Remembers a few things about two people (in English and Chinese), moves the clock forward, and prints
what the companion would put in its system prompt before replying, and why those notes were chosen.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile

from mneme_core import Mneme

DAY = 86400.0


class Clock:
    """A clock we can move, so the dates read 'yesterday' and 'in 2 days'."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def main(path: str) -> None:
    clock = Clock(1_790_000_000.0)
    async with Mneme(path, space="dafeiyu", zone="UTC+8", clock=clock) as m:
        await m.aremember("discord:42", "has a cat called Mochi", kind="fact", key="pet.name", importance=4)
        await m.aremember("discord:42", "lives in Shanghai", kind="fact", key="user.city", importance=3)
        await m.aremember("discord:42", "failed the maths exam and felt stupid", kind="episode", feeling=-0.6)
        await m.aremember(
            "discord:42", "maths exam retake", kind="plan", happened_at=clock.now + 3 * DAY, importance=3
        )
        clock.now += DAY
        await m.aremember("discord:42", "moved to Hangzhou", kind="fact", key="user.city", importance=3)
        await m.aremember("qq:10001", "养了一只叫年糕的猫", kind="fact", key="pet.name", importance=4)

        print("== what the companion sees before replying to Leo's 'how is my cat?' ==")
        print(await m.aprompt("discord:42", "how is my cat doing?", user_name="Leo"))
        print()
        print("== and why ==")
        print((await m.arecall("discord:42", "how is my cat doing?", log=False)).explain())
        print()
        print("== where Leo lives, as a history ==")
        for note in m.history("discord:42", "user.city"):
            print(f"  #{note.id} {note.text} ({'live' if note.live else 'replaced'})")
        print()
    # The same file, shown by a companion whose display language is Chinese.
    async with Mneme(path, space="dafeiyu", zone="UTC+8", display_language="zh", clock=clock) as m:
        print("== 小明问：我的猫还好吗？ ==")
        print(await m.aprompt("qq:10001", "我的猫还好吗？", user_name="小明"))
    print(f"\n(kept in {path}: {os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "companion.db")
    asyncio.run(main(target))
