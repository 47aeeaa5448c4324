"""Composed transitions: one person's face going from one emotion to another, for questions about a change.

    python -m evals.transitions build --split dev|test --out DIR [--videos N | --minutes 30 --transitions 8] [--seed 0]
    python -m evals.transitions score --bench DIR/bench.jsonl --predictions NAME=FILE ... [--reading] [--json OUT]

These videos are **composed**: each shows one CK+ subject of the split (``evals.data.assemble``) for its whole
length, in two or three segments of different emotions, one recorded CK+ sequence each. CK+48 keeps only the
last three frames of a sequence (near the apex), so a segment plays those three frames in order over its first
second and then holds the last: a face that turns into the emotion and stays, not a talking face. Segments last
``SEGMENT_S`` (drawn per segment), meeting at a hard cut (``--dissolve S``: a cross-fade, one shot); frames are
letterboxed to 640x360 at 25 fps over silence. One item per
transition (a question that names neither emotion only in a video with one transition, so that each question
has one answer). ``--minutes`` writes one long video instead (``build_long``): ``--transitions`` subjects changing
once each, at evenly spread places, among still shots of the split's other subjects, a question per transition
naming both emotions; in the bench format of ``evals/README.md`` plus ``change`` (``t_s``, ``before``, ``after``, AffectNet-8;
the annotated moment is ``CHANGE_WINDOW_S`` either side of ``t_s`` with the emotion after).

Scoring (``score``) reads ``predictions.jsonl`` files of ``evals.run`` (``--method graph``): an answer's change
point is its top moment's ``change.t_s``, or the moment's start when it names no change (code without change
questions); before and after are its ``change`` labels, or none and the moment's emotion. Per method: the items
predicted, and the shares within ``WITHIN_S`` of the true change point, with before, after and both named right,
each with a bootstrap 95% interval over subjects (``evals.metrics.bootstrap_interval``). ``--reading`` adds the
perception reading alone: the person's 1 fps readings from the index, the change point where the means of the
``READING_WINDOW`` frames before and after differ most, their top labels.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from pathlib import Path

import numpy as np

from evals.bench import BenchError, open_bench_folder, prediction_files, prediction_runs, read_records, write_bench_file
from evals.build_bench import letterbox
from evals.ckplus import sequences
from evals.metrics import bootstrap_interval
from tools.core.argtypes import CommandParser, number
from tools.core.media import VideoError
from tools.core.schema import AFFECTNET8
from tools.core.video_out import VideoWriter

SIZE, FPS, RATE = (640, 360), 25, 16_000
#: Length (s) of one emotion's segment, drawn uniformly per segment.
SEGMENT_S = (10.0, 20.0)
#: The annotated moment spans this many seconds either side of the change point.
CHANGE_WINDOW_S = 2.0
#: A predicted change point this close to the truth (s) counts as found.
WITHIN_S = 2.0
#: Length (s) of a still shot between the transitions of a long video (``build_long``), drawn per shot.
HAYSTACK_SHOT_S = (3.0, 8.0)
#: Frames each side compared by the reading-alone baseline.
READING_WINDOW = 3
#: Dev wording: plain words per emotion for "from A to B" questions, and questions that name no emotion.
WORDS = {"neutral": "calm", "happiness": "happy", "sadness": "sad", "surprise": "surprised", "fear": "scared",
         "disgust": "disgusted", "anger": "angry", "contempt": "scornful"}
OPEN_QUESTIONS = ["when does the person's mood change?", "when does their mood shift?"]


def _write(frames_per_segment: list[tuple[list[str], float]], out_path: Path, dissolve_s: float = 0.0) -> list[float]:
    """Encode the segments (frame paths, seconds), each after the first entering over ``dissolve_s`` seconds (a
    cross-fade from the last frame before it; 0: a hard cut); returns when each segment starts (s; with a
    dissolve, its middle)."""
    import cv2

    starts, last, fade = [], None, round(dissolve_s * FPS)
    with VideoWriter(out_path, SIZE, FPS, RATE, crf=20) as out:
        for paths, seconds in frames_per_segment:
            starts.append(round((out.frames + (fade / 2 if last is not None else 0)) / FPS, 3))
            rgbs = [letterbox(cv2.cvtColor(cv2.imread(p, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB), SIZE) for p in paths]
            k = round(seconds * FPS)
            for i in range(k):
                frame = rgbs[min(i * len(rgbs) // FPS, len(rgbs) - 1)]
                a = (i + 1) / (fade + 1) if last is not None and i < fade else 1.0
                out.add_frame(frame if a == 1.0 else cv2.addWeighted(frame, a, last, 1 - a, 0))
            last = frame
            out.add_audio(np.zeros(round(k / FPS * RATE), np.float32))
    return starts


def build(split: str, out_dir: Path, videos: int, seed: int = 0, root: Path | None = None, wording: str = "change",
          dissolve_s: float = 0.0) -> Path:
    """Write ``videos`` transition videos (one subject each, subjects drawn without repetition) and their
    items; returns the bench file. ``wording``: ``change`` (when does it change), ``after`` ("how does the
    person feel after being A?": the answer is the emotion after; the same videos) or ``next`` ("what does the person
    feel next?", one per video: its first transition); ``dissolve_s``: as ``_write``'s. Raises ``FileNotFoundError``
    when CK+ is not assembled, ``ValueError`` when no subject of the split shows two emotions."""
    rng = random.Random(f"transitions-{split}-{seed}")
    seqs, subjects = sequences(split, root)
    if not subjects:
        raise ValueError(f"{split}: no subject with sequences of two emotions or more, so no transition to show")
    open_bench_folder(out_dir)
    lines = []
    for v, subject in enumerate(rng.sample(subjects, min(videos, len(subjects)))):
        emotions = rng.sample(sorted(seqs[subject]), min(len(seqs[subject]), rng.choice((2, 3))))
        segments = [(rng.choice(seqs[subject][e]), rng.uniform(*SEGMENT_S)) for e in emotions]
        name = f"transitions_{split}_{v:03d}.mp4"
        starts = _write(segments, out_dir / "videos" / name, dissolve_s)
        for i, (before, after) in enumerate(itertools.pairwise(emotions)):
            t = starts[i + 1]
            named = f"when does the person go from {WORDS[before]} to {WORDS[after]}?"
            query = rng.choice([named, *OPEN_QUESTIONS]) if len(emotions) == 2 else named  # one answer per question
            if wording == "after":
                query = f"how does the person feel after being {WORDS[before]}?"
            elif wording == "next":  # the first transition answers it: one question per video
                if i:
                    break
                query = "what does the person feel next?"
            lines.append(_item(f"{name[:-4]}-{i}", name, query, subject, t, before, after))
    return write_bench_file(out_dir, lines)


def _item(item_id: str, video: str, query: str, subject: str, t: float, before: str, after: str) -> dict:
    """One bench item: the question, the change (``t`` seconds, ``before`` -> ``after``) and its annotated moment."""
    return {"id": item_id, "video": f"videos/{video}", "query": query, "person": subject,
            "change": {"t_s": t, "before": before, "after": after},
            "moments": [{"start_s": max(0.0, t - CHANGE_WINDOW_S), "end_s": t + CHANGE_WINDOW_S, "emotion": after,
                         "rationale": None, "evidence_modalities": ["visual"]}]}


def build_long(split: str, out_dir: Path, minutes: float, transitions: int, seed: int = 0,
               root: Path | None = None) -> Path:
    """One long video of ``minutes``: ``transitions`` subjects each going from one emotion to another (two segments
    as ``build`` writes them, at evenly spread random places) among still shots of the split's other subjects
    (``HAYSTACK_SHOT_S`` each; a subject always shows the same still, a recurring face that never changes). Every
    (before, after) pair occurs once in the video and each item asks for it by name; returns the bench file.
    Raises ``FileNotFoundError`` when CK+ is not assembled, ``ValueError`` when the split has too few subjects."""
    if transitions < 1 or minutes * 60 / transitions < 2 * SEGMENT_S[1] + HAYSTACK_SHOT_S[1]:
        raise ValueError(f"{transitions} transitions do not fit in {minutes:g} minutes (at most one per "
                         f"{2 * SEGMENT_S[1] + HAYSTACK_SHOT_S[1]:g} s)")
    rng = random.Random(f"transitions-long-{split}-{seed}-{minutes}-{transitions}")
    seqs, movable = sequences(split, root)
    if len(movable) < transitions:
        raise ValueError(f"{split}: too few subjects with two emotions for {transitions} transitions ({len(movable)})")
    movers = rng.sample(movable, transitions)
    still_people = sorted(set(seqs) - set(movers))
    stills = {p: rng.choice(seqs[p][rng.choice(sorted(seqs[p]))])[-1:] for p in still_people}
    pairs: list[tuple[str, str]] = []

    def fresh(subject: str) -> list[tuple[str, str]]:
        return [pair for pair in itertools.permutations(sorted(seqs[subject]), 2) if pair not in pairs]

    for i, subject in enumerate(movers):
        while not fresh(subject):  # each order of this subject's emotions is taken: a still subject moves instead
            spare = [p for p in still_people if fresh(p)]
            if not spare:
                raise ValueError(f"{split}: too few subjects for {transitions} different transitions")
            subject = movers[i] = rng.choice(spare)
            still_people.remove(subject)
            del stills[subject]
        pairs.append(rng.choice(fresh(subject)))
    if len(still_people) < 2:
        raise ValueError(f"{split}: too few subjects for {transitions} transitions")
    slot = minutes * 60 / transitions
    segments: list[tuple[list[str], float]] = []
    changes = []  # (segment index of the emotion after, subject, before, after)
    for k, (subject, (before, after)) in enumerate(zip(movers, pairs, strict=True)):
        at = k * slot + rng.uniform(0.1, 0.6) * slot
        while sum(s for _, s in segments) < at:
            segments.append((stills[rng.choice(still_people)], rng.uniform(*HAYSTACK_SHOT_S)))
        segments.append((rng.choice(seqs[subject][before]), rng.uniform(*SEGMENT_S)))
        changes.append((len(segments), subject, before, after))
        segments.append((rng.choice(seqs[subject][after]), rng.uniform(*SEGMENT_S)))
    while sum(s for _, s in segments) < minutes * 60:
        segments.append((stills[rng.choice(still_people)], rng.uniform(*HAYSTACK_SHOT_S)))
    open_bench_folder(out_dir)
    name = f"transitions_long_{split}_{minutes:g}min.mp4"
    starts = _write(segments, out_dir / "videos" / name)
    query = "when does the person go from {} to {}?"
    ends = [*starts[1:], round(sum(s for _, s in segments), 3)]
    return write_bench_file(out_dir, [{**_item(f"{name[:-4]}-{k}", name, query.format(WORDS[b], WORDS[a]), subject,
                                               starts[i], b, a), "form": "long",
                                       "segments": [{"start_s": starts[i - 1], "end_s": ends[i - 1], "emotion": b},
                                                    {"start_s": starts[i], "end_s": ends[i], "emotion": a}]}
                                      for k, (i, subject, b, a) in enumerate(changes)])


def predicted_change(prediction: dict) -> tuple[float | None, str | None, str | None]:
    """(change point s, before, after) of one ``predictions.jsonl`` record (module doc); Nones when empty."""
    if not prediction.get("moments"):
        return None, None, None
    top = prediction["moments"][0]
    change = top.get("change")
    if change:
        return change["t_s"], change["before"], change["after"]
    return top["start_s"], None, top["emotion"]


def reading_change(bench: Path, item: dict, cache_dir: Path | None) -> tuple[float | None, str | None, str | None]:
    """The perception reading alone (module doc): from the index of the item's video. On a long video
    (``"form": "long"``, several people and transitions) every person's timeline is searched for the point where
    the mean reading of the question's first named emotion before it plus that of the second after it is largest;
    before and after are the top labels of the mean readings on either side, as on a short video."""
    from graphs.pipeline import open_index

    index = open_index(bench.parent / item["video"], cache_dir=cache_dir)
    timelines = sorted(index.timelines, key=lambda tl: -len(tl.times_s))
    w = READING_WINDOW
    if item.get("form") == "long":
        named = {word: e for e, word in WORDS.items()}
        before, after = (named[x] for x in item["query"].rstrip("?").split(" from ")[1].split(" to "))
        b, a = AFFECTNET8.index(before), AFFECTNET8.index(after)
        best = max(((float(x[i - w:i, b].mean() + x[i:i + w, a].mean()), (tl.times_s[i - 1] + tl.times_s[i]) / 2, x, i)
                    for tl in timelines for x in [np.asarray(tl.smoothed)] for i in range(w, len(x) - w + 1)),
                   key=lambda s: s[:2], default=None)
        return (None, None, None) if best is None else (best[1], *_sides(best[2], best[3]))
    if not timelines or len(timelines[0].times_s) < 2 * w:
        return None, None, None
    x, times = np.asarray(timelines[0].smoothed), timelines[0].times_s
    jumps = [np.abs(x[i - w:i].mean(0) - x[i:i + w].mean(0)).sum() for i in range(w, len(x) - w + 1)]
    i = w + int(np.argmax(jumps))
    return ((times[i - 1] + times[i]) / 2, *_sides(x, i))


def _sides(x: np.ndarray, i: int) -> tuple[str, str]:
    """The top labels of the mean readings ``x`` (n, 8) over the ``READING_WINDOW`` frames before and after ``i``."""
    w = READING_WINDOW
    return AFFECTNET8[int(x[i - w:i].mean(0).argmax())], AFFECTNET8[int(x[i:i + w].mean(0).argmax())]


def score(items: list[dict], found: dict[str, tuple]) -> dict:
    """Shares within ``WITHIN_S`` and of right labels over ``items`` with intervals over subjects."""
    groups = [it["person"] for it in items]
    rows = {"within_2s": [], "before": [], "after": [], "both": []}
    for it in items:
        t, before, after = found.get(it["id"], (None, None, None))
        truth = it["change"]
        rows["within_2s"].append(float(t is not None and abs(t - truth["t_s"]) <= WITHIN_S))
        rows["before"].append(float(before == truth["before"]))
        rows["after"].append(float(after == truth["after"]))
        rows["both"].append(rows["before"][-1] * rows["after"][-1])
    return {k: [round(float(np.mean(v)), 3), *[round(x, 3) for x in bootstrap_interval(v, groups)]]
            for k, v in rows.items()}


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m evals.transitions", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write the videos and bench.jsonl")
    b.add_argument("--split", choices=["dev", "test"], required=True)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--videos", type=number(1, 10_000, integer=True), default=12)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--minutes", type=number(0, 600, lo_open=True), help="one long video of --transitions changes")
    b.add_argument("--transitions", type=number(1, 1_000, integer=True), default=8)
    b.add_argument("--wording", choices=["change", "after", "next"], default="change",
                   help="change: when the feeling changes; after: how the person feels after being A; next: what the "
                        "person feels next (the first transition)")
    b.add_argument("--dissolve", type=number(0, 10), default=0.0, metavar="S", help="segments cross-fade over S s")
    b.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    s = sub.add_parser("score", help="score evals.run predictions of a transitions bench")
    s.add_argument("--bench", type=Path, required=True)
    s.add_argument("--predictions", nargs="+", default=[], metavar="NAME=FILE")
    s.add_argument("--reading", action="store_true", help="add the perception-reading-alone baseline")
    s.add_argument("--cache-dir", type=Path, default=None)
    s.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.cmd == "build":
        if args.minutes and (args.dissolve or args.wording != "change"):
            ap.error("--wording and --dissolve apply to the short videos; --minutes asks 'from A to B' over hard cuts")
        try:
            bench = (build_long(args.split, args.out, args.minutes, args.transitions, args.seed, args.data)
                     if args.minutes else build(args.split, args.out, args.videos, args.seed, args.data, args.wording,
                                                args.dissolve))
        except (FileNotFoundError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {sum(1 for _ in bench.open())} items to {bench}")
        return 0
    if not args.predictions and not args.reading:
        ap.error("score needs --predictions NAME=FILE ..., --reading or both")
    if args.json and not args.json.parent.is_dir():
        ap.error(f"--json {args.json}: no folder {args.json.parent}")
    try:
        items = read_records(args.bench, ("id", "person", "change", "video", "query"))
        runs = prediction_runs(prediction_files(args.predictions), items)
        methods = {name: score(items, {i: predicted_change(p) for i, p in preds.items()})
                   for name, preds in runs.items()}
        if args.reading:
            methods["reading alone"] = score(items, {it["id"]: reading_change(args.bench, it, args.cache_dir)
                                                     for it in items})
    except (BenchError, VideoError, KeyError, TypeError) as exc:  # a record without a field or of the wrong shape
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = {"bench": str(args.bench), "items": len(items), "subjects": len({it["person"] for it in items}),
              "within_s": WITHIN_S, "methods": methods,
              "predicted": {name: sum(it["id"] in preds for it in items) for name, preds in runs.items()}}
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
