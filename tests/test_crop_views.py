"""The test-time views of ``studies.crop_views`` on a real frame of the sample: the study's single view is the crop the
pipeline reads, the other views frame the same face otherwise, and a clip's views read as the engine reads faces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).parents[1]
SAMPLE = REPO / "samples" / "hamilton_short.mp4"


@pytest.fixture(scope="module")
def engine():
    from tools.perception.engine import PerceptionConfig, load_engine

    return load_engine(PerceptionConfig(expression_backend="faceres+face8"))


@pytest.fixture(scope="module")
def face(engine):
    """The performer's close-up at 5 s: (RGB frame, the largest face box)."""
    from tools.core.frames import iter_frames

    frame = next(f for t, f in iter_frames(SAMPLE, 1.0) if t >= 5.0)
    box = max((b for b, _ in engine.detector.detect(frame)), key=lambda b: b.area)
    return frame, box


def test_the_single_view_is_the_pipelines_crop_and_the_others_frame_the_face_otherwise(face):
    from studies.crop_views import VIEWS, view_crop
    from tools.perception.crops import gray_crop

    frame, box = face
    crops = {name: view_crop(frame, box, *v) for name, v in VIEWS.items()}
    assert np.array_equal(crops["m10"], gray_crop(frame, box))
    assert all(c.shape == (64, 64) and c.dtype == np.uint8 for c in crops.values())
    assert all(not np.array_equal(crops["m10"], c) for name, c in crops.items() if name != "m10")
    # a wider margin shows more around the face: the face's middle shrinks towards the crop's centre
    mid = crops["m00"][24:40, 24:40].astype(float)
    assert np.abs(mid - crops["m30"][24:40, 24:40]).mean() > 5


def test_a_clip_is_read_through_every_view_and_the_single_view_reads_as_the_engine(engine):
    from studies.crop_views import VIEWS, combo_labels, read_views
    from tools.core.frames import iter_frames
    from tools.core.schema import AFFECTNET8

    read = read_views(SAMPLE, engine.detector, engine.classifier)
    framed = [obs for t, f in iter_frames(SAMPLE, 4.0) if (obs := engine.observe_frame(t, f, "f", hands=False)).faces]
    assert read.shape == (len(framed), len(VIEWS), len(AFFECTNET8)) and len(read) > 20
    assert np.allclose(read.sum(axis=2), 1.0, atol=1e-3)
    largest = [max(obs.faces, key=lambda x: x.box.area).expression for obs in framed]
    assert np.allclose(read[:, 0], [[e[k] for k in AFFECTNET8] for e in largest], atol=1e-3)
    assert combo_labels([read], ("m10",))[0] == AFFECTNET8[int(read[:, 0].mean(axis=0).argmax())]
    two = np.zeros((2, len(VIEWS), len(AFFECTNET8)))  # two frames: m10 leans to happiness, m00 firmly to sadness
    two[:, 0, AFFECTNET8.index("happiness")], two[:, 0, AFFECTNET8.index("sadness")] = 0.6, 0.4
    two[:, 1, AFFECTNET8.index("sadness")] = 1.0
    assert combo_labels([two], ("m10",)) == ["happiness"] and combo_labels([two], ("m10", "m00")) == ["sadness"]
    assert combo_labels([read[:0]], ("m10",)) == [None]
