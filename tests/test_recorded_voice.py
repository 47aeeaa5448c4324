"""The study of the face and the voice read together on recorded clips (``studies.recorded_voice``, RESULTS section
77): it hears each face crop's own performance, and it reads the weight the shipped fusion gives whisper8."""

import numpy as np
import pytest

from studies.recorded_voice import _right, ravdess_speech_name, shipped_w


def test_a_ravdess_face_crop_is_heard_from_its_own_performance():
    assert ravdess_speech_name("01-01-05-02-01-01-05_facecroppad.avi") == "03-01-05-02-01-01-05.wav"
    assert ravdess_speech_name("01-01-01-01-02-02-05_facecroppad.avi") == "03-01-01-01-02-02-05.wav"
    for bad in ("02-01-05-02-01-01-05_facecroppad.avi", "01-01-05-02-01-01-05.mp4", "01-01-05_facecroppad.avi"):
        with pytest.raises(ValueError):
            ravdess_speech_name(bad)


def test_the_study_reads_whisper8s_weight_from_the_shipped_fusion():
    """whisper8's voice against the face as ``agents/fusion.json`` itself gives them (read from the file here):
    0.4 / (0.75 + 0.4), 0.348 (a pin of the weights chosen in ``evals/RESULTS.md`` section 77)."""
    import json

    from agents.fusion import FUSION_FILE

    raw = json.loads(FUSION_FILE.read_text())
    vocal = raw["vocal_by_reader"]["whisper8"]
    assert shipped_w() == pytest.approx(vocal / (raw["visual"] + vocal), abs=1e-4) == pytest.approx(0.348, abs=1e-3)


def test_a_clip_is_right_when_its_top_label_is_one_of_its_labels():
    fused = np.zeros((3, 8))
    fused[0, 1] = fused[1, 6] = fused[2, 0] = 1.0  # happiness, anger, neutral
    assert list(_right(fused, np.array(["happiness", "disgust+anger", "sadness"]))) == [True, True, False]
