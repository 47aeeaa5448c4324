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
