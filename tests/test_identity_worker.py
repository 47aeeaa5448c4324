"""Re-identification descriptors computed partly in a worker process are the ones the build computes itself."""

from __future__ import annotations

import numpy as np

from indexing.visual import THUMB_MARGIN, _descriptors, face_jpeg
from memory.index_config import IndexConfig
from tests.conftest import SAMPLE
from tools.core.frames import iter_frames
from tools.perception.crops import box_in_crop, jpeg_rgb
from tools.perception.engine import load_engine
from tools.perception.identity_worker import IdentityWorker


def _sample_crops() -> list[tuple[bytes, object]]:
    """(JPEG crop, face box in the crop) of every face MediaPipe finds in the sample at 2 fps."""
    engine = load_engine(IndexConfig().perception())
    crops = []
    for _, frame in iter_frames(SAMPLE, 2.0):
        for box, _score in engine.detector.detect(frame):
            crops.append((face_jpeg(frame, box), box_in_crop(frame.shape, box, THUMB_MARGIN)))
    return crops


def test_the_worker_process_gives_the_descriptors_this_process_gives():
    engine = load_engine(IndexConfig().perception())
    crops = _sample_crops()
    assert len(crops) >= 20  # the sample's performer, pianist and audience
    here = [engine.describe(jpeg_rgb(data), [box])[0] for data, box in crops]
    there = IdentityWorker("dlib", crops).result()
    assert there is not None and len(there) == len(crops)
    assert all(np.array_equal(a, b) for a, b in zip(here, there, strict=True))
    # the build's split: the later tracks' crops go to the worker, the result is the same per track
    jobs = {i // 2: crops[i : i + 2] for i in range(0, len(crops), 2)}  # track id -> its crops
    split = _descriptors(engine, jobs, pool_min=1)
    alone = _descriptors(engine, jobs, pool_min=10**9)
    assert split.keys() == alone.keys() == jobs.keys()
    assert all(np.array_equal(a, b) for tid in jobs for a, b in zip(split[tid], alone[tid], strict=True))


def test_a_worker_that_cannot_load_its_backend_returns_nothing_rather_than_wrong_descriptors():
    crops = _sample_crops()[:2]
    assert IdentityWorker("no-such-backend", crops).result() is None

