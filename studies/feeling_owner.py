"""Whose feeling a question that names several people asks about (``tools.signals.feeling_owner``), before and now.

    python -m studies.feeling_owner [--split dev] [--split test] [--sample] [--loop WORK]
        [--json evals/results/feeling_owner.json]

``evals/data/questions_owner.jsonl``: 64 questions that name a feeling and, most of them, two or more people, each with
the words of the person whose feeling it asks about (``owner``) and that person's phrase (``owner_phrase``, the
interpreter's name for those words, ``tools.signals.lexicon.person_phrases``; null when the owner is none of the named
people, "when is his daughter in tears while she talks?"); written before ``feeling_owner`` existed, half development
and half test. Each question is read by the offline interpreter (``agents.intent.offline_intent``) without the owner
(before: every grounded person is read) and with it. Per split: ``right`` (the interpreter's ``feeling_of`` is the
owner's phrase, or empty where the question names fewer than two people or the owner is none of them), ``wrong`` (it
names someone else: the verifier would read the wrong faces) and ``none`` (empty where an owner was expected: every
face read, as before), with a bootstrap 95 % interval of the share right over questions.

``--sample`` also answers questions about the bundled sample (``samples/hamilton_short.mp4``) whose feeling is the
audience's while they name the performer too, before and now, scored against the laughing audience's shot of the
shared development bench (``../shared/bench/dev.jsonl``, "ham-audience": 8.0-10.0 s, happiness): tIoU of the top
moment and its label. ``--loop WORK`` asks them again on the README's two real clips looped to about 72 s (``loop``;
``evals/RESULTS.md`` section 169).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from unittest import mock

from evals.metrics import bootstrap_interval
from studies.command import report
from tools.core.schema import temporal_iou

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evals" / "data" / "questions_owner.jsonl"
#: Questions about the sample whose feeling is the audience's, written before they were first answered; the first is
#: issue 31's own example of VQAU-Bench's memory form.
SAMPLE_QUESTIONS = (
    "I kinda remember the crowd cracking up at something he said right before he pointed, felt so warm",
    "when does the crowd laugh at his lines?",
    "when does he make the audience laugh?",
    "when is the audience delighted by him?",
    "when does the performer amuse the crowd?",
    "when does the crowd enjoy his rapping?",
    "when does the audience cheer for him?",
)
#: The laughing audience's moment of the shared development bench ("ham-audience"): seconds, label.
AUDIENCE_MOMENT = (8.0, 10.0, "happiness")


def _interpreter(owner: bool):
    """A patch that leaves ``agents.intent`` reading named feelings' owners (``owner``) or reading none (before)."""
    from agents import intent

    return mock.patch.object(intent, "feeling_owner", intent.feeling_owner if owner else lambda query: "")


def read(split: str, owner: bool) -> dict:
    """Each ``split`` question's ``feeling_of``, without (``owner`` False) or with the owner reading, scored."""
    from agents import intent

    rows = [r for r in map(json.loads, QUESTIONS.read_text().splitlines()) if r["split"] == split]
    with _interpreter(owner):
        read_of = [intent.offline_intent({"query": r["query"]}) for r in rows]
    questions = []
    for r, it in zip(rows, read_of, strict=True):
        expected = [r["owner_phrase"]] if r["owner_phrase"] and len(r["people"]) >= 2 else []
        verdict = "right" if it.feeling_of == expected else "none" if not it.feeling_of else "wrong"
        questions.append({"query": r["query"], "owner": r["owner"], "expected": expected, "feeling_of": it.feeling_of,
                          "people": it.people, "verdict": verdict})
    counts = {v: sum(q["verdict"] == v for q in questions) for v in ("right", "wrong", "none")}
    share = bootstrap_interval([float(q["verdict"] == "right") for q in questions])
    return {**counts, "n": len(questions), "right_95": [round(x, 3) for x in share], "questions": questions}


def _answers(index) -> dict[str, list]:
    """``SAMPLE_QUESTIONS`` asked of ``index`` before (no owner read) and now: name -> each question's ``Answer``."""
    from graphs.pipeline import ask

    result = {}
    for name, owner in (("before", False), ("now", True)):
        with _interpreter(owner):
            result[name] = [ask(index, query) for query in SAMPLE_QUESTIONS]
    return result


def _moments(answer) -> list[list]:
    """An answer's moments as [start_s, end_s, emotion, confidence]."""
    return [[m.start_s, m.end_s, m.emotion, m.confidence] for m in answer.moments]


def sample(cache_dir: str | None) -> dict:
    """``SAMPLE_QUESTIONS`` answered on the sample before and now: each top moment, its tIoU with
    ``AUDIENCE_MOMENT`` and its label; R1@0.5 and Joint (R1@0.5 with the label right) over the questions."""
    from graphs.pipeline import open_index

    result: dict = {}
    for name, answers in _answers(open_index(REPO / "samples" / "hamilton_short.mp4", cache_dir=cache_dir)).items():
        rows = []
        for answer in answers:
            top = answer.moments[0] if answer.moments else None
            tiou = temporal_iou((top.start_s, top.end_s), AUDIENCE_MOMENT[:2]) if top else 0.0
            rows.append({"query": answer.query, "feeling_of": answer.intent.feeling_of, "tIoU": round(tiou, 3),
                         "moments": _moments(answer), "label_right": bool(top) and top.emotion == AUDIENCE_MOMENT[2]})
        result[name] = {"R1@0.5": sum(r["tIoU"] >= 0.5 for r in rows),
                        "Joint": sum(r["tIoU"] >= 0.5 and r["label_right"] for r in rows), "n": len(rows),
                        "questions": rows}
    return result


def _audience_spans(index, unit_s: float) -> list[tuple[float, float]]:
    """The looped video's shots of the audience: per loop of ``unit_s`` seconds, the shot between the index's cuts that
    holds the loop's 9.0 s (inside the sample's 7.9-10.0 s audience shot; the base video shows the sample first)."""
    cuts = sorted(index.cuts)
    spans = []
    for k in range(int(index.info.duration_s // unit_s) + 1):
        t = k * unit_s + 9.0
        if t < index.info.duration_s:
            spans.append((max([0.0, *(c for c in cuts if c <= t)]),
                          min([index.info.duration_s, *(c for c in cuts if c > t)])))
    return spans


def loop(work: Path) -> dict:
    """``SAMPLE_QUESTIONS`` on the README's real clips looped to about 72 s (``benches.bench_index``: the sample and the
    talking head back to back, looped, so the audience and the performer recur under re-identification), before and
    now: whether the top moment, and how many of the moments, lie on an audience shot (tIoU >= 0.5)."""
    from benches.bench_index import base_video, loop_video
    from graphs.pipeline import open_index
    from tools.core.media import probe

    work.mkdir(parents=True, exist_ok=True)
    base, video = work / "base.mp4", work / "looped.mp4"
    if not video.is_file():
        loop_video(base_video(base), video, 60)
    index = open_index(video, cache_dir=str(work / "cache"))
    spans = _audience_spans(index, probe(base).duration_s)

    def on(m) -> bool:
        return any(temporal_iou((m.start_s, m.end_s), span) >= 0.5 for span in spans)

    result: dict = {"duration_s": round(index.info.duration_s, 2), "audience_shots": spans}
    for name, answers in _answers(index).items():
        rows = [{"query": a.query, "feeling_of": a.intent.feeling_of, "top_on_audience": bool(a.moments) and on(
            a.moments[0]), "on_audience": sum(map(on, a.moments)), "moments": _moments(a)} for a in answers]
        result[name] = {"top on an audience shot": sum(r["top_on_audience"] for r in rows),
                        "moments on an audience shot": sum(r["on_audience"] for r in rows),
                        "moments": sum(len(r["moments"]) for r in rows), "n": len(rows), "questions": rows}
    return result


def main(argv: list[str] | None = None) -> int:
    """Read the chosen splits before and now (and the sample's questions with ``--sample``); print and write JSON."""
    ap = argparse.ArgumentParser(prog="python -m studies.feeling_owner", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", action="append", choices=("dev", "test"),
                    help="question split(s) to read (default: dev); the test half is read once, when the work is done")
    ap.add_argument("--sample", action="store_true", help="also answer the sample's questions (builds its index)")
    ap.add_argument("--cache-dir", help="index cache for --sample (default $AFFECTSEEK_CACHE)")
    ap.add_argument("--loop", metavar="WORK",
                    help="also answer the sample's questions on the real clips looped (built and indexed in WORK)")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args(argv)

    def compute() -> dict:
        out = {f"{split}/{name}": read(split, owner) for split in (args.split or ["dev"])
               for name, owner in (("before", False), ("now", True))}
        if args.sample:
            out["sample"] = sample(args.cache_dir)
        if args.loop:
            out["looped real clips"] = loop(Path(args.loop))
        return out

    return report(compute, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
