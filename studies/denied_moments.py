"""Questions that deny a feeling ("when is nobody happy?"), asked of benches whose every clip is labelled: does the
answer lead with a moment that shows the feeling denied?

    python -m studies.denied_moments build --bench B/bench.jsonl --out B/bench_denied.jsonl
    python -m evals.run --bench B/bench_denied.jsonl --method graph --out R     # once with the code before, once now
    python -m studies.denied_moments compare B/bench_denied.jsonl R0 R1 [B2/bench_denied.jsonl R2 R3 ...] [--json OUT]

``build`` gathers each video's labelled clips from all its questions (a bench asks every emotion a video holds, so
their moments label every clip; a video with a neutral question labels its neutral clips too) and, for each of the six
emotions of ``DENIED`` the video shows, asks "when is nobody <word>?" with every clip of another label as a right
moment. ``compare`` scores two runs of ``evals.run`` (the code before and now) question by question: the top moment on
a clip without the denied feeling (tIoU >= 0.5 with one), the top moment read as the denied feeling, and Joint (on such
a clip, read as its label); each a share with a bootstrap 95 % interval over videos
(``evals.metrics.bootstrap_interval``), the paired difference's interval, per bench and pooled
(``evals/RESULTS.md`` section 206).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evals.bench import BenchError
from evals.questions import question_records

#: The feelings denied and the word each question says: "when is nobody <word>?".
DENIED = {"happiness": "happy", "sadness": "sad", "anger": "angry", "surprise": "surprised", "fear": "scared",
          "disgust": "disgusted"}


def denied_questions(records: list[dict], folder: Path) -> list[dict]:
    """The denial questions of a bench's ``records`` (module doc); videos named relative to the bench are made
    absolute from ``folder`` (the bench's directory)."""
    labels: dict[str, dict[tuple[float, float], str]] = {}
    for r in records:
        video = r["video"] if Path(r["video"]).is_absolute() else str(folder / r["video"])
        for m in r["moments"]:
            labels.setdefault(video, {})[(m["start_s"], m["end_s"])] = m["emotion"]
    out = []
    for video, clips in labels.items():
        for emotion, word in DENIED.items():
            if emotion not in clips.values():
                continue
            rest = [{"start_s": s, "end_s": e, "emotion": x} for (s, e), x in sorted(clips.items()) if x != emotion]
            out.append({"id": f"{Path(video).parent.parent.name}/{Path(video).stem}-not-{emotion}", "video": video,
                        "query": f"when is nobody {word}?", "moments": rest, "denied": emotion})
    return out


def _scores(bench: list[dict], run: Path) -> dict[str, tuple[int, int, int]]:
    """Per question id: (top moment on a clip without the denied feeling, read as that feeling, Joint)."""
    from tools.core.schema import temporal_iou

    predicted = {r["id"]: r["moments"] for r in question_records(run / "predictions.jsonl")}
    out = {}
    for r in bench:
        top = (predicted.get(r["id"]) or [None])[0]
        if top is None:
            out[r["id"]] = (0, 0, 0)
            continue
        on = [m for m in r["moments"]
              if temporal_iou((top["start_s"], top["end_s"]), (m["start_s"], m["end_s"])) >= 0.5]
        out[r["id"]] = (int(bool(on)), int(top["emotion"] == r["denied"]),
                        int(any(m["emotion"] == top["emotion"] for m in on)))
    return out


def _rates(x: list[int], y: list[int], groups: list[str]) -> dict:
    """Shares before (``x``) and now (``y``) with intervals over ``groups`` and the paired interval
    (``studies.command.paired_shares``), and the counts."""
    from studies.command import paired_shares

    return {**paired_shares(x, y, groups), "count": [sum(x), sum(y)]}


def compare(triples: list[tuple[Path, Path, Path]]) -> dict:
    """Per bench (BENCH, BEFORE run, AFTER run) and pooled: the three scores' shares before and now (module doc).

    Runs of the default label set (AffectNet-8) only: the predictions' ``emotion`` is compared with the denied
    AffectNet-8 name.

    Raises:
        FileNotFoundError: a bench or a run's predictions are missing.
        evals.bench.BenchError: a bench holds no question.
    """
    names = ("top_on_a_clip_without_the_denied_feeling", "top_read_as_the_denied_feeling", "joint")
    out, pooled = {}, ([], [], [])
    for bench_path, before, after in triples:
        bench = question_records(bench_path)
        if not bench:
            raise BenchError(f"{bench_path}: no question")
        old, new = _scores(bench, before), _scores(bench, after)
        ids = [r["id"] for r in bench]
        groups = [f"{bench_path}|{r['video']}" for r in bench]
        out[str(bench_path)] = {"questions": len(ids), **{
            name: _rates([old[i][k] for i in ids], [new[i][k] for i in ids], groups) for k, name in enumerate(names)}}
        for part, values in zip(pooled, (ids, groups, [(old[i], new[i]) for i in ids]), strict=True):
            part.extend(values)
    ids, groups, pairs = pooled
    out["pooled"] = {"questions": len(ids), **{
        name: _rates([p[0][k] for p in pairs], [p[1][k] for p in pairs], groups) for k, name in enumerate(names)}}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import bench_questions_command

    return bench_questions_command(argv, "python -m studies.denied_moments", __doc__, "denial questions",
                                   lambda bench: denied_questions(question_records(bench), bench.resolve().parent),
                                   compare)


if __name__ == "__main__":
    sys.exit(main())
