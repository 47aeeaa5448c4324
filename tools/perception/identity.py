"""Face identity descriptors, for telling whether faces in different shots are the same person.

Default backend: dlib's face recognition ResNet (a ResNet-34-like network with 29 convolutional
layers, 128-d descriptor, 99.38 % on LFW; King, 2009, "Dlib-ml", JMLR, and the model's notes in
dlib's ``dnn_face_recognition_ex.cpp``), with dlib's 5-point landmark model aligning the face to a
150 x 150 chip first. Both weight files ship inside the ``face_recognition_models`` package (CC0 1.0
weights, MIT package); the landmarks and the chip come from the ``dlib-bin`` wheel, and the network, read from
dlib's weight file (``tools.perception.dlib_resnet``), runs in onnxruntime (``tools.perception.cpu_onnx``): the same
descriptors as dlib's own code to within 6e-7, ten times as fast, and the same bits on AVX2 and AVX-512 CPUs
(``evals/RESULTS.md`` sections 117 and 120). Nothing is downloaded. Two descriptors of the same person lie at Euclidean
distance < 0.6 on LFW by the model's notes; the distance the re-identifier uses is chosen on labelled faces here
(``studies.reid``; ``tools.signals.tracks.REID_MAX_DISTANCE``).

Devices: the loaders take ``device`` like the other perception models, but this backend runs on the CPU only
(the ``dlib-bin`` wheel is built without CUDA, and a track's few faces are not worth a GPU), so ``device="cuda"``
loads the same CPU model (the perception engine says so in the run's warnings,
``tools.perception.engine.device_notes``). A torch or ONNX identity backend registered here would run on the device.
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
    """dlib's face recognition ResNet on 5-point aligned chips (see the module doc), on the CPU: dlib finds the
    landmarks and cuts the chip, onnxruntime runs the network on one thread (its export made from dlib's weight file
    once and kept in the model cache, ``tools.perception.cpu_onnx``).

    Raises:
        BackendUnavailableError: dlib or the weight files are missing.
        ValueError: the network's weight file is not dlib's face recognition network (``read_face_resnet``).
        OSError: the export to onnxruntime failed.
    """

    def __init__(self) -> None:
        try:
            import dlib
        except ImportError as exc:
            raise BackendUnavailableError("identity backend 'dlib' needs dlib (pip install dlib-bin)") from exc
        from tools.core.derived import file_sha256
        from tools.perception import dlib_resnet
        from tools.perception.cpu_onnx import CpuOnnx

        models = dlib_models_dir()
        shape, net = models / "shape_predictor_5_face_landmarks.dat", models / "dlib_face_recognition_resnet_model_v1.dat"
        for f in (shape, net):
            if not f.is_file():
                raise BackendUnavailableError(f"identity backend 'dlib': weight file missing: {f}")
        self._dlib = dlib
        self._shape = dlib.shape_predictor(str(shape))
        self._net = CpuOnnx(lambda device: dlib_resnet.torch_module(dlib_resnet.read_face_resnet(net), device),
                            (2, dlib_resnet.CHIP, dlib_resnet.CHIP, 3), ("descriptor",), name="dlib-face-resnet",
                            weights_sha256=file_sha256(net), source=dlib_resnet.__file__, threads=1)
        self._net.load()
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
        # dlib's compute_face_descriptor cuts the same chips (size 150, padding 0.25) before its network
        chips = self._dlib.get_face_chips(frame, shapes, size=150, padding=0.25)
        return self._net(np.stack(chips))[0]  # uint8 chips: the network's call makes them float32


FACE_IDENTITIES: Registry[FaceIdentity] = Registry("identity")


@FACE_IDENTITIES.register("dlib")
def _load_dlib(device: str = "cpu") -> FaceIdentity:
    return DlibFaceIdentity()  # CPU only, whatever ``device`` says (module doc)


def load_face_identity(name: str = "dlib", **opts: object) -> FaceIdentity:
    """Return the cached face identity backend ``name`` (see ``FACE_IDENTITIES.names()``); ``opts`` go to
    its loader (``device="cpu"|"cuda"|"cuda:N"``; ``dlib`` runs on the CPU whatever the device).

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: unknown backend, or it
            cannot load (package or weight file missing).
    """
    return FACE_IDENTITIES.load(name, **opts)
