"""Top-moment figures of several runs on one bench, with 95 % bootstrap intervals over videos.

    python -m evals.summary --bench B/bench.jsonl --run NAME=RUN_DIR [--run NAME=RUN_DIR ...] [--against NAME] [--json OUT]

Each ``RUN_DIR`` is an ``evals.run`` output (its ``predictions.jsonl``). Per item, scored as ``evals.run`` scores it
(``evals.evaluate.score_localization``): R1@0.5 (the top moment reaches tIoU >= 0.5 with a labelled moment) and
Joint (and names that moment's emotion); per run their means with a percentile bootstrap interval (``evals.metrics.bootstrap_interval``)
resampling whole videos, since one video's questions are not independent, when the bench has at least
``MIN_VIDEOS`` videos, else resampling items (``interval_over`` says which). An item a run did not answer counts
as a miss. Prints one line per run; ``--json`` writes ``{"bench", "runs": {NAME: {"n", "videos",
"interval_over", "R1@0.5": [mean, low, high], "Joint": [...], "by_label_read": {"read": [answers, R1@0.5 right],
"not_read": [...]}}}}``, ``by_label_read`` splitting the answered items by whether any of their moments names a
labelled emotion, compared as Joint compares them (without case): the bench's label standing for the feeling the
question asks (``graphs.pipeline.unread_feelings`` says in an answer when no moment is shown as the interpreter's
reading of it). ``--against NAME`` also gives each other run's
paired difference from run NAME, question by question (the mean of the per-item differences, its interval resampled
as above), and the questions it gains and loses: ``"paired": {OTHER: {"R1@0.5": [mean, low, high], "Joint": [...],
"gained_lost": {"R1@0.5": [gained, lost], "Joint": [...]}}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evals.bench import BenchError, load_bench, read_records
from evals.evaluate import empty_localization, score_localization
from evals.metrics import bootstrap_interval

#: Fewest videos for an interval over videos; fewer resample the items.
MIN_VIDEOS = 4
#: The top-moment figures given per run.
FIGURES = ("R1@0.5", "Joint")


def _with_interval(values: list[float], groups: list[str] | None) -> list[float]:
    low, high = bootstrap_interval(values, groups)
    return [round(sum(values) / len(values), 3), round(low, 3), round(high, 3)]


def per_item(bench: Path, run: Path) -> tuple[dict[str, list[float]], list[str]]:
    """The run's per-item scores on ``bench`` (``{"R1@0.5": [1.0 | 0.0 per item], "Joint": [...]}``, in the bench's
    order) and each item's video.

    Raises:
        BenchError: as ``scored_items``.
    """
    scores, videos = scored_items(bench, run)
    return {k: scores[k] for k in FIGURES}, videos


def scored_items(bench: Path, run: Path) -> tuple[dict[str, list[float]], list[str]]:
    """``per_item``'s scores and videos, the scores with ``"label_read"`` too: per item 1 when a moment names a
    labelled emotion, 0 when none does, -1 unanswered (``by_label_read`` of the module doc).

    Raises:
        BenchError: the bench is missing or not a valid bench; ``run`` is not a folder; its ``predictions.jsonl`` is
            missing or a line of it is not a JSON object with an ``id`` (``evals.bench.read_records``).
    """
    items = load_bench(bench)
    if not run.is_dir():
        raise BenchError(f"{run}: not a run's folder (the --out of python -m evals.run, holding predictions.jsonl)")
    moments = {p["id"]: p.get("moments") or [] for p in read_records(run / "predictions.jsonl")}
    loc, label_read = empty_localization(), []
    for item in items:
        got = moments.get(item.id, [])
        labelled = [m.emotion for m in item.moments]
        lowered = {e.lower() for e in labelled}
        score_localization(loc, [(m["start_s"], m["end_s"]) for m in got], [(m.start_s, m.end_s) for m in item.moments],
                           got[0]["emotion"] if got else None, labelled)
        label_read.append(int(any(str(m["emotion"]).lower() in lowered for m in got)) if got else -1)
    return {**{k: loc[k] for k in FIGURES}, "label_read": label_read}, [item.video for item in items]


def _over(groups: list[str]) -> list[str] | None:
    return groups if len(set(groups)) >= MIN_VIDEOS else None


def summarise(bench: Path, run: Path) -> dict:
    """``{"n", "videos", "interval_over", "R1@0.5", "Joint", "by_label_read"}`` of the run in ``run`` on ``bench`` (each
    figure [mean, low, high]; ``by_label_read`` as the module doc says).

    Raises:
        BenchError: the bench is missing or not a valid bench.
        FileNotFoundError: the run's ``predictions.jsonl`` is missing.
    """
    return _summary(*scored_items(bench, run))


def _summary(scores: dict[str, list[float]], groups: list[str]) -> dict:
    over = _over(groups)
    pairs = list(zip(scores["R1@0.5"], scores["label_read"], strict=True))
    split = {name: [sum(1 for _, r in pairs if r == flag), int(sum(x for x, r in pairs if r == flag))]
             for name, flag in (("read", 1), ("not_read", 0))}
    return {"n": len(groups), "videos": len(set(groups)), "interval_over": "videos" if over else "items",
            **{k: _with_interval(scores[k], over) for k in FIGURES}, "by_label_read": split}


def paired(bench: Path, run: Path, base: Path) -> dict:
    """Run ``run`` against run ``base`` on ``bench``, question by question: ``{"R1@0.5": [mean difference, low, high],
    "Joint": [...], "gained_lost": {"R1@0.5": [gained, lost], "Joint": [...]}}`` (intervals as ``summarise``'s).

    Raises:
        BenchError: the bench is missing or not a valid bench.
        FileNotFoundError: a run's ``predictions.jsonl`` is missing.
    """
    (a, groups), (b, _) = per_item(bench, run), per_item(bench, base)
    return _paired(a, b, groups)


def _paired(a: dict[str, list[float]], b: dict[str, list[float]], groups: list[str]) -> dict:
    out: dict = {"gained_lost": {}}
    for k in FIGURES:
        diff = [x - y for x, y in zip(a[k], b[k], strict=True)]
        out[k] = _with_interval(diff, _over(groups))
        out["gained_lost"][k] = [sum(d > 0 for d in diff), sum(d < 0 for d in diff)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.summary", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, required=True)
    ap.add_argument("--run", action="append", required=True, metavar="NAME=RUN_DIR")
    ap.add_argument("--against", metavar="NAME", default=None,
                    help="also give each other run's paired difference from this run, with the questions gained and lost")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    out: dict = {"bench": str(args.bench), "runs": {}}
    try:
        scored = {}  # each run scored once, for its summary and its pairings
        for spec in args.run:
            name, sep, path = spec.partition("=")
            if not sep:
                raise ValueError(f"--run {spec!r}: expected NAME=RUN_DIR")
            if name in scored:
                raise ValueError(f"--run {spec!r}: the name {name!r} is given twice")
            scored[name] = scored_items(args.bench, Path(path))
            out["runs"][name] = _summary(*scored[name])
        if args.against is not None:
            if args.against not in scored:
                raise ValueError(f"--against {args.against!r}: no --run of that name")
            base = scored[args.against][0]
            out["paired"] = {name: _paired(scores, base, groups)
                             for name, (scores, groups) in scored.items() if name != args.against}
    except (BenchError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, r in out["runs"].items():
        read, unread = r["by_label_read"]["read"], r["by_label_read"]["not_read"]
        print(f"{name}: n={r['n']} R1@0.5 {r['R1@0.5']} Joint {r['Joint']}; top moment right where a moment is named "
              f"as labelled {read[1]} of {read[0]}, where none is {unread[1]} of {unread[0]}, "
              f"unanswered {r['n'] - read[0] - unread[0]}")
    for name, r in out.get("paired", {}).items():
        print(f"{name} - {args.against}: R1@0.5 {r['R1@0.5']} Joint {r['Joint']} (gained, lost: {r['gained_lost']})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
