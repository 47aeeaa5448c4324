"""The absent-emotion probe (``studies.absent_emotions``) asks each video about the emotions none of its items shows."""

from __future__ import annotations

import json


def test_each_video_is_asked_about_the_emotions_its_items_do_not_hold(tmp_path):
    from evals.bench import load_bench
    from studies.absent_emotions import QUESTIONS, absent_questions

    items = [{"id": "a-anger", "video": "videos/a.mp4", "query": "q",
              "moments": [{"start_s": 0, "end_s": 2, "emotion": "anger"}]},
             {"id": "a-fear", "video": "videos/a.mp4", "query": "q",
              "moments": [{"start_s": 4, "end_s": 6, "emotion": "fear"}]},
             {"id": "b-joy", "video": "videos/b.mp4", "query": "q",
              "moments": [{"start_s": 1, "end_s": 3, "emotion": "happiness"},
                          {"start_s": 5, "end_s": 7, "emotion": "sadness"}]}]
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(i) for i in items) + "\n")
    asked = absent_questions(load_bench(bench))
    assert [(it.video_path(bench), e) for it, e in asked] == \
        [(tmp_path.resolve() / "videos/a.mp4", e) for e in ("disgust", "happiness", "sadness", "surprise")] + \
        [(tmp_path.resolve() / "videos/b.mp4", e) for e in ("anger", "disgust", "fear", "surprise")]
    assert all(e in QUESTIONS and e not in {"neutral", "contempt"} for _, e in asked)
