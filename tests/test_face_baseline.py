"""``studies.face_baseline``: a clip's face reading against its person's other clips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studies.face_baseline import baseline_clips, label_of, score_set
from tools.core.schema import AFFECTNET8


def _dist(**probs: float) -> np.ndarray:
    return np.array([probs.get(k, 0.0) for k in AFFECTNET8])


def test_a_talking_face_always_read_as_surprise_is_named_by_what_departs_from_it():
    """Surprise 0.40, anger 0.30 as read is surprise; against a person whose clips read surprise 0.45 and anger 0.10
    the clip departs towards anger."""
    clip = _dist(surprise=0.40, anger=0.30, neutral=0.30)
    assert label_of(clip, None) == "surprise"
    assert label_of(clip, _dist(surprise=0.45, anger=0.10, neutral=0.45)) == "anger"


def test_a_baseline_is_the_same_persons_other_clips_of_the_kind_asked():
    rows = [("r", f"c{i}", lab, who) for i, (lab, who) in enumerate(
        [("neutral", "a"), ("neutral", "a"), ("anger", "a"), ("anger", "a"), ("fear", "a"), ("neutral", "b")])]
    rng = np.random.default_rng(0)
    assert baseline_clips(rows, 0, "all", rng) == [1, 2, 3, 4]  # never the clip itself, never another person
    assert baseline_clips(rows, 2, "neutral", rng) == [0, 1]
    one = baseline_clips(rows, 0, "neutral+one", rng)
    assert one[0] == 1 and len(one) == 3 and one[1] in (2, 3) and one[2] == 4  # one clip of each other label
    with pytest.raises(KeyError):
        baseline_clips(rows, 0, "calm", rng)


def test_a_person_with_too_few_other_clips_keeps_the_reading_as_read():
    rows = [("r", f"c{i}", "anger", "a") for i in range(3)]
    readings = [[list(_dist(surprise=0.4, anger=0.3, neutral=0.3))]] * 3
    scored = score_set(rows, readings)
    assert scored["as read"]["predicted"] == scored["all"]["predicted"] == ["surprise"] * 3


def test_the_tempered_departure_names_a_talking_persons_clips_by_what_departs_and_keeps_a_usual_one():
    """``--tempered`` (section 166): a person's four clips read surprise and neutral alike but one reads anger
    above her usual; against the median over all her frames (the index's usual reading) with exponent 0.5 that clip is
    anger, a clip read as she usually looks keeps its top label, and a person of three clips keeps the reading as
    read."""
    from studies.face_baseline import tempered, tempered_labels

    usual = list(_dist(surprise=0.45, neutral=0.40, anger=0.05, sadness=0.10))
    angry = list(_dist(surprise=0.40, neutral=0.25, anger=0.25, sadness=0.10))
    rows = [("r", f"c{i}", lab, "a") for i, lab in enumerate(["surprise", "neutral", "surprise", "anger"])]
    readings = [[usual] * 4, [usual] * 4, [usual] * 4, [angry] * 4]
    assert tempered_labels(rows, readings, "frames", 0.5) == ["surprise", "surprise", "surprise", "anger"]
    three = [0, 1, 3]  # with the angry clip, but too few clips for a baseline: as read
    assert tempered_labels([rows[i] for i in three], [readings[i] for i in three], "frames", 0.5) == ["surprise"] * 3
    assert tempered_labels(rows, readings, "frames", 0.0)[3] == "surprise"  # exponent 0: as read
    with pytest.raises(KeyError):
        tempered_labels(rows, readings, "calm", 0.5)
    # the mean over the person's other clips needs four of them: with a fifth clip the angry one is named so too
    five, five_read = [*rows, ("r", "c4", "neutral", "a")], [*readings, [usual] * 4]
    assert tempered_labels(rows, readings, "all", 0.5)[3] == "surprise"  # three other clips: as read
    assert tempered_labels(five, five_read, "all", 0.5) == ["surprise", "surprise", "surprise", "anger", "surprise"]
    scored = tempered(five, five_read)
    assert sorted(scored) == sorted(f"{k} {a}" for k in ("all", "frames") for a in (0.25, 0.5, 0.75, 1.0))
    assert scored["frames 0.5"]["right"] == 3 and scored["frames 0.5"]["per_label"]["anger"] == [1, 1]


def test_the_poolings_name_a_clip_by_its_apex_or_its_mean_and_against_the_persons_usual_reading():
    """``studies.face_pooling`` (section 196): a clip of three calm frames and one smile is neutral by its mean and
    happiness by its least neutral quarter; a person of four clips read as usual keeps the shipped labelling's reading,
    and a clip read further from her usual reading departs towards what rose; a person with no usual reading takes the
    set's other people's only when asked."""
    from studies.face_pooling import POOLS, labels, usual_readings

    calm, smile = _dist(neutral=0.7, happiness=0.2, sadness=0.1), _dist(neutral=0.1, happiness=0.9)
    frames = np.array([calm, calm, calm, smile])
    assert AFFECTNET8[int(np.argmax(POOLS["mean"](frames, frames, calm)))] == "neutral"
    assert AFFECTNET8[int(np.argmax(POOLS["apex quarter"](frames, frames, calm)))] == "happiness"
    assert AFFECTNET8[int(np.argmax(POOLS["furthest quarter"](frames, frames, calm)))] == "happiness"
    assert AFFECTNET8[int(np.argmax(POOLS["furthest quarter"](frames, frames, smile)))] == "neutral"
    usual = list(_dist(surprise=0.45, neutral=0.40, anger=0.05, sadness=0.10))
    angry = list(_dist(surprise=0.40, neutral=0.25, anger=0.25, sadness=0.10))
    rows = [("r", f"c{i}", lab, "a") for i, lab in enumerate(["surprise", "neutral", "surprise", "anger"])]
    rows.append(("r", "c4", "anger", "b"))
    readings = [[usual] * 4, [usual] * 4, [usual] * 4, [angry] * 4, [angry] * 4]
    assert labels(rows, readings, "mean", 0.0) == ["surprise"] * 5
    assert labels(rows, readings, "mean", 0.5) == ["surprise", "surprise", "surprise", "anger", "surprise"]
    assert usual_readings(rows, readings)[4] is None
    assert labels(rows, readings, "mean", 0.5, population=True)[4] == "anger"


def test_a_needle_video_holds_every_neutral_clip_and_seven_drawn_by_its_seed():
    """``studies.recorded_needles.needle_clips`` (section 197): all the calm clips and one clip of each drawn emotion,
    none twice, the same draw for the same seed."""
    from evals.build_bench import LabelledClip
    from studies.recorded_needles import NEEDLES, NEEDLES_OF, needle_clips

    clips = [LabelledClip(Path(f"{e}{i}.mp4"), e, person=str(i % 5)) for e in (
        "neutral", "happiness", "sadness", "surprise", "fear", "anger") for i in range(8)]
    chosen = needle_clips(clips, 11)
    assert chosen[:8] == [c for c in clips if c.emotion == "neutral"]
    assert sorted(c.emotion for c in chosen[8:]) == sorted(NEEDLES)
    assert len({c.path for c in chosen}) == len(chosen) == 15
    assert needle_clips(clips, 11) == chosen and needle_clips(clips, 12) != chosen
    assert sorted(c.emotion for c in needle_clips(clips, 5, NEEDLES_OF[5])[8:]) == sorted(NEEDLES_OF[5])
    with pytest.raises(IndexError):  # nine surprise needles of eight surprise clips
        needle_clips(clips, 11, ("surprise",) * 9)
