"""The long transitions bench (``evals.transitions.build_long``) on a small assembled set whose "faces" are frames of
the bundled sample: the builder's layout, not the faces, is under test."""

from __future__ import annotations

import json

import cv2
import pytest

from evals.transitions import HAYSTACK_SHOT_S, SEGMENT_S, build_long
from tests.conftest import SAMPLE
from tools.core.frames import iter_frames
from tools.core.media import probe

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
    for it in items:  # the subject's two segments meet at the change, each one recorded sequence long
        before, after = it["segments"]
        assert before["end_s"] == after["start_s"] == it["change"]["t_s"]
        assert (before["emotion"], after["emotion"]) == (it["change"]["before"], it["change"]["after"])
        assert all(SEGMENT_S[0] - 0.05 <= s["end_s"] - s["start_s"] <= SEGMENT_S[1] + 0.05 for s in (before, after))


def test_the_salience_questions_ask_for_each_emotion_a_moving_subject_shows(root, tmp_path):
    from evals.salience import build, score

    bench = build_long("test", tmp_path, minutes=4, transitions=3, seed=0, root=root)
    items = [json.loads(line) for line in bench.read_text().splitlines()]
    shown = {s["emotion"]: [] for it in items for s in it["segments"]}
    for it in items:
        for s in it["segments"]:
            shown[s["emotion"]].append((s["start_s"], s["end_s"]))
    questions = [json.loads(line) for line in build(bench).read_text().splitlines()]
    assert [q["moments"][0]["emotion"] for q in questions] == sorted(shown)
    for q in questions:
        emotion = q["moments"][0]["emotion"]
        assert q["query"] == f"when does someone look {_word(emotion)}?"
        assert sorted((m["start_s"], m["end_s"]) for m in q["moments"]) == sorted(shown[emotion])
    # an answer in the middle of the first annotated segment with the asked emotion is right; one elsewhere is not
    first = questions[0]["moments"][0]
    answers = tmp_path / "predictions.jsonl"
    answers.write_text("".join(json.dumps({"id": q["id"], "moments": [
        {"start_s": first["start_s"], "end_s": first["end_s"], "emotion": first["emotion"]} if i == 0 else
        {"start_s": 0.0, "end_s": 1.0, "emotion": q["moments"][0]["emotion"]}]}) + "\n" for i, q in enumerate(questions)))
    got = score(tmp_path / "bench_salience.jsonl", {"run": answers}, reading=False)["methods"]["run"]
    assert got["place"][0] == got["both"][0] == round(1 / len(questions), 3)


def test_transitions_that_do_not_fit_or_repeat_are_refused(root, tmp_path):
    with pytest.raises(ValueError, match="do not fit"):
        build_long("test", tmp_path, minutes=1, transitions=2, root=root)
    with pytest.raises(ValueError, match="do not fit"):
        build_long("test", tmp_path, minutes=1, transitions=0, root=root)
    with pytest.raises(ValueError, match="too few subjects with two emotions"):
        build_long("test", tmp_path, minutes=60, transitions=8, root=root)
    with pytest.raises(ValueError, match="different transitions"):  # S1, S2, S7: two orders of one pair for three
        build_long("test", tmp_path, minutes=5, transitions=5, root=root)


def test_a_split_without_transitions_or_a_count_of_none_is_one_line_and_exit_2(root, tmp_path, capsys):
    from evals import transitions

    out = tmp_path / "b"
    assert transitions.main(["build", "--split", "dev", "--out", str(out), "--data", str(root)]) == 2  # all are test's
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: dev: no subject with sequences of two emotions or more, so no transition to show"]
    assert not (out / "bench.jsonl").exists()
    for flag in ("--videos", "--transitions"):
        with pytest.raises(SystemExit) as stop:
            transitions.main(["build", "--split", "test", "--out", str(out), flag, "0", "--data", str(root)])
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"argument {flag}: must be an integer in [1," in err[0]


def _word(emotion: str) -> str:
    from evals.transitions import WORDS

    return WORDS[emotion]


def test_salience_and_departures_end_bad_input_in_one_line(root, tmp_path, capsys):
    from evals import departures, salience

    empty, cased = tmp_path / "empty.jsonl", tmp_path / "cased.jsonl"
    empty.write_text("\n")
    cased.write_text(json.dumps({"id": "a", "video": "videos/a.mp4", "segments": [
        {"start_s": 0.0, "end_s": 4.0, "emotion": "Happiness"}]}) + "\n")
    for args, said in ((["build", "--bench", str(empty)], "empty.jsonl: no records"),
                       (["build", "--bench", str(cased)], "segment emotion(s) Happiness not AffectNet-8 labels"),
                       (["score", "--bench", str(empty), "--predictions", f"g={cased}"], "empty.jsonl: no records")):
        assert salience.main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and err.count("\n") == 1, err
    assert not (tmp_path / "bench_salience.jsonl").exists()
    assert departures.main(["--split", "dev", "--out", str(tmp_path / "d"), "--data", str(root)]) == 2
    assert "dev: 0 subject(s) with two emotions among 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        departures.main(["--split", "test", "--out", str(tmp_path / "d"), "--videos", "0", "--data", str(root)])
    assert stop.value.code == 2 and "argument --videos: must be an integer in [1," in capsys.readouterr().err


def test_a_rebuild_stopped_half_way_leaves_no_bench_file_beside_the_rewritten_videos(root, tmp_path, monkeypatch):
    from evals import transitions

    first = build_long("test", tmp_path, minutes=4, transitions=3, seed=0, root=root)
    assert first.is_file()

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C while the first video of the second build is written

    monkeypatch.setattr(transitions, "_write", stopped)
    with pytest.raises(KeyboardInterrupt):
        build_long("test", tmp_path, minutes=4, transitions=3, seed=5, root=root)
    assert not first.exists() and not list(tmp_path.glob("bench.jsonl*"))
