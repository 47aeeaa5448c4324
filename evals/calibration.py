"""Calibration figures of a confidence with bootstrap intervals over groups (the videos or people the items come from).

``calibration_report`` gives ECE, Brier score, accuracy and mean confidence (``evals.metrics.calibration_scores``) with
95 % percentile bootstrap intervals of ECE and Brier, resampling whole groups; ``calibration_intervals`` also gives the
paired interval of the difference between two confidences of the same items. A bootstrap ECE is biased upwards (each
resample's bins hold fewer items), so an interval can sit above its point.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from evals.metrics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, calibration_scores


def calibration_intervals(confs: Sequence[Sequence[float]], right: Sequence[bool], groups: Sequence[str],
                          resamples: int = BOOTSTRAP_RESAMPLES,
                          seed: int = BOOTSTRAP_SEED) -> dict[str, tuple[float, float]]:
    """95 % percentile bootstrap intervals ({"ECE": (low, high), "Brier": ...}) over ``groups`` (one label per item)
    of the ECE and Brier score of ``confs[0]`` or, given two confidence lists of the same items, of their paired
    difference (second minus first).

    Raises:
        ValueError: no items, more than two confidence lists, or a list not as long as ``right``.
    """
    if not right or not 1 <= len(confs) <= 2 or any(len(c) != len(right) for c in (*confs, groups)):
        raise ValueError("calibration intervals need one or two confidences and a group for each of 1 or more items")
    names = sorted(set(groups))
    members = defaultdict(list)
    for i, g in enumerate(groups):
        members[g].append(i)
    rng, draws = np.random.default_rng(seed), defaultdict(list)
    for _ in range(resamples):
        idx = [i for k in rng.choice(len(names), len(names)) for i in members[names[k]]]
        each = [calibration_scores([c[i] for i in idx], [right[i] for i in idx]) for c in confs]
        for key in ("ECE", "Brier"):
            draws[key].append(each[-1][key] - (each[0][key] if len(each) == 2 else 0.0))
    return {k: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for k, v in draws.items()}


def calibration_report(conf: Sequence[float], right: Sequence[bool], groups: Sequence[str]) -> dict:
    """``calibration_scores`` of ``conf`` (rounded to 4 decimals, with ``n``) and ``ECE_95`` / ``Brier_95``, their
    intervals over ``groups``.

    Raises:
        ValueError: as ``calibration_intervals``.
    """
    out = {k: round(v, 4) for k, v in calibration_scores(conf, right).items() if k != "n"} | {"n": len(conf)}
    for key, (lo, hi) in calibration_intervals([conf], right, groups).items():
        out[f"{key}_95"] = [round(lo, 4), round(hi, 4)]
    return out
