"""The appearance heads (annotated gender and age group from face descriptors) on real labelled faces and on
the tracks of real video."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tests.test_affect_models import _assembled
from tools.core.schema import AGE_GROUPS, Appearance
from tools.perception.appearance import age_group, load_appearance_reader

pytestmark = pytest.mark.slow


def test_held_out_utkface_adults_are_read_as_annotated():
    from evals.data.assemble import load_manifest
    from studies.train_appearance import _describe_batch

    recs = load_manifest(_assembled("utkface"), "utkface", split="test")
    adults = sorted((r for r in recs if 20 <= r["age"] < 80), key=lambda r: zlib.crc32(r["path"].encode()))[:60]
    x, found = _describe_batch([r["path"] for r in adults])
    assert found.mean() >= 0.9
    gender, age = load_appearance_reader().probs(x[found])
    said = np.asarray([0 if r["raw_label"] == "female" else 1 for r, f in zip(adults, found, strict=True) if f])
    assert (gender.argmax(1) == said).mean() >= 0.85  # 0.96 on all 2,1xx test adults (tools/models/APPEARANCE.md)
    groups = np.asarray([age_group(r["age"]) for r, f in zip(adults, found, strict=True) if f])
    assert (np.abs(age.argmax(1) - groups) <= 1).mean() >= 0.85
    assert np.allclose(gender.sum(1), 1.0, atol=1e-4) and np.allclose(age.sum(1), 1.0, atol=1e-4)


def test_tracks_of_the_sample_carry_the_appearance_of_who_is_seen(cache_root):
    from indexing.build import open_index
    from memory.index_config import IndexConfig
    from tests.conftest import SAMPLE

    index = open_index(SAMPLE, IndexConfig(), cache_root)
    by_id = {t.track_id: t for t in index.tracks}
    # watched: the performer (tracks 0, 4) and the man in the middle of the audience (6) are men, the
    # audience members on the right (5) and left (7) are women
    for track, woman in ((0, False), (4, False), (6, False), (5, True), (7, True)):
        a = by_id[track].appearance
        assert a is not None and (a.woman >= 0.5) == woman, (track, a)
        assert set(a.age) == set(AGE_GROUPS) and sum(a.age.values()) == pytest.approx(1.0, abs=1e-3)


def test_combined_readings_weigh_each_by_its_faces():
    one = Appearance(woman=0.9, age=dict.fromkeys(AGE_GROUPS, 0.2), faces=1)
    three = Appearance(woman=0.1, age={**dict.fromkeys(AGE_GROUPS, 0.0), "older adult": 1.0}, faces=3)
    both = Appearance.combine([one, three])
    assert both.faces == 4 and both.woman == pytest.approx(0.3)
    assert both.age["older adult"] == pytest.approx(0.8) and both.p_age("older") == pytest.approx(0.85)
    assert Appearance.combine([]) is None
    assert "read as a man (0.70), older adult (0.80)" == both.text
