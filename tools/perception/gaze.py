"""Gaze per face: head yaw/pitch and iris offset from the MediaPipe face mesh, looking-at-camera, and
who looks at whom by casting the gaze ray over the other faces.

Backend: MediaPipe Face Mesh with iris refinement (478 landmarks; Kartynnik et al., 2019, "Real-time
Facial Surface Geometry from Monocular Video on Mobile GPUs"; Ablavatski et al., 2020, iris), shipped
in ``mediapipe==0.10.14``, run on each face crop.

The gaze is a 2-D direction in the image plane (x right, y down), the image-plane projection that
GazeFollow-style target estimation works with: horizontal = head yaw proxy (nose tip offset from the
eyes' midpoint, in inter-ocular distances) + 2 x iris offset (iris centre from the eye centre, in eye
widths); vertical = head pitch proxy (nose position between the eye line and the mouth, relative to a
frontal 0.5). A face whose gaze is shorter than ``CAMERA_RADIUS`` looks at the camera (Ego4D
looking-at-me). Otherwise the ray from between the eyes is cast over the other faces' boxes
(``tools.perception.gestures.pointing_target``). The same mesh gives lip activity (inner-lip gap), used to tell
who is speaking. 2-D gaze cannot tell depth, so a ray can pass over a neighbour who watches the same
off-screen thing: when the face the ray reaches looks the same way (image-plane gaze directions within
``SHARED_ATTENTION_COS``), the two share attention on something else and neither is said to look at the
other (shared attention, Fan et al., 2018, "Inferring Shared Attention in Social Scene Videos", CVPR).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.core.runtime import import_mediapipe
from tools.core.schema import Box, Gaze
from tools.perception.crops import crop_face
from tools.perception.faces import native_stderr_silenced
from tools.perception.gestures import pointing_target

#: Gaze vectors shorter than this count as looking at the camera.
CAMERA_RADIUS = 0.15
#: Gaze directions at least this aligned (cosine) mean shared attention, not one looking at the other
#: (about 37 degrees apart or less; looking at someone usually points the gaze across theirs).
SHARED_ATTENTION_COS = 0.8
#: Nose position between eye line (0) and mouth (1) of a frontal face.
FRONTAL_PITCH = 0.5
R_OUT, R_IN, L_IN, L_OUT, NOSE, MOUTH_UP, MOUTH_LOW, IRIS_R, IRIS_L = 33, 133, 362, 263, 1, 13, 14, 468, 473


def mouth_opening(lm: np.ndarray) -> float:
    """Inner-lip gap (landmarks 13-14) divided by the inter-ocular distance (33-263)."""
    return float(np.linalg.norm(lm[MOUTH_UP] - lm[MOUTH_LOW]) / (np.linalg.norm(lm[L_OUT] - lm[R_OUT]) + 1e-9))


def gaze_from_landmarks(lm: np.ndarray) -> tuple[float, float]:
    """Image-plane gaze vector from 478 face-mesh landmarks (array (478, 2), pixels)."""
    eye_mid = (lm[R_OUT] + lm[L_OUT]) / 2
    iod = float(np.linalg.norm(lm[L_OUT] - lm[R_OUT])) + 1e-9
    yaw = (lm[NOSE][0] - eye_mid[0]) / iod
    offs = []
    for iris, a, b in ((IRIS_R, R_OUT, R_IN), (IRIS_L, L_IN, L_OUT)):
        width = abs(lm[b][0] - lm[a][0]) + 1e-9
        offs.append((lm[iris][0] - (lm[a][0] + lm[b][0]) / 2) / width)
    mouth = (lm[MOUTH_UP] + lm[MOUTH_LOW]) / 2
    pitch = (lm[NOSE][1] - eye_mid[1]) / (mouth[1] - eye_mid[1] + 1e-9) - FRONTAL_PITCH
    return float(yaw + 2.0 * np.mean(offs)), float(pitch)


def who_looks_at_whom(directions: list[tuple[float, float] | None], boxes: list[Box],
                      size: tuple[int, int]) -> list[Gaze]:
    """``Gaze`` per face from its direction and all face boxes (normalized) in a frame of ``size`` (w, h);
    a ray reaching a face that looks the same way (``SHARED_ATTENTION_COS``) names no target."""
    w, h = size
    px = [np.array([b.x0 * w, b.y0 * h, b.x1 * w, b.y1 * h]) for b in boxes]
    out = []
    for i, d in enumerate(directions):
        if d is None:
            out.append(Gaze())
            continue
        v = np.array(d)
        at_cam = float(np.linalg.norm(v)) < CAMERA_RADIUS
        target = None
        if not at_cam:
            b = px[i]
            origin = np.array([(b[0] + b[2]) / 2, b[1] + 0.4 * (b[3] - b[1])])
            target = pointing_target(origin, v / np.linalg.norm(v), px, own=i)
            if target is not None and _same_way(v, directions[target]):
                target = None
        out.append(Gaze(direction=(round(d[0], 3), round(d[1], 3)), looking_at_camera=at_cam, looking_at=target))
    return out


def _same_way(v: np.ndarray, other: tuple[float, float] | None) -> bool:
    """Whether ``other`` (a gaze direction, not at the camera) points the way ``v`` does."""
    if other is None:
        return False
    u = np.array(other)
    n = float(np.linalg.norm(u))
    return n >= CAMERA_RADIUS and float(v @ u) / (float(np.linalg.norm(v)) * n) >= SHARED_ATTENTION_COS


class GazeEstimator(Protocol):
    """``estimate(frame, boxes)`` -> one ``Gaze`` per box for an RGB uint8 frame (H, W, 3)."""

    name: str

    def estimate(self, frame: np.ndarray, boxes: list[Box]) -> list[Gaze]: ...


class MediaPipeGaze:
    """Face mesh with iris on each face crop, then ``who_looks_at_whom``."""

    def __init__(self, min_score: float = 0.5) -> None:
        mp = import_mediapipe()

        self.name = "mediapipe-face-mesh-iris+geometry"
        with native_stderr_silenced():
            self._mesh = mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1,
                                                         refine_landmarks=True, min_detection_confidence=min_score)
            self._mesh.process(np.zeros((64, 64, 3), np.uint8))

    def landmarks(self, frame: np.ndarray, box: Box) -> np.ndarray | None:
        """The 478 face-mesh landmarks (478, 2) of the face at ``box`` in an RGB frame, in pixels of its
        crop (``crop_face`` with margin 0.3); None when the mesh does not fit (e.g. a profile face)."""
        crop = np.ascontiguousarray(crop_face(frame, box, margin=0.3))
        res = self._mesh.process(crop)
        if not res.multi_face_landmarks or len(res.multi_face_landmarks[0].landmark) < 478:
            return None
        return np.array([[p.x * crop.shape[1], p.y * crop.shape[0]] for p in res.multi_face_landmarks[0].landmark])

    def estimate(self, frame: np.ndarray, boxes: list[Box]) -> list[Gaze]:
        dirs, mouths = [], []
        for box in boxes:
            lm = self.landmarks(frame, box)
            if lm is None:
                dirs.append(None)
                mouths.append(None)
                continue
            dirs.append(gaze_from_landmarks(lm))
            mouths.append(round(mouth_opening(lm), 4))
        gazes = who_looks_at_whom(dirs, boxes, (frame.shape[1], frame.shape[0]))
        return [g.model_copy(update={"mouth_open": m}) for g, m in zip(gazes, mouths, strict=True)]


GAZE_ESTIMATORS: Registry[GazeEstimator] = Registry("gaze")


@GAZE_ESTIMATORS.register("mediapipe")
def _load_mediapipe(min_score: float = 0.5) -> GazeEstimator:
    return MediaPipeGaze(min_score=min_score)


def load_gaze_estimator(name: str = "mediapipe", **opts: object) -> GazeEstimator:
    """Return the cached gaze estimator ``name``."""
    return GAZE_ESTIMATORS.load(name, **opts)
