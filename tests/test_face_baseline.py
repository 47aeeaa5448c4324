"""``studies.face_baseline``: a clip's face reading against its person's other clips."""

from __future__ import annotations

import numpy as np
import pytest

from studies.face_baseline import baseline_clips, label_of, score_set
from tools.core.schema import AFFECTNET8


def _dist(**probs: float) -> np.ndarray:
    return np.array([probs.get(k, 0.0) for k in AFFECTNET8])


def test_a_talking_face_always_read_as_surprise_is_named_by_what_departs_from_it():
    """Surprise 0.40, anger 0.30 as read is surprise; against a person whose clips read surprise 0.45 and anger 0.10
    the clip departs towards anger."""
    clip = _dist(surprise=0.40, anger=0.30, neutral=0.30)
    assert label_of(clip, None) == "surprise"
    assert label_of(clip, _dist(surprise=0.45, anger=0.10, neutral=0.45)) == "anger"


def test_a_baseline_is_the_same_persons_other_clips_of_the_kind_asked():
    rows = [("r", f"c{i}", lab, who) for i, (lab, who) in enumerate(
        [("neutral", "a"), ("neutral", "a"), ("anger", "a"), ("anger", "a"), ("fear", "a"), ("neutral", "b")])]
    rng = np.random.default_rng(0)
    assert baseline_clips(rows, 0, "all", rng) == [1, 2, 3, 4]  # never the clip itself, never another person
    assert baseline_clips(rows, 2, "neutral", rng) == [0, 1]
    one = baseline_clips(rows, 0, "neutral+one", rng)
    assert one[0] == 1 and len(one) == 3 and one[1] in (2, 3) and one[2] == 4  # one clip of each other label
    with pytest.raises(KeyError):
        baseline_clips(rows, 0, "calm", rng)


def test_a_person_with_too_few_other_clips_keeps_the_reading_as_read():
    rows = [("r", f"c{i}", "anger", "a") for i in range(3)]
    readings = [[list(_dist(surprise=0.4, anger=0.3, neutral=0.3))]] * 3
    scored = score_set(rows, readings)
    assert scored["as read"]["predicted"] == scored["all"]["predicted"] == ["surprise"] * 3
