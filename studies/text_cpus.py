"""Which of the sentence encoder's operations give other bits on another CPU, and whether the shipped encoder does.

    python -m studies.text_cpus ops [--json OUT]
    python -m studies.text_cpus encode TEXTS.json [--out VECTORS.npy] [--json OUT]

Run each natively and under an emulated CPU (``qemu-x86_64 -cpu EPYC-Milan .venv/bin/python -m studies.text_cpus
...``) and compare the digests. ``ops`` runs the float32 operations of all-MiniLM-L6-v2's graph that do arithmetic
with sums in them (matrix products at a layer's shapes, at a short text's and at the attention's 12 heads, Softmax
over 12 heads' scores, Erf, layer normalization), each alone in onnxruntime on one thread with no graph optimization,
on fixed random inputs (numpy ``default_rng(0)``). ``encode`` reads the texts of TEXTS.json (a JSON list of strings)
with the shipped encoder (``tools.perception.text_onnx.OnnxSentenceEncoder``, the default model cache). Used for
``evals/RESULTS.md`` section 125.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _graph(op: str, inputs: dict[str, np.ndarray], **attrs) -> bytes:
    """A serialized ONNX model (opset 17) of one float32 node ``op`` over ``inputs`` with output ``y``."""
    from onnx import TensorProto, helper

    node = helper.make_node(op, list(inputs), ["y"], **attrs)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                           for n, a in inputs.items()],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def ops() -> dict[str, str]:
    """``{operation: digest of its float32 output}`` for the operations of the module doc."""
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 384)).astype(np.float32)
    w = (rng.standard_normal((384, 1536)) * 0.05).astype(np.float32)
    scores = (rng.standard_normal((12, 30, 30)) * 3).astype(np.float32)
    gamma, beta = rng.standard_normal(384).astype(np.float32), rng.standard_normal(384).astype(np.float32)
    queries, keys = (rng.standard_normal((2, 1, 12, 30, 32)) * 0.5).astype(np.float32)
    cases = {"matmul 30x384 @ 384x1536": ("MatMul", {"a": x, "b": w}, {}),
             "matmul 14x384 @ 384x384": ("MatMul", {"a": x[:14], "b": w[:, :384]}, {}),
             "matmul 12 heads 30x32 @ 32x30": ("MatMul", {"q": queries, "k": keys.transpose(0, 1, 3, 2).copy()}, {}),
             "softmax 12x30x30": ("Softmax", {"s": scores}, {"axis": -1}),
             "erf 30x384": ("Erf", {"e": x}, {}),
             "layer normalization 30x384": ("LayerNormalization", {"l": x, "g": gamma, "b": beta},
                                            {"axis": -1, "epsilon": 1e-12})}
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.graph_optimization_level = 1, ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    found = {}
    for name, (op, inputs, attrs) in cases.items():
        session = ort.InferenceSession(_graph(op, inputs, **attrs), opts, providers=["CPUExecutionProvider"])
        found[name] = _digest(session.run(None, inputs)[0])
    return found


def encode(texts_path: str, out: str | None) -> dict:
    """The shipped encoder's vectors of the texts in ``texts_path``: their count, digest and export name."""
    from tools.perception.text_onnx import OnnxSentenceEncoder

    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    enc = OnnxSentenceEncoder()
    vectors = enc.encode(texts)
    if out:
        np.save(out, vectors)
    return {"texts": len(texts), "export": enc.path.name, "digest": _digest(vectors)}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.text_cpus", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    o = sub.add_parser("ops", help="digests of the encoder's float32 operations, each alone")
    o.add_argument("--json", help="write the digests here")
    e = sub.add_parser("encode", help="digest of the shipped encoder's vectors of some texts")
    e.add_argument("texts", help="a JSON list of strings")
    e.add_argument("--out", help=".npy file for the vectors")
    e.add_argument("--json", help="write the digest here")
    args = ap.parse_args(argv)
    if args.command == "ops":
        return report(ops, args.json)
    return report(lambda: encode(args.texts, args.out), args.json)


if __name__ == "__main__":
    sys.exit(main())
