"""The unify tier: the companion's own model, as the last tier before words.

Two jobs, one on each side of recall:
- notes: each note in another script than the memory language's is glossed once into it, in the background
  (`glossing`), so an English query finds "我的猫叫年糕" by the word "cat" in its gloss;
- queries: a query with at least `scripts.SHARE` of its letters in another script is put into the memory
  language, and the translation is matched as words besides the query's own (`Reworded`), so a Chinese
  query finds an English note. Translations are kept in a small LRU cache, so asking again costs nothing.

The model is called at most once per recall on the reply's path (one translation), and only when every
tier before this one passed. Glossing runs on a thread of its own, woken by the file's writes; a model that
fails there rests the glossing for `REST` seconds. `work()` glosses what waits, now (tests and scripts).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter, OrderedDict
from typing import Any

from mneme_core import text
from mneme_core.decide import acomplete, run
from mneme_core.errors import InvalidValue, describe
from mneme_core.meaning.fallthrough import Reworded
from mneme_core.meaning.tiers import REST
from mneme_core.messages import fill
from mneme_core.prompts import PROMPTS

from . import glossing
from .scripts import needs_translating, scripts_of
from .settings import BATCH, CACHE, SETTINGS, TIMEOUT

log = logging.getLogger(__name__)

NAME = "unify"
ORDER = 300
GLOSS_TIMEOUT = 60.0  # a batch of glosses, off it
QUERY_LIMIT = 1000
IDLE = 1.0
STOP_WAIT = 5.0  # the longest `stop` waits for a pass in flight (a model's gloss may take longer)


class Unify:
    """The tier (see the module docstring) for one companion's file, model and memory language."""

    name = NAME
    order = ORDER

    def __init__(
        self,
        store: Any,
        complete: Any,
        language: str,
        prompts: dict[str, str] | None = None,
        *,
        timeout: float = TIMEOUT,
        batch: int = BATCH,
        cache: int = CACHE,
        background: bool = True,
    ) -> None:
        if not callable(complete):
            raise InvalidValue(
                f"unify needs the companion's model, complete(system, user), not {describe(complete)}"
            )
        if not isinstance(language, str) or text.is_blank(language):
            raise InvalidValue(f"unify needs a memory language like 'English', not {describe(language)}")
        SETTINGS.check("background", background)
        self.timeout = SETTINGS.check("timeout", timeout) + 0.5  # acomplete's own answers first
        self._model_timeout = self.timeout - 0.5
        self.cache_size = SETTINGS.check("cache", cache)
        self.store = store
        self.complete = complete
        self.language = text.one_line(language, 40)
        self.scripts = scripts_of(self.language)
        prompts = prompts or {}
        values = {"lang": self.language}
        self.translating = fill(prompts.get("translate") or PROMPTS["translate"], values)
        glossing_prompt = fill(prompts.get("gloss") or PROMPTS["gloss"], values)
        self.glosser = glossing.Glosser(self.scripts, glossing_prompt, batch=SETTINGS.check("batch", batch))
        self.counts: Counter[str] = Counter()
        self._cache: OrderedDict[str, str] = OrderedDict()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._work_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._rested_until = 0.0
        self._stopping = False
        if background:
            store.piggyback.append(self._spot)
            self._start()

    # -- queries ------------------------------------------------------------------------------------------

    async def place(self, query: Any) -> Reworded | None:
        """The query in the memory language, as words to match, or None when it is in its script."""
        self.loop = asyncio.get_running_loop()
        said = query.text
        if not needs_translating(said, self.scripts):
            self.counts["same script"] += 1
            return None
        cached = self._cache.get(said)
        if cached is not None:
            self._cache.move_to_end(said)
            self.counts["cached"] += 1
            return Reworded(cached)
        reply = await acomplete(
            self.complete, self.translating, text.one_line(said, QUERY_LIMIT), timeout=self._model_timeout
        )
        words = text.one_line(reply, QUERY_LIMIT)
        if text.is_blank(words):
            self.counts["no translation"] += 1
            return None
        self.counts["translated"] += 1
        if self.cache_size:
            self._cache[said] = words
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return Reworded(words)

    # -- notes --------------------------------------------------------------------------------------------

    def work(self) -> int:
        """Gloss the notes waiting for a gloss, now, in this thread (the rest is not waited out); returns
        how many took one."""
        done = 0
        while True:
            progress, glossed = self._pass()
            done += glossed
            if not progress:
                return done

    def _pass(self) -> tuple[bool, int]:
        """One pass (see `glossing`): (whether anything moved, how many notes took a gloss)."""
        with self._work_lock:
            upto, rows = self.store.read(glossing.candidates, self.language, glossing.SCAN)
            if not rows:
                return False, 0
            needing = [(note_id, body) for note_id, body in rows if self.glosser.needs(body)]
            settled = {note_id for note_id, body in rows} - {note_id for note_id, _ in needing}
            done = self.glosser.settle(needing, self._ask) if needing else glossing.Pass({}, set())
            if done.stopped and not done.glosses:
                self._rested_until = time.monotonic() + REST
            settled |= set(done.glosses) | done.given_up
            mark = glossing.new_mark(upto, [note_id for note_id, _ in rows], settled)
            written = self.store.write(glossing.write_glosses, self.language, done.glosses, mark)
            return bool(written or mark > upto), written

    def _ask(self, system: str, user: str) -> str:
        """The model's reply from plain code: on the loop the companion's async calls come from when there
        is one running elsewhere (where an async client lives), else on a loop of its own."""
        loop = self.loop
        call = acomplete(self.complete, system, user, timeout=GLOSS_TIMEOUT)
        if loop is not None and loop.is_running() and not _on(loop):
            return asyncio.run_coroutine_threadsafe(call, loop).result(GLOSS_TIMEOUT + 1)
        return run(lambda: call)

    def _spot(self, conn: Any) -> None:
        """Inside each write transaction: there may be notes to gloss (the thread looks, after the commit)."""
        self._wake.set()

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mneme-gloss", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the glossing thread before the file closes (`Mneme.close`, through `Tiers.stop`): closing a
        connection while this thread reads on it crashed the process (a segmentation fault in SQLite), so
        the thread is told, woken and waited for (a pass in flight finishes, within `STOP_WAIT`)."""
        self._stopping = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=STOP_WAIT)

    def _run(self) -> None:
        while not self._stopping and not self.store.closed:
            self._wake.wait(IDLE)
            self._wake.clear()
            if self._stopping or self.store.closed or time.monotonic() < self._rested_until:
                continue
            try:
                while not self._stopping and self._pass()[0] and not self.store.closed:
                    pass
            except Exception:  # the file closing under us, or the model's own failure: logged, never raised
                if self._stopping or self.store.closed:
                    break
                log.exception("glossing notes failed")
                self._rested_until = time.monotonic() + REST

    def report(self) -> dict[str, Any]:
        return dict(sorted((self.counts + self.glosser.counts).items()))


def _on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
