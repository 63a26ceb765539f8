"""Build `mneme_core/memory/common_words.tsv`: the terms (`text.terms`) of the words common in any English or
Chinese text, each with how common (its Zipf frequency: log10 of its uses per billion words), from wordfreq.

    pip install wordfreq==3.1.1 && python benchmarks/data/build_common.py

wordfreq is not a dependency of Mneme: the table it gives is committed, and recall reads it
(`memory.common`). Run this again when `text.TERMS_VERSION` changes (the terms are stems, so a changed
stemmer would miss them; a test checks the table's version). English: every word of wordfreq's 200,000
commonest, its terms (a stem keeps the commonest of its words' frequencies). Chinese: the words of one or two
characters, which are exactly a term of ours (a character or a pair). Only terms commoner than the table's
floor (`common.FLOORS`) are kept: rarer ones weigh whole.

wordfreq's data is CC BY-SA 4.0 (Robyn Speer and the sources its README names), so the table is too; its
header says so.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import wordfreq

from mneme_core import text
from mneme_core.memory import common

OUT = Path(__file__).resolve().parents[2] / "mneme_core" / "memory" / "common_words.tsv"
WORDS = 200_000


def main() -> None:
    found: dict[str, float] = {}
    for word in wordfreq.top_n_list("en", WORDS):
        zipf = wordfreq.zipf_frequency(word, "en")
        for term in text.terms(word):
            if not text.unspaced(term) and zipf > common.FLOORS[False]:
                found[term] = max(found.get(term, 0.0), zipf)
    for word in wordfreq.top_n_list("zh", WORDS):
        zipf = wordfreq.zipf_frequency(word, "zh")
        single_term = len(word) <= 2 and text.unspaced(word) and word in text.terms(word)
        if single_term and zipf > common.FLOORS[True]:
            found[word] = max(found.get(word, 0.0), zipf)
    rows = sorted(found.items(), key=lambda item: (-item[1], item[0]))
    header = [
        f"# {text.TERMS_VERSION}",
        f"# built by benchmarks/data/build_common.py from wordfreq {version('wordfreq')}"
        " (Robyn Speer; its data and so this table: CC BY-SA 4.0, https://github.com/rspeer/wordfreq)",
        "# term<TAB>Zipf frequency (log10 of uses per billion words)",
    ]
    table = header + [f"{term}\t{zipf:.2f}" for term, zipf in rows]
    OUT.write_text("\n".join(table) + "\n", encoding="utf-8")
    print(f"{len(rows)} terms -> {OUT}")


if __name__ == "__main__":
    main()
