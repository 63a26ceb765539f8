"""`mneme_embed.one_thread`: every call into a model from one thread, queries first; and E5 using it."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from mneme_core import Mneme
from mneme_core.errors import InvalidValue
from mneme_core.meaning import EmbeddingError

mneme_embed = pytest.importorskip("mneme_embed")
one_thread = pytest.importorskip("mneme_embed.one_thread")
OneThread, NOTES, QUERY = one_thread.OneThread, one_thread.NOTES, one_thread.QUERY


def test_a_query_handed_over_during_a_batch_runs_before_the_notes_still_waiting():
    engine = OneThread("test-order")
    started, release, ran = threading.Event(), threading.Event(), []

    def busy():
        started.set()
        release.wait(5)
        ran.append("busy")

    engine.submit(NOTES, busy)
    assert started.wait(5)
    notes = [engine.submit(NOTES, ran.append, f"note {i}") for i in range(3)]
    query = engine.submit(QUERY, ran.append, "query")
    release.set()
    query.result(5)
    for note in notes:
        note.result(5)
    assert ran == ["busy", "query", "note 0", "note 1", "note 2"]


def test_an_exception_reaches_the_caller_and_the_thread_goes_on():
    engine = OneThread("test-errors")

    def fails():
        raise ValueError("the model broke")

    with pytest.raises(ValueError, match="the model broke"):
        engine.call(QUERY, fails)
    assert engine.call(QUERY, lambda: 42) == 42


def test_a_call_its_caller_cancelled_is_never_run():
    engine = OneThread("test-cancel")
    started, release, ran = threading.Event(), threading.Event(), []
    engine.submit(NOTES, lambda: (started.set(), release.wait(5)))
    assert started.wait(5)
    dropped = engine.submit(QUERY, ran.append, "dropped")
    assert dropped.cancel()
    kept = engine.submit(QUERY, ran.append, "kept")
    release.set()
    kept.result(5)
    assert ran == ["kept"]


def test_the_thread_ends_when_idle_and_a_later_call_starts_it_again(monkeypatch):
    monkeypatch.setattr(one_thread, "IDLE", 0.05)
    engine = OneThread("test-idle")
    assert engine.call(QUERY, lambda: "first") == "first"
    deadline = time.monotonic() + 5
    while engine.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not engine.running
    assert engine.call(QUERY, lambda: "again") == "again"


def test_a_call_made_on_the_thread_itself_runs_there_instead_of_waiting_for_itself():
    engine = OneThread("test-nested")
    assert engine.call(QUERY, lambda: engine.call(NOTES, lambda: "inner")) == "inner"


class ThreadRecordingE5:
    """An E5-like model that records which thread each call came from."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.calls: list[tuple[str, int]] = []

    def _vectors(self, side: str, texts: list[str]) -> np.ndarray:
        self.threads.add(threading.get_ident())
        self.calls.append((side, len(texts)))
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, len(text) % 8] = 1.0
            out[i, 7 if side == "query" else 6] += 0.5
        return out

    def query(self, texts):
        return self._vectors("query", list(texts))

    def passage(self, texts):
        return self._vectors("passage", list(texts))


async def test_e5_calls_its_model_from_one_thread_whichever_thread_asks(db_path, clock):
    model = ThreadRecordingE5()
    e5 = mneme_embed.E5Embeddings(model, name="e5:one-thread")
    m = Mneme(db_path, space="test", clock=clock, embed=e5)
    try:
        for i in range(5):
            m.remember("ada", f"note number {i} about the garden")
        await asyncio.to_thread(m.embed_pending)  # the writer's work, from a thread of its own
        for question in ("the garden?", "which note", "number three"):
            await m.arecall("ada", question)  # placed through the loop's executor
        m.recall("ada", "the garden, from plain code")
    finally:
        m.close()
    assert ("query", 1) in model.calls and ("passage", 1) in model.calls
    assert len(model.threads) == 1
    assert threading.get_ident() not in model.threads


async def test_two_e5_embedders_of_one_process_share_the_one_thread():
    first, second = ThreadRecordingE5(), ThreadRecordingE5()
    a = mneme_embed.E5Embeddings(first, name="e5:first")
    b = mneme_embed.E5Embeddings(second, name="e5:second")
    await asyncio.gather(a.embed(["one"]), b.embed(["two"]), asyncio.to_thread(b.embed_sync, ["three"]))
    assert first.calls and second.calls
    assert len(first.threads | second.threads) == 1


async def test_e5_writes_a_batch_note_by_note_in_order():
    model = ThreadRecordingE5()
    e5 = mneme_embed.E5Embeddings(model, name="e5:batch")
    texts = ["a", "bb", "ccc", "dddd"]
    vectors = await asyncio.to_thread(e5.embed_sync, texts)
    assert model.calls == [("passage", 1)] * 4
    assert [int(np.argmax(row[:6])) for row in vectors] == [len(t) % 8 for t in texts]
    assert e5.embed_sync([]).shape[0] == 0


async def test_a_query_past_its_timeout_falls_through_and_the_next_one_is_answered():
    release = threading.Event()

    class Stuck(ThreadRecordingE5):
        def query(self, texts):
            if texts == ["stuck"]:
                release.wait(5)
            return super().query(texts)

    e5 = mneme_embed.E5Embeddings(Stuck(), name="e5:stuck", timeout=0.05)
    with pytest.raises(EmbeddingError, match="took longer"):
        await e5.embed(["stuck"])
    release.set()
    assert (await e5.embed(["fine"])).shape == (1, 8)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_e5_refuses_a_thread_count_that_is_not_a_whole_number_above_zero(threads):
    with pytest.raises(InvalidValue, match="threads is a whole number"):
        mneme_embed.E5Embeddings(ThreadRecordingE5(), threads=threads)
    with pytest.raises(InvalidValue, match="blas_threads is a whole number"):
        mneme_embed.E5Embeddings(ThreadRecordingE5(), blas_threads=threads)


def test_e5_uses_two_threads_unless_told_or_the_machine_has_fewer(monkeypatch):
    monkeypatch.setattr(mneme_embed.os, "cpu_count", lambda: 1)
    assert mneme_embed.E5Embeddings(ThreadRecordingE5()).threads == 1
    monkeypatch.setattr(mneme_embed.os, "cpu_count", lambda: 16)
    assert mneme_embed.E5Embeddings(ThreadRecordingE5()).threads == 2
    assert mneme_embed.E5Embeddings(ThreadRecordingE5(), threads=4).threads == 4


def _blas_threads(threadpoolctl) -> list[int]:
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


def test_making_e5_keeps_numpys_blas_to_one_thread_unless_told_not_to(monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from mneme_embed import cores

    if not _blas_threads(threadpoolctl):
        pytest.skip("numpy here has no BLAS that threadpoolctl can see")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):  # put back as it was on leaving
        monkeypatch.setattr(cores, "_limited", None)
        before = _blas_threads(threadpoolctl)
        mneme_embed.E5Embeddings(ThreadRecordingE5(), name="e5:blas-left", blas_threads=None)
        assert _blas_threads(threadpoolctl) == before
        mneme_embed.E5Embeddings(ThreadRecordingE5(), name="e5:blas")
        assert set(_blas_threads(threadpoolctl)) == {1}
    monkeypatch.setattr(cores, "_limited", None)


def test_without_threadpoolctl_e5_is_made_all_the_same(monkeypatch):
    import sys

    from mneme_embed import cores

    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    monkeypatch.setattr(cores, "_limited", None)
    assert cores.limit_blas(1) is False
    assert mneme_embed.E5Embeddings(ThreadRecordingE5(), name="e5:no-threadpoolctl").threads >= 1
