"""The study of face-mesh geometry beside the reading (``studies.recorded_geometry``, RESULTS section 75): its
offset head and its per-person baseline do what the study's table says they do."""

import numpy as np

from studies.recorded_geometry import OffsetHead, clip_features, only_sets
from tools.core.schema import AFFECTNET8


def _readings(n: int, rng: np.random.Generator, top: str) -> np.ndarray:
    logp = np.log(np.full((n, 8), 0.05))
    logp[:, AFFECTNET8.index(top)] = np.log(0.65)
    return logp + rng.normal(0, 0.01, (n, 8))


def test_the_offset_head_keeps_the_readers_argmax_when_the_geometry_says_nothing():
    rng = np.random.default_rng(0)
    reading = np.concatenate([_readings(40, rng, "happiness"), _readings(40, rng, "sadness")])
    y = np.array(["happiness"] * 40 + ["sadness"] * 40)
    x = np.concatenate([reading, rng.normal(size=(80, 3))], axis=1)  # geometry: noise
    pred = OffsetHead(0.01).fit(x, y).predict(x)
    assert list(pred) == list(y)


def test_the_offset_head_learns_what_the_geometry_tells_apart_and_the_reading_does_not():
    rng = np.random.default_rng(1)
    reading = _readings(80, rng, "surprise")  # the reader calls every face surprise
    y = np.array(["surprise"] * 40 + ["fear"] * 40)
    brow = np.concatenate([rng.normal(1.0, 0.2, 40), rng.normal(-1.0, 0.2, 40)])  # but the brows differ
    x = np.concatenate([reading, brow[:, None]], axis=1)
    head = OffsetHead(1.0).fit(x[::2], y[::2])
    assert (head.predict(x[1::2]) == y[1::2]).mean() >= 0.9
    assert (np.argmax(reading[1::2], 1) == AFFECTNET8.index("surprise")).all()


def _data() -> dict:
    # two people, two clips each, two frames per clip; person b's face sits 0.5 higher in every distance
    geo = np.array([[0.0] * 22, [0.2] * 22, [1.0] * 22, [1.2] * 22,
                    [0.5] * 22, [0.7] * 22, [1.5] * 22, [1.7] * 22])
    probs = np.full((8, 8), 1 / 8)
    return {"probs": probs, "geo": geo, "probs_upright": probs, "roll": np.arange(8.0),
            "clip": np.array([0, 0, 1, 1, 2, 2, 3, 3]),
            "label": np.array(["neutral", "anger", "neutral", "anger"]),
            "person": np.array(["s:a", "s:a", "s:b", "s:b"]), "dataset": np.array(["s", "s", "t", "t"]),
            "path": np.array(["1", "2", "3", "4"])}


def test_each_persons_own_baseline_removes_what_sets_them_apart():
    blocks = clip_features(_data())
    np.testing.assert_allclose(blocks["geometry"][:, 0], [0.1, 1.1, 0.6, 1.6])
    np.testing.assert_allclose(blocks["geometry_own"][:, 0], [-0.5, 0.5, -0.5, 0.5])


def test_only_sets_keeps_the_chosen_datasets_clips_and_their_frames():
    kept = only_sets(_data(), {"t"})
    assert list(kept["path"]) == ["3", "4"]
    assert list(kept["clip"]) == [0, 0, 1, 1]
    np.testing.assert_allclose(kept["geo"][:, 0], [0.5, 0.7, 1.5, 1.7])
    np.testing.assert_allclose(kept["roll"], [4, 5, 6, 7])


def test_a_tilted_face_is_turned_upright_by_its_eye_line():
    import cv2

    from studies.recorded_geometry import eye_line_roll, upright
    from tests.conftest import SAMPLE
    from tools.core.frames import iter_frames
    from tools.perception.faces import load_face_detector
    from tools.perception.gaze import load_gaze_estimator

    frame = next(f for t, f in iter_frames(SAMPLE, 1.0) if t >= 1.0)  # the performer, facing the camera
    h, w = frame.shape[:2]
    det, mesh = load_face_detector("mediapipe"), load_gaze_estimator("mediapipe")
    box = max((b for b, _ in det.detect(frame)), key=lambda b: b.area)
    level = eye_line_roll(mesh.landmarks(frame, box))
    centre = ((box.x0 + box.x1) / 2 * w, (box.y0 + box.y1) / 2 * h)
    tilted = cv2.warpAffine(frame, cv2.getRotationMatrix2D(centre, -15.0, 1.0), (w, h),
                            borderMode=cv2.BORDER_REPLICATE)  # 15 degrees clockwise as seen
    roll = eye_line_roll(mesh.landmarks(tilted, box))
    assert abs(roll - (level + 15.0)) < 3.0
    assert abs(eye_line_roll(mesh.landmarks(upright(tilted, box, roll), box))) < abs(level) + 3.0
