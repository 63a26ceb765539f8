"""The mneme-llm 0.1.0 files the tests read: a config file and a database written by the reference itself.

Run it with mneme-llm 0.1.0 installed (it is on PyPI), never with Mneme's own environment:

    python3 -m venv /tmp/reference && /tmp/reference/bin/pip install mneme-llm==0.1.0
    /tmp/reference/bin/python tests/data/make_mneme_llm_files.py

It writes, beside itself:
- `mneme_llm_0.1.0_config.toml`: a companion's config in mneme-llm's own words (its placeholders
  `{assistant}` and `{language}`, its `[messages]` keys, keys Mneme has no equivalent for), which the
  reference reads without complaint (the script proves it by seeding the database below from it);
- `mneme_llm_0.1.0_template.toml`: what `mneme-llm config template` prints, every key mneme-llm has;
- `mneme_llm_0.1.0.db`: a database the reference wrote on a fixed clock, two companions (spaces) in one
  file: notes in English and Chinese, a key replaced twice, a forgotten note, profile cards, moods with
  their timelines, relationships, and the config above stored as the first companion's own copy.

The tests need no network: they read these files as shipped. Only the reference's public API is used.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import mneme_llm
from mneme_llm import Mneme

HERE = Path(__file__).parent
CONFIG = HERE / "mneme_llm_0.1.0_config.toml"
TEMPLATE = HERE / "mneme_llm_0.1.0_template.toml"
DATABASE = HERE / "mneme_llm_0.1.0.db"
START = 1_780_000_000.0  # 2026-05-28 20:26:40 UTC
DAY = 86400.0

CONFIG_TEXT = '''\
# A mneme-llm 0.1.0 config, written the way its README and `mneme-llm config template` describe.
[companion]
name = "大肥鱼"
display_language = "zh"
memory_language = "English"
zone = "Asia/Shanghai"

[memory]
daily_quota = 6
semantic_window = 3000

[mood]
baseline = 72.0
thresholds = {luna = 0.45}
weights = {user = 1.0, speak-up = 0.6, duty = 0.5}

[relations]
growth = 2.0

[[roles]]
key = "creator"
floor = 80
ceiling = 100
start = 100
fades = false
unique = true
names = {en = "the one who made you", zh = "创造你的人"}

[[roles]]
key = "friend"
floor = 20
ceiling = 90
start = 50
names = {en = "your friend", zh = "你的朋友"}

[[roles]]
key = "teacher"
floor = 40
ceiling = 95
start = 70
names = {en = "your teacher", zh = "你的老师"}

[prompts]
started_speak_up = "{assistant}主动去找{user}聊天，因为想念对方。"
translate = """
Translate the text into {language}. Keep names, numbers and dates.
Reply with only the translation."""
frame = "[{started} 你是{assistant}；对方是{user}。]"
note_gloss = ", \\"gloss\\": the same sentence in {language}"
reflect = """
用{lang}写一段{name}对{user}的印象（最多四句），根据这些笔记：
{notes}"""

[messages.zh]
"cue.happy" = "太好了：你很开心。"
"near.very_close" = "特别亲"
"role.creator" = "造出你的那个人"
"emotion.tender" = "心疼他"
"tool.quota" = "今天记得够多了，明天再说。"
"date.today" = "今儿"
"notes.impression" = "印象："
"error.value" = "出错了：{detail}"
"mood.reason" = "{user}说「{said}」"
"mood.now" = "（你此刻的{mood}）"

[messages.en]
"mood.separator" = " / "
"tool.forgot_one" = "Gone."
'''


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def fill(db: Path, clock: Clock) -> None:
    local = dict(luna=False, micro=False, embed=False, meaning_micro=False, memory_language=None, clock=clock)
    with Mneme(str(db), "dafeiyu", config=str(CONFIG), **local) as m:
        leo, mei = "discord:42", "qq:10086"
        m.relate(leo, "creator")
        m.relate(mei, "teacher", closeness=80)
        for city in ("Berlin", "Porto", "Lisbon"):
            m.remember(leo, f"Leo lives in {city}", kind="fact", key="user.city", importance=3)
            clock.advance(3600)
        m.remember(leo, "Leo has a cat named Mochi", kind="fact", key="pet.name", importance=4)
        m.remember(leo, "Leo likes oat milk lattes", kind="preference", importance=3)
        m.remember(leo, "Leo went hiking in Kyoto", happened_at=clock.now - 3 * DAY, feeling=0.6)
        exam = clock.now + 2 * DAY
        m.remember(leo, "Leo has a math exam", kind="plan", key="exam.math.date", happened_at=exam)
        owed = m.remember(leo, "Leo owes me five euros")
        clock.advance(300)
        m.forget(leo, id=owed.id)
        m.remember(mei, "美玲养了一只叫年糕的猫", kind="fact", key="pet.name", importance=5)
        m.remember(mei, "美玲下周五考数学", kind="plan", happened_at=clock.now + 7 * DAY, source="auto")
        m.memory.set_profile(leo, "Leo is a curious student who loves his cat Mochi.")
        m.mood.apply(leo, delta=6.0, emotions={"happy": 30.0}, reason="Leo passed his exam", source="user")
        clock.advance(600)
        m.mood.apply(mei, delta=-6.0, emotions={"tender": 40.0}, reason="美玲说考砸了", source="user")
        m.config.set("mood.threshold", 0.55)  # a key set by hand after the file was taken
    with Mneme(str(db), "other", **local) as m:
        m.remember("telegram:9", "Sam plays the cello", kind="fact", importance=3)


def main() -> None:
    if mneme_llm.__version__ != "0.1.0":
        raise SystemExit(f"this needs mneme-llm 0.1.0, not {mneme_llm.__version__}")
    CONFIG.write_text(CONFIG_TEXT, encoding="utf-8")
    template = [sys.executable, "-m", "mneme_llm", "config", "template"]
    TEMPLATE.write_text(subprocess.run(template, capture_output=True, check=True, text=True).stdout, "utf-8")
    for stale in (DATABASE, Path(f"{DATABASE}-wal"), Path(f"{DATABASE}-shm")):
        stale.unlink(missing_ok=True)
    fill(DATABASE, Clock())
    with sqlite3.connect(DATABASE) as conn:  # one self-contained file: no WAL beside it
        conn.execute("pragma journal_mode = delete")
        conn.execute("vacuum")
    conn.close()
    print(f"wrote {CONFIG.name}, {TEMPLATE.name} and {DATABASE.name} ({DATABASE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
