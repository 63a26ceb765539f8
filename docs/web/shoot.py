"""Take the screenshots in this folder: a demo companion served on loopback, each page in Debian's chromium.

    python docs/web/shoot.py            # needs the web and test extras and /usr/bin/chromium

A frozen clock spreads two weeks of notes, moods and days together, so the charts have something to draw.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from mneme_core import Mneme
from mneme_core.decide import run
from mneme_core.loopback import listen, url_of
from mneme_core.relations import seen
from mneme_core.web import create_app

HERE = Path(__file__).parent
START = 1_709_294_400.0  # 2024-03-01 12:00 UTC
DAY = 86400.0
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def demo(path: Path, language: str) -> Mneme:
    clock = Clock()
    m = Mneme(path, space="mio", clock=clock, zone="Asia/Shanghai", display_language=language,
              companion_name="Mio")  # fmt: skip
    leo, ming = "discord:42", "onebot:qq:10001"
    m.relate(leo, "friend")
    m.remember(leo, "Has a cat named Mochi", kind="fact", key="pet.name", importance=4)
    m.remember(leo, "Lives in Lyon", kind="fact", key="user.city")
    m.remember(ming, "喜欢喝乌龙茶", kind="preference", importance=3)
    m.remember(ming, "下周三有数学考试", kind="plan", importance=4, key="exam.math.date")
    moods = [(-12, {"worried": 35}, "a bad day at work"), (8, {"calm": 20}, "a quiet evening together"),
             (15, {"happy": 40}, "got the new job"), (-6, {"sad": 20}, "missed the concert"),
             (10, {"sweet": 30}, "said they missed me"), (12, {"happy": 30}, "passed the exam")]  # fmt: skip
    for day, (delta, feelings, why) in enumerate(moods):
        clock.now += 2 * DAY
        m.store.write(seen, m.space, leo, clock.now, m.relation_settings)
        m.feel(leo, delta=delta, emotions=feelings, reason=why, judge="model", confidence=0.8)
        run(lambda: m.transcript.aadd_line(f"dm:{leo}", subject=leo, text="hi", name="Leo"))
        if day == 2:
            m.remember(leo, "Lives in Paris now", kind="fact", key="user.city")
            m.remember(leo, "Started a new job at a bakery", kind="episode", importance=3)
    m.remember(leo, "Exam on Friday", kind="plan", importance=3)
    run(lambda: m.transcript.aadd_line(f"dm:{ming}", subject=ming, text="你好", name="小明"))
    m.feel(ming, delta=-8, emotions={"worried": 30}, reason="考试前很紧张")
    m.prompt(leo, "how is the cat doing")
    m.prompt(leo, "where do you live now")
    m.recall_log.flush()
    return m


def shoot(language: str, shots: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        m = demo(Path(folder) / "demo.db", language)
        sock = listen("127.0.0.1", 0)
        server = uvicorn.Server(uvicorn.Config(create_app(m), log_level="warning", lifespan="on"))
        thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        try:
            with sync_playwright() as driver:
                browser = driver.chromium.launch_persistent_context(
                    Path(folder) / "profile", executable_path="/usr/bin/chromium", headless=True, args=FLAGS,
                    viewport={"width": 1200, "height": 760},
                )  # fmt: skip
                page = browser.new_page()
                page.goto(url_of(sock))
                page.wait_for_selector("body[data-ready]")
                for name, action in shots:
                    page.evaluate(action)
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(HERE / f"{name}.png"))
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
            m.close()


def click(selector: str) -> str:
    return f"document.querySelector({selector!r}).click()"


def recall(query: str) -> str:
    return f"""(() => {{ document.querySelector("#tabs button[data-tab=recall]").click();
        setTimeout(() => {{ document.querySelector("#query").value = {query!r};
        document.querySelector("#recall-go").click(); }}, 150); }})()"""


if __name__ == "__main__":
    leo = "#people li[data-subject='discord:42']"
    shoot("en", [
        ("notes", click(leo)),
        ("key-histories", click("#tabs button[data-tab=keys]")),
        ("recall-playground", recall("how is the cat")),
        ("mood", click("#tabs button[data-tab=mood]")),
        ("relationship", click("#tabs button[data-tab=relation]")),
        ("recall-log", click("#tabs button[data-tab=log]")),
        ("health-check", click("#view-check-button")),
        ("settings", click("#view-config-button")),
    ])  # fmt: skip
    shoot("zh", [("notes-zh", click("#people li[data-subject='onebot:qq:10001']"))])
