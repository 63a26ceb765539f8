"""What the NoneBot2 plugin adds to a message before the turn: reading a NoneBot event into an `Incoming`.

    python benchmarks/nonebot_reading.py [--count 2000] [--rounds 7]

One OneBot v11 group message that @-mentions the bot, three ways, each the median over `rounds` runs of
`count` calls: NoneBot's own parsing of the bridge's frame (`Adapter.json_to_event`, which every NoneBot bot
pays), `mneme run onebot`'s reading of the same frame (`OneBotAdapter.incoming`), and the plugin's reading
of NoneBot's event (`mneme_nonebot.reading.Reader.incoming`: the event dumped back to a frame, then the
OneBot adapter's own reading, so both give one subject and one text). Needs the `nonebot` extra and
`nonebot-adapter-onebot`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from mneme_nonebot.reading import Reader
from mneme_onebot import OneBotAdapter
from nonebot.adapters.onebot.v11 import Adapter as V11

FRAME: dict[str, Any] = {
    "time": 1709294400,
    "self_id": 3000,
    "post_type": "message",
    "message_type": "group",
    "sub_type": "normal",
    "message_id": 2,
    "user_id": 10001,
    "group_id": 777,
    "anonymous": None,
    "message": [
        {"type": "at", "data": {"qq": "3000"}},
        {"type": "text", "data": {"text": " I love hiking too, and my cat Mochi comes along"}},
    ],
    "raw_message": "",
    "font": 0,
    "sender": {"user_id": 10001, "nickname": "Leo", "card": ""},
}


def per_call(work: Callable[[], Any], count: int, rounds: int) -> float:
    """The median time of one call, in microseconds."""
    found = []
    for _ in range(rounds):
        began = time.perf_counter()
        for _ in range(count):
            work()
        found.append((time.perf_counter() - began) / count * 1e6)
    return statistics.median(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    event = V11.json_to_event(FRAME)
    bot = SimpleNamespace(self_id="3000", adapter=SimpleNamespace(get_name=lambda: "OneBot V11"))
    reader, onebot = Reader({}), OneBotAdapter({})
    ours, theirs = reader.incoming(bot, event), onebot.incoming(FRAME)
    assert (ours.subject, ours.text, ours.addressed) == (theirs.subject, theirs.text, theirs.addressed)
    rows = [
        ("NoneBot parses the frame (json_to_event)", lambda: V11.json_to_event(FRAME)),
        ("mneme run onebot reads the frame", lambda: onebot.incoming(FRAME)),
        ("mneme_nonebot reads NoneBot's event", lambda: reader.incoming(bot, event)),
    ]
    print(f"one v11 group message, median of {args.rounds} x {args.count} calls")
    print("| step | µs per message |\n| --- | ---: |")
    for name, work in rows:
        print(f"| {name} | {per_call(work, args.count, args.rounds):.1f} |")


if __name__ == "__main__":
    main()
