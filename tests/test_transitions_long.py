"""The long transitions bench (``evals.transitions.build_long``) on a small assembled set whose "faces" are frames of
the bundled sample: the builder's layout, not the faces, is under test."""

from __future__ import annotations

import json

import cv2
import pytest

from evals.transitions import HAYSTACK_SHOT_S, SEGMENT_S, build_long
from tests.conftest import SAMPLE
from tools.core.media import iter_frames, probe

#: Subject -> its emotions: three subjects who can only go between anger and sadness (two orders for three),
#: two others who can change, two stills.
SUBJECTS = {"S1": ("anger", "sadness"), "S2": ("anger", "sadness"), "S3": ("fear", "happiness", "surprise"),
            "S4": ("happiness",), "S5": ("disgust",), "S6": ("surprise", "anger"), "S7": ("anger", "sadness")}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """An assembled CK+-like set (``evals.data.assemble``'s manifest) of sample frames, split ``test``."""
    root = tmp_path_factory.mktemp("data")
    (root / "ckplus").mkdir()
    frames = [rgb for _, rgb in iter_frames(SAMPLE, 2.0)]
    records, n = [], 0
    for person, emotions in SUBJECTS.items():
        for emotion in emotions:
            for k in range(3):  # one sequence of three frames, "<subject>_<sequence>_<frame>"
                name = f"{person}_{emotion[:3]}_{k}.png"
                cv2.imwrite(str(root / "ckplus" / name), cv2.cvtColor(frames[n % len(frames)], cv2.COLOR_RGB2BGR))
                records.append({"path": name, "person": person, "label": emotion, "split": "test"})
                n += 1
    (root / "ckplus" / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def test_each_transition_is_asked_once_at_the_start_of_its_second_segment(root, tmp_path):
    bench = build_long("test", tmp_path, minutes=4, transitions=3, seed=0, root=root)
    items = [json.loads(line) for line in bench.read_text().splitlines()]
    pairs = [(it["change"]["before"], it["change"]["after"]) for it in items]
    assert len(items) == 3 and len(set(pairs)) == 3 and len({it["person"] for it in items}) == 3
    times = [it["change"]["t_s"] for it in items]
    assert times == sorted(times) and all(k * 80 < t < (k + 1) * 80 + 2 * SEGMENT_S[1] for k, t in enumerate(times))
    for it in items:
        assert it["query"] == f"when does the person go from {_word(it['change']['before'])} to {_word(it['change']['after'])}?"
        assert it["moments"][0]["emotion"] == it["change"]["after"]
    video = tmp_path / items[0]["video"]
    assert 240 <= probe(video).duration_s < 240 + HAYSTACK_SHOT_S[1] + 1
    again = build_long("test", tmp_path / "again", minutes=4, transitions=3, seed=0, root=root)
    assert again.read_text() == bench.read_text()  # the same seed draws the same video


def test_transitions_that_do_not_fit_or_repeat_are_refused(root, tmp_path):
    with pytest.raises(ValueError, match="do not fit"):
        build_long("test", tmp_path, minutes=1, transitions=2, root=root)
    with pytest.raises(ValueError, match="do not fit"):
        build_long("test", tmp_path, minutes=1, transitions=0, root=root)
    with pytest.raises(ValueError, match="too few subjects with two emotions"):
        build_long("test", tmp_path, minutes=60, transitions=8, root=root)
    with pytest.raises(ValueError, match="different transitions"):  # S1, S2, S7: two orders of one pair for three
        build_long("test", tmp_path, minutes=5, transitions=5, root=root)


def _word(emotion: str) -> str:
    from evals.transitions import WORDS

    return WORDS[emotion]
