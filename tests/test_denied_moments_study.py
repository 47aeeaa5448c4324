"""``studies.denied_moments``: denial questions built from a bench's labels, and their scoring."""

from __future__ import annotations

import json


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_denial_questions_take_every_other_labelled_clip_and_are_scored_on_the_top_moment(tmp_path):
    from studies.denied_moments import compare, denied_questions

    bench = [{"id": "v-happiness", "video": "videos/v.mp4", "query": "when is she happy?",
              "moments": [{"start_s": 0.0, "end_s": 2.0, "emotion": "happiness"}]},
             {"id": "v-neutral", "video": "videos/v.mp4", "query": "when is she calm?",
              "moments": [{"start_s": 2.0, "end_s": 4.0, "emotion": "neutral"}]},
             {"id": "v-anger", "video": "videos/v.mp4", "query": "when is she angry?",
              "moments": [{"start_s": 4.0, "end_s": 6.0, "emotion": "anger"}]}]
    rows = denied_questions(bench, tmp_path)
    assert [(r["query"], r["denied"]) for r in rows] == [("when is nobody happy?", "happiness"),
                                                       ("when is nobody angry?", "anger")]
    assert rows[0]["video"] == str(tmp_path / "videos/v.mp4")
    assert [(m["start_s"], m["emotion"]) for m in rows[0]["moments"]] == [(2.0, "neutral"), (4.0, "anger")]
    path = _write(tmp_path / "denied.jsonl", rows)
    for run, tops in (("before", [(0.0, 2.0, "happiness"), (4.0, 6.0, "anger")]),
                      ("now", [(2.0, 4.0, "neutral"), (0.0, 2.0, "neutral")])):
        (tmp_path / run).mkdir()
        _write(tmp_path / run / "predictions.jsonl", [
            {"id": r["id"], "moments": [{"start_s": s, "end_s": e, "emotion": x}]} for r, (s, e, x) in zip(rows, tops)])
    got = compare([(path, tmp_path / "before", tmp_path / "now")])["pooled"]
    assert got["top_read_as_the_denied_feeling"]["count"] == [2, 0]
    assert got["top_on_a_clip_without_the_denied_feeling"]["count"] == [0, 2]
    assert got["joint"]["count"] == [0, 1]  # 2-4 s read neutral as labelled; 0-2 s is happiness's clip


def test_an_empty_denial_bench_is_one_line_and_status_2(tmp_path, capsys):
    from studies.denied_moments import main

    (tmp_path / "empty.jsonl").write_text("")
    assert main(["compare", str(tmp_path / "empty.jsonl"), str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'empty.jsonl'}: no question"
