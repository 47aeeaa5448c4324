"""The dim-scene trial of ``studies.dark_faces`` on the sample's real audience crops: its darkening makes faces
darker and flatter, the same bytes for the same seed; its two ways of bringing a crop to the training look change only
crops flatter than the trigger and bring those to the target level and spread."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def audience():
    from studies.dark_faces import audience_crops

    return audience_crops(REPO / "samples" / "hamilton_short.mp4")


def test_the_audience_crops_are_dark_and_flat(audience):
    from studies.dark_faces import spreads

    level, spread = spreads(audience)
    assert len(audience) > 50 and audience.shape[1:] == (64, 64)
    assert np.median(level) < 50 and np.median(spread) < 25  # RAF-DB's training crops: about 97 and 66


def test_darkened_is_darker_flatter_and_repeatable(audience):
    from studies.dark_faces import darkened, spreads

    bright = np.clip(audience.astype(np.int32) * 3, 0, 255).astype(np.uint8)
    dark = darkened(bright, 2.0)
    assert np.array_equal(dark, darkened(bright, 2.0))
    assert not np.array_equal(dark, darkened(bright, 2.0, seed=1))
    (lb, sb), (ld, sd), (l3, s3) = spreads(bright), spreads(dark), spreads(darkened(bright, 3.0))
    assert (ld < lb).all() and np.median(sd) < np.median(sb)
    assert np.median(l3) < np.median(ld) and np.median(s3) < np.median(sd)


def test_only_crops_under_the_trigger_change_and_reach_the_target(audience):
    from studies.dark_faces import Look, clahe, spreads, standardized

    bright = np.clip(audience.astype(np.int32) * 3, 0, 255).astype(np.uint8)
    look = Look.of(bright)  # the trigger is the 1st percentile of these crops' spreads
    mixed = np.concatenate([bright, audience])
    flat = spreads(mixed)[1] < look[0]
    assert flat[len(bright):].all() and flat.sum() < len(bright) + len(audience)
    for way in (standardized, clahe):
        out = way(mixed, look)
        assert np.array_equal(out[~flat], mixed[~flat])
        assert not np.array_equal(out[flat], mixed[flat])
    level, spread = spreads(standardized(mixed, look)[flat])
    assert np.allclose(level, look[1], atol=6) and np.allclose(spread, look[2], rtol=0.15)
