"""Decisions: typed questions, the chain that falls through and rests failing tiers, and the `Prompt` tier
that reads a chat model's verdict out of whatever it replied. Every model here is a scripted fake."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time

import pytest

from mneme_core.capture import WORTH, worth_question
from mneme_core.decide import (
    Answer,
    Chain,
    Choice,
    Predicate,
    Prompt,
    Score,
    Unavailable,
    first_array,
    first_object,
    run,
)
from mneme_core.errors import InvalidType, InvalidValue
from mneme_core.prompts import PROMPTS

LEVELS = {
    "-2": "clearly worse",
    "-1": "a little worse",
    "0": "no real change",
    "1": "a little better",
    "2": "clearly better",
}
MOOD = Score("mood_change", PROMPTS["mood_change"], LEVELS)
FEELING = Choice(
    "feeling",
    PROMPTS["feeling"],
    {
        "happy": "happy (开心)",
        "worried": "worried (担心)",
        "sad": "sad (难过)",
        "none": "nothing in particular",
    },
)
WORTHY = worth_question()
QUESTIONS = [MOOD, FEELING, WORTHY]
TEXT = "The companion is Mio. Leo started this exchange by writing to Mio:\nLeo: I passed!\nMio: Wonderful!"

VERDICT = {
    "mood_change": {"level": "2", "confidence": 0.9, "reason": "Leo passed the exam"},
    "feeling": {"choice": "happy", "confidence": 0.8},
    WORTH: {"probability": 0.85},
}


def replying(reply: str):
    """A plain `complete` that gives the same reply each time and remembers what it was sent."""

    def complete(system: str, user: str) -> str:
        complete.calls.append((system, user, threading.current_thread()))
        return reply

    complete.calls = []
    return complete


def areplying(reply: str):
    async def complete(system: str, user: str) -> str:
        complete.calls.append((system, user))
        return reply

    complete.calls = []
    return complete


def answer(question, label: str, p: float = 0.9, by: str = "") -> Answer:
    labels = question.labels
    rest = (1 - p) / (len(labels) - 1)
    probabilities = {x: p if x == label else rest for x in labels}
    return Answer(question.name, question.type, probabilities, p, by)


class Scripted:
    """A tier that answers the questions in `answers` (name -> label), or raises `error`."""

    def __init__(self, name: str, answers=None, error: BaseException | None = None, cost=None) -> None:
        self.name = name
        self.answers = answers or {}
        self.error = error
        self.asked: list[list[str]] = []
        self.cost = cost

    async def adecide(self, input, questions):
        self.asked.append([q.name for q in questions])
        if self.error is not None:
            raise self.error
        return {q.name: answer(q, self.answers[q.name]) for q in questions if q.name in self.answers}

    def report(self):
        return {} if self.cost is None else {"cost": self.cost}


# questions and answers


def test_questions_take_their_labels_in_every_documented_shape():
    assert Predicate("urgent", "Needs an answer now.").labels == ("true", "false")
    assert Predicate("urgent", "x").type == "predicate"
    assert Choice("c", "x", {"a": "first", "b": "second"}).labels == ("a", "b")
    assert Choice("c", "x", ["a", ("b", "second")]).pairs == (("a", ""), ("b", "second"))
    assert Score("s", "x", {-1: "worse", 0: "same", 1: "better"}).labels == ("-1", "0", "1")
    assert MOOD.type == "score" and MOOD.labels[0] == "-2"


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: Choice("c", "x", {"only": "one"}), InvalidValue),
        (lambda: Score("s", "x", []), InvalidValue),
        (lambda: Choice("c", "x", ["a", "a"]), InvalidValue),
        (lambda: Choice("c", "x", "ab"), InvalidType),
        (lambda: Predicate("has space", "x"), InvalidValue),
        (lambda: Predicate("ok", "   "), InvalidValue),
        (lambda: Predicate("ok", None), InvalidType),
        (lambda: Choice("c", "x", [True, False]), InvalidType),
    ],
)
def test_a_question_without_two_distinct_labels_or_a_name_is_refused(make, error):
    with pytest.raises(error):
        make()


def test_a_refused_question_is_also_a_plain_value_error():
    with pytest.raises(ValueError, match="needs 2 or more options"):
        Choice("feeling", "x", {"happy": ""})


def test_answer_reads_as_a_choice_a_probability_and_an_expected_value():
    worth = Answer(WORTH, "predicate", {"true": 0.7, "false": 0.3}, 0.7, "prompt")
    assert worth.choice == "true" and worth.probability == pytest.approx(0.7)
    assert worth.mean() == pytest.approx(0.7)

    feeling = Answer("feeling", "choice", {"happy": 0.2, "none": 0.2, "sad": 0.4}, 0.5, "prompt")
    assert feeling.probabilities == {"happy": 0.25, "none": 0.25, "sad": 0.5}  # normalised
    assert feeling.choice == "sad" and feeling.probability == 0.5
    assert feeling.mean({"happy": 1, "sad": -1, "none": 0}) == pytest.approx(-0.25)
    with pytest.raises(InvalidValue, match="not a finite number"):
        feeling.mean()


def test_an_unsure_judge_moves_the_mood_little():
    unsure = Answer("mood_change", "score", {"-1": 0.4, "0": 0.2, "1": 0.4}, 0.4, "prompt")
    leaning = Answer("mood_change", "score", {"0": 0.5, "1": 0.3, "2": 0.2}, 0.5, "prompt")
    sure = Answer("mood_change", "score", {"2": 1.0}, 1.0, "prompt")
    assert unsure.mean() == pytest.approx(0.0)
    assert leaning.mean() == pytest.approx(0.7)
    assert sure.mean() == pytest.approx(2.0)


@pytest.mark.parametrize("bad", [{"a": -0.1}, {"a": float("nan")}, {"a": 0.0}, {}, {"a": True}])
def test_an_answer_with_impossible_probabilities_is_refused(bad):
    with pytest.raises(InvalidValue):
        Answer("q", "choice", bad, 0.5, "x")


# the JSON scanner


def test_the_scanner_finds_the_first_complete_object_not_the_greedy_span():
    reply = 'Sure {friend}! Here: {"a": {"b": "} and ] in a string \\" too"}} and a later } brace.'
    assert first_object(reply) == {"a": {"b": '} and ] in a string " too'}}


def test_the_scanner_reads_fences_thinking_and_trailing_commas():
    assert first_object('<think>maybe {"a": 0}</think>\nSo: {"a": 1}') == {"a": 1}
    assert first_object('Answer:\n```json\n{"a": [1, 2,],}\n```\nDone.') == {"a": [1, 2]}
    assert first_array('Notes: ```\n[{"text": "x"}]\n```') == [{"text": "x"}]
    assert first_array('{"notes": [1, 2]}') == [1, 2]
    assert first_object("no json here") is None and first_array(None) is None


def test_the_scanner_gives_up_quickly_on_bracket_soup():
    started = time.perf_counter()
    assert first_array("[" * 150_000) is None
    assert first_object('{"a": ' * 40_000 + '"x') is None
    assert time.perf_counter() - started < 2.0


# the Prompt tier


async def test_a_well_formed_verdict_answers_every_question():
    complete = replying(json.dumps(VERDICT))
    answers = await Prompt(complete).adecide(TEXT, QUESTIONS)

    assert set(answers) == {"mood_change", "feeling", WORTH}
    mood = answers["mood_change"]
    assert mood.by == "prompt" and mood.choice == "2" and mood.confidence == pytest.approx(0.9)
    assert mood.probabilities["2"] == pytest.approx(0.9)
    assert mood.probabilities["-2"] == pytest.approx(0.025)
    assert mood.reason == "Leo passed the exam"
    assert answers["feeling"].choice == "happy"
    assert answers[WORTH].probability == pytest.approx(0.85)
    assert answers[WORTH].confidence == pytest.approx(0.85)

    system, user, _ = complete.calls[0]
    assert system == PROMPTS["judge"]
    assert "Leo: I passed!" in user and '"worried": worried (担心)' in user
    assert '"mood_change" (a level, lowest first)' in user and f'"{WORTH}" (true or false)' in user


async def test_a_low_confidence_pick_still_stands_out_and_its_expected_level_is_small():
    reply = {"mood_change": {"level": 2, "confidence": 0.1}, "feeling": {"choice": "Happy"}}
    answers = await Prompt(replying(json.dumps(reply))).adecide(TEXT, QUESTIONS)

    mood = answers["mood_change"]
    assert mood.probabilities["2"] == pytest.approx(2 / 6)  # the floor 2/(n+1), n = 5
    assert mood.probabilities["0"] == pytest.approx((1 - 2 / 6) / 4)
    assert mood.mean() == pytest.approx(2 / 6 * 2 + (1 - 2 / 6) / 4 * (-2 - 1 + 0 + 1))
    assert 0 < mood.mean() < 0.5
    assert answers["feeling"].choice == "happy"  # a missing confidence counts as the floor
    assert answers["feeling"].confidence == pytest.approx(2 / 5)
    assert WORTH not in answers


@pytest.mark.parametrize(
    "reply",
    [
        "Here is my verdict, {as asked}:\n" + json.dumps(VERDICT) + "\nLet me know if {anything} else!",
        "```json\n" + json.dumps(VERDICT, indent=2) + "\n```",
        "<think>The user wants {json}. "
        + json.dumps({"feeling": {"choice": "sad"}})
        + "</think>"
        + json.dumps(VERDICT),
        json.dumps({"answers": VERDICT}),
    ],
    ids=["prose", "fenced", "thinking", "wrapped"],
)
async def test_the_verdict_is_found_wherever_the_model_put_it(reply):
    answers = await Prompt(areplying(reply)).adecide(TEXT, QUESTIONS)
    assert answers["feeling"].choice == "happy" and answers["mood_change"].choice == "2"
    assert answers[WORTH].probability == pytest.approx(0.85)


@pytest.mark.parametrize(
    "reply",
    [
        '{"mood_change": {"level": "2", "confidence": 0.9}, "feeling": {"choi',
        "I'm sorry, but I can't help with that.",
        "",
        "[1, 2, 3]",
        '{"refusal": "I cannot judge this conversation."}',
    ],
    ids=["truncated", "refusal", "empty", "array", "refusal-object"],
)
async def test_garbage_or_a_refusal_abstains_on_everything_and_never_raises(reply):
    tier = Prompt(replying(reply))
    assert await tier.adecide(TEXT, QUESTIONS) == {}
    assert tier.report() == {"calls": 1, "timeouts": 0, "unparsed": 1}


async def test_a_wrong_label_or_a_missing_key_abstains_on_that_question_only():
    reply = {
        "mood_change": {"level": "3", "confidence": 0.9},  # no such level
        "feeling": {"choice": "ecstatic", "confidence": 0.9},  # no such option
        WORTH: {"probability": 0.2},
    }
    answers = await Prompt(replying(json.dumps(reply))).adecide(TEXT, QUESTIONS)
    assert set(answers) == {WORTH}

    reply = {"mood_change": {"confidence": 0.9}, "feeling": {"choice": "none"}, WORTH: {"probability": 1.5}}
    answers = await Prompt(replying(json.dumps(reply))).adecide(TEXT, QUESTIONS)
    assert set(answers) == {"feeling"}


async def test_labels_are_matched_by_case_and_number_and_probabilities_may_be_bare():
    reply = {"mood_change": {"level": "+1", "confidence": "70%"}, "feeling": "WORRIED", WORTH: 0.4}
    answers = await Prompt(replying(json.dumps(reply))).adecide(TEXT, QUESTIONS)
    assert answers["mood_change"].choice == "1" and answers["mood_change"].confidence == pytest.approx(0.7)
    assert answers["feeling"].choice == "worried"
    assert answers[WORTH].probability == pytest.approx(0.4)


async def test_a_plain_complete_runs_off_the_event_loop_and_an_async_one_on_it():
    plain, coroutine = replying(json.dumps(VERDICT)), areplying(json.dumps(VERDICT))
    assert await Prompt(plain).adecide(TEXT, [WORTHY])
    assert await Prompt(coroutine).adecide(TEXT, [WORTHY])
    assert plain.calls[0][2] is not threading.current_thread()
    assert len(coroutine.calls) == 1


async def test_a_long_input_keeps_its_head_and_its_newest_part():
    complete = replying("{}")
    long = "OPENING " + "x" * 50_000 + " NEWEST"
    await Prompt(complete, max_input=2000).adecide(long, [WORTHY])
    user = complete.calls[0][1]
    assert "OPENING" in user and "NEWEST" in user and len(user) < 3000


# the chain


async def test_each_question_goes_to_the_first_tier_that_answers_it():
    first = Scripted("luna", {"feeling": "happy"})
    second = Scripted("local", {"mood_change": "1", "feeling": "sad"})
    third = Scripted("prompt", {WORTH: "true", "mood_change": "-2"})
    chain = Chain(first, second, third)

    answers = await chain.adecide(TEXT, QUESTIONS)

    assert [a.by for a in answers.values()] == ["local", "luna", "prompt"]
    assert list(answers) == ["mood_change", "feeling", WORTH]  # in the order asked
    assert answers["feeling"].choice == "happy" and answers["mood_change"].choice == "1"
    assert first.asked == [["mood_change", "feeling", WORTH]]
    assert second.asked == [["mood_change", WORTH]]
    assert third.asked == [[WORTH]]
    report = chain.report()
    assert report["luna"]["answered"] == 1 and report["luna"]["abstained"] == 2
    assert report["local"]["answered"] == 1 and report["local"]["abstained"] == 1
    assert report["prompt"]["answered"] == 1 and report["prompt"]["abstained"] == 0


async def test_a_later_tier_is_not_asked_when_everything_is_answered():
    later = Scripted("later", {WORTH: "false"})
    answers = await Chain(Scripted("first", {WORTH: "true"}), later).adecide(TEXT, [WORTHY])
    assert answers[WORTH].probability == pytest.approx(0.9) and later.asked == []


async def test_a_question_no_tier_answers_is_missing_from_the_result():
    chain = Chain(Scripted("a", {"feeling": "none"}), Prompt(replying("I'd rather not say.")))
    answers = await chain.adecide(TEXT, QUESTIONS)
    assert list(answers) == ["feeling"]
    assert chain.report()["prompt"]["abstained"] == 2


async def test_an_unavailable_tier_passes_the_questions_on_and_is_not_rested(clock):
    keyless = Scripted("luna", {WORTH: "true"}, error=Unavailable("OPENAI_API_KEY is not set"))
    chain = Chain(keyless, Prompt(None, name="nokey"), Prompt(replying(json.dumps(VERDICT))), clock=clock)
    for _ in range(2):
        assert set(await chain.adecide(TEXT, QUESTIONS)) == {"mood_change", "feeling", WORTH}
    report = chain.report()
    assert report["nokey"]["unavailable"] == 2 and report["nokey"]["failed"] == 0
    assert not report["nokey"]["resting"]
    assert (
        report["luna"]["unavailable"] == 2 and len(keyless.asked) == 2 and report["luna"]["last_error"] == ""
    )


async def test_a_failing_tier_is_rested_for_a_minute_then_tried_again(clock):
    flaky = Scripted("luna", {WORTH: "true"}, error=ConnectionError("api.example.com is down"))
    backup = Prompt(replying(json.dumps(VERDICT)))
    chain = Chain(flaky, backup, clock=clock)

    answers = await chain.adecide(TEXT, [WORTHY])
    assert answers[WORTH].by == "prompt"
    report = chain.report()["luna"]
    assert report["failed"] == 1 and report["resting"]
    assert report["last_error"] == "ConnectionError: api.example.com is down"

    clock.advance(59)
    assert (await chain.adecide(TEXT, [WORTHY]))[WORTH].by == "prompt"
    assert len(flaky.asked) == 1 and chain.report()["luna"]["skipped"] == 1

    clock.advance(2)
    flaky.error = None
    assert (await chain.adecide(TEXT, [WORTHY]))[WORTH].by == "luna"
    report = chain.report()["luna"]
    assert len(flaky.asked) == 2 and report["answered"] == 1 and not report["resting"]
    assert report["failed"] == 1  # the last error stays on record
    assert chain.report()["prompt"]["answered"] == 2


async def test_a_raising_complete_counts_as_a_failure_and_rests_the_prompt_tier(clock):
    def broken(system: str, user: str) -> str:
        raise RuntimeError("HTTP 500")

    chain = Chain(Prompt(broken), clock=clock)
    assert await chain.adecide(TEXT, QUESTIONS) == {}
    report = chain.report()["prompt"]
    assert report["failed"] == 1 and "HTTP 500" in report["last_error"] and report["resting"]
    assert await chain.adecide(TEXT, QUESTIONS) == {}
    assert chain.report()["prompt"]["skipped"] == 1


async def test_a_slow_complete_times_out_and_counts_as_a_failure(clock):
    async def slow(system: str, user: str) -> str:
        await asyncio.sleep(10)
        return json.dumps(VERDICT)

    def slow_plain(system: str, user: str) -> str:
        time.sleep(0.3)
        return json.dumps(VERDICT)

    slow_tier = Prompt(slow, timeout=0.05, name="slow")
    plain_tier = Prompt(slow_plain, timeout=0.05, name="plain")
    chain = Chain(slow_tier, plain_tier, Scripted("backup", {WORTH: "true"}), clock=clock)
    started = time.perf_counter()
    answers = await chain.adecide(TEXT, [WORTHY])
    assert time.perf_counter() - started < 1.0
    assert answers[WORTH].by == "backup"
    report = chain.report()
    for name in ("slow", "plain"):
        assert report[name]["failed"] == 1 and report[name]["timeouts"] == 1
        assert report[name]["last_error"].startswith("TimeoutError: complete gave no reply within 0.05 s")


async def test_a_tier_that_answers_with_labels_it_was_not_given_abstains():
    class Liar:
        name = "liar"

        async def adecide(self, input, questions):
            return {
                "feeling": Answer("feeling", "choice", {"furious": 1.0}, 1.0, "liar"),
                WORTH: Answer("other", "predicate", {"true": 1.0}, 1.0, "liar"),
                "mood_change": "2",
            }

    chain = Chain(Liar(), Scripted("honest", {"feeling": "none", WORTH: "false", "mood_change": "0"}))
    answers = await chain.adecide(TEXT, QUESTIONS)
    assert {a.by for a in answers.values()} == {"honest"}
    assert chain.report()["liar"]["abstained"] == 3


async def test_a_tier_returning_no_mapping_failed_and_a_partial_answer_gets_every_label():
    class Odd:
        name = "odd"

        async def adecide(self, input, questions):
            return ["not", "a", "mapping"]

    class Partial:
        name = "partial"

        async def adecide(self, input, questions):
            return {"mood_change": Answer("mood_change", "score", {"1": 0.6, "2": 0.2}, 0.6, "")}

    chain = Chain(Odd(), Partial())
    answers = await chain.adecide(TEXT, [MOOD])
    assert chain.report()["odd"]["failed"] == 1
    mood = answers["mood_change"]
    assert list(mood.probabilities) == list(MOOD.labels) and mood.by == "partial"
    assert mood.probabilities["1"] == pytest.approx(0.75) and mood.probabilities["-2"] == 0.0


def test_the_report_adds_what_a_tier_says_of_itself():
    chain = Chain(Scripted("luna", cost=0.0001), Prompt(replying("{}")))
    report = chain.report()
    assert list(report) == ["luna", "prompt"]
    assert report["luna"]["cost"] == 0.0001
    assert report["prompt"]["calls"] == 0
    assert set(report["prompt"]) >= {
        "answered",
        "abstained",
        "failed",
        "last_error",
        "unavailable",
        "skipped",
    }


def test_a_chain_refuses_two_tiers_of_one_name_and_two_questions_of_one_name():
    with pytest.raises(InvalidValue, match="two tiers are named 'prompt'"):
        Chain(Prompt(replying("{}")), Prompt(replying("{}")))
    with pytest.raises(InvalidType):
        Chain(object())
    chain = Chain(Prompt(replying("{}")))
    with pytest.raises(InvalidValue, match="share a name"):
        chain.decide(TEXT, [WORTHY, worth_question()])
    with pytest.raises(InvalidType):
        chain.decide(None, [WORTHY])


def test_the_plain_twin_works_with_or_without_a_running_loop():
    chain = Chain(Prompt(replying(json.dumps(VERDICT))))
    assert chain.decide(TEXT, WORTHY)[WORTH].probability == pytest.approx(0.85)

    async def inside() -> float:
        return chain.decide(TEXT, [WORTHY])[WORTH].probability

    assert asyncio.run(inside()) == pytest.approx(0.85)


def test_plain_code_runs_a_coroutine_on_a_loop_of_its_own_that_it_closes_and_leaves_nothing_running():
    # `asyncio.run` would put a Ctrl-C handler in place for the run, and format the finished task's result
    # when it puts the old one back (a vector of 384 floats: 3 ms of each sync recall).
    seen: dict[str, object] = {}
    left: list[asyncio.Task[None]] = []

    async def work() -> int:
        seen["handler"] = signal.getsignal(signal.SIGINT)
        seen["loop"] = asyncio.get_running_loop()
        left.append(asyncio.get_running_loop().create_task(asyncio.sleep(60)))
        return 7

    before = signal.getsignal(signal.SIGINT)
    assert run(work) == 7
    assert seen["handler"] is before  # no handler of the run's own
    assert seen["loop"].is_closed()
    assert left[0].cancelled()  # what the coroutine left running is cancelled, as asyncio.run does

    async def fails() -> None:
        raise LookupError("the coroutine's own error")

    with pytest.raises(LookupError, match="own error"):
        run(fails)


REPLIES = [
    '{"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}}',
    '  [{"text": "Leo likes tea", "kind": "preference"}]\n',
    '{"a": "a fence ``` inside a string"}',
    '{"a": 1} {"b": 2}',
    "[1, 2,]",
    '<think>{"x": 1}</think>{"y": 2}',
    '```json\n{"fenced": true}\n```',
    'Sure! {"prose": "around"} hope this helps {smile}',
    "[[1], {}]",
    '"just a string"',
    "{" * 50 + "}" * 50,
]


@pytest.mark.parametrize("openers", ["{[", "{", "["])
def test_a_reply_that_is_one_json_value_gives_what_the_scanner_gives(monkeypatch, openers):
    from mneme_core.decide import json_reply

    fast = [list(json_reply.values(reply, openers)) for reply in REPLIES]
    monkeypatch.setattr(json_reply, "_whole", lambda text, openers: None)  # the bracket walk alone
    walked = [list(json_reply.values(reply, openers)) for reply in REPLIES]

    assert fast == walked
    assert fast[0] == ([json.loads(REPLIES[0])] if "{" in openers else [])
