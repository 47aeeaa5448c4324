"""The confidence's calibration with an intercept per judged label, chosen and checked on recorded development video.

    python -m studies.label_calibration clips --mirrors /work/.mirror --out CLIPS     # 80 recorded dev clips + labels
    python -m evals.build_bench CLIPS --format csv --clips-per-video 8 --seed 0 --out B
    python -m studies.fit_fusion collect --bench B/bench.jsonl --out R/recorded.jsonl --cache-dir C
    python -m studies.label_calibration fit --set fold=R/fold.jsonl --set mixed11=R/mixed11.jsonl \\
        --set javanese=R/javanese.jsonl --set recorded=R/recorded.jsonl [--out agents/fusion.json] [--rows ROWS.jsonl]
        [--json RESULT.json]                        # bash studies/scripts/label_calibration.sh runs all of it
    python -m studies.label_calibration score --set NAME=RECORDS [...] --before OLD.json [--fusion NEW.json] \
        [--nested ROWS.jsonl]                       # e.g. records collected with --voice-emotion whisper8

The offline judge's confidence is Platt scaling (Platt 1999) of the fused top probability x
(``agents.fusion.Fusion.confidence``). Fitted on composed benches of the fusion fold, it says more than the judge
knows on recorded video of new people: there a surprise read on a talking face is right far less often than an anger
read, x taken into account (``evals/RESULTS.md`` section 163). ``fit`` reads the judged candidates of each named set of
collected records (``studies.fit_fusion collect``; ``replay`` labels each by the labelled shot it overlaps most) and
compares two forms of the calibration, each a logistic regression of "the judged label is right" (scikit-learn, L2
penalty of inverse strength C):

- ``platt``: on x alone (the shipped form);
- ``label``: on x and the judged label (one indicator per AffectNet-8 label: an intercept per label), where a face
  was read (``agents.emotion.calibrated_label``: a label from the voice and the question alone takes no intercept).

Each form and C of ``C_GRID`` is scored by leaving one set out: fitted on the other sets' candidates, its ECE (10
equal-width bins, ``evals.metrics.calibration_scores``) on the set left out; the choice is the lowest mean ECE over
the sets (ties: the lower mean Brier score). Those held-out figures saw the choice; ``nested`` scores each set with a
form and C chosen on the other sets alone. The chosen form is then fitted on every set and written into the fusion
(weights unchanged; ``calibration`` = (a, b) and ``label_offsets``). Where the fusion has a calibration of its own
for a label the departure named (``Fusion.departed_calibration``, ``studies.departed_calibration``), those candidates
are left to it: neither fitted nor scored here, and the fusion keeps it. Intervals: 95 % percentile bootstrap over the
videos of a set (``evals.calibration``), paired for a difference. ``--rows`` keeps one line per judged candidate (set,
record id, video, x, label, face read, nothing read, right, named by the departure), enough to refit and score
without the records.

``score`` replays sets of records with two fusions, each record judged as the pipeline judges its index's voice
reader (``Fusion.for_voice``: records collected with ``--voice-emotion whisper8`` weigh the voice 0.40); ``--nested``
adds each set scored with a calibration chosen and fitted on ``fit``'s rows of the other sets.

``clips`` writes the recorded development clips no calibration had seen: section 25's 20 clips of 11 people
(``studies.recorded_faces.CLIPS``), RAVDESS actor 05's 52 face crops and MAFW's sample clips with one label (8 of 12),
with a ``labels.csv`` for ``evals.build_bench --format csv``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from agents.emotion import NO_OBSERVATION_CONFIDENCE
from agents.fusion import FUSION_FILE, Fusion, read_fusion
from evals.calibration import calibration_intervals, calibration_report
from evals.metrics import calibration_scores
from tools.core.schema import AFFECTNET8

#: Inverse L2 strengths tried for each form (``fit``).
C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 100.0)
#: The calibration forms: the features of one judged candidate (x, the label whose intercept it takes or None).
FORMS = {"platt": lambda x, label: [x],
         "label": lambda x, label: [x, *(float(label == name) for name in AFFECTNET8)]}


#: What a fitted fusion's ``source`` says of its calibration, after what it says of its weights (``fit``).
CALIBRATION_SOURCE = "; the confidence's calibration refitted by studies.label_calibration fit: "
#: What it says of the calibration of a label the departure named, last (``studies.departed_calibration``).
DEPARTED_SOURCE = "; a label the departure named calibrated by studies.departed_calibration: "


def _calibrated(row: dict) -> str | None:
    """The label whose intercept a row's confidence takes: its label where a face was read."""
    return row["label"] if row["face"] else None


def judged_rows(sets: dict[str, str], fusion: Fusion) -> list[dict]:
    """One row per judged candidate of each set's records (``studies.fit_fusion.replay`` with ``fusion``): set name,
    record id, video (the id without its last "-part"), fused top probability x, judged label, whether a face was
    read (its intercept applies: ``agents.emotion.calibrated_label``), whether nothing was read (the confidence is
    then capped, ``agents.emotion.NO_OBSERVATION_CONFIDENCE``), whether the label is that of the shot it overlaps
    most, and whether the departure named it (``agents.fusion.departed``). The rows do not depend on the fusion's
    calibration, only on its weights.

    Raises:
        OSError: a records file is missing.
        ValueError: a set's records hold no judged candidate on a labelled shot.
    """
    from studies.fit_fusion import load_records, replay

    return [row for name, path in sets.items() for row in replay_rows(name, path, replay(load_records([path]), fusion))]


def replay_rows(name: str, path: str, replayed: dict) -> list[dict]:
    """``judged_rows``'s rows of set ``name`` from ``studies.fit_fusion.replay``'s result on its records (``path``).

    Raises:
        ValueError: the replay judged no candidate on a labelled shot.
    """
    if not replayed["judged"]:
        raise ValueError(f"{path}: no judged candidate on a labelled shot (python -m studies.fit_fusion collect)")
    return [{"set": name, "id": item, "video": f"{name}/{item.rsplit('-', 1)[0]}", "x": round(x, 6), "label": label,
             "face": calibrated is not None, "nothing": bool(nothing), "right": bool(right), "departed": bool(named)}
            for x, _, right, label, item, calibrated, nothing, named in replayed["judged"]]


def fit_form(rows: list[dict], form: str, c: float) -> tuple[tuple[float, float], dict[str, float]]:
    """The calibration of ``form`` with inverse penalty ``c`` fitted on ``rows``: ((a, b), label offsets; empty for
    ``platt``), rounded to 4 decimals.

    Raises:
        ValueError: the rows are all right or all wrong.
    """
    from sklearn.linear_model import LogisticRegression

    y = np.array([r["right"] for r in rows], dtype=int)
    if len(set(y)) < 2:
        raise ValueError("calibration needs judged candidates both right and wrong")
    lr = LogisticRegression(C=c, max_iter=10_000).fit(np.array([FORMS[form](r["x"], _calibrated(r)) for r in rows]), y)
    coef = [round(float(v), 4) for v in lr.coef_[0]]
    offsets = dict(zip(AFFECTNET8, coef[1:], strict=True)) if form == "label" else {}
    return (coef[0], round(float(lr.intercept_[0]), 4)), offsets


def with_calibration(fusion: Fusion, calibration: tuple[float, float], offsets: dict[str, float]) -> Fusion:
    """``fusion`` with this calibration and these label offsets (its weights kept)."""
    return fusion.model_copy(update={"calibration": calibration, "label_offsets": offsets})


def fitted_calibration(rows: list[dict], form: str, c: float,
                       departed: tuple[float, float] | None = None) -> Fusion:
    """A fusion carrying only the calibration of ``form`` with inverse penalty ``c`` fitted on ``rows`` and the
    ``departed`` calibration given (for ``confidences``; its weights are placeholders).

    Raises:
        ValueError: as ``fit_form``.
    """
    calibration, offsets = fit_form(rows, form, c)
    return Fusion(visual=1, vocal=0, verbal=0, prior=0, calibration=calibration, label_offsets=offsets,
                  departed_calibration=departed)


def confidences(rows: list[dict], fusion: Fusion) -> list[float]:
    """``fusion``'s confidence of each row as the offline judge states it (``agents.emotion.offline_judge``: to 3
    decimals, at most ``NO_OBSERVATION_CONFIDENCE`` where nothing was read; a row whose label the departure named,
    ``departed``, takes the fusion's ``departed_calibration`` where it has one; rows written before that key: none)."""
    return [min(c, NO_OBSERVATION_CONFIDENCE) if r["nothing"] else c
            for r, c in ((r, round(fusion.confidence(r["x"], _calibrated(r), r.get("departed", False)), 3))
                         for r in rows)]


def scores(rows: list[dict], conf: list[float]) -> dict:
    """``evals.calibration.calibration_report`` of ``conf`` on ``rows`` (one each, not empty), over their videos."""
    return calibration_report(conf, [r["right"] for r in rows], [r["video"] for r in rows])


def difference(rows: list[dict], before: list[float], after: list[float]) -> dict[str, list[float]]:
    """The paired 95 % interval over the rows' videos of ``after``'s ECE and Brier minus ``before``'s."""
    return {k: [round(lo, 4), round(hi, 4)] for k, (lo, hi) in calibration_intervals(
        [before, after], [r["right"] for r in rows], [r["video"] for r in rows]).items()}


def held_out(rows: list[dict], form: str, c: float) -> dict[str, list[float]]:
    """Each set's confidences from ``form`` fitted on the other sets' rows (leave one set out), by set name.

    Raises:
        ValueError: the other sets' rows are all right or all wrong, or there are none (one set only).
    """
    out = {}
    for name in sorted({r["set"] for r in rows}):
        fusion = fitted_calibration([r for r in rows if r["set"] != name], form, c)
        out[name] = confidences([r for r in rows if r["set"] == name], fusion)
    return out


def choose(rows: list[dict]) -> tuple[list[dict], dict]:
    """Every (form, C) of ``FORMS`` x ``C_GRID`` with its held-out ECE and Brier per set and their means, and the
    chosen one (module doc).

    Raises:
        ValueError: as ``held_out``.
    """
    grid = [grid_row(rows, held_out(rows, form, c), form=form, C=c) for form in FORMS for c in C_GRID]
    return grid, lowest(grid)


def grid_row(rows: list[dict], conf: dict[str, list[float]], **choice) -> dict:
    """One row of a grid of calibration choices: ``choice`` (e.g. form and C), then the ECE and Brier score of each
    set's confidences ``conf`` (set name -> one per row of ``rows`` of that set, in order) and their means over the
    sets, rounded to 4 decimals."""
    per = {name: calibration_scores(v, [r["right"] for r in rows if r["set"] == name]) for name, v in conf.items()}
    return {**choice, **{f"{n} ECE/Brier": [round(s["ECE"], 4), round(s["Brier"], 4)] for n, s in per.items()},
            "mean ECE": round(float(np.mean([s["ECE"] for s in per.values()])), 4),
            "mean Brier": round(float(np.mean([s["Brier"] for s in per.values()])), 4)}


def lowest(grid: list[dict]) -> dict:
    """The row of ``grid`` (``grid_row``) with the lowest mean ECE; ties to the lower mean Brier score, then the
    first."""
    return min(grid, key=lambda g: (g["mean ECE"], g["mean Brier"]))


def label_rows(rows: list[dict], fusion: Fusion) -> list[dict]:
    """The rows the label calibration states: all, but those whose label the departure named where ``fusion`` has a
    calibration of its own for them (``Fusion.departed_calibration``)."""
    return [r for r in rows if not (fusion.departed_calibration and r.get("departed"))]


def nested(rows: list[dict]) -> dict[str, tuple[dict, list[float]]]:
    """Each set's confidences from a calibration chosen and fitted without it: the form and C that ``choose`` picks
    on the other sets' rows alone, fitted on them (nested leave one set out, so no choice saw the set scored), with
    that choice, by set name.

    Raises:
        ValueError: as ``held_out``, on the other sets' rows.
    """
    out = {}
    for name in sorted({r["set"] for r in rows}):
        rest = [r for r in rows if r["set"] != name]
        best = choose(rest)[1]
        fusion = fitted_calibration(rest, best["form"], best["C"])
        out[name] = ({"form": best["form"], "C": best["C"]}, confidences([r for r in rows if r["set"] == name], fusion))
    return out


def fit(sets: dict[str, str], fusion: Fusion) -> tuple[Fusion, dict, list[dict]]:
    """The refitted fusion, the study's report and the judged rows (module doc).

    Raises:
        OSError: a records file is missing.
        ValueError: fewer than three sets, or as ``judged_rows`` and ``held_out``.
    """
    if len(sets) < 3:
        raise ValueError(f"fit needs three sets or more (a choice made leaving one out, then scored on another), "
                         f"not {len(sets)}")
    every = judged_rows(sets, fusion)
    rows = label_rows(every, fusion)
    grid, best = choose(rows)
    calibration, offsets = fit_form(rows, best["form"], best["C"])
    head, marker, tail = fusion.source.partition(DEPARTED_SOURCE)  # what it says of the departed calibration: kept
    fitted = with_calibration(fusion, calibration, offsets).model_copy(update={"source": (
        f"{head.split(CALIBRATION_SOURCE)[0]}{CALIBRATION_SOURCE}form {best['form']}, C {best['C']:g}, chosen by "
        f"leaving one of the sets out and fitted on all of them: {', '.join(sets)} (evals/RESULTS.md section 163)"
        f"{marker}{tail}")})
    platt = held_out(rows, "platt", next(g["C"] for g in sorted(grid, key=lambda g: g["mean ECE"])
                                         if g["form"] == "platt"))
    chosen, inner = held_out(rows, best["form"], best["C"]), nested(rows)
    report = {"chosen": best, "fitted": {"calibration": list(calibration), "label_offsets": offsets},
              "left to the departed calibration": len(every) - len(rows), "sets": {}}
    for name in sorted(sets):
        part = [r for r in rows if r["set"] == name]
        shipped = confidences(part, fusion)
        report["sets"][name] = {
            "before (the fusion read)": scores(part, shipped),
            "platt, held out (best C)": scores(part, platt[name]),
            "chosen, held out": scores(part, chosen[name]),
            "chosen without the set, fitted without it (nested)": {"choice": inner[name][0],
                                                                   **scores(part, inner[name][1])},
            "chosen minus before, held out, 95 % interval": difference(part, shipped, chosen[name]),
            "fitted on every set (in sample)": scores(part, confidences(part, fitted))}
    return fitted, {**report, "grid": grid}, every


def score(sets: dict[str, str], before: Fusion, after: Fusion, fitted_rows: list[dict] | None = None) -> dict:
    """``{"sets": {name: ...}}``: ECE and Brier of ``before`` and ``after`` on each set's judged candidates, with
    intervals and the paired difference, and the replayed R1@0.5 and Joint of both (the calibration moves no emotion
    question's moments), and the mean fused top probability x. Each record is judged as its index's voice reader is
    weighed (``studies.fit_fusion.replay``).

    ``fitted_rows`` (the rows ``fit`` wrote, ``--rows``): also each set scored ``nested``, with the calibration whose
    form and C ``choose`` picks on the rows of the other sets (a row whose set has this set's name is left out: the
    same people read otherwise), fitted on them, and its paired difference against ``before``.

    Raises:
        OSError: a records file is missing.
        ValueError: as ``judged_rows``, or ``fitted_rows`` hold fewer than two other sets (``choose`` leaves one out).
    """
    from studies.fit_fusion import load_records, replay

    out = {}
    for name, path in sets.items():
        records = load_records([path])
        replays = [replay(records, f) for f in (before, after)]
        rows = replay_rows(name, path, replays[0])  # the candidates as the fusion before judges them
        old, new = confidences(rows, before), confidences(rows, after)
        out[name] = {"mean fused top probability": round(float(np.mean([r["x"] for r in rows])), 4),
                     "before": scores(rows, old), "after": scores(rows, new),
                     "after minus before, 95 % interval": difference(rows, old, new),
                     **{f"{k} before/after": [round(m[k], 4) for m in replays] for k in ("R1@0.5", "Joint")}}
        if fitted_rows is not None:
            rest = label_rows([r for r in fitted_rows if r["set"] != name], after)
            if len({r["set"] for r in rest}) < 2:
                raise ValueError(f"--nested needs rows of two sets or more other than {name}")
            best = choose(rest)[1]
            inner = confidences(rows, fitted_calibration(rest, best["form"], best["C"], after.departed_calibration))
            out[name]["nested"] = {"form": best["form"], "C": best["C"], "fitted on": sorted({r["set"] for r in rest}),
                                   **scores(rows, inner), "minus before, 95 % interval": difference(rows, old, inner)}
    return {"sets": out}


def write_clips(mirrors: Path, out: Path) -> int:
    """Write the recorded development clips of the module doc under ``out`` with ``out/labels.csv``; returns their
    number.

    Raises:
        FileNotFoundError: a repository snapshot is missing under ``mirrors``.
    """
    from studies.recorded_faces import CLIPS, _extract, mafw_rows, ravdess05_rows

    rows = [r for r in (*CLIPS, *ravdess05_rows(), *mafw_rows()) if "|" not in r[2]]  # one label each
    paths = _extract(mirrors, out, rows)
    (out / "labels.csv").write_text("".join(f"{p.relative_to(out)},{r[2]}\n" for p, r in zip(paths, rows, strict=True)))
    return len(paths)


def _sets(items: list[str]) -> dict[str, str]:
    sets = {}
    for item in items:
        name, _, path = item.partition("=")
        if not name or not path:
            raise ValueError(f"--set {item!r}: give NAME=RECORDS")
        if name in sets:
            raise ValueError(f"--set {item!r}: the name {name!r} is given twice")
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such records file (python -m studies.fit_fusion collect)")
        sets[name] = path
    return sets


def main(argv: list[str] | None = None) -> int:
    """The command line (module doc); returns the exit code."""
    from studies.command import report
    from tools.core.argtypes import CommandParser

    p = CommandParser(prog="python -m studies.label_calibration", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("clips", help="write the recorded development clips and their labels.csv")
    c.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="choose the calibration's form by leaving one set out, fit it on every set")
    s = sub.add_parser("score", help="ECE and Brier of two fusions on collected records (a test set: once)")
    for q in (f, s):
        q.add_argument("--set", action="append", required=True, metavar="NAME=RECORDS",
                       help="a set of collected records (studies.fit_fusion collect); give several")
    f.add_argument("--fusion", type=Path, default=FUSION_FILE, help="the fusion whose weights are kept and whose "
                   "calibration is the one before (default: the shipped one)")
    f.add_argument("--out", type=Path, help="write the refitted fusion here (agents/fusion.json)")
    f.add_argument("--rows", type=Path, help="write the judged candidates here (JSON Lines)")
    s.add_argument("--before", type=Path, required=True, help="the fusion before (a JSON file)")
    s.add_argument("--fusion", type=Path, default=FUSION_FILE, help="the fusion after (default: the shipped one)")
    s.add_argument("--nested", type=Path, metavar="ROWS", help="also score each set with a calibration chosen and "
                   "fitted on the judged rows of fit --rows whose set has another name")
    for q in (f, s):
        q.add_argument("--json", type=Path, help="write the report here")
    args = p.parse_args(argv)
    if args.cmd == "clips":
        try:
            print(f"{write_clips(args.mirrors, args.out)} clips written to {args.out}")
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    return report(lambda: _run(args), args.json, errors=(OSError, ValueError))


#: The keys of a judged row (``judged_rows``) that ``score --nested`` reads.
ROW_KEYS = ("set", "video", "x", "label", "face", "nothing", "right")


def read_rows(path: Path) -> list[dict]:
    """The judged rows ``fit --rows`` wrote to ``path`` (JSON Lines).

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON or lacks a key of ``ROW_KEYS`` (one line).
    """
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{path}:{n}: not JSON") from None
        missing = [k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]
        if missing:
            raise ValueError(f"{path}:{n}: a judged row without {', '.join(missing)} (label_calibration fit --rows)")
        rows.append(row)
    return rows


def _run(args: argparse.Namespace) -> dict:
    """The report of ``fit`` (writing ``--out`` and ``--rows`` where given) or ``score``."""
    sets = _sets(args.set)
    if args.cmd == "score":
        fitted_rows = None
        if args.nested:
            fitted_rows = read_rows(args.nested)
        return score(sets, read_fusion(args.before), read_fusion(args.fusion), fitted_rows)
    fitted, result, rows = fit(sets, read_fusion(args.fusion))
    if args.out:
        args.out.write_text(fitted.model_dump_json(indent=2) + "\n")
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return result


if __name__ == "__main__":
    sys.exit(main())
