"""The floor: the similarity under which an embedder's vectors say nothing, measured per model and per file.

Models differ a lot here: one model's unrelated sentences sit near 0.0, a static model's near 0.4. A
similarity counts as evidence only above the floor, scaled to 0..1 between the floor and 1.

Two measures, for the two ways similarity is taken (see `vectors`):
- A person with `vectors.CENTER_MIN` vectors or more is searched with their mean direction taken out, and
  the floor is measured there, on their own notes, each time their matrix is rebuilt: the 95th percentile of
  the similarity of pairs of their notes (a person's notes are mostly about different things, so this is
  what chance alone reaches for this model on this person's notes).
- A person with fewer is searched by plain cosine, with the embedder's floor: given (`floor=`), or measured
  once per file on the bundled set below (short pairs about one topic, "related", and pairs about two,
  "unrelated", in English, Chinese and across the two; one batch of 40 short texts): the midpoint between
  the related pairs' first quartile and the unrelated pairs' 95th percentile when the two medians are at
  least 0.1 apart, else `DEFAULT`. Once the file holds `FILE_MIN` vectors of the model, and at each
  doubling, it is measured again on a sample of the file's notes (95th percentile of their pairs), moved at
  most `SHIFT` from the bundled measure. It is kept in the file (`embedders.floor`).
"""

from __future__ import annotations

from typing import Any

from .embeddings import numpy

DEFAULT = 0.33
FILE_MIN = 200
SAMPLE = 300
SHIFT = 0.15
CLIP = (0.05, 0.9)

# (a, b) about one topic; unrelated pairs are made by pairing each a with another topic's b.
TOPICS: tuple[tuple[str, str], ...] = (
    ("My cat knocked the plant off the shelf again.", "The kitten keeps climbing the curtains."),
    ("I adopted a puppy from the shelter.", "我们家新养了一只小狗。"),
    ("I ran my first half marathon last weekend.", "Training for a long-distance race is exhausting."),
    ("我最近在学游泳，已经能游五十米了。", "She finally learned to swim without a float."),
    ("Grandpa had heart surgery yesterday.", "爷爷住院做了心脏手术。"),
    ("My sister is getting married in September.", "The wedding is in a barn in Vermont."),
    ("I baked sourdough bread this morning.", "面包烤好了，满屋子都是香味。"),
    ("I'm nervous about my exam tomorrow.", "明天就要考试了，我好紧张。"),
    ("We flew to Tokyo for the holidays.", "Our trip to Japan was amazing."),
    ("My boss refused to give me a raise.", "老板说了一年加薪都没兑现。"),
    ("I started learning the guitar.", "每天晚上练一个小时吉他。"),
    ("The car broke down on the highway.", "My engine died and I had to call a tow truck."),
    ("I'm allergic to peanuts.", "吃花生会过敏。"),
    ("We moved into a new apartment near the park.", "新家离公园很近，有个小院子。"),
    ("My phone screen cracked when I dropped it.", "手机摔了，屏幕碎了。"),
    ("I got promoted to team lead.", "我升职了，现在管五个人。"),
    ("It rained all day and I stayed home reading.", "Stuck indoors with a book while it poured outside."),
    ("Mom opened a small noodle shop.", "我妈妈开了一家面馆。"),
    ("I passed my driving test on the second try.", "驾照终于考过了。"),
    ("I've been meditating before bed to sleep better.", "Mindfulness at night helps me fall asleep."),
)


def texts() -> list[str]:
    return [t for pair in TOPICS for t in pair]


def _pair_sims(vectors: Any) -> tuple[Any, Any]:
    np = numpy()
    a, b = vectors[0::2], vectors[1::2]
    related = np.sum(a * b, axis=1)
    unrelated = np.concatenate([np.sum(a * np.roll(b, k, axis=0), axis=1) for k in range(1, 6)])
    return related, unrelated


def bundled_floor(vectors: Any) -> float:
    """The floor from the vectors of `texts()`, in order."""
    np = numpy()
    related, unrelated = _pair_sims(vectors)
    if float(np.median(related) - np.median(unrelated)) < 0.1:
        return DEFAULT
    floor = (float(np.quantile(related, 0.25)) + float(np.quantile(unrelated, 0.95))) / 2
    return float(min(max(floor, CLIP[0]), CLIP[1]))


def file_floor(vectors: Any, around: float) -> float:
    """The floor from a sample of a file's vectors, at most `SHIFT` from `around`."""
    np = numpy()
    sims = vectors @ vectors.T
    upper = sims[np.triu_indices(len(vectors), k=1)]
    measured = float(np.quantile(upper, 0.95))
    floor = min(max(measured, around - SHIFT), around + SHIFT)
    return float(min(max(floor, CLIP[0]), CLIP[1]))
