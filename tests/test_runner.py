"""The runner with a fake adapter and scripted models, on a real `Mneme` in a temporary file: order per
person, concurrency across people, model failures answered with a sentence, a full queue, shutdown."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bot_fakes import FakeAdapter, Scripted, message

from mneme_core import Mneme
from mneme_core.adapters import Adapter, Incoming
from mneme_core.bot import collector
from mneme_core.bot.demo import ademo
from mneme_core.console import achat
from mneme_core.hookspecs import hookimpl
from mneme_core.plugins import Event, Manager, PluginError, make_manager
from mneme_core.runner import Runner, RunnerSettings, build_adapters, build_model, compose, run_bot


@pytest.fixture
def manager() -> Manager:
    return make_manager(load_entry_points=False, environ={})


@pytest.fixture
def mneme(db_path: Path, clock) -> Iterator[Mneme]:
    m = Mneme(db_path, space="runner", clock=clock, zone="UTC")
    try:
        yield m
    finally:
        m.close()


def runner_for(mneme: Any, model: Any, manager: Manager, **settings: Any) -> Runner:
    return Runner(mneme, model, settings=RunnerSettings(**settings), plugins=manager)


async def test_a_reply_goes_out_split_to_the_adapter_limit(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter(limit=40)
    model = Scripted()
    runner = runner_for(mneme, model, manager, persona="You are Mio.")
    long = "Tell me. " * 12
    outcome = await runner.handle(adapter, message(long))
    assert outcome.status == "replied" and outcome.subject == "fake:42"
    assert len(outcome.parts) > 1 and all(len(part) <= 40 for part in outcome.parts)
    assert adapter.texts() == list(outcome.parts)
    assert " ".join(outcome.parts).split() == f"re: {long}".split()
    assert adapter.typing_shown == ["42"]
    await runner.aclose()


async def test_the_system_prompt_is_persona_block_and_plugin_sections(mneme: Mneme, manager: Manager) -> None:
    mneme.remember("fake:42", "User42 has a cat called Mochi", kind="fact", importance=4)

    class Weather:
        @hookimpl
        def extra_prompt_sections(self, subject):
            return f"It is sunny where {subject} lives."

    manager.register(Weather(), name="weather")
    model = Scripted()
    runner = runner_for(mneme, model, manager, persona="You are Mio.")
    await runner.handle(FakeAdapter(), message("how is my cat?"))
    system = model.systems[0]
    assert system.startswith("You are Mio.\n\n")
    assert "- User42 has a cat called Mochi" in system
    assert system.endswith("\n\nIt is sunny where fake:42 lives.")
    assert compose(" ", "block", ["", "one"]) == "block\n\none"
    await runner.aclose()


async def test_two_messages_from_one_person_are_answered_in_order(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter()
    model = Scripted()
    runner = runner_for(mneme, model, manager)
    first = await runner.submit(adapter, message("slow first"))
    second = await runner.submit(adapter, message("quick second"))
    await asyncio.gather(first, second)
    assert adapter.texts() == ["re: slow first", "re: quick second"]
    (_, _, first_ended), (_, second_began, _) = model.calls
    assert second_began >= first_ended  # the second waited for the first: never two at once for one person
    assert model.most == 1
    await runner.aclose()


async def test_different_people_are_answered_concurrently(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter()
    model = Scripted()
    runner = runner_for(mneme, model, manager)
    waiting = [await runner.submit(adapter, message("slow", user=str(n))) for n in range(3)]
    quick = await runner.handle(adapter, message("quick", user="99"))
    assert quick.status == "replied"
    assert adapter.texts()[0] == "re: quick"  # nobody waits behind other people's slow replies
    await asyncio.gather(*waiting)
    assert model.most >= 3  # three slow replies side by side, not one after another
    await runner.aclose()


async def test_a_resolve_subject_plugin_puts_two_accounts_in_one_lane(mneme: Mneme, manager: Manager) -> None:
    class Linked:
        @hookimpl
        def resolve_subject(self, platform, user_id):
            return "person:leo" if user_id in {"1", "2"} else None

    manager.register(Linked(), name="linked")
    adapter = FakeAdapter()
    model = Scripted()
    runner = runner_for(mneme, model, manager)
    first = await runner.submit(adapter, message("slow from one", user="1"))
    second = await runner.submit(adapter, message("quick from two", user="2"))
    assert (await first).subject == (await second).subject == "person:leo"
    assert adapter.texts() == ["re: slow from one", "re: quick from two"]
    await runner.aclose()


async def test_a_failing_model_gets_the_failure_sentence_logged_and_counted(
    mneme: Mneme, manager: Manager, caplog
) -> None:
    adapter = FakeAdapter()
    runner = runner_for(mneme, Scripted(), manager, failure="Mio is resting, try again soon.")
    with caplog.at_level(logging.WARNING, logger="mneme_core.runner"):
        outcome = await runner.handle(adapter, message("please fail"))
        blank = await runner.handle(adapter, message("blank please"))
    assert outcome.status == "failed" and "RuntimeError: the model is down" in outcome.error
    assert blank.status == "failed" and "answered nothing" in blank.error
    assert adapter.texts() == ["Mio is resting, try again soon."] * 2
    assert runner.report()["model_failed"] == 2
    assert "the model failed to answer fake:42: RuntimeError: the model is down" in caplog.text
    assert "Traceback" not in "".join(adapter.texts())
    await runner.aclose()
    assert runner.report().get("observed", 0) == 0  # nothing was said back: nothing to observe


async def test_a_model_that_takes_too_long_gets_the_default_sentence(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter()
    runner = runner_for(mneme, Scripted(delay=2.0), manager, model_timeout=0.1)
    outcome = await runner.handle(adapter, message("hello"))
    assert outcome.status == "failed" and "TimeoutError" in outcome.error
    assert adapter.texts() == [runner.failure_sentence]
    assert runner.failure_sentence.startswith("Sorry")
    await runner.aclose()


async def test_a_full_queue_answers_busy_at_once(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter()
    gate = asyncio.Event()
    model = Scripted(gate=gate)
    runner = runner_for(mneme, model, manager, queue_size=1, busy="One moment, please!")
    first = await runner.submit(adapter, message("one"))
    await model.started.wait()  # the first is with the model; the lane's queue is empty again
    second = await runner.submit(adapter, message("two"))
    third = await runner.submit(adapter, message("three"))
    assert third.done() and third.result().status == "busy"
    await asyncio.sleep(0.01)
    assert adapter.texts() == ["One moment, please!"]  # sent while the others still wait
    other = await runner.submit(adapter, message("from someone else", user="7"))
    assert not other.done()  # another person's lane has room
    gate.set()
    assert [(await f).status for f in (first, second, other)] == ["replied"] * 3
    assert adapter.texts("42") == ["One moment, please!", "re: one", "re: two"]
    assert runner.report()["busy"] == 1
    await runner.aclose()


async def test_the_whole_runner_is_bounded_too(mneme: Mneme, manager: Manager) -> None:
    gate = asyncio.Event()
    runner = runner_for(mneme, Scripted(gate=gate), manager, max_waiting=2)
    adapter = FakeAdapter()
    outcomes = [await runner.submit(adapter, message("hi", user=str(n))) for n in range(4)]
    assert [f.done() for f in outcomes] == [False, False, True, True]
    gate.set()
    await runner.aclose()


async def test_quiet_only_when_nothing_waits_is_answered_or_observed(mneme: Mneme, manager: Manager) -> None:
    gate = asyncio.Event()
    model = Scripted(gate=gate)
    runner = runner_for(mneme, model, manager)
    adapter = FakeAdapter()
    assert runner.quiet()
    answered = await runner.submit(adapter, message("hello"))
    await model.started.wait()
    assert not runner.quiet()  # a reply under way: no full collection now (`collector`)
    gate.set()
    assert (await answered).status == "replied"
    assert await runner.turns.drain(10)  # and its exchange observed
    assert runner.quiet()
    await runner.aclose()


async def test_a_group_message_not_addressed_is_ignored(mneme: Mneme, manager: Manager) -> None:
    adapter = FakeAdapter()
    runner = runner_for(mneme, Scripted(), manager)
    outcome = await runner.handle(adapter, message("chatter", is_direct=False, addressed=False, chat_id=-100))
    assert outcome.status == "ignored" and adapter.sent == []
    addressed = await runner.handle(
        adapter, message("hey bot", is_direct=False, addressed=True, chat_id=-100)
    )
    assert addressed.status == "replied"
    everyone = runner_for(mneme, Scripted(), manager, groups="all")
    assert (
        await everyone.handle(adapter, message("chatter", is_direct=False, addressed=False))
    ).status == "replied"
    await runner.aclose()
    await everyone.aclose()


async def test_a_send_that_fails_is_logged_and_the_runner_goes_on(
    mneme: Mneme, manager: Manager, caplog
) -> None:
    broken = FakeAdapter(fail_sends=True)
    runner = runner_for(mneme, Scripted(), manager)
    with caplog.at_level(logging.WARNING, logger="mneme_core.runner"):
        outcome = await runner.handle(broken, message("hello"))
    assert outcome.status == "replied" and outcome.parts == ()
    assert "sending a reply to fake:42 through fake failed: ConnectionError" in caplog.text
    working = FakeAdapter()
    assert (await runner.handle(working, message("again"))).parts == ("re: again",)
    assert runner.report()["send_failed"] == 1
    await runner.aclose()


async def test_observe_runs_after_the_reply_and_shutdown_waits_for_it(
    db_path: Path, clock, manager: Manager
) -> None:
    judged: list[float] = []

    async def slow_judge(system: str, user: str) -> str:
        await asyncio.sleep(0.15)
        judged.append(time.monotonic())
        if "QUESTIONS:" in user:
            return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
        return '[{"text": "User42 adopted a cat called Mochi.", "kind": "fact", "importance": 4}]'

    m = Mneme(db_path, space="observe", clock=clock, zone="UTC", complete=slow_judge)
    try:
        adapter = FakeAdapter()
        runner = runner_for(m, Scripted(), manager)
        outcome = await runner.handle(adapter, message("I adopted a cat called Mochi!"))
        assert outcome.status == "replied" and judged == []  # the reply did not wait on memory writing
        await runner.aclose(timeout=5)
        assert len(judged) == 2  # the judge, then the note writer
        assert adapter.sent[0][2] < judged[0]
        assert [note.text for note in m.notes("fake:42")] == ["User42 adopted a cat called Mochi."]
        assert runner.report()["observed"] == 1
        assert m.mood("fake:42").value > 50
    finally:
        m.close()


async def test_observes_of_one_person_run_in_order(mneme: Mneme, manager: Manager) -> None:
    order: list[str] = []

    class Recording:
        def __init__(self, inner: Mneme) -> None:
            self.inner = inner

        async def aprompt(self, *args: Any, **kwargs: Any) -> str:
            return await self.inner.aprompt(*args, **kwargs)

        async def aobserve(self, subject: str, exchange: Any, **options: Any) -> None:
            said = exchange[0]["content"]
            await asyncio.sleep(0.1 if "first" in said else 0)
            order.append(said)

    runner = runner_for(Recording(mneme), Scripted(), manager)
    adapter = FakeAdapter()
    await runner.handle(adapter, message("first"))
    await runner.handle(adapter, message("second"))
    await runner.handle(adapter, message("other", user="9"))
    await runner.drain()
    assert order.index("first") < order.index("second")
    assert order[0] == "other"  # another person's observe did not wait
    await runner.aclose()


async def test_shutdown_gives_up_on_observes_after_its_timeout(
    mneme: Mneme, manager: Manager, caplog
) -> None:
    class Stuck:
        async def aprompt(self, *args: Any, **kwargs: Any) -> str:
            return ""

        async def aobserve(self, *args: Any, **kwargs: Any) -> None:
            await asyncio.sleep(30)

    runner = runner_for(Stuck(), Scripted(), manager)
    await runner.handle(FakeAdapter(), message("hello"))
    began = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="mneme_core.runner"):
        await runner.aclose(timeout=0.2)
    assert time.monotonic() - began < 1.0
    assert runner.report()["cancelled_at_shutdown"] == 1
    assert "1 observes and 0 conversations unfinished" in caplog.text
    closed = await runner.handle(FakeAdapter(), message("after"))
    assert closed.status == "busy"  # a closed runner takes nothing new


async def test_observe_and_memory_failures_never_reach_the_person(
    mneme: Mneme, manager: Manager, caplog
) -> None:
    class Broken:
        async def aprompt(self, *args: Any, **kwargs: Any) -> str:
            raise OSError("database is locked")

        async def aobserve(self, *args: Any, **kwargs: Any) -> None:
            raise OSError("disk full")

    adapter = FakeAdapter()
    runner = runner_for(Broken(), Scripted(), manager, persona="You are Mio.")
    with caplog.at_level(logging.WARNING, logger="mneme_core.runner"):
        outcome = await runner.handle(adapter, message("hello"))
        await runner.aclose()
    assert outcome.status == "replied" and adapter.texts() == ["re: hello"]
    report = runner.report()
    assert report["prompt_failed"] == 1 and report["observe_failed"] == 1
    assert "observing the exchange with fake:42 failed: OSError: disk full" in caplog.text


async def test_track_event_sees_each_step(mneme: Mneme, manager: Manager) -> None:
    seen: list[Event] = []

    class Meter:
        @hookimpl
        async def track_event(self, event):
            seen.append(event)

    manager.register(Meter(), name="meter")
    runner = runner_for(mneme, Scripted(), manager)
    await runner.handle(FakeAdapter(), message("hello"))
    await runner.aclose()
    assert [e.name for e in seen] == ["received", "prompted", "replied", "sent", "observed"]
    assert {e.subject for e in seen} == {"fake:42"} and {e.platform for e in seen} == {"fake"}
    assert seen[0].at == mneme.clock()


async def test_a_hung_resolve_subject_or_track_event_plugin_does_not_hold_up_the_reply(
    mneme: Mneme, manager: Manager, monkeypatch, caplog
) -> None:
    """Both hooks are awaited on the message's path: a plugin that never answers is passed over after
    `prompt_timeout` (the subject) and `TRACK_WITHIN` (each event), named in the log, and the reply goes
    out to the person's own memory."""
    monkeypatch.setattr("mneme_core.plugins.TRACK_WITHIN", 0.05)
    forever = asyncio.Event()

    class Hung:
        @hookimpl
        async def resolve_subject(self, platform, user_id):
            await forever.wait()

        @hookimpl
        async def track_event(self, event):
            await forever.wait()

    manager.register(Hung(), name="hung")
    adapter = FakeAdapter()
    runner = runner_for(mneme, Scripted(), manager, prompt_timeout=0.2)
    with caplog.at_level(logging.WARNING, logger="mneme_core.calling"):
        outcome = await asyncio.wait_for(runner.handle(adapter, message("hello")), 10)
        await asyncio.wait_for(runner.aclose(), 10)
    assert outcome.status == "replied" and outcome.subject == "fake:42"
    assert adapter.texts() == list(outcome.parts)
    assert "plugin hung failed in hook resolve_subject (answer passed over): PluginTimeout" in caplog.text
    assert "plugin hung failed in hook track_event (skipped): PluginTimeout" in caplog.text


async def test_serve_starts_and_stops_adapters_and_tells_plugins(mneme: Mneme, manager: Manager) -> None:
    told: list[str] = []

    class Lifetime:
        @hookimpl
        def startup(self, mneme):
            told.append("startup")

        @hookimpl
        async def shutdown(self, mneme):
            told.append("shutdown")

    manager.register(Lifetime(), name="lifetime")
    adapter = FakeAdapter()
    runner = runner_for(mneme, Scripted(), manager)

    frozen, thresholds, before = [], [], gc.get_threshold()

    async def talk_then_stop() -> None:
        while not adapter.started:
            await asyncio.sleep(0.01)
        frozen.append(gc.get_freeze_count())
        thresholds.append(gc.get_threshold())
        await runner.handle(adapter, message("hello"))
        runner.stop_soon()

    await asyncio.gather(runner.serve([adapter], signals=False), talk_then_stop())
    assert adapter.started and adapter.stopped
    assert told == ["startup", "shutdown"]
    assert adapter.texts() == ["re: hello"]
    assert frozen[0] > 1000  # start-up's objects are out of the full collections' way while it serves
    assert gc.get_freeze_count() == 0  # and back in it once it stopped
    assert thresholds[0][2] == collector.OFF  # full collections wait for a quiet moment while it serves
    assert gc.get_threshold() == before  # and CPython's own are back once it stopped


def test_bots_are_built_from_the_registries(manager: Manager) -> None:
    (console,) = build_adapters(manager, ["console"], {"console": {"user_id": "leo"}})
    assert console.user_id == "leo"
    with pytest.raises(PluginError, match="no adapter is called 'matrix' \\(installed: console\\)"):
        build_adapters(manager, ["matrix"], {})
    assert type(build_model(manager, None, {})).__name__ == "OfflineModel"
    with pytest.raises(PluginError, match="no model provider is called 'gpt'"):
        build_model(manager, "gpt", {})


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="queue_size is a whole number of 1 or more"):
        RunnerSettings(queue_size=0)
    with pytest.raises(ValueError, match="groups is 'addressed' or 'all'"):
        RunnerSettings(groups="some")
    with pytest.raises(ValueError, match="model_timeout is a number of seconds above 0"):
        RunnerSettings(model_timeout=0)


async def test_chat_in_the_console_offline(mneme: Mneme) -> None:
    mneme.remember("console:leo", "Leo has a cat called Mochi", kind="fact", importance=4)
    output = io.StringIO()
    report = await achat(
        mneme,
        user_id="leo",
        user_name="Leo",
        input=io.StringIO("how is my cat?\n\n/quit\nnever read\n"),
        output=output,
    )
    shown = output.getvalue()
    assert "offline stand-in" in shown
    assert "You said: “how is my cat?”" in shown
    assert "- Leo has a cat called Mochi" in shown
    assert "never read" not in shown
    assert report["replied"] == 1


async def test_the_demo_remembers_recalls_and_feels(tmp_path: Path) -> None:
    output = io.StringIO()
    report = await ademo(tmp_path / "demo.db", output=output)
    shown = output.getvalue()
    assert report["replied"] == 4 and report["observed"] == 4
    assert "remembered: Leo has a cat called Mochi. (fact, importance 4)" in shown
    assert "remembered: Leo retakes the maths exam on Friday. (plan, importance 4)" in shown
    assert "[in 3 days] Leo retakes the maths exam on Friday." in shown  # recalled on day 2, dated
    assert "felt: Mood" in shown and "happy" in shown


async def test_run_bot_makes_adapters_and_model_from_the_config(db_path: Path, clock) -> None:
    class Scripted(Adapter):
        name = "scripted"

        async def start(self, runner: Runner) -> None:
            async def talk() -> None:
                self.outcome = await runner.handle(self, message("hello"))
                runner.stop_soon()

            self.task = asyncio.create_task(talk())

        async def send(self, incoming: Incoming, text: str) -> None:
            self.sent = text

    made: list[Scripted] = []

    class Plugin:
        @hookimpl
        def register_adapters(self, register):
            register(lambda settings: made.append(Scripted(settings)) or made[-1], name="scripted")

    config = {"adapters": {"scripted": {"greeting": "hi"}}}
    m = Mneme(db_path, space="bot", clock=clock, config=config)
    try:
        manager = make_manager(load_entry_points=False, environ={}, plugins=[Plugin()])
        report = await run_bot(m, ["scripted"], plugins=manager)
    finally:
        m.close()
    (adapter,) = made
    assert adapter.settings == {"greeting": "hi"}
    assert adapter.outcome.status == "replied" and "offline stand-in" in adapter.sent
    assert report["replied"] == 1
