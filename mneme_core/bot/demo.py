"""`mneme demo`: a short conversation over two simulated days, with no key and no network.

Leo talks to Mio through the real runner and a real SQLite file. Two stand-ins take the place of models:
- the reply comes from the offline stand-in, which shows what a model would have been told: the persona
  and the memory block, so you see what Mio recalls for each message;
- the judge and the note writer are scripted (`ScriptedMemory`): they answer the engine's real requests
  (how the mood moved, which feeling, whether it is worth keeping; which notes to write) from the script
  below, so what is remembered and felt goes through the same code as with a real model.

After each message the demo prints what was remembered and how Mio feels; on the second day the block shows
yesterday's notes, dated the way people say it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..mneme import Mneme
from .console import ConsoleAdapter
from .incoming import Incoming
from .offline import OfflineModel
from .runner import Runner
from .settings import BotSettings

__all__ = ["DAYS", "ScriptedMemory", "ademo"]

START = 1_709_578_800.0  # Monday 2024-03-04, 19:00 UTC
DAY = 86_400.0
PERSONA = "You are Mio, a warm and curious companion. Keep replies short."
TOLD = (
    "Mio's replies come from a stand-in, but her judge is scripted, so she remembers and feels through the "
    "real engine: `mneme chat` without a model remembers nothing, having no judge."
)


@dataclass(frozen=True)
class Turn:
    """One message of Leo's, and what the scripted judge and note writer say about it."""

    text: str
    level: str = "0"
    feeling: str = "none"
    worth: float = 0.1
    notes: tuple[dict[str, Any], ...] = field(default=())


DAYS: tuple[tuple[str, tuple[Turn, ...]], ...] = (
    (
        "Day 1, Monday evening",
        (
            Turn(
                "Hi Mio! I'm Leo. I just adopted a little cat called Mochi.",
                "1",
                "happy",
                0.9,
                (
                    {
                        "text": "Leo has a cat called Mochi.",
                        "kind": "fact",
                        "key": "pet.name",
                        "importance": 4,
                    },
                ),
            ),
            Turn(
                "I'm nervous though: my maths exam retake is on Friday.",
                "-1",
                "worried",
                0.9,
                (
                    {
                        "text": "Leo retakes the maths exam on Friday.",
                        "kind": "plan",
                        "key": "exam.math.date",
                        "importance": 4,
                        "date": "2024-03-08",
                    },
                ),
            ),
        ),
    ),
    (
        "Day 2, Tuesday evening",
        (
            Turn(
                "Mochi knocked my coffee over this morning, haha.",
                "1",
                "happy",
                0.7,
                ({"text": "Mochi knocked Leo's coffee over.", "kind": "episode", "importance": 2},),
            ),
            Turn("Can you wish me luck for the exam?", "0", "tender", 0.2),
        ),
    ),
)


class ScriptedMemory:
    """A stand-in for the judge and the note writer: answers the engine's requests from `DAYS`."""

    def __init__(self, days: tuple[tuple[str, tuple[Turn, ...]], ...] = DAYS) -> None:
        self.turns = [turn for _, turns in days for turn in turns]

    def _turn(self, asked: str) -> Turn | None:
        return next((turn for turn in self.turns if turn.text in asked), None)

    async def complete(self, system: str, user: str) -> str:
        turn = self._turn(user)
        if turn is None:
            return "NONE"  # the profile writer, or something the script does not know
        if "QUESTIONS:" in user:  # the judge's request (`decide.prompt`)
            return json.dumps(
                {
                    "mood_change": {"level": turn.level, "confidence": 0.9},
                    "feeling": {"choice": turn.feeling, "confidence": 0.8},
                    "worth_remembering": {"probability": turn.worth},
                }
            )
        return json.dumps(list(turn.notes))  # the note writer's request (`capture`)


def _show(output: IO[str], line: str = "") -> None:
    output.write(line + "\n")
    output.flush()


async def _play(mneme: Mneme, output: IO[str]) -> dict[str, Any]:
    runner = Runner(mneme, OfflineModel(), settings=BotSettings(persona=PERSONA))
    adapter = ConsoleAdapter(output=output, user_id="leo", user_name="Leo")
    subject = "console:leo"
    for heading, turns in DAYS:
        _show(output, f"\n=== {heading} ===")
        for turn in turns:
            before = {note.id for note in mneme.notes(subject)}
            _show(output, f"\nLeo: {turn.text}")
            incoming = Incoming(platform="console", user_id="leo", user_name="Leo", text=turn.text)
            await runner.handle(adapter, incoming)
            await runner.drain()  # the observe ran after the reply; wait for it, to show what it kept
            kept = [note for note in mneme.notes(subject) if note.id not in before]
            for note in kept:
                _show(output, f"  remembered: {note.text} ({note.kind}, importance {note.importance})")
            if not kept:
                _show(output, "  remembered: nothing new")
            _show(output, f"  felt: {mneme.describe_mood(subject)}")
        mneme.clock.advance(DAY)  # type: ignore[attr-defined]
    await runner.aclose()
    _show(output, "\n=== What Mio keeps about Leo ===")
    for note in mneme.notes(subject):
        _show(output, f"  - {note.text} [{note.kind}]")
    _show(output, f"  {mneme.describe_mood(subject)}")
    _show(
        output, "\nTalk to Mio yourself with `mneme chat`; name a model in [plugins.openai] for real replies."
    )
    return runner.report()


class _Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def ademo(path: str | Path | None = None, *, output: IO[str] | None = None) -> dict[str, Any]:
    """Play the demo on `path` (a temporary file by default) and print it; returns the runner's report."""
    output = output if output is not None else sys.stdout
    with tempfile.TemporaryDirectory(prefix="mneme-demo-") as scratch:
        where = Path(path) if path is not None else Path(scratch) / "demo.db"
        mneme = Mneme(
            where,
            space="demo",
            clock=_Clock(START),
            zone="UTC",
            companion_name="Mio",
            complete=ScriptedMemory().complete,
        )
        try:
            _show(output, f"A scripted conversation, stored in {where} (offline: no key, no network). {TOLD}")
            return await _play(mneme, output)
        finally:
            await mneme.aclose()
