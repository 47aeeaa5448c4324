"""tIoU and R1@tIoU on constructed spans with known answers."""

from __future__ import annotations

import pytest

from evals.metrics import recall_at_1, temporal_iou


def test_tiou_known_values():
    assert temporal_iou((2.0, 6.0), (2.0, 6.0)) == 1.0
    assert temporal_iou((0.0, 2.0), (3.0, 5.0)) == 0.0
    assert temporal_iou((0.0, 2.0), (1.0, 3.0)) == pytest.approx(1 / 3)
    assert temporal_iou((1.0, 1.0), (0.0, 2.0)) == 0.0


def test_recall_at_1_thresholds():
    truths = [(8.0, 10.0)]
    assert recall_at_1((8.0, 10.0), truths, 0.7) == 1.0
    assert recall_at_1((7.0, 9.0), truths, 0.3) == 1.0 and recall_at_1((7.0, 9.0), truths, 0.5) == 0.0
    assert recall_at_1(None, truths, 0.3) == 0.0


def test_average_precision_known_cases():
    from evals.metrics import average_precision, mean_average_precision, recall_at_k

    truths = [(0.0, 2.0), (5.0, 7.0)]
    assert average_precision([(0.0, 2.0), (5.0, 7.0)], truths, 0.5) == 1.0
    # a miss ranked first: precision 1/2 then 2/3 at the hits; the interpolated envelope is 2/3 at both
    assert average_precision([(10.0, 11.0), (0.0, 2.0), (5.0, 7.0)], truths, 0.5) == pytest.approx(2 / 3)
    assert average_precision([(0.0, 2.0), (10.0, 11.0)], truths, 0.5) == pytest.approx(0.5)
    assert mean_average_precision([(20.0, 21.0)], truths) == 0.0
    assert recall_at_k([(10.0, 11.0), (5.0, 7.0)], truths, k=5, threshold=0.5) == 0.5


def test_match_emotion_and_rationale_metrics():
    from evals.metrics import (
        emotion_scores,
        emotion_word_overlap,
        grounding_score,
        match_moments,
        modality_similarity,
    )

    assert match_moments([(0.0, 2.0), (1.0, 3.0)], [(1.0, 3.0)]) == [(1, 0)]
    s = emotion_scores(["happiness", "sadness", "happiness"], ["happiness", "happiness", "happiness"])
    assert s["accuracy"] == pytest.approx(2 / 3)
    assert s["macro_f1"] == pytest.approx((0.8 + 0.0) / 2)  # happiness F1 = 2*(2/3*1)/(2/3+1) = 0.8
    assert s["confusion"][1][1] == 2 and s["confusion"][2][1] == 1
    assert modality_similarity(["visual", "verbal"], ["visual", "verbal"]) == 1.0
    assert modality_similarity(["visual"], ["visual", "verbal", "vocal"]) == pytest.approx(1 / 3)
    # {happy} vs {happy, laughing}
    assert emotion_word_overlap("She is happy.", "Happy faces, laughing.") == pytest.approx(1 / 2)
    assert emotion_word_overlap("The room.", "A table.") is None
    assert grounding_score(["c1.v0", "c9.v9"], {"c1.v0", "c1.t0"}) == 0.5
    assert grounding_score([], {"x"}) is None
