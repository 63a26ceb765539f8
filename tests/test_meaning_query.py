"""What of a query the meaning tier embeds: a dialogue so far's latest lines (and a Chinese one's last line
apart), a question whole."""

from __future__ import annotations

import numpy as np
import pytest
from tier_fakes import S

from mneme_core import Mneme
from mneme_core.meaning import Embeddings
from mneme_core.meaning.tiers import LATEST, Placed, placed_texts

CAT = "养了一只叫年糕的猫"
TEA = "likes oolong tea in the morning"

OLD = [
    "I went to Lisbon last spring, the tiles were everywhere.",
    "Did you eat the custard tarts?",
]
RECENT = [
    "Anyway, I just came home from work.",
    "Welcome back!",
    "Thanks. I am so tired.",
    "How was your day?",
    "Long. The cat knocked my tea over again.",
    "Oh no, is the cat alright?",
]


class Recording:
    """An embedder whose queries are kept: a note near axis 0 when it names the cat, axis 1 for tea."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    @staticmethod
    def vector(text: str) -> list[float]:
        low = text.lower()
        return [1.0 if ("cat" in low or "猫" in low) else 0.0, 1.0 if "tea" in low else 0.0, 0.2]

    def notes(self, texts: list[str]) -> list[list[float]]:
        return [self.vector(t) for t in texts]

    def query(self, texts: list[str]) -> list[list[float]]:
        self.queries.extend(texts)
        return [self.vector(t) for t in texts]


def companion(db_path, clock, model: Recording) -> Mneme:
    m = Mneme(
        db_path, space="test", clock=clock, embed=Embeddings(model.notes, name="rec", query=model.query)
    )
    m.remember(S, CAT)
    m.remember(S, TEA)
    m.embed_pending()
    return m


async def test_of_a_dialogue_so_far_only_its_latest_lines_are_embedded(db_path, clock):
    assert len(RECENT) == LATEST
    model = Recording()
    with companion(db_path, clock, model) as m:
        found = await m.arecall(S, "\n".join(OLD + RECENT))
    assert model.queries == ["\n".join(RECENT)]  # Lisbon and the tarts are the conversation's past
    assert found.tier == "embeddings" and CAT in [r.note.text for r in found.chosen]


async def test_a_question_is_embedded_whole_and_a_short_dialogue_all_of_it(db_path, clock):
    model = Recording()
    with companion(db_path, clock, model) as m:
        await m.arecall(S, "what is my cat called?")
        await m.arecall(S, "\n".join(RECENT[-2:]))
    assert model.queries == ["what is my cat called?", "\n".join(RECENT[-2:])]


async def test_dialogues_that_end_alike_are_embedded_once(db_path, clock):
    model = Recording()
    with companion(db_path, clock, model) as m:
        await m.arecall(S, "\n".join(OLD + RECENT))
        await m.arecall(S, "\n".join(OLD[1:] + RECENT))  # the same latest lines: the cached vector
        await m.arecall(S, "\n".join([*RECENT, "It is, it just ran off."]))
    assert model.queries == ["\n".join(RECENT), "\n".join([*RECENT[1:], "It is, it just ran off."])]


class Counting(Recording):
    """The same axes, each as long as the times its word is said ("咪", kitty, is the cat's too): a dialogue
    that says "茶" six times and "咪" once points at the tea."""

    @staticmethod
    def vector(text: str) -> list[float]:
        low = text.lower()
        return [low.count("cat") + low.count("猫") + low.count("咪"), low.count("tea") + low.count("茶"), 0.2]


# The last line names the cat by a word its note does not have: only meaning finds it.
TEA_TALK = [
    "我泡了一壶茶，好茶。",
    "又是茶？你天天喝茶。",
    "这茶真的不错，明天还喝茶。",
    "哎，我家小咪跑哪去了？",
]


async def test_a_chinese_note_near_the_line_being_answered_is_found_though_the_chat_points_elsewhere(
    db_path, clock
):
    model = Counting()
    with companion(db_path, clock, model) as m:
        # No recent notes beside the matches: each note chosen is one the query found.
        found = await m.arecall(S, "\n".join(TEA_TALK), recent=0)
        whole = await m.arecall(S, " ".join(TEA_TALK), recent=0)  # the same words as one line: placed whole
    assert model.queries == ["\n".join(TEA_TALK), TEA_TALK[-1], " ".join(TEA_TALK)]
    assert found.tier == "embeddings" and CAT in [r.note.text for r in found.chosen]
    assert [r.note.text for r in whole.chosen] == [TEA]  # the cat's one word in four of tea is too little


class CountingE5:
    """An E5-like model that counts a text's tokens as its words, plus 2, and keeps the queries it got."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def token_count(self, text: str, is_query: bool = False) -> int:
        return len(text.split()) + 2 + (2 if is_query else 0)

    def query(self, texts):
        self.queries.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32)

    def passage(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32)


async def test_e5_places_at_most_its_query_tokens_dropping_the_oldest_lines_first_but_not_the_last_two():
    mneme_embed = pytest.importorskip("mneme_embed")
    model = CountingE5()
    e5 = mneme_embed.E5Embeddings(model, name="e5:counting", query_tokens=20)
    lines = ["one two three four five six", "seven eight nine ten", "eleven twelve", "thirteen"]
    await e5.embed(["\n".join(lines)])  # 13 words: 17 tokens, within the bound
    await e5.embed(["\n".join(["a b c d e f g h", *lines])])  # 21 words: 25 tokens, its first line goes
    long = "a b c d e f g h i j k l m n o p q r s t u v"
    await e5.embed(["\n".join(["hello there", long, "and you?"])])  # the last two lines stay, however long
    await e5.embed(["\n".join(["hello there", "how are you", long, long])])
    await e5.embed(["a b c d e f g h i j k l m n o p q r s t u v w x y z"])  # one line: whole
    assert model.queries == [
        "\n".join(lines),
        "\n".join(lines),
        f"{long}\nand you?",
        f"{long}\n{long}",
        "a b c d e f g h i j k l m n o p q r s t u v w x y z",
    ]
    whole = mneme_embed.E5Embeddings(CountingE5(), name="e5:whole", query_tokens=None)
    await whole.embed(["\n".join(["a b c d e f g h", *lines])])
    assert whole.model.queries == ["\n".join(["a b c d e f g h", *lines])]
    with pytest.raises(ValueError, match="query_tokens"):
        mneme_embed.E5Embeddings(CountingE5(), name="e5:none", query_tokens=0)


@pytest.mark.parametrize(
    ("last", "apart"),
    [
        ("明年五一我们去三亚潜水吧", True),
        ("我用Unity写了一整天bug", True),  # a few English words in a Chinese line
        ("lol same", False),
        ("so we went for margs after work 🍹🍹", False),  # an emoji's Chinese name does not count
        ("我今天 bought a new phone for work", False),  # mostly English
        ("[捂脸]", True),  # an emoticon's code is Chinese too
        ("ok", False),
    ],
)
def test_the_last_line_is_placed_apart_when_it_is_mostly_chinese(last, apart):
    turns = ("上周末去爬山了", last)
    assert placed_texts("\n".join(turns), turns) == ["\n".join(turns), *([last] if apart else [])]
    assert placed_texts(last) == [last]  # a question, one line: itself alone


def test_a_placed_query_does_not_print_its_vector():
    placed = Placed(1, np.full(384, 0.123456, dtype=np.float32), 0.8, None, 1.0)
    assert "0.123" not in repr(placed)  # hundreds of floats took 1.5 ms to print (`decide.run`)
    assert "floor=0.8" in repr(placed)
