"""Multiple-choice questions about a look away (``--options``): does the chosen option rest on a look its way?

    python -m studies.gaze_choice [--javanese BENCH] [--javanese-cache DIR] [--cache-dir DIR]
        [--before FILE | --answers-only] [--json evals/results/gaze_choice.json]

``evals/data/questions_gaze_choice.jsonl`` holds nine questions for each kind of video of ``studies.gaze_polarity``
(the bundled sample, the shared talking head, the Javanese videos): in each, one option says the person looks away
from the camera at some point, another that they keep looking at it (``if_looks_away`` and ``if_never`` give which is
right). ``group`` (``evals/RESULTS.md`` section 174): ``development``, three written before the chooser read looks
and used to build it; ``held_out``, three in other words (one with a third option about a gesture), written once its
first version was done and read twice with it, development data since a review's mends; ``held_out_2``, three more
(one with a third option), written before those mends and read once after them. ``evals/data/
gaze_video_labels.jsonl`` says for each video whether its person looks away from the camera at some point, as watched
(null where it was not made out). Per answer: the chosen option, whether it is right (where the video is labelled),
the looks its trace's evidence steps state (``_looks``) and ``contradicted``: the chosen option asks for a
look (``tools.signals.gaze_words.asked_look``) and every look its trace cites is the other way (what a reader of the
trace sees; since the chooser quotes no look the other way for the option it chose, it is 0 by construction there, and
"right" is the measure of the choice). ``paired`` (with
``--before``, the result a checkout of the code before wrote with ``--answers-only``): the shares right (labelled
videos) and contradicted, before and now and their paired difference, with bootstrap 95 % intervals over videos.
"""

from __future__ import annotations

import json
from pathlib import Path

from studies.command import report

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evals" / "data" / "questions_gaze_choice.jsonl"
LABELS = REPO / "evals" / "data" / "gaze_video_labels.jsonl"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _looks(steps) -> list[str]:
    """The looks the trace's evidence steps state (``studies.gaze_polarity.stated_look``): read from its words, because a
    trace may cite the candidates checked, which the answer does not hold, and the code before marked no look; the
    steps that cite no evidence are left out."""
    from studies.gaze_polarity import stated_look

    return sorted({stated_look(step.text) for step in steps if step.evidence_ids} - {None})


def _row(answer, q: dict, looks_away: bool | None) -> dict:
    """One answer: the option chosen, right or not, the looks its trace cites, contradicted."""
    from tools.signals.gaze_words import asked_look

    looks = _looks(answer.choice.steps)
    asked = asked_look(q["options"][answer.choice.option])
    right = None if looks_away is None else answer.choice.option == q["if_looks_away" if looks_away else "if_never"]
    return {"query": q["query"], "chosen": answer.choice.option, "option": q["options"][answer.choice.option],
            "right": right, "looks": looks, "steps": [s.text for s in answer.choice.steps],
            "contradicted": asked is not None and bool(looks) and asked.direction not in looks}


def answers(videos: list[tuple[str, Path, str | None]]) -> dict:
    """Each (kind, video, cache dir)'s questions answered with their options by this checkout: rows and counts."""
    from graphs.pipeline import ask, open_index

    labels = {r["video"]: r["looks_away"] for r in _jsonl(LABELS)}
    rows = []
    for kind, video, cache in videos:
        index = open_index(video, cache_dir=cache)
        for q in (q for q in _jsonl(QUESTIONS) if q["video"] == kind):
            answer = ask(index, q["query"], options=q["options"])
            rows.append({"video": video.name, "kind": kind, "group": q["group"], "looks_away": labels.get(video.name),
                         **_row(answer, q, labels.get(video.name))})
    return {**{group: _counts([r for r in rows if r["group"] == group]) for group in dict.fromkeys(
        r["group"] for r in rows)}, "rows": rows}


def _counts(rows: list[dict]) -> dict:
    """Answers, labelled answers, right (all, and where the person looks away), contradicted."""
    labelled = [r for r in rows if r["right"] is not None]
    return {"n": len(rows), "labelled": len(labelled), "right": sum(r["right"] for r in labelled),
            "right_looks_away": sum(r["right"] for r in labelled if r["looks_away"]),
            "labelled_looks_away": sum(1 for r in labelled if r["looks_away"]),
            "contradicted": sum(r["contradicted"] for r in rows)}


def paired(before: list[dict], now: list[dict]) -> dict:
    """Shares right (labelled videos) and contradicted, before and now, and now minus before, with bootstrap 95 %
    intervals over videos (``evals.metrics.bootstrap_interval``)."""
    from evals.metrics import bootstrap_interval

    if [(r["video"], r["query"]) for r in before] != [(r["video"], r["query"]) for r in now]:
        raise ValueError("the two runs did not answer the same questions")
    out: dict = {}
    for group in dict.fromkeys(r["group"] for r in now):
        for name in ("right", "contradicted"):
            idx = [i for i, r in enumerate(now) if r["group"] == group and r[name] is not None]
            videos = [now[i]["video"] for i in idx]
            b, n = [float(before[i][name]) for i in idx], [float(now[i][name]) for i in idx]
            d = [y - x for x, y in zip(b, n, strict=True)]
            out.setdefault(group, {})[name] = {
                code: {"share": round(sum(v) / len(v), 3), "ci95": [round(x, 3) for x in bootstrap_interval(v, videos)]}
                for code, v in (("before", b), ("now", n), ("now_minus_before", d))}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.gaze_polarity import study_arguments, with_before

    args, videos = study_arguments(__doc__.split("\n\n")[0], argv)

    def compute() -> dict:
        now = {"answers": {"now": answers(videos)}}
        return now if args.answers_only else with_before(now, args.before, paired)

    return report(compute, args.json, echo=False)


if __name__ == "__main__":
    raise SystemExit(main())
