"""Face detection: find faces in RGB frames.

Default backend: MediaPipe Face Detection (BlazeFace, full-range model), shipped inside the
``mediapipe==0.10.14`` wheel (legacy ``mp.solutions`` API). Source: Bazarevsky et al., 2019,
"BlazeFace: Sub-millisecond Neural Face Detection on Mobile GPUs"; model card in the MediaPipe docs.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.core.runtime import import_mediapipe
from tools.core.schema import Box


class FaceDetector(Protocol):
    """Finds faces in one frame.

    ``detect(frame)`` takes an RGB uint8 array of shape (H, W, 3) and returns a list of
    ``(box, score)`` with boxes in normalized image coordinates and scores in [0, 1].
    """

    name: str

    def detect(self, frame: np.ndarray) -> list[tuple[Box, float]]: ...


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[None]:
    """Redirect file descriptor 2 to /dev/null (TF Lite and absl print start-up notices from C++)."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)


class MediaPipeFaceDetector:
    """MediaPipe BlazeFace detector.

    Args:
        model_selection: 0 = short-range model (faces within ~2 m), 1 = full-range (~5 m). The
            default 1 suits meetings and stage footage.
        min_score: detections below this confidence are dropped.

    Raises:
        ImportError: mediapipe is not installed (or is a 1.x wheel without the legacy models).
    """

    def __init__(self, model_selection: int = 1, min_score: float = 0.5) -> None:
        mp = import_mediapipe()

        if not hasattr(mp, "solutions"):
            raise ImportError("mediapipe without the legacy solutions API; install mediapipe==0.10.14")
        self.name = f"mediapipe-face-detection-{'full' if model_selection else 'short'}"
        with native_stderr_silenced():
            self._det = mp.solutions.face_detection.FaceDetection(
                model_selection=model_selection, min_detection_confidence=min_score
            )
            self._det.process(np.zeros((64, 64, 3), np.uint8))  # first call prints the delegate notices

    def detect(self, frame: np.ndarray) -> list[tuple[Box, float]]:
        result = self._det.process(np.ascontiguousarray(frame))
        out: list[tuple[Box, float]] = []
        for det in result.detections or []:
            bb = det.location_data.relative_bounding_box
            x0, y0 = max(0.0, bb.xmin), max(0.0, bb.ymin)
            x1, y1 = min(1.0, bb.xmin + bb.width), min(1.0, bb.ymin + bb.height)
            if x1 > x0 and y1 > y0:
                out.append((Box(x0=x0, y0=y0, x1=x1, y1=y1), float(det.score[0])))
        return out


class RangesFaceDetector:
    """MediaPipe's full-range BlazeFace, and on a frame where it finds no face, its short-range model (faces within
    about 2 m: a face that fills much of the frame). The full-range model misses close-ups the short-range one finds:
    on recorded development clips it found a face in 384 of 444 frames of section 25's web clips and 472 of 624 of
    RAVDESS actor 05's face crops, where the short-range model found 444 and 606, and it found none the short-range
    one missed (``evals/RESULTS.md`` section 152). A frame where the full-range model finds faces keeps its boxes, so
    a scene of small faces (an audience) is read as before.

    Args:
        min_score: detections below this confidence are dropped (both models).

    Raises:
        ImportError: mediapipe is not installed (or is a 1.x wheel without the legacy models).
    """

    def __init__(self, min_score: float = 0.5) -> None:
        self.name = "mediapipe-face-detection-full-else-short"
        self._full = MediaPipeFaceDetector(model_selection=1, min_score=min_score)
        self._short = MediaPipeFaceDetector(model_selection=0, min_score=min_score)

    def detect(self, frame: np.ndarray) -> list[tuple[Box, float]]:
        """The full-range model's ``(box, score)`` list for ``frame`` (RGB uint8, shape (H, W, 3); boxes in normalized
        image coordinates), or the short-range model's where it finds none."""
        return self._full.detect(frame) or self._short.detect(frame)


FACE_DETECTORS: Registry[FaceDetector] = Registry("faces")


@FACE_DETECTORS.register("mediapipe", about="MediaPipe face detection (full range), shipped in the wheel")
def _load_mediapipe(model_selection: int = 1, min_score: float = 0.5) -> FaceDetector:
    return MediaPipeFaceDetector(model_selection=model_selection, min_score=min_score)


@FACE_DETECTORS.register("mediapipe-ranges", about="MediaPipe face detection, full range, and short range on frames "
                         "where it finds no face (close-ups), shipped in the wheel")
def _load_mediapipe_ranges(min_score: float = 0.5) -> FaceDetector:
    return RangesFaceDetector(min_score=min_score)


def load_face_detector(name: str = "mediapipe", **opts: object) -> FaceDetector:
    """Return the cached face detector ``name`` (see ``FACE_DETECTORS.names()``)."""
    return FACE_DETECTORS.load(name, **opts)
