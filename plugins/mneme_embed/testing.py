"""A small model2vec model built from one that a PyPI package ships, for tests and benchmarks offline.

WordLlama (`pip install wordllama`) ships its 256-dimension static token vectors (LLaMA 2's 32,000-token
vocabulary, 16 MB) and their tokenizer inside the wheel. That is exactly a static model: this module writes
them out as a model2vec folder once (in a cache directory), so `LocalEmbeddings(shipped_test_model())` runs
the plugin's real loading code on a real model with no network. English mostly: the vectors were trained
on English text, and Chinese is known to them only through LLaMA's character tokens.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

FOLDER = "mneme-wordllama-l2-supercat-256"


def shipped_test_model(cache: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the model2vec model made from WordLlama's shipped vectors (made on first call)."""
    root = Path(cache or os.environ.get("MNEME_TEST_MODELS") or tempfile.gettempdir())
    folder = root / FOLDER
    if (folder / "config.json").exists():
        return folder
    import numpy as np
    import wordllama
    from model2vec import StaticModel
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    shipped = Path(wordllama.__file__).parent
    vectors = load_file(str(shipped / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
    tokenizer = Tokenizer.from_file(str(shipped / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    model = StaticModel(vectors=vectors.astype(np.float32), tokenizer=tokenizer, normalize=True)
    partial = root / f"{FOLDER}.{os.getpid()}"
    model.save_pretrained(str(partial))
    with contextlib.suppress(OSError):  # another process made it first
        partial.rename(folder)
    return folder
