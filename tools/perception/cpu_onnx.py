"""A torch module run on the CPU by onnxruntime (by torch itself on a GPU): exported once, in memory, with ``torch.onnx.export``.

The expression networks (faceres, fer's mini-Xception under face8) are small convolution stacks read a few faces at
a time; torch's eager mode spends most of their time in per-operator overhead and, for the mini-Xception's
depthwise convolutions, in slow kernels. onnxruntime runs the same graphs with the same weights in a fraction
of the time on one core of the AMD EPYC development machine: faceres 3.5 -> 1.9 ms a network pass, the
mini-Xception 11 -> 1.3 ms a crop (batches of 8-16), outputs equal to within 1e-5.

The export is made at the first call (0.5-1 s) and kept in memory, never written, so nothing in the cache depends
on the torch version that made it. onnxruntime's intra-op threads follow ``torch.get_num_threads()`` at the time
of each call (one session per thread count): the perception engine keeps torch to one thread while the gesture
models run on the other core (``tools.perception.engine``), and the export obeys the same rule.
"""

from __future__ import annotations

import io
import warnings

import numpy as np


class CpuOnnx:
    """``module`` (a ``torch.nn.Module`` in eval mode on ``device``) run by onnxruntime's CPU provider when
    ``device`` is the CPU, by torch itself on a GPU (or when asked: ``engine="torch"``).

    Args:
        module: the network; its inputs are float32 arrays whose first axis is the batch.
        example: one input of the right shape beyond the batch axis (e.g. ``(2, 1, 48, 48)``), for the export.
        outputs: names of the module's outputs, in order (a tensor or a tuple of tensors).
        device: the ``torch.device`` the module is on (``tools.core.runtime.torch_device``).

    Raises (at the first onnxruntime call):
        OSError: the export or onnxruntime's loading of it failed (the message names the exception).
    """

    def __init__(self, module, example: tuple[int, ...], outputs: tuple[str, ...], device) -> None:
        self._module, self._example, self._outputs, self._device = module, example, outputs, device
        self._onnx: bytes | None = None
        self._sessions: dict[int, object] = {}

    @property
    def threads_used(self) -> list[int]:
        """The intra-op thread counts a session was made for so far (sorted)."""
        return sorted(self._sessions)

    def _export(self) -> bytes:
        import torch

        buf = io.BytesIO()
        axes = {name: {0: "n"} for name in ("x", *self._outputs)}
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(self._module, torch.zeros(self._example), buf, input_names=["x"],
                              output_names=list(self._outputs), dynamic_axes=axes, opset_version=17, dynamo=False)
        return buf.getvalue()

    def _session(self):
        import onnxruntime as ort
        import torch

        threads = torch.get_num_threads()
        if threads not in self._sessions:
            try:
                if self._onnx is None:
                    self._onnx = self._export()
                opts = ort.SessionOptions()
                opts.intra_op_num_threads, opts.inter_op_num_threads, opts.log_severity_level = threads, 1, 3
                opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy wait beside gestures
                self._sessions[threads] = ort.InferenceSession(self._onnx, opts, providers=["CPUExecutionProvider"])
            except Exception as exc:  # the exporter's and onnxruntime's errors are plain Exceptions
                raise OSError(f"ONNX export of {type(self._module).__name__} failed: {type(exc).__name__}: {exc}") from exc
        return self._sessions[threads]

    def __call__(self, x: np.ndarray, engine: str = "auto") -> list[np.ndarray]:
        """The module's outputs (float32 numpy arrays, in ``outputs`` order) for the batch ``x``. ``engine``:
        ``auto`` (onnxruntime on the CPU, torch on a GPU) or ``torch`` (the module itself on its device)."""
        x = np.ascontiguousarray(x, np.float32)
        if self._device.type == "cpu" and engine == "auto":
            return self._session().run(None, {"x": x})
        import torch

        with torch.inference_mode():
            out = self._module(torch.from_numpy(x).to(self._device))
        return [o.cpu().numpy().astype(np.float32) for o in (out if isinstance(out, tuple) else (out,))]
