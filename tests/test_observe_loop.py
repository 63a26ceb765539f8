"""An observe off the event loop: only the model calls and the plugins' async hooks run on the loop's thread.

`aobserve` is a plan on the store's reader threads (`twins.arun`, see `observe.Observer._observing`): the
exchange's text, the judge's prompt and the checking of its answers, the note writer's recall, messages and
the parsing of its answer run there, and the loop runs the `Await` steps alone (the judge, the note writer,
`filter_note`). Each test here wraps a piece of that plain work to record the thread it ran on, and checks
it against the loop's; and checks that faults (a failing judge, a slow one, a failing writer) are counted as
before when many observes run at once on both reader threads.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mneme_core import Mneme, hookimpl
from mneme_core import capture as capture_module
from mneme_core import observe as observe_module
from mneme_core.decide import Answer, Chain, Predicate, Prompt
from mneme_core.prompts import PROMPTS
from mneme_core.twins import Await, Read

VERDICT = json.dumps(
    {"mood_change": {"level": "2", "confidence": 0.9}, "worth_remembering": {"probability": 0.9}}
)


def note_of(user: str) -> str:
    """The note writer's answer: one note naming the person the exchange is with ("Leo3 ...")."""
    who = next(word for word in user.split() if word.startswith("Leo") and word[3:].rstrip(":").isdigit())
    return json.dumps(
        [{"text": f"{who.rstrip(':')} likes jasmine tea", "kind": "preference", "importance": 3}]
    )


class Model:
    """The host's model, async: the judge (told apart by its system prompt) and the note writer. `judge` is
    a reply or an exception; `sleep` makes the judge that many seconds late. Records the threads it ran on."""

    def __init__(self, judge: object = VERDICT, sleep: float = 0.0) -> None:
        self.judge, self.sleep = judge, sleep
        self.threads: set[int] = set()
        self.calls = {"judge": 0, "writer": 0}

    async def __call__(self, system: str, user: str) -> str:
        self.threads.add(threading.get_ident())
        if system != PROMPTS["judge"]:
            self.calls["writer"] += 1
            return note_of(user)
        self.calls["judge"] += 1
        if self.sleep:
            await asyncio.sleep(self.sleep)
        if isinstance(self.judge, BaseException):
            raise self.judge
        return str(self.judge)


class Threads:
    """Where the wrapped functions ran: name -> the threads' idents."""

    def __init__(self) -> None:
        self.seen: dict[str, set[int]] = {}

    def wrap(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
        real: Callable[..., Any] = getattr(owner, name)

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.seen.setdefault(name, set()).add(threading.get_ident())
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, recorded)


@pytest.fixture
def threads(monkeypatch: pytest.MonkeyPatch) -> Threads:
    """The observe's plain work, recorded: the exchange as text, the judge's answers checked, the mood's
    judgement made, the note writer's messages made and its answer parsed."""
    found = Threads()
    found.wrap(monkeypatch, observe_module, "as_text")
    found.wrap(monkeypatch, Prompt, "parse")
    found.wrap(monkeypatch, observe_module, "_judgement")
    found.wrap(monkeypatch, capture_module, "writer_messages")
    found.wrap(monkeypatch, capture_module, "parse_actions")
    return found


@pytest.fixture
def make(tmp_path, clock):
    made: list[Mneme] = []

    def make(model: Model, **options: Any) -> Mneme:
        m = Mneme(
            tmp_path / "loop.db", space="test", clock=clock, complete=model, companion_name="Mio", **options
        )
        made.append(m)
        return m

    yield make
    for m in made:
        m.close()


def exchange(n: int) -> list[tuple[str, str]]:
    return [(f"Leo{n}", f"Leo{n}: I passed my driving test today!"), ("Mio", "Congratulations!")]


async def test_an_observes_plain_work_runs_on_reader_threads_and_its_models_on_the_loop(make, threads):
    model = Model()
    m = make(model)
    loop_thread = threading.get_ident()

    seen = await m.aobserve("leo1", exchange(1), user_name="Leo1")

    assert seen.mood is not None and seen.mood.delta > 0
    assert [n.text for n in seen.notes] == ["Leo1 likes jasmine tea"]
    names = {"as_text", "parse", "_judgement", "writer_messages", "parse_actions"}
    assert set(threads.seen) == names  # each piece ran (so the check below could fail)
    on_loop = sorted(name for name, idents in threads.seen.items() if loop_thread in idents)
    assert on_loop == []
    assert model.threads == {loop_thread}  # the model calls are the loop's, by design
    assert model.calls == {"judge": 1, "writer": 1}


async def test_capture_parses_the_writers_answer_off_the_loop(make, threads):
    m = make(Model())
    loop_thread = threading.get_ident()

    kept = await m.acapture("leo2", "Leo2: I love jasmine tea", user_name="Leo2")

    assert [n.text for n in kept] == ["Leo2 likes jasmine tea"]
    assert threads.seen["parse_actions"] and loop_thread not in threads.seen["parse_actions"]


async def test_filter_note_is_async_plugin_code_and_runs_on_the_loop(tmp_path, clock, threads):
    loop_thread = threading.get_ident()
    vetted: list[tuple[int, str]] = []

    class Veto:
        @hookimpl
        async def filter_note(self, subject, note):
            vetted.append((threading.get_ident(), note.text))
            return False if "Leo4" in note.text else None

    with Mneme(tmp_path / "f.db", space="test", clock=clock, complete=Model(), plugins=[Veto()]) as m:
        kept = await m.aobserve("leo3", exchange(3), user_name="Leo3")
        vetoed = await m.aobserve("leo4", exchange(4), user_name="Leo4")

    assert [n.text for n in kept.notes] == ["Leo3 likes jasmine tea"]
    assert vetoed.notes == [] and m.report()["observe"]["writer wrote nothing"] == 1
    assert vetted == [(loop_thread, "Leo3 likes jasmine tea"), (loop_thread, "Leo4 likes jasmine tea")]
    assert loop_thread not in threads.seen["parse_actions"]


async def test_many_observes_at_once_count_every_one_and_write_every_note(make):
    m = make(Model())
    people = 40

    seen = await asyncio.gather(
        *(m.aobserve(f"leo{n}", exchange(n), user_name=f"Leo{n}") for n in range(people))
    )

    assert all(s.mood is not None and len(s.notes) == 1 for s in seen)
    report = m.report()
    assert report["observe"] == {"observed": people, "mood moved": people, "notes written": people}
    assert report["decisions"]["prompt"]["answered"] == 2 * people  # mood_change and worth; feeling abstained
    assert report["decisions"]["prompt"]["abstained"] == people
    assert sorted(n.text for s in seen for n in s.notes) == sorted(
        f"Leo{n} likes jasmine tea" for n in range(people)
    )


async def test_a_failing_judge_off_the_loop_is_counted_rested_and_the_writer_still_writes(make, threads):
    model = Model(judge=RuntimeError("provider down"))
    m = make(model)

    first = await m.aobserve("leo5", exchange(5), user_name="Leo5")
    rested = await asyncio.gather(
        *(m.aobserve(f"leo{n}", exchange(n), user_name=f"Leo{n}") for n in range(6, 9))
    )

    assert first.mood is None and "judge prompt: RuntimeError: provider down" in first.error
    assert [n.text for n in first.notes] == ["Leo5 likes jasmine tea"]  # no worth said: the writer is asked
    assert all(r.error == "" and r.mood is None and len(r.notes) == 1 for r in rested)
    report = m.report()
    assert model.calls == {"judge": 1, "writer": 4}
    assert report["decisions"]["prompt"]["failed"] == 1 and report["decisions"]["prompt"]["skipped"] == 3
    assert report["observe"] == {"observed": 4, "judge failed": 1, "notes written": 4}
    assert "parse" not in threads.seen  # nothing to parse: the judge raised


async def test_a_slow_judge_off_the_loop_times_out_as_before(make):
    model = Model(sleep=30.0)
    m = make(model)
    m.decider.tiers[-1].timeout = 0.05

    seen = await m.aobserve("leo9", exchange(9), user_name="Leo9")

    assert seen.mood is None and "TimeoutError" in seen.error
    report = m.report()["decisions"]["prompt"]
    assert report["failed"] == 1 and report["timeouts"] == 1
    assert [n.text for n in seen.notes] == ["Leo9 likes jasmine tea"]


async def test_an_observe_cut_short_off_the_loop_writes_nothing_later(make):
    model = Model(sleep=30.0)
    m = make(model)

    with pytest.raises(TimeoutError):  # the bot's observe_timeout while the judge thinks
        await asyncio.wait_for(m.aobserve("leo10", exchange(10), user_name="Leo10"), 0.2)
    await asyncio.sleep(0.2)  # a plan left on a reader thread would have written by now

    assert m.mood_timeline("leo10") == [] and m.notes("leo10") == []
    assert m.report()["observe"] == {}


# -- a tier's plan ---------------------------------------------------------------------------------------


class Planned:
    """A tier that gives its decision as a plan (as `Prompt` does): the chain asks it through the plan."""

    name = "planned"

    def __init__(self, step: object) -> None:
        self.step = step

    async def adecide(self, input, questions):
        raise AssertionError("a tier with a plan is asked through it")

    def decision_plan(self, input, questions):
        said = yield self.step
        return {
            questions[0].name: Answer(
                questions[0].name, "predicate", {"true": said, "false": 1 - said}, 0.9, ""
            )
        }


async def answer(value: float) -> float:
    return value


async def test_the_chain_asks_a_tier_through_its_plan_on_the_loop_and_refuses_a_store_step():
    asked = Predicate("urgent", "The person needs an answer right now.")
    chain = Chain(Planned(Await(lambda: answer(0.8))))

    found = await chain.adecide("help!", [asked])

    assert found["urgent"].probability == pytest.approx(0.8) and found["urgent"].by == "planned"
    reading = Chain(Planned(Read(lambda conn: 0.8)))
    assert await reading.adecide("help!", [asked]) == {}  # on the loop a plan only awaits
    report = reading.report()["planned"]
    assert report["failed"] == 1 and "only awaits, it cannot Read" in report["last_error"]
