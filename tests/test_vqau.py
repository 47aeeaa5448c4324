"""VQAU-Bench records as released: field aliases, errors that name the line, and a run in VQAU-13."""

from __future__ import annotations

import json

import pytest

from evals import run as eval_run
from evals.bench import BenchError
from evals.vqau import load_vqau, video_of_id
from tests.conftest import REPO, SAMPLE

RECORDS = REPO / "tests" / "data" / "vqau" / "records.json"


@pytest.fixture()
def videos(tmp_path):
    """A videos folder holding the bundled sample as ``nested/1024_1024.mp4``."""
    folder = tmp_path / "videos"
    (folder / "nested").mkdir(parents=True)
    (folder / "nested" / "1024_1024.mp4").symlink_to(SAMPLE)
    return folder


def test_records_with_each_alias_become_bench_items_in_vqau13(videos):
    items = load_vqau(RECORDS, videos)
    assert [i.id for i in items] == ["1024_1024_00001698_Q1", "1024_1024_00001702_Q2", "1024_1024_00001705_Q1"]
    assert {i.video for i in items} == {str(videos / "nested" / "1024_1024.mp4")}
    assert [(m.start_s, m.end_s, m.emotion) for i in items for m in i.moments] == [
        (3.0, 6.0, "Joy"), (8.0, 10.0, "Joy"), (0.0, 1.0, "Neutral")]
    assert items[0].moments[0].rationale.startswith("The speaker smiles")
    assert items[2].moments[0].rationale.startswith("A wide shot")
    assert video_of_id("1024_1024_00001698_Q1") == "1024_1024" and video_of_id("clip7") == "clip7"


def test_jsonl_records_and_errors_that_name_file_line_and_field(tmp_path, videos):
    records = json.loads(RECORDS.read_text())
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert len(load_vqau(jsonl, videos)) == 3
    broken = [dict(records[0]), {k: v for k, v in records[1].items() if k != "query"}]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in broken))
    with pytest.raises(BenchError, match=r"r.jsonl:2: query \(missing"):
        load_vqau(jsonl, videos)
    listed = tmp_path / "r.json"  # a JSON list: the line where the bad record starts
    listed.write_text("[\n" + ",\n".join(json.dumps(r) for r in [records[0], {**records[1], "emotion": "Smug"}]) + "\n]\n")
    with pytest.raises(BenchError, match=r"r.json:3: moments.0.emotion: 'Smug' is not a VQAU-13 label"):
        load_vqau(listed, videos)
    listed.write_text(json.dumps([{k: v for k, v in records[0].items() if k not in ("start", "end")}]))
    with pytest.raises(BenchError, match=r"r.json:1: start/end \(missing"):
        load_vqau(listed, videos)
    listed.write_text(json.dumps([{**records[0], "video_id": "9999_1"}]))
    with pytest.raises(BenchError, match=r"r.json:1: video '9999_1' \(no 9999_1.<mp4"):
        load_vqau(listed, videos)


def test_a_record_list_cut_short_joined_to_another_or_not_utf8_is_refused(tmp_path, videos):
    records = json.loads(RECORDS.read_text())
    listed = tmp_path / "r.json"
    listed.write_text(json.dumps(records[:1]) + "\n" + json.dumps(records[1:]) + "\n")  # two lists, `cat`-joined
    with pytest.raises(BenchError, match=r"r.json:2: not JSON \(text after the list's closing '\]'\)"):
        load_vqau(listed, videos)
    listed.write_text(json.dumps(records, indent=1)[:-1])  # the closing bracket lost
    with pytest.raises(BenchError, match=r"r.json:\d+: not JSON \(the list has no closing '\]'\)"):
        load_vqau(listed, videos)
    listed.write_bytes(json.dumps(records[:1]).replace("speaker", "caf\u00e9").encode("latin-1"))
    with pytest.raises(BenchError, match=r"r.json:1: not UTF-8 text \(byte 0xe9\); save the file as UTF-8"):
        load_vqau(listed, videos)


@pytest.mark.slow
def test_evals_run_reads_vqau_records_and_reports_in_vqau13(tmp_path, videos, cache_root, capsys):
    out = tmp_path / "run"
    assert eval_run.main(["--bench-format", "vqau", "--bench", str(RECORDS), "--videos", str(videos),
                          "--method", "graph", "--out", str(out), "--cache-dir", str(cache_root)]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    names = ["Neutral", "Joy", "Sadness", "Surprise", "Fear", "Disgust", "Anger", "Anticipation", "Horror", "Love",
             "Pride", "Satisfaction", "Trust"]
    assert metrics["labels"] == "VQAU-13" and metrics["emotion"]["labels"] == names
    assert metrics["emotion"]["n"] >= 1 and metrics["n_predicted"] == 3
    assert set(metrics["by_moment_length"]) == {"short"}
    assert set(metrics["by_moment_length"]["short"]) == {"n", "R1@0.3", "R1@0.5", "R1@0.7", "mIoU", "mAP", "Joint",
                                                         "Accuracy"}
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert all(m["emotion"] in names for p in preds for m in p["moments"]) and all(p["moments"] for p in preds)
    assert eval_run.main(["--bench-format", "vqau", "--bench", str(RECORDS), "--method", "uniform",
                          "--out", str(tmp_path / "u")]) == 2
    assert "needs --videos DIR" in capsys.readouterr().err
