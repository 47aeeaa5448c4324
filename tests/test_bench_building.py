"""Benches built from clips: a slow clip keeps its length, labelled spans are checked, reserved material is never
built in, and the data commands end bad input in one line."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from evals import build_bench
from tests.conftest import SAMPLE


def _slow_copy(path, fps: int, seconds: float, out, start_s: float = 3.0) -> None:
    """``seconds`` of the real video ``path`` from ``start_s`` re-encoded at ``fps`` frames per second, with its
    sound."""
    from tools.core.frames import iter_frames
    from tools.core.media import load_audio
    from tools.core.video_out import VideoWriter

    frames = [rgb for _, rgb in iter_frames(path, fps, start_s=start_s, end_s=start_s + seconds, max_side=320)]
    assert len(frames) == round(fps * seconds)
    h, w = frames[0].shape[:2]
    with VideoWriter(out, (w - w % 2, h - h % 2), fps) as video:
        for rgb in frames:
            video.add_frame(np.ascontiguousarray(rgb[: h - h % 2, : w - w % 2]))
        video.add_audio(load_audio(path, 16_000)[int(start_s * 16_000) : int((start_s + seconds) * 16_000)])


def test_a_clip_slower_than_the_bench_keeps_its_length_and_its_place(tmp_path):
    """2 s of the sample (3-5 s) at 10 fps and the same at 25 fps, joined at 25 fps: each lasts 2 s in the joined
    video (the 10 fps clip's frames held), and a label on 1-2 s of the slow clip is 1-2 s of the video. Before, the
    slow clip played in 0.8 s, its sound cut to that, and the labelled span became 1.0-0.8 s."""
    from tools.core.media import load_audio, probe

    _slow_copy(SAMPLE, 10, 2.0, tmp_path / "slow.mp4")
    _slow_copy(SAMPLE, 25, 2.0, tmp_path / "plain.mp4")
    assert probe(tmp_path / "slow.mp4").fps == pytest.approx(10.0)
    joined = tmp_path / "joined.mp4"
    spans = build_bench.concatenate([tmp_path / "slow.mp4", tmp_path / "plain.mp4"], joined, (320, 180))
    assert spans == [(0.0, 2.0), (2.0, 4.0)]
    assert probe(joined).duration_s == pytest.approx(4.0, abs=0.05)
    assert len(load_audio(joined, 16_000)) / 16_000 == pytest.approx(4.0, abs=0.05)
    bench = build_bench.build([build_bench.LabelledClip(tmp_path / "slow.mp4", "anger", 1.0, 2.0)], tmp_path / "b")
    [item] = [json.loads(line) for line in bench.read_text().splitlines()]
    assert [(m["start_s"], m["end_s"]) for m in item["moments"]] == [(1.0, 2.0)]


def test_a_labelled_span_that_is_empty_or_past_its_clip_is_one_line_and_exit_2(tmp_path, capsys):
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(SAMPLE, clips / "show.mp4")  # 10 s
    for rows, said in (("show.mp4,happy,5.0,4.0\n", "labels.csv:1: the labelled span 5.0-4.0 s is empty"),
                       ("show.mp4,happy,12.0,13.0\n", "show.mp4: its labelled span starts at 12.0 s, past its end"),
                       ("show.mp4,happy,soon,13.0\n", "labels.csv:1: could not convert string to float")):
        (clips / "labels.csv").write_text(rows)
        assert build_bench.main([str(clips), "--out", str(tmp_path / "bench")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and err.count("\n") == 1, err
    with pytest.raises(SystemExit) as stop:
        build_bench.main([str(clips), "--out", str(tmp_path / "bench"), "--clips-per-video", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "argument --clips-per-video: must be an integer in [1," in err[0]


def test_reserved_material_is_never_built_into_a_bench_or_read_from_a_manifest(tmp_path, capsys):
    from evals.data.assemble import load_manifest
    from evals.data.reserved import reserved

    assert reserved("1001_DFA_ANG_XX.mp4") == "CREMA-D actor 1001"
    assert reserved("data/mead/M030_front_angry_3_001.mp4") == reserved("W009/front/sad/001.mp4") is not None
    assert reserved("mirror/jixinya+EAMM/repo/demo/sad.mp4") is not None and reserved("my/clips/sad.mp4") is None
    assert reserved("ZebangCheng+Emotion-LLaMA/examples/a.mp4") is not None
    assert reserved("1002_DFA_ANG_XX.mp4") is reserved("M0301_x.mp4") is reserved("RAVDESS/01-01-05.mp4") is None
    clips = tmp_path / "clips"
    clips.mkdir()
    for name in ("1001_DFA_ANG_XX.mp4", "1002_DFA_HAP_XX.mp4"):
        shutil.copy(SAMPLE, clips / name)
    (tmp_path / "bench" / "videos").mkdir(parents=True)
    shutil.copy(SAMPLE, tmp_path / "bench" / "videos" / "long_007.mp4")  # left by an earlier build into the folder
    assert build_bench.main([str(clips), "--out", str(tmp_path / "bench"), "--format", "cremad"]) == 0
    said = capsys.readouterr()
    assert "left out 1 reserved clip(s): CREMA-D actor 1001" in said.err and "wrote 1 items over 1 videos" in said.out
    [item] = [json.loads(line) for line in (tmp_path / "bench" / "bench.jsonl").read_text().splitlines()]
    assert item["id"] == "long_000-happiness"
    (clips / "1002_DFA_HAP_XX.mp4").unlink()
    assert build_bench.main([str(clips), "--out", str(tmp_path / "b2"), "--format", "cremad"]) == 2
    assert "every clip given is reserved" in capsys.readouterr().err
    root = tmp_path / "data"
    (root / "cremad").mkdir(parents=True)
    (root / "cremad" / "manifest.jsonl").write_text("".join(
        json.dumps({"path": f"{a}_DFA_ANG_XX.hdf5", "label": "anger", "person": a, "split": "test"}) + "\n"
        for a in ("1001", "1002")))
    assert [r["person"] for r in load_manifest(root, "cremad")] == ["1002"]


def test_the_data_commands_end_bad_input_in_one_line(tmp_path, capsys):
    """A folder that is not a git snapshot (``evals.data.javanese``), a manifest naming a missing file
    (``evals.data.cremad``), missing bench and prediction files (``evals.transitions score``): one line, exit 2."""
    from evals import transitions
    from evals.data import cremad, javanese

    (tmp_path / "mirrors" / javanese.REPOSITORY / "repo").mkdir(parents=True)
    root = tmp_path / "data"
    (root / "cremad").mkdir(parents=True)
    (root / "cremad" / "manifest.jsonl").write_text(json.dumps(
        {"path": "1002_DFA_ANG_XX.hdf5", "label": "anger", "person": "1002", "split": "test"}) + "\n")
    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"id": "a", "person": "S005", "video": "videos/a.mp4", "query": "when?",
                                 "change": {"t_s": 12.0, "before": "neutral", "after": "anger"}}) + "\n")
    other = tmp_path / "other.jsonl"  # another bench's run
    other.write_text(json.dumps({"id": "b", "moments": [{"start_s": 11.0, "end_s": 13.0, "emotion": "anger"}]}) + "\n")
    listed = tmp_path / "listed.jsonl"
    listed.write_text("\n" + json.dumps([1, 2]) + "\n")

    def score(*args: str) -> int:
        return transitions.main(["score", "--bench", str(bench), *args])

    for run, said in (
            (lambda: javanese.main(["--mirrors", str(tmp_path / "mirrors"), "--split", "dev",
                                    "--out", str(tmp_path / "out")]), "cannot list the clips"),
            (lambda: cremad.main(["--data", str(root), "--out", str(tmp_path / "cr")]), "1002_DFA_ANG_XX.hdf5"),
            (lambda: transitions.main(["score", "--bench", str(tmp_path / "none.jsonl"), "--reading"]),
             "none.jsonl: no such file"),
            (lambda: score("--predictions", f"g={tmp_path / 'p.jsonl'}"), "p.jsonl: no such file"),
            (lambda: score("--predictions", f"g={other}"), "other.jsonl: no prediction for any of the bench's 1 items"),
            (lambda: score("--predictions", f"g={listed}"), "listed.jsonl:2: expected a record with id; missing a "),
            (lambda: score("--predictions", str(other)), "give NAME=FILE"),
            (lambda: score("--reading"), "videos/a.mp4: no such file")):
        assert run() == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and err.count("\n") == 1, err
    for args, said in ((["score", "--bench", str(bench)], "score needs --predictions NAME=FILE ..., --reading or both"),
                       (["score", "--bench", str(bench), "--reading", "--json", str(tmp_path / "no" / "r.json")],
                        "no folder")):
        with pytest.raises(SystemExit) as stop:
            transitions.main(args)
        err = capsys.readouterr().err.strip().splitlines()
        assert stop.value.code == 2 and len(err) == 1 and said in err[0], err


def test_a_change_bench_scores_each_run_on_its_own_items_and_says_how_many_it_predicted(tmp_path, capsys):
    from evals import transitions

    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(json.dumps({"id": i, "person": p, "video": "videos/a.mp4", "query": "when?",
                                         "change": {"t_s": 12.0, "before": "neutral", "after": "anger"}}) + "\n"
                             for i, p in (("a", "S1"), ("b", "S2"))))
    run = tmp_path / "run.jsonl"  # the change found 1.5 s late for "a", with both emotions; no prediction for "b"
    run.write_text(json.dumps({"id": "a", "moments": [{"start_s": 11.0, "end_s": 15.0, "emotion": "anger", "change": {
        "t_s": 13.5, "before": "neutral", "after": "anger"}}]}) + "\n")
    assert transitions.main(["score", "--bench", str(bench), "--predictions", f"graph={run}",
                             "--json", str(tmp_path / "r.json")]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["predicted"] == {"graph": 1} and (result["items"], result["subjects"]) == (2, 2)
    assert result["methods"]["graph"]["within_2s"][0] == result["methods"]["graph"]["both"][0] == 0.5
    assert json.loads(capsys.readouterr().out) == result


def test_open_questions_ask_each_video_with_every_labelled_clip_as_an_answer(tmp_path):
    """``studies.open_questions build`` (section 145): each video of a joined bench gets each open wording once, its
    ground truth every labelled clip of that video in time order; ``labels`` counts a run's top labels."""
    import json

    from studies.open_questions import WORDINGS, build, labels

    bench = tmp_path / "bench.jsonl"
    clip = lambda s, e, emo: {"start_s": s, "end_s": e, "emotion": emo}
    items = [{"id": "v0-anger", "video": "videos/v0.mp4", "query": "q", "moments": [clip(3.0, 5.0, "anger")]},
             {"id": "v0-fear", "video": "videos/v0.mp4", "query": "q", "moments": [clip(0.0, 3.0, "fear")]},
             {"id": "v1-sadness", "video": "videos/v1.mp4", "query": "q", "moments": [clip(0.0, 2.0, "sadness")]}]
    bench.write_text("".join(json.dumps(i) + "\n" for i in items))
    assert build(bench, tmp_path / "open.jsonl") == 2 * len(WORDINGS)
    rows = [json.loads(line) for line in (tmp_path / "open.jsonl").read_text().splitlines()]
    v0 = [r for r in rows if r["video"] == "videos/v0.mp4"]
    assert [r["query"] for r in v0] == list(WORDINGS)
    assert [m["emotion"] for m in v0[0]["moments"]] == ["fear", "anger"]
    run = tmp_path / "run"
    run.mkdir()
    (run / "predictions.jsonl").write_text(json.dumps({"id": "a", "moments": [{"emotion": "fear"}, {"emotion": "x"}]})
                                           + "\n" + json.dumps({"id": "b", "moments": []}) + "\n")
    assert labels(run) == {"questions": 2, "top_labels": {"fear": 1}, "moments": 2, "moments_per_question": 1.0}
