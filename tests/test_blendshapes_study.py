"""The study of MediaPipe's blendshapes as a head's features (``studies.blendshapes``, RESULTS section 129): it reads
only the landmarker bundle it names, and its per-person baseline and left-out protocol do what its table says."""

import numpy as np
import pytest

from studies.blendshapes import Blendshapes, left_out_predictions, main, own_baseline
from tests.conftest import SAMPLE


def test_a_file_that_is_not_the_landmarker_bundle_is_refused_by_its_checksum(tmp_path, capsys):
    with pytest.raises(ValueError, match="not face_landmarker.task"):
        Blendshapes(SAMPLE)
    for bundle in (SAMPLE, tmp_path / "missing.task"):  # the command: one line and exit 2, no traceback
        assert main(["--landmarker", str(bundle), "--rafdb", str(tmp_path), "--mirrors", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1


def test_a_clip_is_read_against_its_own_persons_usual_face():
    # person a's coefficients sit at 0.1 and 0.3 (usual 0.2 over their four frames), person b's 0.5 higher throughout
    shapes = [np.full((2, 52), 0.1), np.full((2, 52), 0.3), np.full((2, 52), 0.6), np.full((2, 52), 0.8),
              np.zeros((0, 52))]
    own = own_baseline(shapes, ["a", "a", "b", "b", "c"])
    np.testing.assert_allclose(own[:4, 0], [-0.1, 0.1, -0.1, 0.1], atol=1e-12)
    assert np.isnan(own[4]).all()  # no face: no features


def test_each_set_is_read_by_a_head_fitted_on_the_others_alone(monkeypatch):
    import studies.recorded_geometry as geometry

    rng = np.random.default_rng(0)
    # four sets of 24 clips (4 people each); the first coefficient marks happiness in sets w, x and y and sadness in z
    rows, feats, sets = [], [], []
    for s in ("w", "x", "y", "z"):
        for i in range(24):
            label = "happiness" if i % 2 else "sadness"
            sign = 1.0 if (label == "happiness") == (s != "z") else -1.0
            rows.append(("repo", f"{s}{i}", label, f"{s}-{i % 4}"))
            feats.append([sign, *rng.normal(0, 0.1, 3)])  # one telling coefficient, three of noise
            sets.append(s)
    x = np.array(feats)
    x[5] = np.nan  # a clip without a face
    fitted_on, fit_predict = [], geometry.fit_predict

    def spy(x_train, y_train, groups, x_test, **kwargs):
        fitted_on.append((set(groups), len(x_train), len(x_test)))
        return fit_predict(x_train, y_train, groups, x_test, **kwargs)

    monkeypatch.setattr(geometry, "fit_predict", spy)
    pred = left_out_predictions(x, rows, np.array(sets))
    # each set is read by a head that saw every person of the other three and none of its own; the faceless clip is
    # neither fitted nor read
    assert fitted_on == [({f"{o}-{k}" for o in "wxyz" if o != held for k in range(4)},
                          72 - (held != "w"), 24 - (held == "w")) for held in "wxyz"]
    right = [p == lab for p, (_, _, lab, _) in zip(pred, rows, strict=True)]
    assert pred[5] is None and not any(right[72:])  # z read by what w, x and y teach: the other way round
