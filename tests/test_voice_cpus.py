"""The study of voice labels across CPUs (``studies.voice_cpus``) sees a decision that sits on the clustering's cut."""

from __future__ import annotations

import numpy as np

from studies.voice_cpus import margins, merge_margins, nearest_mean_gap
from tools.signals.diarization import VOICE_MAX_DISTANCE


def _pair(distance: float) -> np.ndarray:
    """Two unit vectors in the positive quadrant whose cosine distance is ``distance``."""
    cos = 1.0 - distance
    return np.asarray([[1.0, 0.0], [cos, np.sqrt(1.0 - cos * cos)]], np.float32)


def test_a_merge_on_the_cut_is_reported_and_small_perturbations_change_its_labels():
    emb = _pair(VOICE_MAX_DISTANCE + 2e-6)
    assert abs(merge_margins(emb, VOICE_MAX_DISTANCE)[0] - VOICE_MAX_DISTANCE) < 1e-5
    report = margins(emb, {}, trials=30)
    assert report["voices"] == 2
    assert report["perturbations"]["5.1e-05"]["trials_with_a_label_changed"] > 0


def test_voices_far_from_the_cut_keep_their_labels():
    emb = np.concatenate([_pair(0.05), _pair(0.05)[:, ::-1]])  # two tight pairs about 0.7 apart
    report = margins(emb, {}, trials=30)
    assert report["voices"] == 2
    assert min(abs(h - VOICE_MAX_DISTANCE) for h in report["merge_heights_nearest_cut"]) > 0.25
    assert all(p["trials_with_a_label_changed"] == 0 for p in report["perturbations"].values())
    assert nearest_mean_gap(emb, np.arange(4)) > 0.5


def test_another_cpus_rows_are_compared_and_put_in_place():
    emb = np.concatenate([_pair(0.05), _pair(0.05)[:, ::-1]])
    same = margins(emb, {"same": emb[:2].copy()}, trials=1)["other_cpus"]["same"]
    assert same["max_abs_diff"] == 0.0 and same["same_labels"] and same["digest"] == same["native_digest"]
    moved = emb[:2].copy()
    moved[1] = emb[3]  # on that CPU the second window sounds like the other voice
    other = margins(emb, {"moved": moved}, trials=1)["other_cpus"]["moved"]
    assert other["values_differing"] == 2 and not other["same_labels"]
