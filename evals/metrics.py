"""Moment-localization metrics.

tIoU and R1@tIoU follow the temporal grounding convention (Gao et al., 2017, TALL / Charades-STA):
a top-1 predicted moment counts as correct at threshold m when its temporal IoU with a ground-truth
moment is at least m.
"""

from __future__ import annotations


def temporal_iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Temporal IoU of spans ``a`` and ``b`` given as (start_s, end_s); 0 for disjoint or empty spans."""
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 and inter > 0 else 0.0


def recall_at_1(top1: tuple[float, float] | None, truths: list[tuple[float, float]], threshold: float) -> float:
    """1.0 when the top-1 span reaches tIoU >= ``threshold`` with any ground-truth span, else 0.0."""
    if top1 is None:
        return 0.0
    return float(any(temporal_iou(top1, t) >= threshold for t in truths))
