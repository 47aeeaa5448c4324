"""Hard shot cuts found against known ones: the full-frame-rate luma detector (``tools.signals.shots``) and the colour-
histogram detector at the index's 1 fps it replaced.

    python -m studies.shot_cuts --bench B/bench.jsonl [--bench ...] --single DIR [--single ...] [--labelled VIDEO=T1,T2 ...] [--json OUT]

Known cuts: every labelled moment's start and end in a bench whose shots are all labelled (joined forms: the
composed ``evals.composed`` joined bench, ``evals.build_bench`` joins of recorded clips), inside the video;
``--labelled`` gives a video's cut times read by eye (``tests.test_moments.SAMPLE_HARD_CUTS`` for the sample).
``--single`` folders hold videos of one shot each (every cut found there is false). A found cut is right when
within ``TOLERANCE_S`` of a known one. Prints and writes ``{"detectors": {name: {"known", "found", "recall",
"false_in_benches", "false_in_single", "single_minutes", "max_error_s"}}, "videos": {...}}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from tools.core.frames import iter_frames
from tools.core.media import probe
from tools.signals.shots import ChangeTrace, hard_cuts

#: A found cut this close (s) to a known one is right (issue 31's bar for boundaries).
TOLERANCE_S = 0.2
#: The replaced detector: hue/saturation histogram correlation of consecutive 1 fps samples below this.
OLD_CORRELATION = 0.6


def luma_cuts(path: Path) -> list[float]:
    """``tools.signals.shots.hard_cuts`` of every decoded frame of ``path``, as the index's visual pass finds them."""
    trace = ChangeTrace()
    for _ in iter_frames(path, 1.0, on_decoded=trace.add):
        pass
    return hard_cuts(trace.times, trace.changes)


def histogram_cuts(path: Path) -> list[float]:
    """The 1 fps samples whose 32 x 32 hue/saturation histogram correlates below ``OLD_CORRELATION`` with the
    sample before (the detector the index used before ``tools.signals.shots``)."""
    import cv2

    times, hists = [], []
    for t, frame in iter_frames(path, 1.0):
        hist = cv2.calcHist([cv2.cvtColor(frame, cv2.COLOR_RGB2HSV)], [0, 1], None, [32, 32], [0, 180, 0, 256])
        times.append(t)
        hists.append(cv2.normalize(hist, hist))
    return [t for t, (a, b) in zip(times[1:], itertools.pairwise(hists))
            if cv2.compareHist(a, b, cv2.HISTCMP_CORREL) < OLD_CORRELATION]


#: name -> (detector, reach in seconds): a found cut ``f`` stands for a known cut ``k`` when ``k - TOLERANCE_S <= f <=
#: k + reach + TOLERANCE_S``. The 1 fps detector finds a cut at the first sample of the new shot, up to one sampling
#: interval late (its cuts were refined to the frame at question time), so it is given that interval.
DETECTORS = {"luma, every frame (now)": (luma_cuts, 0.0), "histogram, 1 fps (before)": (histogram_cuts, 1.0)}


def known_cuts(bench: Path) -> dict[Path, list[float]]:
    """Video path -> the bench's moment edges inside the video (seconds, sorted)."""
    edges: dict[Path, set[float]] = {}
    for line in bench.read_text().splitlines():
        item = json.loads(line)
        path = bench.parent / item["video"]
        edges.setdefault(path, set()).update(t for m in item["moments"] for t in (m["start_s"], m["end_s"]))
    out = {}
    for path, ts in edges.items():
        duration = probe(path).duration_s
        out[path] = sorted(t for t in ts if 0.05 < t < duration - 0.05)
    return out


def score(found: list[float], known: list[float], reach_s: float) -> tuple[int, int, list[float]]:
    """(known cuts found, found cuts that are false, each found known cut's error in seconds), ``DETECTORS``' rule,
    matched one to one: each known cut in time order takes the nearest found cut not taken yet that stands for it."""
    free = sorted(found)
    errors = []
    for k in sorted(known):
        near = [f for f in free if k - TOLERANCE_S <= f <= k + reach_s + TOLERANCE_S]
        if near:
            best = min(near, key=lambda f: abs(f - k))
            free.remove(best)
            errors.append(abs(best - k))
    return len(errors), len(free), errors


def _name(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.shot_cuts", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, action="append", default=[])
    ap.add_argument("--single", type=Path, action="append", default=[])
    ap.add_argument("--labelled", action="append", default=[], metavar="VIDEO=T1,T2")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    known: dict[Path, list[float]] = {}
    for bench in args.bench:
        known.update(known_cuts(bench))
    for spec in args.labelled:
        video, times = spec.split("=", 1)
        known[Path(video)] = [float(t) for t in times.split(",")]
    singles = sorted(p for d in args.single for p in d.rglob("*.mp4"))
    report: dict = {"tolerance_s": TOLERANCE_S, "detectors": {}, "videos": {}}
    for name, (detect, reach_s) in DETECTORS.items():
        hits = false_b = false_s = n_known = 0
        errors: list[float] = []
        for path, cuts in known.items():
            found = detect(path)
            h, f, e = score(found, cuts, reach_s)
            hits, false_b, n_known, errors = hits + h, false_b + f, n_known + len(cuts), errors + e
            report["videos"].setdefault(_name(path), {"known": cuts})[name] = found
        minutes = 0.0
        for path in singles:
            found = detect(path)
            false_s += len(found)
            minutes += probe(path).duration_s / 60
            if found:
                report["videos"].setdefault(_name(path), {"known": []})[name] = found
        report["detectors"][name] = {"known": n_known, "found": hits, "recall": round(hits / max(1, n_known), 3),
                                     "false_in_benches": false_b, "false_in_single": false_s,
                                     "single_videos": len(singles), "single_minutes": round(minutes, 2),
                                     "max_error_s": round(max(errors, default=0.0), 3),
                                     "median_error_s": round(float(np.median(errors)) if errors else 0.0, 3)}
        print(name, json.dumps(report["detectors"][name]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
