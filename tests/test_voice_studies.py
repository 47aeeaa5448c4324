"""The voice studies of RESULTS section 132 (``studies.vocal_bursts``, ``studies.voice_baseline``): the EmoGator split
by person, the recipes' readers, the levelling and a person's own baseline do what their docstrings say."""

import numpy as np
import pytest

from studies.vocal_bursts import KINDS, burst_features, fit_recipe, is_test_person, main
from studies.voice_baseline import LEVEL_DBFS, active_level, levelled, own_baseline
from tests.conftest import SAMPLE
from tools.core.media import load_audio
from tools.core.schema import AFFECTNET8


def test_emogator_contributors_are_split_once_by_number_and_the_nine_kinds_name_eight_labels():
    people = [f"{i:06d}" for i in range(1, 358)]
    test = [p for p in people if is_test_person(p)]
    assert len(test) == 71 and "000005" in test and "000001" not in test
    assert sorted(set(KINDS.values())) == sorted(AFFECTNET8)


def test_a_folder_without_emogator_takes_is_one_line_and_exit_2(tmp_path, capsys):
    with pytest.raises(FileNotFoundError):
        burst_features(tmp_path)
    assert main(["--emogator", str(tmp_path), "--mirrors", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def _rows(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Speech rows (feature 0 near 0) whose feature 1 tells anger (+1) from sadness (-1), and bursts (feature 0 near 5)
    whose feature 1 tells them the other way round: an exclusive or, which no one linear head reads."""
    n = 200
    speech = np.column_stack([rng.normal(0, 0.3, n), np.repeat([1.0, -1.0], n // 2), rng.normal(0, 1, (n, 2))])
    bursts = np.column_stack([rng.normal(5, 0.3, n), np.repeat([-1.0, 1.0], n // 2), rng.normal(0, 1, (n, 2))])
    x = np.vstack([speech, bursts])
    y = np.array([AFFECTNET8.index(k) for k in ["anger"] * 100 + ["sadness"] * 100 + ["anger"] * 100
                  + ["sadness"] * 100])
    return x, y, np.arange(2 * n) >= n


def test_the_recipes_weigh_speech_and_bursts_as_named_and_the_gate_sends_each_to_its_own_head():
    x, y, burst = _rows(np.random.default_rng(0))
    speech_only = fit_recipe("speech", x, y, burst)(x)
    assert (speech_only[~burst] == y[~burst]).mean() > 0.95 and (speech_only[burst] == y[burst]).mean() < 0.05
    gated = fit_recipe("gated", x, y, burst)(x)
    assert (gated == y).mean() > 0.95  # one linear head cannot read feature 1 both ways; two heads and a gate can
    pooled = fit_recipe("speech+bursts", x, y, burst)(x)
    assert (pooled == y).mean() < 0.75
    leaning = fit_recipe("bursts at 0.1", x, y, burst)(x)  # the bursts weigh a tenth: the speech's reading wins
    assert (leaning[~burst] == y[~burst]).mean() > 0.95 and (leaning[burst] == y[burst]).mean() < 0.05


def test_levelling_takes_away_the_recording_gain():
    audio = load_audio(SAMPLE)[: 16_000 * 3]
    assert abs(active_level(levelled(audio)) - LEVEL_DBFS) < 0.01
    np.testing.assert_allclose(levelled(audio), levelled(audio * 0.1), rtol=1e-4, atol=1e-6)
    assert active_level(audio * 0.1) == pytest.approx(active_level(audio) - 20.0, abs=0.01)


def test_a_voice_is_read_against_its_own_persons_usual_voice():
    x = np.array([[1.0, 10.0], [3.0, 14.0], [5.0, 0.0], [7.0, 4.0], [9.0, 9.0]])
    people = np.array(["a", "a", "b", "b", "c"])
    np.testing.assert_allclose(own_baseline(x, people), [[-1, -2], [1, 2], [-1, -2], [1, 2], [0, 0]])
    z = own_baseline(x, people, z=True)
    np.testing.assert_allclose(z[:4], [[-1, -1], [1, 1], [-1, -1], [1, 1]], atol=1e-5)
    assert (z[4] == 0).all()  # one clip: no departure to read
    calm = np.array([True, False, False, False, False])  # a's first clip is their calm one; b and c have none
    np.testing.assert_allclose(own_baseline(x, people, reference=calm), [[0, 0], [2, 4], [-1, -2], [1, 2], [0, 0]])


def test_a_mostly_calm_baseline_takes_every_calm_clip_and_k_of_each_other_emotion():
    from studies.voice_baseline import mostly_calm

    rng = np.random.default_rng(1)
    labels = ["neutral"] * 4 + ["anger"] * 4 + ["sadness"] * 4

    def person_set(people: list[str]) -> dict[str, np.ndarray]:
        y = np.array([AFFECTNET8.index(k) for _ in people for k in labels])
        x = rng.normal(0, 1, (len(y), 3)) + (y == AFFECTNET8.index("anger"))[:, None] * 2.0
        return {"x": x, "y": y, "person": np.repeat(people, len(labels))}

    read = mostly_calm(person_set(["a", "b", "c", "d"]), person_set(["e", "f"]), others=(1, 3), draws=3)
    assert read["1 of each other emotion"]["baseline_clips"] == 6  # 4 calm + 1 anger + 1 sadness
    assert read["3 of each other emotion"]["calm_share"] == 0.4  # 4 of 10
    assert all(0 <= r["right"][1] <= r["right"][0] <= r["right"][2] <= 24 for r in read.values())


def test_a_baseline_of_one_clip_reads_nothing_and_one_of_the_whole_person_reads_through_the_recording_gain():
    """``studies.voice_baseline.baseline_sizes`` on made-up people: a clip read against itself alone departs by
    nothing, so every clip gets the one label a zero departure reads (8 of 24 right: one label's clips); read against
    the mean of all the person's clips, the labels come through a gain no development person had."""
    from studies.voice_baseline import baseline_sizes

    rng = np.random.default_rng(0)
    labels = [AFFECTNET8.index(k) for k in ["neutral"] * 4 + ["anger"] * 4 + ["sadness"] * 4]
    direction = {label: rng.normal(0, 1, 252) for label in set(labels)}

    def people(names: list[str], gain: float) -> dict[str, np.ndarray]:
        y = np.array(labels * len(names))
        offsets = np.repeat(rng.normal(0, 1, (len(names), 252)) + gain, len(labels), axis=0)
        x = offsets + np.stack([direction[k] for k in y]) + rng.normal(0, 0.3, (len(y), 252))
        return {"x": x.astype(np.float32), "y": y, "person": np.repeat(names, len(labels))}

    sizes = baseline_sizes(people(["a", "b", "c", "d"], 0.0), people(["e", "f"], 5.0), sizes=(1, 12), draws=2)
    assert sizes["1"] == [8.0, 8, 8]
    assert sizes["12"][1] >= 22
