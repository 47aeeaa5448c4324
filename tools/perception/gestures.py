"""Hand gestures from MediaPipe hand landmarks, with the target of pointing gestures.

Backend: MediaPipe Hands (palm detector + 21-landmark hand model; Zhang et al., 2020, "MediaPipe
Hands: On-device Real-time Hand Tracking"), shipped in the ``mediapipe==0.10.14`` wheel.

Classes are decided from which fingers are extended (a finger is extended when its tip lies further
from the wrist than its PIP joint by ``EXTEND_RATIO``; the thumb when its tip lies further from the
index MCP than its IP joint). Names follow HaGRIDv2 (Nuzhdin et al., 2024) where one applies:
``point`` (index only), ``palm`` (all five), ``like`` (thumb only, pointing up), ``dislike`` (thumb
only, pointing down), ``fist`` (none). Other hand shapes are ``other``. An open hand (three or more
fingers out) whose landmark centroid lies on a face box is ``hand_over_mouth`` (lower 45 % of the box)
or ``hand_over_face``; a closed hand there (a fist around a microphone, say) keeps its shape class.
``crossed_arms`` comes from MediaPipe Pose (BlazePose; Bazarevsky et al., 2020) on the whole frame (one
person per frame: the most prominent): both wrists between shoulder and hip height, each on the other
shoulder's side of the body.

Deictic target: the ray from the index MCP through the index tip (in pixel space) is intersected with
the given face boxes; the nearest box it enters, other than the box nearest the hand's wrist (taken as
the pointer's own face), is the target.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.core.runtime import import_mediapipe
from tools.core.schema import Box, FrameHands, HandObservation
from tools.perception.faces import native_stderr_silenced

EXTEND_RATIO = 1.15
WRIST, THUMB_IP, THUMB_TIP, INDEX_MCP = 0, 3, 4, 5
FINGERS = {"index": (6, 8), "middle": (10, 12), "ring": (14, 16), "pinky": (18, 20)}


def classify_hand(lm: np.ndarray) -> tuple[str, list[str]]:
    """Gesture name and extended fingers from 21 landmarks (array (21, 2), pixel units)."""
    def d(a: int, b: int) -> float:
        return float(np.linalg.norm(lm[a] - lm[b]))

    ext = [name for name, (pip, tip) in FINGERS.items() if d(WRIST, tip) > EXTEND_RATIO * d(WRIST, pip)]
    if d(INDEX_MCP, THUMB_TIP) > EXTEND_RATIO * d(INDEX_MCP, THUMB_IP):
        ext.insert(0, "thumb")
    fingers = set(ext)
    if fingers == {"index"}:
        return "point", ext
    if fingers == {"thumb", "index", "middle", "ring", "pinky"}:
        return "palm", ext
    if fingers == {"thumb"}:
        up = lm[THUMB_TIP][1] < lm[WRIST][1] - 0.5 * d(WRIST, INDEX_MCP)
        down = lm[THUMB_TIP][1] > lm[WRIST][1] + 0.5 * d(WRIST, INDEX_MCP)
        return ("like" if up else "dislike" if down else "other"), ext
    if not fingers:
        return "fist", ext
    return "other", ext


def hand_on_face(centroid: np.ndarray, boxes: list[np.ndarray]) -> str | None:
    """``hand_over_mouth`` / ``hand_over_face`` when ``centroid`` (pixels) lies on a face box, else None."""
    for b in boxes:
        if b[0] <= centroid[0] <= b[2] and b[1] <= centroid[1] <= b[3]:
            return "hand_over_mouth" if centroid[1] >= b[1] + 0.55 * (b[3] - b[1]) else "hand_over_face"
    return None


L_SHOULDER, R_SHOULDER, L_WRIST, R_WRIST, L_HIP, R_HIP = 11, 12, 15, 16, 23, 24


def arms_crossed(pose: np.ndarray) -> bool:
    """True for crossed arms from 33 BlazePose landmarks (array (33, 2), image coordinates, y down)."""
    top = min(pose[L_SHOULDER][1], pose[R_SHOULDER][1])
    bottom = max(pose[L_HIP][1], pose[R_HIP][1])
    if not all(top <= pose[w][1] <= bottom for w in (L_WRIST, R_WRIST)):
        return False
    side = np.sign(pose[L_SHOULDER][0] - pose[R_SHOULDER][0])
    mid = (pose[L_SHOULDER][0] + pose[R_SHOULDER][0]) / 2
    return bool(side != 0 and np.sign(pose[L_WRIST][0] - mid) == -side and np.sign(pose[R_WRIST][0] - mid) == side)


def ray_box_distance(origin: np.ndarray, direction: np.ndarray, box: np.ndarray) -> float | None:
    """Distance along a ray to where it enters an axis-aligned box (x0, y0, x1, y1); None if it misses.

    Slab method; a ray starting inside the box returns 0.
    """
    t0, t1 = 0.0, np.inf
    for axis in (0, 1):
        if abs(direction[axis]) < 1e-9:
            if not box[axis] <= origin[axis] <= box[axis + 2]:
                return None
            continue
        a = (box[axis] - origin[axis]) / direction[axis]
        b = (box[axis + 2] - origin[axis]) / direction[axis]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return float(t0) if t0 <= t1 else None


def pointing_target(origin: np.ndarray, direction: np.ndarray, boxes: list[np.ndarray], own: int | None) -> int | None:
    """Index of the nearest box (other than ``own``) the pointing ray enters, or None."""
    hits = [(dist, i) for i, b in enumerate(boxes)
            if i != own and (dist := ray_box_distance(origin, direction, b)) is not None]
    return min(hits)[1] if hits else None


class GestureRecognizer(Protocol):
    """``recognize(frame, t, faces, id_prefix, pose)`` -> ``FrameHands`` for an RGB uint8 frame (H, W, 3); with
    ``pose=False`` the body-pose classes (crossed arms) are not looked for in that frame."""

    name: str

    def recognize(self, frame: np.ndarray, t: float, faces: list[Box], id_prefix: str,
                  pose: bool = True) -> FrameHands: ...


class MediaPipeGestures:
    """MediaPipe Hands landmarks + the rule-based classes above.

    Args:
        max_hands: hands per frame at most.
        min_score: palm detection confidence threshold.
    """

    #: The recognizer's name (``name``), whatever its options.
    NAME = "mediapipe-hands+pose+rules"

    def __init__(self, max_hands: int = 4, min_score: float = 0.5) -> None:
        mp = import_mediapipe()

        self.name = self.NAME
        with native_stderr_silenced():
            self._hands = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=max_hands,
                                                   min_detection_confidence=min_score)
            self._hands.process(np.zeros((64, 64, 3), np.uint8))
            self._pose = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1,
                                                min_detection_confidence=min_score)
            self._pose.process(np.zeros((64, 64, 3), np.uint8))
        self._pose_thread = ThreadPoolExecutor(1, thread_name_prefix="pose")

    def recognize(self, frame: np.ndarray, t: float, faces: list[Box], id_prefix: str,
                  pose: bool = True) -> FrameHands:
        """Hands (gestures, pointing targets among ``faces``) and, with ``pose``, crossed arms in one RGB frame
        (H, W, 3); the pose model runs on its own thread meanwhile (MediaPipe releases the GIL)."""
        h, w = frame.shape[:2]
        frame = np.ascontiguousarray(frame)
        pose_job = self._pose_thread.submit(self._pose.process, frame) if pose else None
        res = self._hands.process(frame)
        scale = np.array([w, h], dtype=float)
        boxes = [np.array([b.x0 * w, b.y0 * h, b.x1 * w, b.y1 * h]) for b in faces]
        hands = []
        for i, (lms, handed) in enumerate(zip(res.multi_hand_landmarks or [], res.multi_handedness or [],
                                              strict=False)):
            lm = np.array([[p.x, p.y] for p in lms.landmark]) * scale
            gesture, ext = classify_hand(lm)
            if len(ext) >= 3:
                gesture = hand_on_face(lm.mean(axis=0), boxes) or gesture
            direction, target = None, None
            if gesture == "point":
                v = lm[8] - lm[INDEX_MCP]
                direction = v / (np.linalg.norm(v) + 1e-9)
                centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes]
                own = int(np.argmin([np.hypot(cx - lm[WRIST][0], cy - lm[WRIST][1]) for cx, cy in centres])) \
                    if centres else None
                target = pointing_target(lm[8], direction, boxes, own)
            cls = handed.classification[0]
            hands.append(HandObservation(
                id=f"{id_prefix}{i}", t=t, handedness=cls.label, score=round(float(cls.score), 3), gesture=gesture,
                extended=ext, wrist=tuple(np.round(lm[WRIST] / scale, 4)), index_tip=tuple(np.round(lm[8] / scale, 4)),
                direction=tuple(np.round(direction, 4)) if direction is not None else None, target_box=target))
        body = pose_job.result().pose_landmarks if pose_job is not None else None
        if body is not None:
            pts = np.array([[p.x, p.y] for p in body.landmark])
            vis = np.array([p.visibility for p in body.landmark])
            key = [L_SHOULDER, R_SHOULDER, L_WRIST, R_WRIST, L_HIP, R_HIP]
            if vis[key].min() > 0.5 and arms_crossed(pts):
                mid = tuple(np.round((pts[L_WRIST] + pts[R_WRIST]) / 2, 4))
                hands.append(HandObservation(id=f"{id_prefix}pose", t=t, handedness="both",
                                             score=round(float(vis[key].min()), 3), gesture="crossed_arms",
                                             extended=[], wrist=mid, index_tip=mid))
        return FrameHands(t=t, hands=hands)


GESTURE_RECOGNIZERS: Registry[GestureRecognizer] = Registry("gestures")


@GESTURE_RECOGNIZERS.register("mediapipe", tool_name=MediaPipeGestures.NAME)
def _load_mediapipe(max_hands: int = 4, min_score: float = 0.5) -> GestureRecognizer:
    return MediaPipeGestures(max_hands=max_hands, min_score=min_score)


def load_gesture_recognizer(name: str = "mediapipe", **opts: object) -> GestureRecognizer:
    """Return the cached gesture recognizer ``name``."""
    return GESTURE_RECOGNIZERS.load(name, **opts)
