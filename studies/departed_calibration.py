"""The confidence of a label the departure named, calibrated on recorded development video of people seen long enough.

    python -m evals.data.javanese --mirrors /work/.mirror --split dev --out J
    python -m evals.build_bench J --format javanese --clips-per-video 12 --seed 0 --by-person --out P
    python -m studies.fit_fusion collect --bench P/bench.jsonl --out R/people.jsonl --cache-dir C
    python -m studies.departed_calibration fit --set people=R/people.jsonl --set more=R/more.jsonl [...] \\
        [--out agents/fusion.json] [--rows ROWS.jsonl] [--json RESULT.json]
    python -m evals.run --bench P/bench.jsonl --method graph --fusion BEFORE.json --out RUN_BEFORE   # and the new one
    python -m studies.departed_calibration answers --bench P/bench.jsonl --run before=RUN_BEFORE --run after=RUN

Where a person has a usual reading, the judge names the label of the fusion with the faces read against it
(``agents.fusion.judged_label``, ``evals/RESULTS.md`` section 166). Where that label is not the top of the fusion as
read (``agents.fusion.departed``), the shipped calibration (``studies.label_calibration``, fitted on faces as read)
states it from a probability that says little of whether it is right: on the recorded Javanese people seen long
enough, such labels were right about 0.40-0.49 of the time and stated 0.26 (section 167). This study gives them a
Platt scaling of their own (``Fusion.departed_calibration``; Platt 1999: logistic regression of "the judged label is
right" on the label's probability x, scikit-learn, L2 penalty of inverse strength C), every other judgement keeping
the shipped calibration.

The judged candidates of each named set come from ``studies.label_calibration.judged_rows`` (records of
``studies.fit_fusion collect``). Each C of ``C_GRID`` is scored by leaving one set out: fitted on the other sets'
departed rows, the ECE (10 equal-width bins) of every row of the set left out; the choice is the lowest mean ECE over
the sets (ties: the lower mean Brier score), then fitted on the departed rows of every set. Give sets of other people:
a set left out is then read by a calibration fitted on people it does not hold. Intervals: 95 % percentile bootstrap
over a set's videos (``evals.calibration``), paired for a difference.

``answers`` scores what a user reads: every moment the graph answered (``evals.run`` runs of one bench, the
confidence as its ``score``) that overlaps a labelled moment of its video, right when it names the label of the one
it overlaps most, all and the top moments alone, each run paired against the first (the same moments: a calibration
moves no moment of a question about a feeling, ``agents.moments.draft_moments``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from agents.fusion import FUSION_FILE, Fusion, read_fusion
from evals.bench import BenchError
from studies.label_calibration import (
    C_GRID,
    DEPARTED_SOURCE,
    _sets,
    confidences,
    difference,
    grid_row,
    judged_rows,
    lowest,
    scores,
)


def fit_departed(rows: list[dict], c: float) -> tuple[float, float]:
    """Platt scaling (a, b) with inverse penalty ``c`` fitted on the rows whose label the departure named, rounded to 4
    decimals.

    Raises:
        ValueError: those rows are none, or all right or all wrong.
    """
    from sklearn.linear_model import LogisticRegression

    named = [r for r in rows if r.get("departed")]
    y = np.array([r["right"] for r in named], dtype=int)
    if len(set(y)) < 2:
        raise ValueError(f"the departure named {len(named)} judged labels: a calibration needs some right and some "
                         f"wrong (give sets of people seen in MIN_DEPARTURE_FRAMES index frames or more)")
    lr = LogisticRegression(C=c, max_iter=10_000).fit(np.array([[r["x"]] for r in named]), y)
    return round(float(lr.coef_[0][0]), 4), round(float(lr.intercept_[0]), 4)


def with_departed(fusion: Fusion, calibration: tuple[float, float] | None) -> Fusion:
    """``fusion`` with this ``departed_calibration`` (None: the shipped calibration for every label)."""
    return fusion.model_copy(update={"departed_calibration": calibration})


def held_out(rows: list[dict], fusion: Fusion, c: float) -> dict[str, list[float]]:
    """Each set's confidences with ``fusion`` and a departed calibration fitted on the other sets' rows, by set name.

    Raises:
        ValueError: as ``fit_departed``, on the other sets' rows.
    """
    return {name: confidences([r for r in rows if r["set"] == name],
                              with_departed(fusion, fit_departed([r for r in rows if r["set"] != name], c)))
            for name in sorted({r["set"] for r in rows})}


def choose(rows: list[dict], fusion: Fusion) -> tuple[list[dict], dict]:
    """Every C of ``C_GRID`` with its held-out ECE and Brier per set and their means, and the chosen one.

    Raises:
        ValueError: as ``held_out``.
    """
    grid = [grid_row(rows, held_out(rows, fusion, c), C=c) for c in C_GRID]
    return grid, lowest(grid)


def study(sets: dict[str, str], fusion: Fusion) -> tuple[Fusion, dict, list[dict]]:
    """The fusion with its departed calibration fitted, the report and the judged rows (module doc). Each set's
    figures: every judged candidate and those whose label the departure named, with the calibration before (none of
    its own), held out (fitted without the set) and fitted on every set (in sample).

    Raises:
        OSError: a records file is missing.
        ValueError: fewer than two sets, or as ``judged_rows`` and ``held_out``.
    """
    if len(sets) < 2:
        raise ValueError(f"the study needs two sets or more (each scored by a calibration fitted on the others), "
                         f"not {len(sets)}")
    before = with_departed(fusion, None)
    rows = judged_rows(sets, before)
    grid, best = choose(rows, before)
    fitted = with_departed(fusion, fit_departed(rows, best["C"])).model_copy(update={"source": (
        f"{fusion.source.split(DEPARTED_SOURCE)[0]}{DEPARTED_SOURCE}C {best['C']:g}, chosen by leaving one of the sets "
        f"out and fitted on all of them: {', '.join(sets)} (evals/RESULTS.md section 167)")})
    outside = held_out(rows, before, best["C"])
    report = {"chosen": best, "fitted": list(fitted.departed_calibration), "sets": {}}
    for name in sorted(sets):
        part = [r for r in rows if r["set"] == name]
        shipped, inner = confidences(part, before), outside[name]
        named = [i for i, r in enumerate(part) if r["departed"]]
        report["sets"][name] = {
            "judged": len(part), "named by the departure": len(named),
            "before": scores(part, shipped), "held out": scores(part, inner),
            "held out minus before, 95 % interval": difference(part, shipped, inner),
            "fitted on every set (in sample)": scores(part, confidences(part, fitted)),
            "named by the departure, before": _scores_of(part, shipped, named),
            "named by the departure, held out": _scores_of(part, inner, named)}
    return fitted, {**report, "grid": grid}, rows


def _scores_of(rows: list[dict], conf: list[float], keep: list[int]) -> dict | None:
    """``scores`` of the rows at positions ``keep`` (None when there are none)."""
    return scores([rows[i] for i in keep], [conf[i] for i in keep]) if keep else None


def answered(bench: Path, run: Path) -> list[dict]:
    """Each moment of ``run``'s predictions (``evals.run``) that overlaps a labelled moment of its video in ``bench``:
    item id, video, rank (0: the top moment), span, confidence, right (its emotion is the label of the labelled moment
    it overlaps most, by tIoU).

    Raises:
        evals.bench.BenchError: the bench or the predictions cannot be read.
        ValueError: a prediction's id is not in the bench, or a moment lacks start_s, end_s, emotion or score.
    """
    from evals.bench import load_bench, read_records
    from evals.metrics import temporal_iou

    items = load_bench(bench)
    shots = {it.video: set() for it in items}
    for it in items:
        shots[it.video] |= {(m.start_s, m.end_s, m.emotion) for m in it.moments}
    video = {it.id: it.video for it in items}
    out = []
    for rec in read_records(run / "predictions.jsonl"):
        if rec["id"] not in video:
            raise ValueError(f"{run}: the prediction {rec['id']!r} is not an item of {bench}")
        for rank, m in enumerate(rec.get("moments") or []):
            if not isinstance(m, dict) or any(k not in m for k in ("start_s", "end_s", "emotion", "score")):
                raise ValueError(f"{run}: a moment of {rec['id']!r} without start_s, end_s, emotion and score")
            span = (m["start_s"], m["end_s"])
            iou, label = max(((temporal_iou(span, s[:2]), s[2]) for s in shots[video[rec["id"]]]),
                             key=lambda x: x[0], default=(0.0, None))
            if iou > 0:
                out.append({"id": rec["id"], "video": video[rec["id"]], "rank": rank, "span": list(span),
                            "emotion": m["emotion"], "confidence": m["score"], "right": m["emotion"] == label})
    return out


def answers(bench: Path, runs: dict[str, Path]) -> dict:
    """``{"runs": {name: {"all": ..., "top": ...}}}``: ``evals.calibration.calibration_report`` of each run's answered
    moments (``answered``), all and the top ones, with the paired interval against the first run's.

    Raises:
        ValueError: fewer than two runs, a run's moments or labels are not the first run's, no answered moment overlaps
            a labelled one, or as ``answered``.
        evals.bench.BenchError: as ``answered``.
    """
    from evals.calibration import calibration_report

    rows = {name: answered(bench, path) for name, path in runs.items()}
    first = next(iter(rows.values()))

    def same(v: list[dict]) -> list[tuple]:
        return [(r["id"], r["span"], r["emotion"]) for r in v]

    if len(rows) < 2 or any(same(v) != same(first) for v in rows.values()):
        raise ValueError("answers compares two runs or more whose moments and labels are the same (one bench, one "
                         "index)")
    if not any(r["rank"] == 0 for r in first):
        raise ValueError(f"no top moment of these runs overlaps a labelled moment of {bench}")
    out = {}
    for name, v in rows.items():
        out[name] = {}
        for part, keep in (("all", [True] * len(v)), ("top", [r["rank"] == 0 for r in v])):
            sub, base = [r for r, k in zip(v, keep) if k], [r for r, k in zip(first, keep) if k]
            conf, right = [r["confidence"] for r in sub], [r["right"] for r in sub]
            out[name][part] = calibration_report(conf, right, [r["video"] for r in sub])
            out[name][part]["minus the first, 95 % interval"] = difference(base, [r["confidence"] for r in base], conf)
    return {"runs": out}


def main(argv: list[str] | None = None) -> int:
    """The command line (module doc); returns the exit code."""
    from studies.command import report
    from tools.core.argtypes import CommandParser

    p = CommandParser(prog="python -m studies.departed_calibration", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="choose C by leaving one set out, fit the departed calibration on every set")
    f.add_argument("--set", action="append", required=True, metavar="NAME=RECORDS",
                   help="a set of collected records (studies.fit_fusion collect); give two or more, of other people")
    f.add_argument("--fusion", type=Path, default=FUSION_FILE, help="the fusion whose weights and calibration are "
                   "kept (default: the shipped one)")
    f.add_argument("--out", type=Path, help="write the fusion with its departed calibration here (agents/fusion.json)")
    f.add_argument("--rows", type=Path, help="write the judged candidates here (JSON Lines)")
    a = sub.add_parser("answers", help="the answered moments' confidence in runs of one bench, paired")
    a.add_argument("--bench", type=Path, required=True, help="the bench the runs answered")
    a.add_argument("--run", action="append", required=True, metavar="NAME=RUN", help="an evals.run output folder; "
                   "give two or more, the first the one before")
    for q in (f, a):
        q.add_argument("--json", type=Path, help="write the report here")
    args = p.parse_args(argv)

    def run() -> dict:
        if args.cmd == "answers":
            parts = [r.partition("=") for r in args.run]
            runs = {n: Path(d) for n, _, d in parts}
            if any(not n or not d for n, _, d in parts) or len(runs) != len(args.run):
                raise ValueError("--run: give NAME=RUN, each name once")
            return answers(args.bench, runs)
        fitted, result, rows = study(_sets(args.set), read_fusion(args.fusion))
        if args.out:
            args.out.write_text(fitted.model_dump_json(indent=2) + "\n")
        if args.rows:
            args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return result

    return report(run, args.json, errors=(OSError, ValueError, BenchError))


if __name__ == "__main__":
    sys.exit(main())
