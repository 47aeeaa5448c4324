"""Which faces of a composed bench draw FER+'s taggers call otherwise, and what they cost a run's answers.

    python -m studies.ferplus_benches --case NAME BENCH RUN DRAW [--case ...] [--json report.json]

``DRAW`` gives the ``evals.composed.draw`` arguments the bench was built with, as comma-separated key=value pairs
(``split=test,form=long,videos=1,seed=11,minutes=30,needles=12,faces=mixed``; ``agreed`` alone for
``--ferplus-agreed``); the draw is replayed and each shot's span checked against the bench's labelled moments, so a
wrong ``DRAW`` stops with an error. ``RUN`` is an ``evals.run`` output folder over ``BENCH`` (``predictions.jsonl``).

Composed benches with ``--faces mixed`` draw FER2013 faces by their FER2013 label. FER+ (Barsoum et al., 2016) had ten
taggers label each FER2013 image again; where their majority names another label (``evals.data.ferplus.agreed_paths``)
the shot shows what its label does not say: a "neutral" haystack face seven taggers call happy. Per case the report
gives the shots by face set (``ckplus``, ``rafdb``, ``fer2013 agreed``, ``fer2013 not agreed``) for the haystack
(neutral shots of the long form; every shot of the joined form is asked about) and for the shots asked about, the
asked shots right (R1@0.5 of their question's first moment) by face set, and the missed questions by the face set of
the shot their first moment falls in, with the FER+ majority of a FER2013 face not agreed (``evals/RESULTS.md``
section 161).
"""

from __future__ import annotations

import argparse
import collections
import functools
import sys
from pathlib import Path

#: ``DRAW`` keys -> ``evals.composed.draw`` parameters and their types.
DRAW_KEYS = {"split": ("split", str), "form": ("form", str), "videos": ("videos", int), "seed": ("seed", int),
             "minutes": ("minutes", float), "needles": ("needles", int), "faces": ("faces_from", str)}


def parse_draw(text: str) -> dict:
    """``evals.composed.draw`` keyword arguments from ``DRAW`` text ("split=test,form=long,...,agreed").

    Raises:
        ValueError: an unknown key or a value of the wrong type.
    """
    out: dict = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        if item == "agreed":
            out["agreed"] = True
            continue
        key, _, value = item.partition("=")
        if key not in DRAW_KEYS:
            raise ValueError(f"unknown draw key {key!r} (known: {', '.join(DRAW_KEYS)}, agreed)")
        name, kind = DRAW_KEYS[key]
        out[name] = kind(value)
    return out


@functools.cache
def _ferplus(root: Path) -> tuple[set[str], dict[str, str | None]]:
    """The FER2013 faces FER+'s taggers agree with (``evals.data.ferplus.agreed_paths``) and each face's label with
    the most votes (the first of a tie; None without a vote), read once per command for all its cases."""
    import numpy as np

    from evals.data.ferplus import agreed_in, matched_votes
    from tools.core.schema import AFFECTNET8

    recs, z = matched_votes(root)
    majority = {r["path"]: AFFECTNET8[int(np.argmax(v))] if v.any() else None
                for r, v in zip(recs, z["votes"], strict=True)}
    return agreed_in(recs, z), majority


def _face_kinds(draw_args: dict) -> list[list[dict]]:
    """The replayed draw's shots per video: {face, emotion, start_s, end_s, kind, ferplus}, ``ferplus`` the label
    with the most of FER+'s votes (the first of a tie) for a FER2013 face, else None (the assembled data's
    ``ferplus.npz``)."""
    from evals.composed import FPS, RATE, draw, shot_frames
    from evals.data.assemble import default_root
    from tools.core.media import load_audio

    root = default_root()
    agreed, majority = _ferplus(root)
    frames: dict[str, int] = {}  # a statement recurs in many shots: its length is read once
    videos = []
    for shots in draw(**draw_args, root=root):
        t, rows = 0, []
        for face, speech, emotion in shots:
            if speech not in frames:
                frames[speech] = shot_frames(len(load_audio(speech, RATE)))
            k = frames[speech]
            kind = Path(face).relative_to(root).parts[0]
            if kind == "fer2013":
                kind = "fer2013 agreed" if face in agreed else "fer2013 not agreed"
            rows.append({"face": face, "emotion": emotion, "start_s": round(t / FPS, 3),
                         "end_s": round((t + k) / FPS, 3), "kind": kind, "ferplus": majority.get(face)})
            t += k
        videos.append(rows)
    return videos


def case_report(bench: Path, run: Path, draw_args: dict) -> dict:
    """The report of one case (module doc) for ``bench``, the run folder ``run`` and the draw ``draw_args``.

    Raises:
        evals.bench.BenchError: the bench or the run's predictions are missing or malformed.
        FileNotFoundError: the assembled data is missing.
        ValueError: the replayed draw's shots do not fall on the bench's labelled moments.
    """
    from evals.bench import read_records
    from evals.metrics import recall_at_1

    items = {r["id"]: r for r in read_records(bench, ("id", "video", "moments"))}
    videos = _face_kinds(draw_args)
    by_video = dict(zip(sorted({r["video"] for r in items.values()}), videos, strict=True))
    asked = collections.Counter()
    haystack = collections.Counter()
    for shots in by_video.values():
        for s in shots:
            (haystack if draw_args.get("form") == "long" and s["emotion"] == "neutral" else asked)[s["kind"]] += 1
    right: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    missed = collections.Counter()
    for pred in read_records(run / "predictions.jsonl", ("id", "moments")):
        item = items[pred["id"]]
        shots = by_video[item["video"]]
        golds = [next((s for s in shots if abs(s["start_s"] - m["start_s"]) < 0.01), None) for m in item["moments"]]
        if None in golds:
            raise ValueError(f"{item['id']}: the replayed draw has no shot at a labelled moment: check DRAW")
        top = pred["moments"][:1]
        span = (top[0]["start_s"], top[0]["end_s"]) if top else None
        ok = recall_at_1(span, [(m["start_s"], m["end_s"]) for m in item["moments"]], 0.5) == 1.0
        for g in golds:
            right[g["kind"]][0] += ok
            right[g["kind"]][1] += 1
        if not ok and span is not None:
            mid = (span[0] + span[1]) / 2
            shot = next((s for s in shots if s["start_s"] <= mid < s["end_s"]), None)
            label = "none" if shot is None else shot["kind"] + (f" (FER+ {shot['ferplus']}, labelled {shot['emotion']})"
                                                               if shot["kind"] == "fer2013 not agreed" else "")
            missed[label] += 1
    return {"bench": str(bench), "run": str(run), "draw": draw_args, "haystack_faces": dict(haystack),
            "asked_faces": dict(asked), "asked_right": dict(right), "missed_by_top_face": dict(missed),
            "questions": len(items), "missed": sum(missed.values())}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.ferplus_benches", description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", nargs=4, action="append", required=True, metavar=("NAME", "BENCH", "RUN", "DRAW"),
                    help="a bench, a run over it and the draw it was built with (module doc)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    try:
        cases = [(name, Path(bench), Path(run), parse_draw(text)) for name, bench, run, text in args.case]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def compute() -> dict:
        return {name: case_report(bench, run, d) for name, bench, run, d in cases}

    try:
        return report(compute, args.json)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
