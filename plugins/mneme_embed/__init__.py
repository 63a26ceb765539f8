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
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mneme_core.hookspecs import hookimpl
from mneme_core.meaning import Embeddings

__all__ = ["DEFAULT_MODEL", "LocalEmbeddings", "register_embedders"]

DEFAULT_MODEL = "minishlab/potion-multilingual-128M"


class LocalEmbeddings(Embeddings):
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
        self._model: Any = None
        self._load_lock = threading.Lock()
        label = self.model_path.rstrip("/").rsplit("/", 2)
        short = "/".join(label[-2:]) if not self.model_path.startswith(("/", ".")) else label[-1]
        super().__init__(
            self.encode, name=name or f"model2vec:{short}", floor=floor, timeout=timeout, batch=batch
        )

    @property
    def model(self) -> Any:
        """The model2vec `StaticModel`, loaded on first use (from the hub's cache or a folder)."""
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    try:
                        from model2vec import StaticModel
                    except ImportError as err:
                        raise ImportError(
                            'the local embedder needs model2vec: pip install "mneme-bots[embed]"'
                        ) from err
                    self._model = StaticModel.from_pretrained(self.model_path, force_download=False)
        return self._model

    def encode(self, texts: Sequence[str]) -> Any:
        """One vector per text (float32; `Embeddings` checks and normalises them)."""
        return self.model.encode(list(texts), show_progress_bar=False)


@hookimpl
def register_embedders(register: Any) -> None:
    """The multilingual default, by the name "local" (loaded on first use, never at start-up)."""
    register(LocalEmbeddings, name="local")
