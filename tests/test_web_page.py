"""The page in a real headless browser: Debian's chromium driven by Playwright, over the app served on
loopback. Open the page, find a person, edit a note, forget one, see the mood and closeness charts drawn,
ask the recall playground, read the Chinese page. Screenshots are kept as artefacts (`MNEME_ARTEFACTS`, or
pytest's temporary folder, which keeps the last runs).

Without chromium or Playwright the tests are skipped, saying which is missing; `.ci/run` installs
chromium, so CI runs them."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Clock
from web_harness import CAT, CITY, seed, served

from mneme_core import Mneme
from mneme_core.web import create_app

CHROMIUM = os.environ.get("MNEME_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no browser at {CHROMIUM}: apt-get install -y chromium", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One chromium for the module, with a fresh profile, launched from Debian's binary."""
    profile = tempfile.mkdtemp(prefix="mneme-chromium-")
    with playwright_api.sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1200, "height": 800},
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("MNEME_ARTEFACTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def companion(path: Path, language: str = "en") -> Mneme:
    clock = Clock()
    m = Mneme(path, space="mio", clock=clock, zone="UTC+8", display_language=language)
    seed(m, clock)
    return m


@pytest.fixture
def page(browser, tmp_path):
    """A page open on a fresh companion's memory; yields (page, the Mneme, the page's errors)."""
    m = companion(tmp_path / "mneme.db")
    errors: list[str] = []
    try:
        with served(create_app(m)) as url:
            tab = browser.new_page()
            tab.on("pageerror", lambda err: errors.append(str(err)))
            tab.on("dialog", lambda dialog: dialog.accept())  # "forget this note?": yes
            tab.goto(url + "/")
            tab.wait_for_selector("body[data-ready]")
            yield tab, m, errors
            tab.close()
    finally:
        m.close()


def open_person(tab, subject: str) -> None:
    tab.click(f"#people li[data-subject='{subject}']")
    tab.wait_for_selector("#notes tr[data-note]")


def test_the_page_lists_people_and_finds_one(page, artefacts):
    tab, _, errors = page
    assert tab.locator("#people li").count() == 2
    tab.fill("#search", "小明")
    tab.wait_for_function("document.querySelectorAll('#people li').length === 1")
    assert tab.inner_text("#people li").startswith("小明")
    tab.fill("#search", "")
    tab.wait_for_function("document.querySelectorAll('#people li').length === 2")
    open_person(tab, CAT)
    texts = tab.locator("#notes td.text").all_inner_texts()
    assert texts == ["Exam on Friday", "Lives in Paris now", "Has a cat named Mochi"]
    tab.screenshot(path=str(artefacts / "people.png"))
    assert errors == []


def shows(tab, text: str) -> None:
    """Wait until a row of the notes says `text`."""
    tab.wait_for_function(
        "text => [...document.querySelectorAll('#notes td.text')].some(td => td.textContent === text)",
        arg=text,
    )


def test_the_archive_filter_shows_the_engines_archive(page):
    tab, m, errors = page
    m.remember(CAT, "Went to a jazz bar in March", kind="episode", happened_at=m.clock() - 300 * 86400.0)
    assert m.tend().archived == 1
    open_person(tab, CAT)
    assert not tab.locator("#filter-archived").is_disabled()
    tab.check("#filter-archived")
    tab.wait_for_function("document.querySelectorAll('#notes td.text').length === 1")
    assert tab.locator("#notes td.text").all_inner_texts() == ["Went to a jazz bar in March"]
    assert errors == []


def test_a_note_is_edited_and_another_forgotten(page, artefacts):
    tab, m, errors = page
    open_person(tab, CAT)
    mochi = next(n for n in m.notes(CAT) if n.key == "pet.name")
    row = tab.locator(f"#notes tr[data-note='{mochi.id}']")
    row.locator("button.edit").click()
    row.locator("input.edit-text").fill("Has a cat named Yuzu")
    row.locator("button.save").click()
    shows(tab, "Has a cat named Yuzu")
    assert [n.text for n in m.history(CAT, "pet.name")] == ["Has a cat named Mochi", "Has a cat named Yuzu"]
    exam = next(n for n in m.notes(CAT) if n.text == "Exam on Friday")
    tab.locator(f"#notes tr[data-note='{exam.id}'] button.forget").click()
    tab.wait_for_selector(f"#notes tr[data-note='{exam.id}']", state="detached")
    shows(tab, "Has a cat named Yuzu")  # the list, drawn again without the forgotten note
    assert "Exam on Friday" not in tab.locator("#notes td.text").all_inner_texts()
    assert "Exam on Friday" not in [n.text for n in m.notes(CAT)]
    tab.screenshot(path=str(artefacts / "notes-edited.png"))
    assert errors == []


def test_a_note_is_added_and_a_refusal_shown(page):
    tab, m, errors = page
    open_person(tab, CAT)
    tab.fill("#new-text", "Plays the cello")
    tab.click("#new-note button[type=submit]")
    shows(tab, "Plays the cello")
    assert "Plays the cello" in [n.text for n in m.notes(CAT)]
    tab.fill("#new-text", "x")
    tab.fill("#new-key", "Not A Key!")
    tab.click("#new-note button[type=submit]")
    tab.wait_for_selector("#status.bad")
    assert "'Not A Key!' is not a key" in tab.inner_text("#status")
    assert errors == []


def test_the_mood_and_closeness_charts_are_drawn(page, artefacts):
    tab, m, errors = page
    open_person(tab, CAT)
    tab.click("#tabs button[data-tab=mood]")
    tab.wait_for_selector("#mood-chart polyline")
    assert tab.locator("#mood-chart circle").count() == len(m.mood_timeline(CAT)) + 1  # and the mood now
    assert tab.locator("#mood-events li").count() == 2
    assert tab.inner_text("#mood-line").endswith(m.describe_mood(CAT))
    box = tab.locator("#mood-chart").bounding_box()
    assert box["width"] > 300 and box["height"] > 100
    tab.screenshot(path=str(artefacts / "mood.png"))
    tab.click("#tabs button[data-tab=relation]")
    tab.wait_for_selector("#closeness-chart polyline")
    assert tab.locator("#closeness-chart circle").count() == 2  # the role given, and closeness now
    tab.select_option("#role", "family")
    tab.fill("#closeness", "75")
    tab.click("#relate")
    tab.wait_for_function("document.querySelectorAll('#closeness-chart circle').length === 3")
    assert m.relationship(CAT).role == "family"
    tab.screenshot(path=str(artefacts / "relationship.png"))
    assert errors == []


def test_the_recall_playground_key_histories_and_log(page, artefacts):
    tab, _, errors = page
    open_person(tab, CAT)
    tab.click("#tabs button[data-tab=recall]")
    tab.fill("#query", "how is the cat")
    tab.click("#recall-go")
    tab.wait_for_function("document.querySelector('#chosen').textContent.includes('matched: cat')")
    assert "Has a cat named Mochi" in tab.inner_text("#chosen")
    assert "- Has a cat named Mochi" in tab.inner_text("#block")
    tab.screenshot(path=str(artefacts / "recall.png"))
    tab.click("#tabs button[data-tab=keys]")
    tab.wait_for_selector("#versions li")
    assert tab.locator("#versions li").count() == 2  # user.city: Lyon, then Paris
    tab.click("#tabs button[data-tab=log]")
    tab.wait_for_selector("#log li")
    assert "how is the cat" in tab.inner_text("#log")
    tab.click("#view-check-button")
    tab.click("#check-run")
    tab.wait_for_selector("#findings p, #findings table")
    assert tab.locator("#check-unavailable").count() == 0
    assert errors == []


def test_the_page_speaks_chinese_when_the_companion_does(browser, tmp_path, artefacts):
    m = companion(tmp_path / "zh.db", "zh")
    try:
        with served(create_app(m)) as url:
            tab = browser.new_page()
            tab.goto(url + "/")
            tab.wait_for_selector("body[data-ready]")
            assert tab.inner_text("#view-check-button") == "健康检查"
            open_person(tab, CITY)
            assert tab.inner_text("#tabs button[data-tab=notes]") == "笔记"
            assert tab.locator("#notes td.text").all_inner_texts() == ["喜欢喝乌龙茶"]
            assert tab.evaluate("document.documentElement.lang") == "zh"
            tab.screenshot(path=str(artefacts / "people-zh.png"))
            tab.close()
    finally:
        m.close()
