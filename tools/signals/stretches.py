"""Where a reading shows over a candidate's frames: pure functions of one value per frame (a label's probability, a
face's support), at any frame rate.

- ``best_stretch``: the best-showing stretch of a given length (the verifier's visual support,
  ``agents.evidence.SUPPORT_STRETCH_S``).
- ``onset_offset``: from the first to the last frame at ``ONSET_SHARE`` of the peak or more (where an expression
  shows, from its onset to its offset: the span the emotion judge gives a moment).
"""

from __future__ import annotations

import numpy as np

#: The share of its peak probability at which an expression counts as shown (``onset_offset``): half, as the full width
#: at half maximum measures a peaked signal. On recorded video the top label flickers between frames while the asked
#: one holds near its level (a fear shot read fear, anger and sadness in turn at p(fear) 0.15-0.28; evals/RESULTS.md
#: section 80), so the frames whose top label it is cover a fraction of the expression.
ONSET_SHARE = 0.5


def best_stretch(times: list[float], values: list[float], stretch_s: float, step: float) -> float:
    """The largest mean of ``values`` over the frames inside any stretch of ``stretch_s`` seconds that lies within the
    frames' span (frames at ``times``, seconds, in order, each standing for ``step`` seconds; a stretch holds the frames
    from its start to ``stretch_s - step`` later and starts or ends at a frame, so frames after a gap count too); the
    mean of all of them when they span less, and the largest single value when a frame stands for more than the stretch.
    0 without frames."""
    if not values:
        return 0.0
    t, v = np.asarray(times, dtype=float), np.asarray(values, dtype=float)
    width = stretch_s - step
    if width < 0:
        return float(v.max())
    if t[-1] - t[0] < width:
        return float(v.mean())
    # each stretch starts or ends at a frame (kept within the span), so it holds that frame
    starts = np.unique(np.clip(np.r_[t, t - width], t[0], t[-1] - width))
    return max(float(v[(t >= a - 1e-6) & (t <= a + width + 1e-6)].mean()) for a in starts)


def onset_offset(times: list[float], values: list[float], step: float, bounds: tuple[float, float]
                 ) -> list[float] | None:
    """[start, end] seconds from the first to the last of ``times`` whose value is at least ``ONSET_SHARE`` of the
    largest of ``values`` (one per time; a label's probability per frame), each frame spanning ``step`` seconds
    about its time, to the millisecond, inside ``bounds`` (start, end seconds); None when there is no value above 0."""
    peak = max(values, default=0.0)
    if peak <= 0:
        return None
    shown = [t for t, v in zip(times, values, strict=True) if v >= ONSET_SHARE * peak]
    start, end = max(bounds[0], round(min(shown) - step / 2, 3)), min(bounds[1], round(max(shown) + step / 2, 3))
    return [start, end] if end > start else None
