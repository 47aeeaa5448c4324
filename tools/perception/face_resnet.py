"""faceres: a small residual network that reads AffectNet-8 from a grey face crop, trained end to end here.

Architecture (He et al., 2016, "Deep Residual Learning for Image Recognition", basic blocks with batch
normalisation): input (N, 1, 48, 48) scaled to [-1, 1]; a 3x3 convolution to ``WIDTHS[0]`` channels; four
stages of two basic blocks, each stage halving the resolution (48 -> 24 -> 12 -> 6 -> 3) with widths
``WIDTHS``; global average pooling, dropout and a linear layer to the 8 AffectNet-8 logits (``N_LABELS``).
About 1.9 M parameters, 80 M multiply-adds per face.

Weights: ``tools/models/faceres.npz`` (float16 arrays named as the module's ``state_dict``), trained by
``python -m studies.recorded_net`` (the recipe of ``studies.train_face_net``) on the dev splits of CK+, RAF-DB and
FER2013 and on recorded CREMA-D frames (model card ``tools/models/FACERES.md``). The crop is the pipeline's
(``tools.perception.crops.gray_crop``, 64x64) shrunk to 48x48 (``INPUT``) with area interpolation.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from tools.core.derived import file_sha256
from tools.perception.cpu_onnx import CpuOnnx
from tools.perception.crops import CropReader

#: Outputs, in ``tools.core.schema.AFFECTNET8`` order (neutral, happiness, sadness, surprise, fear, disgust, anger,
#: contempt). Not imported from the schema, so that training runs where only torch, numpy and OpenCV are.
N_LABELS = 8
#: Channels of the four stages.
WIDTHS = (32, 64, 128, 192)
#: Side of the square grey input, in pixels.
INPUT = 48
#: The shipped weights (model card ``tools/models/FACERES.md``).
FACERES_WEIGHTS = Path(__file__).parents[1] / "models" / "faceres.npz"


def build_network(widths: tuple[int, ...] = WIDTHS, dropout: float = 0.3):
    """The untrained network (a ``torch.nn.Module``): (N, 1, 48, 48) float in [-1, 1] -> (N, 8) logits."""
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.skip = (nn.Identity() if stride == 1 and cin == cout else
                         nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)))
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.act(self.body(x) + self.skip(x))

    layers: list = [nn.Conv2d(1, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU(inplace=True)]
    cin = widths[0]
    for w in widths:
        layers += [Block(cin, w, 2), Block(w, w, 1)]
        cin = w
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(dropout), nn.Linear(cin, N_LABELS)]
    return nn.Sequential(*layers)


def network_input(crops: np.ndarray) -> np.ndarray:
    """uint8 grey crops (N, H, W) of any square size -> float32 (N, 1, 48, 48) in [-1, 1]."""
    import cv2

    crops = np.asarray(crops)
    if crops.shape[1:] != (INPUT, INPUT):
        crops = np.stack([cv2.resize(c, (INPUT, INPUT), interpolation=cv2.INTER_AREA) for c in crops])
    return ((crops.astype(np.float32) / 255.0 - 0.5) * 2.0)[:, None]


def build_reader(nets: list):
    """The reading the pipeline makes with trained networks, as one ``torch.nn.Module``: (N, 1, 48, 48) float in
    [-1, 1] -> (N, 8) probabilities, the softmax of each network on the crops and on their mirror images
    (test-time flip), averaged over both and over the networks."""
    import torch
    from torch import nn

    class Reader(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.nets = nn.ModuleList(nets)

        def forward(self, x):
            both = torch.cat([x, torch.flip(x, dims=[3])])  # one pass over the crops and their mirror images
            probs = torch.stack([torch.softmax(net(both), 1) for net in self.nets]).mean(0)
            return probs.reshape(2, -1, N_LABELS).mean(0)

    return Reader().eval()


class FaceRes(CropReader):
    """The faceres expression reader: AffectNet-8 probabilities from grey face crops, the mean over the crop
    and its mirror image (test-time flip) and over the file's networks (the shipped file holds two, trained alike
    from two seeds: an ensemble by averaging, which halves the spread between trainings; ``FACERES.md``).

    On the CPU onnxruntime runs the reading (``tools.perception.cpu_onnx``: the same probabilities to within 1e-6
    in about half the time of torch's eager mode) from an export kept in the model cache, so a process that finds it
    imports no torch; on a GPU torch runs it.

    Args:
        weights: ``.npz`` of the network's ``state_dict``, or of several with keys prefixed ``m0.``, ``m1.``, ...
            (default ``FACERES_WEIGHTS``).
        device: torch device: ``cpu`` (default), ``cuda`` or ``cuda:N``.

    Raises:
        FileNotFoundError: ``weights`` does not exist.
        ValueError: the file does not hold this network's weights, or ``device`` cannot be used.
        OSError: the export to onnxruntime failed.
    """

    def __init__(self, weights: str | os.PathLike | None = None, device: str = "cpu") -> None:
        path = Path(weights) if weights else FACERES_WEIGHTS
        if not path.is_file():
            raise FileNotFoundError(f"{path}: faceres weights not found")
        sha = file_sha256(path)
        self.name = f"faceres:{path.name}@{sha[:12]}"
        self.device, self._path = device, path
        self.onnx = CpuOnnx(self._network, (2, 1, INPUT, INPUT), ("p",), name="faceres", weights_sha256=sha,
                            source=__file__, device=device)
        self.onnx.load()  # the weights are checked here when their export is not in the model cache yet

    def _network(self, device):
        """The reader's ``torch.nn.Module`` (``build_reader``) of the weights file, on ``device``.

        Raises:
            ValueError: the file does not hold this network's weights.
        """
        import torch

        with np.load(self._path) as f:
            arrays = {k: f[k] for k in f.files}
        nets = []
        members = {m.group() for k in arrays if (m := re.match(r"m\d+\.", k))}
        for prefix in sorted(members) or [""]:
            net = build_network()
            state = {k[len(prefix):]: torch.from_numpy(v.astype(np.float32) if v.dtype.kind == "f" else v)
                     for k, v in arrays.items() if k.startswith(prefix)}
            try:
                net.load_state_dict(state)
            except RuntimeError as e:
                raise ValueError(f"{self._path}: not faceres weights ({str(e).splitlines()[0]})") from None
            nets.append(net)
        return build_reader(nets).to(device)

    def classify_crops(self, crops: np.ndarray, engine: str = "auto") -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` for uint8 grey crops (N, S, S) (the pipeline's are 64x64).
        ``engine``: ``auto`` (onnxruntime on the CPU, torch on a GPU) or ``torch`` (the module itself)."""
        if not len(crops):
            return np.zeros((0, N_LABELS), dtype=np.float32)
        return self.onnx(network_input(crops), engine)[0]


class MeanReader(CropReader):
    """The mean of several crop readers' AffectNet-8 probabilities (an ensemble by averaging), e.g. faceres and
    face8 (backend ``faceres+face8``): ``classify`` and ``classify_crops`` as each member's, (N, 8).

    Args:
        members: readers with ``classify_crops(crops) -> (N, 8)`` on the pipeline's uint8 64x64 grey crops.

    Raises:
        ValueError: no member is given.
    """

    def __init__(self, *members) -> None:
        if not members:
            raise ValueError("MeanReader needs at least one member")
        self.members = members
        self.name = "mean(" + ", ".join(m.name for m in members) + ")"
        self.device = members[0].device

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Mean probabilities (N, 8) of the members for uint8 grey crops (N, 64, 64)."""
        return np.mean([m.classify_crops(crops) for m in self.members], axis=0).astype(np.float32)
