"""Keeping the cores for the model: numpy's BLAS on one thread while an OpenMP engine embeds.

OpenBLAS (numpy's BLAS) wakes a worker thread per core for a large enough product, and after each one
its workers keep spinning for a while before they sleep. The meaning tier's own products are small (a
person's vectors times the query, their pairs when the floor is measured), but big enough for that. On 2
cores a spinning BLAS worker takes the core one of E5's two OpenMP threads needs, and those wait for each
other hundreds of times per query. Measured on the retrieval benchmark right after opening a file (the
person's vectors loaded and centred, their floor measured): the first queries took 20-60 ms instead of
10; with BLAS on one thread, 8-14 ms. A product of a few thousand vectors gains nothing from a second
thread anyway.

The limit is the process's (threadpoolctl), set when an `E5Embeddings` is made; `E5Embeddings(blas_threads=
None)` leaves it alone. Without threadpoolctl (the `e5` extra installs it) nothing is changed, and the log
says so once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

__all__ = ["limit_blas", "openmp_teams"]

log = logging.getLogger(__name__)

_limited: int | None = None


def limit_blas(threads: int) -> bool:
    """At most `threads` threads for numpy's BLAS in this process, from now on; False when that cannot be
    done here (no threadpoolctl). Repeated calls with the same number do nothing more."""
    global _limited
    if _limited == threads:
        return True
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        log.info("threadpoolctl is not installed: numpy's BLAS keeps its threads beside the model's")
        return False
    threadpool_limits(limits=threads, user_api="blas")
    _limited = threads
    return True


def openmp_teams() -> Callable[[int], None] | None:
    """A function that sets how many threads the calling thread's next parallel regions get, in every
    OpenMP runtime loaded in the process (`omp_set_num_threads` is the calling thread's own setting;
    through threadpoolctl, which finds the runtimes); None without threadpoolctl or without a runtime
    loaded. Ask once the model is loaded: its engine brings the runtime."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    runtimes = ThreadpoolController().select(user_api="openmp").lib_controllers
    if not runtimes:
        return None

    def team(threads: int) -> None:
        for runtime in runtimes:
            runtime.set_num_threads(threads)

    return team
