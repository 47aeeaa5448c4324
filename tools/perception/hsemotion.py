"""HSEmotion / EmotiEffLib AffectNet-8 expression models through onnxruntime, for users with internet: the
``hsemotion`` backend of ``tools.perception.expression`` (Savchenko, 2022, "Classifying emotions and engagement in
online learning based on a single facial expression recognition neural network", IEEE Trans. Affective Computing), fetched once on request
(``tools.core.fetch``, checksum-pinned in ``tools.core.pins``), then loaded from the model cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tools.core.runtime import onnx_providers, onnx_threads
from tools.core.schema import AFFECTNET8, Box
from tools.perception.cpu_onnx import session_options
from tools.perception.crops import crop_face
from tools.perception.heads import softmax

#: Output order of the HSEmotion / EmotiEffLib 8-class models (their README's ``idx_to_class``).
HSEMOTION_LABELS: tuple[str, ...] = ("anger", "contempt", "disgust", "fear", "happiness", "neutral", "sadness",
                                     "surprise")
#: ImageNet normalisation the HSEmotion EfficientNets were trained with (RGB, [0, 1] scale).
IMAGENET_MEAN, IMAGENET_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class HSEmotionONNX:
    """AffectNet-8 from an HSEmotion / EmotiEffLib ONNX model (``tools.core.fetch.PINNED_MODELS``) through
    onnxruntime: RGB face crops (``crop_face``, margin 0.1) resized to ``size`` x ``size``,
    ImageNet-normalised, NCHW; softmax of the logits, reordered from ``HSEMOTION_LABELS`` to ``AFFECTNET8``.

    Args:
        path: the ``.onnx`` file (fetched with ``affectseek models --fetch hsemotion-enet-b0-8``).
        size: input side in pixels (224 for the EfficientNet-B0 models, 260 for B2).
        device: ``cpu`` (default) or ``cuda`` / ``cuda:N`` (onnxruntime's CUDA execution provider,
            ``tools.core.runtime.onnx_providers``).

    Raises:
        FileNotFoundError: ``path`` does not exist (the message names the fetch command).
        ValueError: ``device`` is a GPU and onnxruntime cannot run on it.
    """

    def __init__(self, path: str | os.PathLike, size: int = 224, device: str = "cpu") -> None:
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: fetch it once with `affectseek models --fetch "
                                    "hsemotion-enet-b0-8` (about 16 MB, checksum-pinned)")
        self.name = f"hsemotion:{path.name}"
        self.size = size
        self.device = device
        self._session = ort.InferenceSession(str(path), session_options(onnx_threads()),
                                             providers=onnx_providers(device))
        self._input = self._session.get_inputs()[0].name
        self._index = [AFFECTNET8.index(label) for label in HSEMOTION_LABELS]

    def classify(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` for N normalized boxes on an RGB uint8 frame (H, W, 3)."""
        import cv2

        out = np.zeros((len(boxes), len(AFFECTNET8)), dtype=np.float32)
        if not boxes:
            return out
        crops = np.stack([cv2.resize(crop_face(frame, b), (self.size, self.size), interpolation=cv2.INTER_AREA)
                          for b in boxes]).astype(np.float32) / 255.0
        x = ((crops - np.array(IMAGENET_MEAN, np.float32)) / np.array(IMAGENET_STD, np.float32)).transpose(0, 3, 1, 2)
        logits = self._session.run(None, {self._input: np.ascontiguousarray(x)})[0][:, : len(HSEMOTION_LABELS)]
        out[:, self._index] = softmax(logits, axis=1)
        return out
