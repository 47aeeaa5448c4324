"""Questions about a feeling the video does not show: does the answer repeat the question?

    python -m studies.absent_emotions --bench B/bench.jsonl [--cache-dir C] [--fusion third=F1 fourth=F2 ...] \
        [--json evals/results/absent_emotions_dev.json]

Every bench the fusion is fitted or checked on (``studies.fit_fusion``) asks about an emotion the video holds, so
the intent prior's weight (1 on the asked emotions) only pays there: echoing the question is right by
construction. This study asks each video of a labelled bench about each emotion of ``QUESTIONS`` that none of its
items is labelled with, once per fusion, and counts how often the top moment, and any moment, names the asked
emotion. A low count is what a user needs (a face that reads neutral is not called angry because anger was asked
for); it cannot be zero by right, since a clip's label is one emotion and a face may show another (a surprised
speaker smiling). Answers go through the whole graph (``graphs.pipeline.answer_query``) with
``RunSettings(fusion=...)``; the index and verifier readings are cached, so the fusions differ only in the judge.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evals.bench import BenchError, BenchItem, load_bench

#: One plain question per asked emotion (AffectNet-8 names; neutral and contempt are not asked).
QUESTIONS = {"anger": "when does someone get angry?", "disgust": "when is someone disgusted?",
             "fear": "when is someone afraid?", "happiness": "when is someone happy?",
             "sadness": "when is someone sad?", "surprise": "when is someone surprised?"}


def absent_questions(items: list[BenchItem]) -> list[tuple[BenchItem, str]]:
    """``(item, emotion)`` for each video of a labelled bench's ``items`` (``evals.bench.load_bench``; its first item
    stands for the video) and each ``QUESTIONS`` emotion that no item of that video is labelled with, in order of
    video then emotion."""
    first: dict[str, BenchItem] = {}
    present: dict[str, set[str]] = {}
    for it in items:
        first.setdefault(it.video, it)
        present.setdefault(it.video, set()).update(m.emotion for m in it.moments)
    return [(first[video], emotion) for video, have in sorted(present.items())
            for emotion in sorted(set(QUESTIONS) - have)]


def run(bench: Path, items: list[BenchItem], fusions: dict[str, str], cache_dir: str | None) -> dict:
    """Ask every absent-emotion question of ``bench`` (its loaded ``items``) under each fusion; returns per-question
    answers and counts per fusion."""
    from agents.state import RunSettings
    from evals.metrics import bootstrap_interval
    from graphs.pipeline import answer_query

    rows = []
    for item, emotion in absent_questions(items):
        video = item.video_path(bench)
        row = {"video": video.name, "asked": emotion}
        for name, fusion in fusions.items():
            answer = answer_query(video, QUESTIONS[emotion], cache_dir=cache_dir, settings=RunSettings(fusion=fusion))
            row[name] = [[m.emotion, round(m.confidence, 3)] for m in answer.moments]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    counts = {}
    for name in fusions:
        echo = [float(bool(r[name]) and r[name][0][0] == r["asked"]) for r in rows]
        counts[name] = {"questions": len(rows), "top_moment_names_the_asked_emotion": int(sum(echo)),
                        "share_95ci_by_video": [round(sum(echo) / max(1, len(echo)), 3),
                                                *(round(v, 3) for v in bootstrap_interval(echo, [r["video"] for r in rows]))]
                        if rows else None,
                        "moments": sum(len(r[name]) for r in rows),
                        "moments_naming_the_asked_emotion": sum(e == r["asked"] for r in rows for e, _ in r[name])}
    return {"bench": str(bench), "fusions": fusions, "questions": QUESTIONS, "counts": counts, "answers": rows}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, required=True, help="a labelled bench JSONL (its videos relative to it)")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--fusion", nargs="+", default=["fitted=fitted"], metavar="NAME=FUSION",
                   help="fusions to compare: NAME=fitted|hand|FILE (default: the shipped fit)")
    p.add_argument("--json", default=None, help="write the result here")
    args = p.parse_args(argv)
    fusions = dict(f.split("=", 1) for f in args.fusion if "=" in f)
    if len(fusions) != len(args.fusion):
        p.error("--fusion takes NAME=FUSION pairs")
    try:
        items = load_bench(args.bench)
    except BenchError as exc:
        p.error(f"--bench: {exc}")
    return report(lambda: run(args.bench, items, fusions, args.cache_dir), args.json)


if __name__ == "__main__":
    sys.exit(main())
