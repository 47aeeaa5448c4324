"""Face identity descriptors: dlib's network read from its weight file and run by onnxruntime gives dlib's own
descriptors; a weight file that is not that network is refused with the file named."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SAMPLE
from tools.core.frames import iter_frames
from tools.perception.dlib_resnet import read_face_resnet
from tools.perception.faces import load_face_detector
from tools.perception.identity import dlib_models_dir, load_face_identity

NETWORK = "dlib_face_recognition_resnet_model_v1.dat"


def test_descriptors_are_dlibs_own_for_every_face_of_the_sample():
    import dlib

    models = dlib_models_dir()
    shapes = dlib.shape_predictor(str(models / "shape_predictor_5_face_landmarks.dat"))
    theirs = dlib.face_recognition_model_v1(str(models / NETWORK))
    detector, ours = load_face_detector("mediapipe"), load_face_identity("dlib")
    compared = 0
    for _, frame in iter_frames(SAMPLE, 2.0):
        boxes = [box for box, _score in detector.detect(frame)]
        if not boxes:
            continue
        h, w = frame.shape[:2]
        faces = [shapes(frame, dlib.rectangle(int(b.x0 * w), int(b.y0 * h), int(b.x1 * w), int(b.y1 * h)))
                 for b in boxes]
        want = np.asarray([theirs.compute_face_descriptor(frame, face) for face in faces], np.float32)
        got = ours.describe(frame, boxes)  # all of a frame's faces in one batch
        assert got.shape == want.shape == (len(boxes), 128)
        assert np.abs(got - want).max() < 1e-5
        compared += len(boxes)
    assert compared >= 20  # the performer, the pianist and the audience


def test_the_network_read_is_the_one_dlibs_notes_describe():
    net = read_face_resnet(dlib_models_dir() / NETWORK)
    assert net.stem.weight.shape == (32, 3, 7, 7) and net.stem.stride == 2
    assert 1 + 2 * len(net.blocks) == 29  # 29 convolutional layers
    assert [b.conv2.weight.shape[0] for b in net.blocks if b.down] == [64, 128, 256, 256]
    assert net.fc.shape == (256, 128)
    assert np.allclose(net.mean, [122.782, 117.001, 104.298], atol=1e-3)  # dlib's input_rgb_image means


def test_a_file_that_is_not_the_network_is_refused_with_its_name(tmp_path):
    whole = (dlib_models_dir() / NETWORK).read_bytes()
    short = tmp_path / "short.dat"
    short.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match=r"short\.dat: not dlib's face recognition network \(the file ends"):
        read_face_resnet(short)
    with pytest.raises(ValueError, match=r"shape_predictor_5_face_landmarks\.dat: not dlib's face recognition"):
        read_face_resnet(dlib_models_dir() / "shape_predictor_5_face_landmarks.dat")
