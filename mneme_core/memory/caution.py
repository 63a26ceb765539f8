"""Cautions: what a reply must not get wrong about a person, weighed up when the query is a chat.

A question says what it asks; a dialogue so far does not, and the note the next reply should bring up is
often one that changes what a friend would say: an allergy when a box of mangoes is offered, a bad knee
when a hike is planned, quitting drinking when two bottles of baijiu are on the way, a fear of fireworks
before a New Year's Eve. The chat seldom names it ("豆豆胆小，一听放炮就钻床底下发抖" is the note; the
chat is about 年三十 and 放鞭炮), so words and meaning both rank it below the notes about the chat's own
topic. Of the memories the dialogue sets mark (written blind, 1,902 in Chinese), 36% state such a caution,
against 19% of all their memories.

So in a dialogue so far (`Ask.turns`) a note that states a caution (`cautious`: an allergy or intolerance,
an illness, injury or operation, pain, what the person cannot, dare not or will not do, eat or drink, has
given up, fears or cannot stand) counts `CAUTION` times as much, as freshness and importance count
(`recall._matches`): with words alone it moves up, and in the fusion with meaning it moves up both lists. A
question is untouched, and so are transcript lines (the cautions are the curated notes'). Recall@6 of the
marked memories (rounds 10-17 of 80 Chinese and 40 English dialogues, the older rounds blind, 2 and 4-9;
blind 33 was written before this and measured once, before and after; blind 34 after it, asked to mark all
kinds of memories, 3 in 42 of them health facts, Chinese / English):

| set | e5 before -> after | words before -> after |
|---|---|---|
| Chinese, rounds 10-17 (640 q) | 0.740 -> 0.755 | 0.690 -> 0.701 |
| Chinese, older rounds (640 q) | 0.646 -> 0.661 | 0.603 -> 0.622 |
| Chinese, blind 21 (80 q) | 0.650 -> 0.700 | 0.606 -> 0.656 |
| Chinese, blind 31 (80 q) | 0.675 -> 0.731 | 0.637 -> 0.688 |
| Chinese, blind 32 (80 q) | 0.700 -> 0.675 | 0.644 -> 0.644 |
| Chinese, blind 33 (80 q) | 0.744 -> 0.762 (@10 0.800 -> 0.856) | 0.731 -> 0.725 (@10 0.762 -> 0.775) |
| blind 34, written after (40 zh / 40 en q) | 0.825 -> 0.850 / 0.850 both | 0.725 -> 0.750 / 0.812 -> 0.825 |
| English, rounds 10-17 (320 q) | 0.647 -> 0.659 | 0.584 -> 0.595 |
| English, older rounds (360 q) | 0.559 -> 0.584 | 0.515 -> 0.524 |
| English, dialogues (dev, 151 q) | 0.749 -> 0.746 | 0.587 -> 0.584 |

With a first, looser list (English words matched inside others, "still" and "quite" among them), twice as
much and 1.6 times found less than 1.3 (Chinese over all these rounds 0.694 and 0.702 against 0.708): they
put the cautions above the chat's own topic too often. Health alone (allergies, illness, injury, pain) gave
most of the gain (0.703), the refusals alone (cannot, fears, gave up) little (0.692).
"""

from __future__ import annotations

import re
import sqlite3

CAUTION = 1.3

# Chinese has no spaces: the words are matched anywhere in the note, but not inside a word that means
# something else: 怕 after 哪 or 恐 ("哪怕" even if, "恐怕" probably), 戒 in 戒指 (a ring), 疼 in 心疼
# (to dote on), 痛 in 痛快 (to one's heart's content). 伤 also in 伤心, which a reply should not get wrong
# either.
_CHINESE = (
    "过敏|不耐受|病|手术|骨折|骨裂|受伤|伤|(?<!心)疼|痛(?!快)|高血压|血压高|糖尿病|血糖|痛风|尿酸|哮喘|心脏|胃炎|"
    "结石|晕|肿|扭伤|崴|确诊|中毒|怀孕|孕|抑郁|焦虑|失眠|紧张|噩梦|阴影|"
    "不能|不敢|不会|(?<![哪恐])怕|恐高|戒(?!指)|不吃|不喝|不碰|不沾|忌口|吃素|素食|清真|讨厌|受不了"
)
_ENGLISH = (
    r"allerg\w*|intoleran\w*|diabet\w*|injur\w*|surger\w*|operation|asthma|gout|migraines?|"
    r"pain|painful|aches?|\w*sick\w*|ill|illness|disease|diagnos\w*|poison\w*|fractur\w*|broken|"
    r"broke (?:my|his|her|their|a|an)|tore|torn|sprain\w*|swell\w*|swollen|pregnan\w*|"
    r"blood pressure|cholesterol|heart (?:attack|condition|disease|surgery|problems?)|"
    r"anxiety|anxious|nervous|panic|depress\w*|insomnia|nightmares?|trauma\w*|claustrophob\w*|"
    r"can't|cannot|can not|couldn't|won't|never (?:eats?|drinks?)|doesn't (?:eat|drink)|"
    r"don't (?:eat|drink)|not allowed|afraid|scared|terrified|phobi\w*|fears?|hates?|"
    r"quit|sober|vegan|vegetarian|halal|kosher|avoids?|can't stand"
)
_CAUTIOUS = re.compile(rf"{_CHINESE}|(?i:\b(?:{_ENGLISH})\b)")


def cautious(text: str) -> bool:
    """Whether a note states a caution (see the module docstring)."""
    return _CAUTIOUS.search(text.replace("’", "'")) is not None


def among(conn: sqlite3.Connection, ids: str) -> frozenset[int]:
    """Which of these notes (`ids`, as `recall.ids_json` gives them) state a caution: their texts read in
    one statement, for the candidates of a dialogue's recall only (a few dozen notes)."""
    rows = conn.execute("select id, text from notes where id in (select value from json_each(?))", (ids,))
    return frozenset(note_id for note_id, said in rows if cautious(said))
