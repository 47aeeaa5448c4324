"""``studies.voice_ranking``: the voice the index read, added to the face when clips are ranked and named."""

from __future__ import annotations

import numpy as np

from studies.voice_ranking import question_counts
from tools.core.schema import AFFECTNET8

ANGER = AFFECTNET8.index("anger")


def _reading(**probs: float) -> list[float]:
    return [probs.get(k, 0.0) for k in AFFECTNET8]


def test_a_neutral_voice_lets_an_angry_needle_pass_a_haystack_face_read_as_anger():
    """Two clips of a composed 30-minute test video as its index read them: a neutral haystack face read anger 0.53 over
    a neutral voice, and the anger needle's face read neutral 0.40 / anger 0.38 over a voice read anger 0.36. By the
    face alone the haystack clip is first; with the voice weighed 0.6 or more, the needle."""
    face = np.array([_reading(neutral=0.23, disgust=0.11, anger=0.53),
                     _reading(neutral=0.40, surprise=0.09, anger=0.38)])
    voice = np.array([_reading(neutral=0.95), _reading(happiness=0.30, surprise=0.30, anger=0.36)])
    firsts, names = question_counts(face, voice, np.array([False, True]), ANGER)
    assert firsts[0.0] == 0 and firsts[0.4] == 0
    assert firsts[0.6] == firsts[1.0] == 1
    assert AFFECTNET8[int(face[1].argmax())] == "neutral"  # the needle's face alone names neutral by 0.02
    assert names == {0.05: 1, 0.2: 1, 0.4: 1}  # its voice tips it to anger, even at the fitted weight


def test_a_video_without_a_read_face_counts_nothing():
    firsts, names = question_counts(np.zeros((0, 8)), np.zeros((0, 8)), np.zeros(0, dtype=bool), ANGER)
    assert set(firsts.values()) == {0} and set(names.values()) == {0}
