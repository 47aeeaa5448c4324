"""Gesture classes and pointing geometry on constructed hands, then hands seen in the sample video."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SAMPLE
from tools.core.frames import iter_frames
from tools.perception.gestures import classify_hand, load_gesture_recognizer, pointing_target, ray_box_distance


def _hand(extended: set[str], thumb_up: bool = False) -> np.ndarray:
    """21 landmarks (pixels) of an upright hand with the named fingers straight, the others curled."""
    lm = np.zeros((21, 2))
    lm[0] = (100, 200)  # wrist
    bases = {"index": 5, "middle": 9, "ring": 13, "pinky": 17}
    for k, (name, mcp) in enumerate(bases.items()):
        x = 80 + 15 * k
        lm[mcp] = (x, 150)
        lm[mcp + 1] = (x, 130)  # PIP
        lm[mcp + 2] = (x, 115)
        lm[mcp + 3] = (x, 95) if name in extended else (x, 160)  # tip: far out, or folded back
    lm[1], lm[2], lm[3] = (120, 190), (130, 175), (135, 160)  # thumb CMC, MCP, IP
    if "thumb" in extended:
        lm[4] = (140, 100) if thumb_up else (165, 150)
    else:
        lm[4] = (95, 160)  # tucked over the fingers, near the index MCP
    return lm


@pytest.mark.parametrize("fingers,name", [({"index"}, "point"), (set(), "fist"),
                                          ({"thumb", "index", "middle", "ring", "pinky"}, "palm"),
                                          ({"index", "middle"}, "other")])
def test_classify_hand_shapes(fingers, name):
    assert classify_hand(_hand(fingers))[0] == name


def test_thumb_up_is_like():
    assert classify_hand(_hand({"thumb"}, thumb_up=True))[0] == "like"


def test_open_hand_on_a_face_is_hand_over_mouth_or_face():
    from tools.perception.gestures import hand_on_face

    face = np.array([100.0, 100.0, 200.0, 220.0])
    assert hand_on_face(np.array([150.0, 200.0]), [face]) == "hand_over_mouth"
    assert hand_on_face(np.array([150.0, 120.0]), [face]) == "hand_over_face"
    assert hand_on_face(np.array([300.0, 120.0]), [face]) is None


def test_crossed_arms_from_pose_landmarks():
    from tools.perception.gestures import L_HIP, L_SHOULDER, L_WRIST, R_HIP, R_SHOULDER, R_WRIST, arms_crossed

    pose = np.zeros((33, 2))
    # person facing the camera: their left shoulder is on the image right
    pose[L_SHOULDER], pose[R_SHOULDER], pose[L_HIP], pose[R_HIP] = (0.6, 0.3), (0.4, 0.3), (0.58, 0.7), (0.42, 0.7)
    pose[L_WRIST], pose[R_WRIST] = (0.45, 0.5), (0.55, 0.5)  # each wrist on the other side, at chest height
    assert arms_crossed(pose)
    pose[L_WRIST], pose[R_WRIST] = (0.65, 0.6), (0.35, 0.6)  # arms hanging at the sides
    assert not arms_crossed(pose)
    pose[L_WRIST], pose[R_WRIST] = (0.45, 0.1), (0.55, 0.1)  # crossed above the head is not crossed arms
    assert not arms_crossed(pose)


def test_pointing_ray_hits_the_nearest_other_box():
    origin, right = np.array([0.0, 0.0]), np.array([1.0, 0.0])
    assert ray_box_distance(origin, right, np.array([5.0, -1.0, 6.0, 1.0])) == pytest.approx(5.0)
    assert ray_box_distance(origin, right, np.array([-6.0, -1.0, -5.0, 1.0])) is None  # behind
    boxes = [np.array([-1.0, -1.0, 1.0, 1.0]), np.array([9.0, -1.0, 10.0, 1.0]), np.array([4.0, -1.0, 5.0, 1.0])]
    assert pointing_target(origin, right, boxes, own=0) == 2


@pytest.mark.slow
def test_raised_index_finger_and_open_palm_in_the_sample():
    # hamilton_short.mp4, watched: at 6.85 s the performer raises his index finger, at 7.59 s he shows
    # an open palm; his other hand holds the microphone throughout.
    rec = load_gesture_recognizer()
    seen = {round(t, 2): {h.gesture for h in rec.recognize(f, t, [], "h").hands}
            for t, f in iter_frames(SAMPLE, 4.0, 6.85, 7.85)}
    assert "point" in seen[6.85]
    assert "palm" in seen[7.58]


def test_the_gesture_models_name_is_known_without_loading_them():
    """The names a span reading is stored under (``PerceptionEngine.tool_names``) come from the registry for the
    gesture models: a question about a feeling, which never runs them on new frames, does not load them. The
    declared name is the loaded recognizer's own."""
    from tools.perception.engine import PerceptionConfig, PerceptionEngine
    from tools.perception.gestures import GESTURE_RECOGNIZERS

    engine = PerceptionEngine(PerceptionConfig())
    names = engine.tool_names(hands=True)
    assert "gestures" not in engine.__dict__  # not loaded
    assert names["social"] == f"{load_gesture_recognizer('mediapipe').name}|{engine.gaze.name}"
    assert GESTURE_RECOGNIZERS.tool_name("mediapipe") == load_gesture_recognizer("mediapipe").name
    assert engine.tool_names(hands=False) == {"face": names["face"], "social": engine.gaze.name}
