"""Recall: evidence by rarity, scripts without spaces, freshness by kind, pinned notes, limits and fillers.

Each test builds a person's notes in its own file under the frozen clock of `conftest.py` and reads what
`recall` chose and skipped. Scores are compared with each other, never with hard-coded numbers, except where
the module docstring of `mneme_core.memory.recall` states the rule.
"""

import importlib.util
import re

import pytest
from conftest import raw_connection

from mneme_core import Mneme, text
from mneme_core.memory import hops
from mneme_core.memory import index as index_module
from mneme_core.memory import recall as recall_module

DAY = 86400.0
S = "discord:42"


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


def chosen_by_text(found, note_text: str):
    return next(r for r in found.chosen if r.note.text == note_text)


def raw(db_path):
    """A connection of its own to the database, to see what was committed."""
    return raw_connection(db_path)


def df_of(db_path, term: str) -> int:
    """How many live notes contain a term: `df` plus its recent and fresh postings (see `index`)."""
    with raw(db_path) as conn:
        row = conn.execute(
            "select df + (select count(*) from fresh_postings f where f.term_id = terms.id) "
            "+ (select count(*) from recent_postings r where r.term_id = terms.id) from terms where term = ?",
            (term,),
        ).fetchone()
    return row[0] if row else 0


@pytest.fixture
def read_postings(monkeypatch):
    """Records how many postings of each term a recall reads (the `take` column of `_shares`)."""
    reads: list[list[tuple[str, int, int]]] = []
    shares = recall_module._shares

    def recording(found, *weighing):
        shared = shares(found, *weighing)
        reads.append([(term, df, take) for _id, term, df, take in shared])
        return shared

    monkeypatch.setattr(recall_module, "_shares", recording)
    return reads


# evidence


def test_a_rare_word_outweighs_a_common_one(mneme: Mneme):
    for name in ("Anna", "Ben", "Carla"):
        mneme.remember(S, f"had coffee with {name}")
    mneme.remember(S, "bought an espresso grinder")
    mneme.remember(S, "plays tennis on Sundays")
    mneme.remember(S, "is learning Portuguese")

    found = mneme.recall(S, "espresso coffee")

    assert texts(found)[0] == "bought an espresso grinder"
    rare = chosen_by_text(found, "bought an espresso grinder")
    common = chosen_by_text(found, "had coffee with Ben")
    assert rare.score > common.score
    assert rare.matched == ("espresso",)
    assert common.matched == ("coffee",)


def test_matched_terms_are_listed_rarest_first(mneme: Mneme):
    for name in ("Anna", "Ben", "Carla"):
        mneme.remember(S, f"had coffee with {name}")
    mneme.remember(S, "spilled espresso coffee on the laptop")

    found = mneme.recall(S, "coffee espresso")

    first = found.chosen[0]
    assert first.note.text == "spilled espresso coffee on the laptop"
    assert first.matched == ("espresso", "coffee")
    assert first.why == "matched: espresso, coffee"


def test_a_word_in_most_notes_still_matches(mneme: Mneme):
    for i, place in enumerate(("Alps", "Andes", "Atlas", "Dolomites", "Pyrenees", "Rockies", "Tatras")):
        mneme.remember(S, f"went hiking in the {place}", happened_at=mneme.clock() - i * 60)
    for place in ("Kyoto", "Nara", "Jeju"):
        mneme.remember(S, f"plans hiking in {place} next spring", kind="plan")
    mneme.remember(S, "likes green tea", kind="preference")
    mneme.remember(S, "works as a nurse", kind="fact")

    found = mneme.recall(S, "hiking")

    assert len(found.chosen) == 6
    assert all(r.why.startswith("matched: ") and "hike" in r.matched for r in found.chosen)
    assert all("hiking" in r.note.text and r.score > 0 for r in found.chosen)


def test_a_word_in_every_note_still_matches(mneme: Mneme):
    for place in ("Alps", "Andes", "Atlas"):
        mneme.remember(S, f"went hiking in the {place}")

    found = mneme.recall(S, "hiking", recent=0)

    assert sorted(texts(found)) == [f"went hiking in the {p}" for p in ("Alps", "Andes", "Atlas")]
    assert all(r.why == "matched: hike" and r.score > 0 for r in found.chosen)


# scripts without spaces, and inflections


def test_chinese_matches_by_characters_and_pairs(mneme: Mneme):
    mneme.remember(S, "养了一只叫年糕的猫")
    mneme.remember(S, "喜欢喝乌龙茶")

    found = mneme.recall(S, "我的猫", recent=0)

    assert texts(found) == ["养了一只叫年糕的猫"]
    assert found.chosen[0].why.startswith("matched: ")
    assert "猫" in found.chosen[0].matched


def test_a_chinese_name_no_word_list_knows_is_matched_by_its_pair(mneme: Mneme):
    mneme.remember(S, "养了一只叫年糕的猫")
    mneme.remember(S, "喜欢喝乌龙茶")

    found = mneme.recall(S, "年糕最近好吗", recent=0)

    assert texts(found) == ["养了一只叫年糕的猫"]
    assert "年糕" in found.chosen[0].matched


@pytest.mark.parametrize(
    ("note", "other", "query", "shared"),
    [
        ("猫を飼っています", "毎朝コーヒーを飲みます", "うちの猫", "猫"),
        ("고양이를 키워요", "매일 커피를 마셔요", "우리 고양이", "고양"),
    ],
    ids=["japanese", "korean"],
)
def test_japanese_and_korean_match_without_a_word_list(mneme: Mneme, note, other, query, shared):
    mneme.remember(S, note)
    mneme.remember(S, other)

    found = mneme.recall(S, query, recent=0)

    assert texts(found) == [note]
    assert shared in found.chosen[0].matched


def test_a_query_mixing_scripts_matches_both(mneme: Mneme):
    mneme.remember(S, "养了一只猫叫 Mochi")
    mneme.remember(S, "has a dog called Mochi-Bear")  # matches by "mochi" only
    mneme.remember(S, "喜欢喝乌龙茶")

    found = mneme.recall(S, "my 猫 Mochi", recent=0)

    assert texts(found)[0] == "养了一只猫叫 Mochi"
    assert set(found.chosen[0].matched) == {"猫", "mochi"}
    assert "喜欢喝乌龙茶" not in texts(found)


def test_inflections_meet(mneme: Mneme):
    mneme.remember(S, "went hiking in Kyoto")
    mneme.remember(S, "likes green tea", kind="preference")

    found = mneme.recall(S, "hike", recent=0)

    assert texts(found) == ["went hiking in Kyoto"]
    assert found.chosen[0].why == "matched: hike"


def test_a_question_in_the_present_finds_a_note_in_the_past(mneme: Mneme):
    mneme.remember(S, "I ran a charity race for the animal shelter")
    mneme.remember(S, "we bought a blue sofa")
    mneme.remember(S, "likes green tea", kind="preference")

    found = mneme.recall(S, "when did she run that race?", recent=0)
    bought = mneme.recall(S, "what did they buy", recent=0)

    assert texts(found) == ["I ran a charity race for the animal shelter"]
    assert set(found.chosen[0].matched) == {"run", "race"}
    assert texts(bought) == ["we bought a blue sofa"]


# freshness and importance


def test_a_fresh_episode_scores_above_an_old_one(mneme: Mneme):
    now = mneme.clock()
    mneme.remember(S, "hiking trip to Nara", happened_at=now - 90 * DAY)
    mneme.remember(S, "hiking trip to Kobe", happened_at=now - 1 * DAY)

    found = mneme.recall(S, "hiking trip", log=False)

    old = chosen_by_text(found, "hiking trip to Nara")
    fresh = chosen_by_text(found, "hiking trip to Kobe")
    assert fresh.score > old.score
    assert texts(found)[0] == "hiking trip to Kobe"


def test_a_fact_does_not_fade(mneme: Mneme):
    now = mneme.clock()
    mneme.remember(S, "plays the cello in a quartet", kind="fact", happened_at=now - 730 * DAY)
    mneme.remember(S, "plays cello at church", kind="fact")
    mneme.remember(S, "played the cello at a wedding", kind="episode", happened_at=now - 730 * DAY)

    found = mneme.recall(S, "cello", log=False)

    old_fact = chosen_by_text(found, "plays the cello in a quartet")
    new_fact = chosen_by_text(found, "plays cello at church")
    old_episode = chosen_by_text(found, "played the cello at a wedding")
    assert old_fact.score == pytest.approx(new_fact.score)
    assert old_fact.score > old_episode.score
    assert texts(found)[-1] == "played the cello at a wedding"


def test_a_plan_ahead_of_its_day_is_fresh(mneme: Mneme):
    now = mneme.clock()
    mneme.remember(S, "cello recital at the conservatory", kind="plan", happened_at=now + 10 * DAY)
    mneme.remember(S, "cello lesson with Ms Park", kind="episode", happened_at=now)
    mneme.remember(S, "cello broke a string", kind="episode", happened_at=now - 60 * DAY)

    found = mneme.recall(S, "cello", log=False)

    plan = chosen_by_text(found, "cello recital at the conservatory")
    today = chosen_by_text(found, "cello lesson with Ms Park")
    old = chosen_by_text(found, "cello broke a string")
    assert plan.score == pytest.approx(today.score)
    assert plan.score > old.score


def test_importance_raises_the_score(mneme: Mneme):
    mneme.remember(S, "watched a film about sailing", importance=2)
    mneme.remember(S, "bought a book about sailing", importance=4)

    found = mneme.recall(S, "sailing", log=False)

    assert texts(found) == ["bought a book about sailing", "watched a film about sailing"]
    assert found.chosen[0].score > found.chosen[1].score


def test_remembering_a_note_again_with_more_importance_raises_its_score(mneme: Mneme):
    mneme.remember(S, "watched a film about sailing", importance=2)
    mneme.remember(S, "bought a book about sailing", importance=3)
    assert texts(mneme.recall(S, "sailing", log=False))[0] == "bought a book about sailing"

    mneme.remember(S, "Watched a film about sailing", importance=4)

    found = mneme.recall(S, "sailing", log=False)
    assert texts(found) == ["watched a film about sailing", "bought a book about sailing"]
    assert found.chosen[0].score > found.chosen[1].score


def test_a_recalled_note_is_fresh_again(mneme: Mneme):
    now = mneme.clock()
    mneme.remember(S, "hiking trip to Nara", happened_at=now - 90 * DAY)
    mneme.remember(S, "hiking trip to Kobe", happened_at=now - 30 * DAY)
    assert texts(mneme.recall(S, "hiking trip", log=False))[0] == "hiking trip to Kobe"

    assert texts(mneme.recall(S, "Nara", recent=0)) == ["hiking trip to Nara"]
    mneme.recalls(S)  # writes the log, and with it the "recalled" marks

    assert texts(mneme.recall(S, "hiking trip", log=False))[0] == "hiking trip to Nara"


# pinned notes

PINNED = (
    "was born in Porto",
    "has two sisters",
    "is a night-shift nurse",
    "speaks Portuguese at home",
    "is vegetarian",
    "has asthma",
    "is left-handed",
    "was adopted",
)


@pytest.fixture
def pinned_and_one_match(mneme: Mneme) -> Mneme:
    for fact in PINNED:
        mneme.remember(S, fact, kind="fact", importance=5)
    mneme.remember(S, "loves matching words in crossword puzzles", kind="preference")
    return mneme


def test_pinned_notes_never_crowd_out_every_match(pinned_and_one_match: Mneme):
    found = pinned_and_one_match.recall(S, "matching words")

    whys = [r.why for r in found.chosen]
    assert len(found.chosen) == 6
    assert "loves matching words in crossword puzzles" in texts(found)
    first_match = next(i for i, why in enumerate(whys) if why.startswith("matched: "))
    assert first_match <= max(1, 6 // 3)
    assert whys[:first_match] == ["pinned"] * first_match
    assert whys.count("pinned") == 5


def test_pinned_notes_fill_the_slots_when_nothing_matches(pinned_and_one_match: Mneme):
    found = pinned_and_one_match.recall(S, "zebra")

    assert [r.why for r in found.chosen] == ["pinned"] * 6
    assert set(texts(found)) <= set(PINNED)


def test_pinned_notes_never_crowd_out_the_match_with_one_slot(pinned_and_one_match: Mneme):
    found = pinned_and_one_match.recall(S, "matching words", limit=1)

    assert texts(found) == ["loves matching words in crossword puzzles"]


def test_long_pinned_notes_never_crowd_out_every_match_by_the_budget(mneme: Mneme):
    for i, topic in enumerate(("childhood", "family")):
        mneme.remember(S, f"{topic} story number {i}: " + "a long pinned memory " * 20, importance=5)
    match = ("the crossword habit: " + "long matching words every Sunday " * 11).strip()

    mneme.remember(S, match)
    found = mneme.recall(S, "crossword")

    assert match in texts(found)


# limits, budget and fillers


def test_the_budget_bounds_the_text_except_for_a_first_long_note(mneme: Mneme):
    for i in range(10):
        mneme.remember(S, f"coffee note {i}: " + "lots of words about the morning ritual " * 8)

    found = mneme.recall(S, "coffee")

    assert 1 < len(found.chosen) < 6
    assert sum(len(t) for t in texts(found)) <= 800
    assert any(reason == "over the 800-character budget" for _note, reason in found.skipped)


def test_the_first_note_may_exceed_the_budget_alone(mneme: Mneme):
    mneme.remember(S, "coffee with Anna")
    mneme.remember(S, "coffee " + "x" * 480)  # as good a match, and newer: it comes first

    found = mneme.recall(S, "coffee", budget=100)

    assert len(found.chosen) == 1
    assert len(found.chosen[0].note.text) > 100
    assert [reason for _note, reason in found.skipped] == ["over the 100-character budget"]


@pytest.mark.parametrize("limit", [6, 2])
def test_the_limit_bounds_the_notes(mneme: Mneme, limit):
    for i in range(10):
        mneme.remember(S, f"coffee with friend number {i}")

    found = mneme.recall(S, "coffee", limit=limit)

    assert len(found.chosen) == limit
    reasons = {reason for _note, reason in found.skipped}
    assert reasons == {f"over the limit of {limit} notes"}


def test_defaults_are_six_notes_and_800_characters(mneme: Mneme):
    for i in range(10):
        mneme.remember(S, f"coffee with friend number {i}")
    for i in range(10):
        mneme.remember(S, f"tea with friend number {i}: " + "many more words " * 12)

    assert len(mneme.recall(S, "coffee").chosen) == 6
    assert sum(len(t) for t in texts(mneme.recall(S, "tea"))) <= 800


@pytest.fixture
def lasting_and_fading(mneme: Mneme) -> Mneme:
    now = mneme.clock()
    mneme.remember(S, "is afraid of dogs", kind="fact", importance=4)
    mneme.remember(S, "ran a marathon", kind="episode", importance=4, happened_at=now - 40 * DAY)
    mneme.remember(S, "is allergic to peanuts", kind="fact", importance=4)
    mneme.remember(S, "owns a bicycle", kind="fact", importance=2)
    mneme.remember(S, "prefers window seats", kind="preference", importance=4)
    mneme.remember(S, "visited grandma", kind="episode", happened_at=now - 3 * DAY)
    mneme.remember(S, "baked sourdough bread", kind="episode", happened_at=now - 1 * DAY)
    return mneme


def test_important_and_recent_notes_fill_spare_room(lasting_and_fading: Mneme):
    found = lasting_and_fading.recall(S, "zebra")

    whys = {r.note.text: r.why for r in found.chosen}
    assert whys == {
        "prefers window seats": "important",
        "is allergic to peanuts": "important",
        "baked sourdough bread": "recent",
    }


def test_fillers_follow_their_counts(lasting_and_fading: Mneme):
    none = lasting_and_fading.recall(S, "zebra", important=0, recent=0)
    more = lasting_and_fading.recall(S, "zebra", important=3, recent=2)

    assert none.chosen == []
    assert [r.why for r in more.chosen] == ["important"] * 3 + ["recent"] * 2
    assert "owns a bicycle" not in texts(more)
    assert "ran a marathon" not in texts(more)  # important, but it fades; and it is older


def test_fillers_come_after_the_matches(lasting_and_fading: Mneme):
    found = lasting_and_fading.recall(S, "grandma")

    assert [r.why for r in found.chosen] == ["matched: grandma", "important", "important", "recent"]
    assert texts(found)[0] == "visited grandma"


# explain


def test_explain_lists_chosen_and_skipped_with_reasons(mneme: Mneme):
    for place in ("Alps", "Andes"):
        mneme.remember(S, f"went hiking in the {place}")
    mneme.remember(S, "likes green tea", kind="preference")

    found = mneme.recall(S, "hiking", recent=0)
    lines = found.explain().splitlines()

    assert lines[0] == "recall for 'hiking' (words):"
    chosen = [re.fullmatch(r"  \+ #(\d+) (.+) \(score (\d+\.\d\d)\): (.+)", line) for line in lines[1:3]]
    assert all(chosen)
    assert [(int(m[1]), m[2], m[4]) for m in chosen] == [
        (r.note.id, "matched: hike", r.note.text) for r in found.chosen
    ]
    assert [float(m[3]) for m in chosen] == [round(r.score, 2) for r in found.chosen]
    tea = mneme.notes(S, kinds=["preference"])[0]
    assert lines[3:] == [f"  - #{tea.id} nothing in common with the query: likes green tea"]


def test_explain_clips_long_texts_and_says_when_nothing_is_remembered(mneme: Mneme):
    mneme.remember(S, "coffee " + "word " * 40)

    line = mneme.recall(S, "coffee").explain().splitlines()[1]

    assert line.endswith("…")
    assert len(line.split("): ", 1)[1]) == 70
    assert mneme.recall("nobody", "coffee").explain().splitlines()[1] == (
        "  nothing remembered about this person yet"
    )


def test_explain_says_too_little_in_common(mneme: Mneme, monkeypatch):
    monkeypatch.setattr(hops, "SEEDS", 0)  # Lisbon would lead from the grinder to the coffee (test_hops)
    mneme.remember(S, "bought an espresso grinder in Lisbon")
    for name in ("Anna", "Ben", "Carla", "Dora", "Emil", "Finn", "Gus", "Hana"):
        mneme.remember(S, f"had coffee with {name}")
    mneme.remember(S, "drank coffee in Lisbon")

    found = mneme.recall(S, "espresso grinder coffee", recent=0)

    assert texts(found) == ["bought an espresso grinder in Lisbon"]
    assert {reason for _note, reason in found.skipped} == {"too little in common with the query"}


# a long history, and the index


def test_a_long_history_reads_a_bounded_number_of_postings(mneme: Mneme, read_postings):
    now = mneme.clock()
    old = mneme.remember(
        S, "is allergic to peanuts", kind="fact", importance=4, happened_at=now - 2 * 365 * DAY
    )
    for i in range(3000):
        mneme.remember(S, f"coffee chat number {i}")

    found = mneme.recall(S, "coffee")

    assert len(found.chosen) == 6
    assert all(r.why == "matched: coffee" for r in found.chosen)
    ((term, df, take),) = read_postings[-1]
    assert (term, df) == ("coffee", 3000)
    assert take <= recall_module.POSTINGS < df

    rare = mneme.recall(S, "coffee peanut")
    assert rare.chosen[0].note.id == old.id
    assert sum(take for _term, _df, take in read_postings[-1]) <= recall_module.POSTINGS


def test_a_query_of_many_common_words_reads_at_most_the_postings_budget(mneme: Mneme, read_postings):
    words = "coffee tea milk sugar cream cookie cake bread jam butter toast honey"
    for i in range(600):
        mneme.remember(S, f"{words} number {i}")

    found = mneme.recall(S, words)

    assert len(found.chosen) == 6
    assert len(read_postings[-1]) == 12
    assert sum(take for _term, _df, take in read_postings[-1]) <= recall_module.POSTINGS


def test_forgotten_and_replaced_notes_leave_the_index(mneme: Mneme, db_path):
    walk = mneme.remember(S, "walks the dog every morning")
    mneme.remember(S, "walks to work")
    berlin = mneme.remember(S, "lives in Berlin", kind="fact", key="user.city")
    assert df_of(db_path, "walk") == 2

    mneme.forget(S, id=walk.id)
    mneme.remember(S, "lives in Lisbon", kind="fact", key="user.city")

    with raw(db_path) as conn:
        for note in (walk, berlin):
            assert conn.execute("select count(*) from postings where note_id = ?", (note.id,)).fetchone() == (
                0,
            )
    assert df_of(db_path, "walk") == 1
    assert df_of(db_path, "dog") == 0
    assert df_of(db_path, "berlin") == 0
    assert df_of(db_path, "lisbon") == 1
    assert texts(mneme.recall(S, "dog berlin", recent=0)) == []


# the hot path, and the tokenizer


def test_recall_does_not_commit_until_the_log_is_read(mneme: Mneme, db_path):
    note = mneme.remember(S, "went hiking in Kyoto")

    found = mneme.recall(S, "hiking")

    assert texts(found) == ["went hiking in Kyoto"]
    with raw(db_path) as conn:
        assert conn.execute("select count(*) from recalls").fetchone() == (0,)
        assert conn.execute("select recalled_at from notes where id = ?", (note.id,)).fetchone() == (None,)
    logged = mneme.recalls(S)
    assert [entry["query"] for entry in logged] == ["hiking"]
    assert logged[0]["chosen"] == [[note.id, "matched: hike"]]
    with raw(db_path) as conn:
        assert conn.execute("select count(*) from recalls").fetchone() == (1,)
        assert conn.execute("select recalled_at from notes where id = ?", (note.id,)).fetchone() == (
            mneme.clock(),
        )


@pytest.mark.skipif(importlib.util.find_spec("jieba") is not None, reason="jieba is installed here")
def test_recall_works_when_jieba_is_asked_for_but_missing(mneme: Mneme):
    mneme.remember(S, "养了一只叫年糕的猫")
    try:
        assert text.use_jieba() is False
        assert text.version() == text.TERMS_VERSION
        found = mneme.recall(S, "我的猫")
    finally:
        text.use_jieba(False)

    assert texts(found) == ["养了一只叫年糕的猫"]


async def test_arecall_chooses_what_recall_chooses(mneme: Mneme):
    for name in ("Anna", "Ben"):
        mneme.remember(S, f"had coffee with {name}")
    mneme.remember(S, "bought an espresso grinder")
    mneme.remember(S, "likes green tea", kind="preference")

    found = await mneme.arecall(S, "espresso coffee", log=False)

    assert found.explain() == mneme.recall(S, "espresso coffee", log=False).explain()
    assert texts(found)[0] == "bought an espresso grinder"


# filters


@pytest.fixture
def cats_of_every_kind(mneme: Mneme, monkeypatch) -> Mneme:
    # Levels a few notes deep, so the filtered notes sit in settled, recent and fresh postings alike.
    monkeypatch.setattr(index_module, "FRESH_NOTES", 3)
    monkeypatch.setattr(index_module, "RECENT_NOTES", 6)
    now = mneme.clock()
    mneme.remember(S, "the cat is called Mochi", kind="fact", importance=5)
    for days in (40, 30, 20, 10, 5, 3, 2, 1):
        mneme.remember(S, f"fed the cat {days} days ago", happened_at=now - days * DAY)
    mneme.remember(S, "take the cat to the vet", kind="plan", happened_at=now + 2 * DAY)
    mneme.remember(S, "likes cat videos", kind="preference", importance=4)
    return mneme


def test_recall_keeps_to_the_kinds_asked_for(cats_of_every_kind: Mneme):
    found = cats_of_every_kind.recall(S, "cat", kinds=["plan", "preference"])

    assert sorted(texts(found)) == ["likes cat videos", "take the cat to the vet"]
    assert {r.note.kind for r in found.chosen} == {"plan", "preference"}
    assert all(note.kind in ("plan", "preference") for note, _reason in found.skipped)


def test_recall_keeps_to_the_dates_asked_for(cats_of_every_kind: Mneme):
    now = cats_of_every_kind.clock()
    found = cats_of_every_kind.recall(S, "fed cat", since=now - 25 * DAY, until=now - 2.5 * DAY, limit=10)
    nothing = cats_of_every_kind.recall(S, "cat", since=now - 100 * DAY, until=now - 60 * DAY)

    assert sorted(texts(found)) == sorted(f"fed the cat {d} days ago" for d in (20, 10, 5, 3))
    assert nothing.chosen == []


def test_the_overview_keeps_to_the_filters_too(cats_of_every_kind: Mneme):
    plans = cats_of_every_kind.recall(S, "", kinds=["plan"])
    recent = cats_of_every_kind.recall(S, "", kinds=["episode"], since=cats_of_every_kind.clock() - 4 * DAY)

    assert texts(plans) == ["take the cat to the vet"]
    assert texts(recent) == [f"fed the cat {d} days ago" for d in (1, 2, 3)]


@pytest.mark.parametrize(
    ("filters", "error"),
    [
        ({"kinds": ["secret"]}, "kinds are among"),
        ({"kinds": "plan"}, "kinds are a list"),
        ({"since": "yesterday"}, "since is a time in seconds"),
        ({"until": -5}, "until is a time in seconds"),
        ({"since": 1_709_294_400, "until": 1_709_294_400}, "until .* must come after since"),
    ],
)
def test_bad_filters_are_refused(mneme: Mneme, filters, error):
    with pytest.raises((ValueError, TypeError), match=error):
        mneme.recall(S, "cat", **filters)


def test_a_filtered_match_is_found_behind_many_better_ones(mneme: Mneme, monkeypatch):
    monkeypatch.setattr(index_module, "FRESH_NOTES", 3)  # most postings settle: the SQL must filter them
    monkeypatch.setattr(index_module, "RECENT_NOTES", 6)
    now = mneme.clock()
    mneme.remember(S, "plan to adopt a cat", kind="plan", importance=1, happened_at=now - 300 * DAY)
    for i in range(40):  # each a better match than the plan: fresher, more important
        mneme.remember(S, f"played with the cat, day {i}", importance=4)

    found = mneme.recall(S, "cat", kinds=["plan"], recent=0, important=0)

    assert texts(found) == ["plan to adopt a cat"]
