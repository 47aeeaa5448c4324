"""dlib's face recognition ResNet read from its own weight file, run as a torch module (exported to onnxruntime by
``tools.perception.cpu_onnx``) instead of by dlib.

dlib computes a descriptor in its own CPU code, without BLAS in the ``dlib-bin`` wheel: 58-72 ms a face on one core
of the Intel Xeon and AMD EPYC development machines. The same network with the same weights takes about 6 ms in
onnxruntime on one core of that Xeon, in float32 with the same bits on every CPU with AVX2 (``torch_module``), and
its descriptors equal dlib's ``compute_face_descriptor`` to within 6e-7 (``tests/test_identity.py``;
``evals/RESULTS.md`` sections 117 and 120).

The network (King, 2009, "Dlib-ml", JMLR; the model's notes in dlib's ``dnn_face_recognition_ex.cpp``): a 150 x 150
RGB chip, less the per-channel mean and divided by 256; a 7 x 7 convolution of stride 2 with an affine (frozen batch
norm) and ReLU, a 3 x 3 max pool of stride 2; then residual blocks, each two 3 x 3 convolutions with affines (the
first of stride 2 in a block that halves the size, whose skip path is then a 2 x 2 average pool of stride 2) added to
the block's input and a ReLU. Where the two sides of a sum differ in channels or size, the smaller is zero-padded at
the end, as dlib's ``add_prev`` layer does. Last, the mean over the positions and a 128-wide linear layer without bias.

dlib's serialization, as read here (the layout of ``dlib_face_recognition_resnet_model_v1.dat``; each field in order):
- an integer: one byte holding the count of the magnitude's little-endian bytes that follow (low 4 bits) and its sign
  (bit 7), then those bytes; a string: its length, then its bytes; a bool: the character ``0`` or ``1``; a float in a
  layer's settings: an integer mantissa and an integer base-2 exponent;
- a tensor: the integer 2 (its version), its four dims (samples, channels, rows, columns), then as many little-endian
  float32 values;
- the file: the loss layer's name and settings, each nested layer's version from the outermost in (1: a tag or skip
  layer, which keeps nothing else; 2: a layer; 3: the layer over the input), the input layer's name and settings, then
  each layer from the input out: its name, settings and parameters, three bools and three tensors of training state
  (the layer over the input also its sample expansion factor).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Side in pixels of the aligned face chip the network reads (dlib's ``get_face_chip`` size for this model).
CHIP = 150


@dataclass(frozen=True)
class Conv:
    """A convolution: ``weight`` (out, in, rows, cols) float32, ``bias`` (out,), ``stride`` and ``padding`` in
    pixels (the same on both axes)."""

    weight: np.ndarray
    bias: np.ndarray
    stride: int
    padding: int


@dataclass(frozen=True)
class Block:
    """A residual block: ``conv1`` -> ``scale1``, ``shift1`` (per channel) -> ReLU -> ``conv2`` -> ``scale2``,
    ``shift2``, added to the input (average-pooled 2 x 2, stride 2, when ``down``), then ReLU."""

    conv1: Conv
    scale1: np.ndarray
    shift1: np.ndarray
    conv2: Conv
    scale2: np.ndarray
    shift2: np.ndarray
    down: bool


@dataclass(frozen=True)
class FaceResNet:
    """The network's weights (module doc): ``mean`` (3,) RGB values subtracted from the chip, ``stem`` the first
    convolution with its ``stem_scale`` and ``stem_shift``, ``pool`` the max pool's (window, stride), ``blocks`` in
    order from the input, ``fc`` (in, out) the last linear layer (descriptor = pooled features @ fc)."""

    mean: np.ndarray
    stem: Conv
    stem_scale: np.ndarray
    stem_shift: np.ndarray
    pool: tuple[int, int]
    blocks: tuple[Block, ...]
    fc: np.ndarray


class _Reader:
    """Sequential reads of dlib's serialization (module doc); every read past the end or of a malformed field raises
    ValueError."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.pos, self.name = data, 0, name

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.name}: not dlib's face recognition network ({what} at byte {self.pos})")

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail("the file ends")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int(self) -> int:
        head = self.take(1)[0]
        if head & 0x70:
            raise self.fail(f"integer header {head:#x}")
        value = int.from_bytes(self.take(head & 0x0F), "little")
        return -value if head & 0x80 else value

    def ints(self, n: int) -> list[int]:
        return [self.int() for _ in range(n)]

    def text(self) -> str:
        raw = self.take(self.int())
        if not raw.isascii():
            raise self.fail("a name that is not text")
        return raw.decode()

    def float(self) -> float:
        mantissa = self.int()
        return mantissa * 2.0 ** self.int()

    def tensor(self) -> np.ndarray:
        if self.int() != 2:
            raise self.fail("a tensor of another version")
        dims = self.ints(4)
        if min(dims) < 0:
            raise self.fail("a tensor of negative size")
        count = int(np.prod(dims))
        return np.frombuffer(self.take(4 * count), "<f4").astype(np.float32).reshape(dims)

    def state(self) -> None:
        """A layer's training state after its parameters: three bools and three tensors, all ignored."""
        if not set(self.take(3)) <= set(b"01"):
            raise self.fail("a layer's flags")
        for _ in range(3):
            self.tensor()


def _layer(r: _Reader) -> tuple[str, dict]:
    """One layer from the input out: (kind, fields); kinds ``con``, ``affine``, ``relu``, ``max_pool``,
    ``avg_pool``, ``add_prev``, ``fc``."""
    kind = r.text()
    if kind == "con_4":
        params = r.tensor().ravel()
        filters, rows, cols, stride_y, stride_x, pad_y, pad_x = r.ints(7)
        shape = r.ints(5)[1:]  # the filters' alias: version, then (out, in, rows, cols)
        r.ints(5)  # the biases' alias
        for _ in range(4):  # learning-rate and weight-decay multipliers
            r.float()
        n = int(np.prod(shape))
        if (stride_y, pad_y, rows) != (stride_x, pad_x, cols) or shape[0] != filters or params.size != n + filters:
            raise r.fail("a convolution this reader does not run")
        return "con", {"conv": Conv(params[:n].reshape(shape), params[n:], stride_y, pad_y)}
    if kind == "affine_":
        params = r.tensor().ravel()
        r.ints(10)  # the two aliases
        if r.int() != 0:
            raise r.fail("an affine layer not per channel")
        half = params.size // 2
        return "affine", {"scale": params[:half], "shift": params[half:]}
    if kind in ("max_pool_2", "avg_pool_2"):
        rows, cols, stride_y, stride_x, pad_y, pad_x = r.ints(6)
        if (rows, stride_y) != (cols, stride_x) or pad_y or pad_x:
            raise r.fail("a pooling this reader does not run")
        return kind[:-2], {"window": rows, "stride": stride_y}
    if kind in ("relu_", "add_prev_"):
        return kind[:-1], {}
    if kind == "fc_2":
        outputs, inputs = r.ints(2)
        weight = r.tensor().ravel()
        r.ints(10)
        if r.int() != 1 or weight.size != inputs * outputs:  # bias mode 1: no bias
            raise r.fail("a linear layer this reader does not run")
        for _ in range(4):
            r.float()
        return "fc", {"weight": weight.reshape(inputs, outputs)}
    raise r.fail(f"a layer {kind!r}")


def read_face_resnet(path: str | os.PathLike) -> FaceResNet:
    """The network in dlib's file ``path`` (``dlib_face_recognition_resnet_model_v1.dat``; module doc).

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not this network in dlib's serialization (cut short, another network, or a layer
            this reader does not run); the message names the byte.
    """
    path = Path(path)
    r = _Reader(path.read_bytes(), str(path))
    if r.int() != 1 or r.text() != "loss_metric_2":
        raise r.fail("no metric loss layer")
    r.float(), r.float()  # the loss's margin and distance threshold
    while r.int() != 3:  # the nested layers' versions, down to the layer over the input
        pass
    if r.text() != "input_rgb_image_sized":
        raise r.fail("no RGB input layer")
    mean = np.asarray([r.float() for _ in range(3)], np.float32)
    if r.ints(2) != [CHIP, CHIP]:
        raise r.fail(f"an input other than {CHIP} x {CHIP}")
    layers = []
    while not layers or layers[-1][0] != "fc":
        layers.append(_layer(r))
        r.state()
        if len(layers) == 1:
            r.int()  # the sample expansion factor of the layer over the input
    return _assemble(layers, mean, r)


def _assemble(layers: list[tuple[str, dict]], mean: np.ndarray, r: _Reader) -> FaceResNet:
    """The layers from the input out, read as the module doc's network; ValueError when they are another one."""
    kinds = [k for k, _ in layers]
    if (kinds[:4] != ["con", "affine", "relu", "max_pool"] or kinds[-2:] != ["avg_pool", "fc"]
            or layers[-2][1]["window"]):
        raise r.fail("another network's first or last layers")
    blocks, i = [], 4
    while i < len(layers) - 2:
        down = kinds[i + 5 : i + 6] == ["avg_pool"]
        want = ["con", "affine", "relu", "con", "affine"] + ["avg_pool"] * down + ["add_prev", "relu"]
        if kinds[i : i + len(want)] != want or down and layers[i + 5][1] != {"window": 2, "stride": 2}:
            raise r.fail(f"a residual block other than dlib's at layer {i}")
        f = [fields for _, fields in layers[i : i + len(want)]]
        blocks.append(Block(f[0]["conv"], f[1]["scale"], f[1]["shift"], f[3]["conv"], f[4]["scale"], f[4]["shift"],
                            down))
        i += len(want)
    pool = layers[3][1]
    return FaceResNet(mean, layers[0][1]["conv"], layers[1][1]["scale"], layers[1][1]["shift"],
                      (pool["window"], pool["stride"]), tuple(blocks), layers[-1][1]["weight"])


def _padded_sum(a, b):
    """dlib's ``add_prev`` of two (N, C, H, W) torch tensors: the smaller side zero-padded at the end of each axis it
    is short on (channels, rows, columns)."""
    import torch.nn.functional as F

    size = [max(x, y) for x, y in zip(a.shape[1:], b.shape[1:], strict=True)]
    a, b = (F.pad(t, (0, size[2] - t.shape[3], 0, size[1] - t.shape[2], 0, size[0] - t.shape[1])) for t in (a, b))
    return a + b


def torch_module(net: FaceResNet, device: object = "cpu"):
    """``net`` as a ``torch.nn.Module`` in eval mode on ``device``: (N, 150, 150, 3) float32 RGB chips, values 0-255
    -> (N, 128) float32 descriptors (dlib's, not normalized). It computes in float32, with torch's own convolution
    and pooling operators, so that onnxruntime runs them as its CPU kernels for those operators; run under
    ``tools.perception.cpu_onnx.GRAPH_OPTIMIZATION`` they give the same bits on every CPU with AVX2
    (``evals/RESULTS.md`` section 120)."""
    import torch
    import torch.nn.functional as F

    def tensor(a: np.ndarray) -> torch.nn.Parameter:
        return torch.nn.Parameter(torch.from_numpy(np.ascontiguousarray(a, np.float32)), requires_grad=False)

    steps = [(net.stem, net.stem_scale, net.stem_shift)]
    for b in net.blocks:
        steps += [(b.conv1, b.scale1, b.shift1), (b.conv2, b.scale2, b.shift2)]

    class Network(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mean = tensor(net.mean.reshape(1, 3, 1, 1))
            self.weights = torch.nn.ParameterList()
            for conv, scale, shift in steps:  # the affine's scale and shift per channel, broadcast over (N, C, H, W)
                self.weights.extend([tensor(conv.weight), tensor(conv.bias), tensor(scale.reshape(1, -1, 1, 1)),
                                     tensor(shift.reshape(1, -1, 1, 1))])
            self.fc = tensor(net.fc)

        def conv(self, x, k: int):
            w, conv = self.weights[4 * k : 4 * k + 4], steps[k][0]
            return F.conv2d(x, w[0], w[1], conv.stride, conv.padding) * w[2] + w[3]

        def forward(self, x):
            x = (x.permute(0, 3, 1, 2) - self.mean) / 256.0
            x = F.max_pool2d(F.relu(self.conv(x, 0)), *net.pool)
            for j, b in enumerate(net.blocks):
                y = self.conv(F.relu(self.conv(x, 2 * j + 1)), 2 * j + 2)
                x = F.relu(_padded_sum(y, F.avg_pool2d(x, 2, 2) if b.down else x))
            return x.mean(dim=(2, 3)) @ self.fc

    return Network().to(device).eval()
