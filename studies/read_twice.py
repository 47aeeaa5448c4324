"""Answers that name two feelings for the same time: development questions asked on the shared recorded media.

    python -m studies.read_twice ask --out ANSWERS.json [--questions 200] [--cache-dir DIR]   # in each checkout
    python -m studies.read_twice compare BEFORE.json AFTER.json [--json OUT]

``ask`` draws ``--questions`` of the development questions ``studies.question_readings`` scores (seed ``SEED``, the
questions' text sorted then shuffled), asks each on the talking head (``WDA_KatieHill_000.mp4``: one 8 s shot, so
its clips overlap) and on the sample (``hamilton_short.mp4``: four shots) with the shipped graph
(``graphs.pipeline.ask``), and writes each answer's moments as ``[start_s, end_s, emotion, holds a change]``.
``compare`` counts, per video and code, the answers with two moments of different emotions, neither at a change of
feeling, that overlap over at least ``SHARE`` of the shorter (``agents.moments.read_twice``'s test, with its
gesture-anchored moments counted too, since the answers do not keep the anchor), the moments given, the answers that
differ, those whose top moment differs (in span or label) and whose top label does, and the overlaps of the
different-label pairs before (``evals/RESULTS.md`` section 205).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
from collections import Counter
from pathlib import Path

from agents.moments import READ_TWICE_SHARE

#: The seed of the question draw.
SEED = 205
#: The shared recorded media asked: a one-shot talking head and the four-shot sample.
VIDEOS = ("WDA_KatieHill_000.mp4", "hamilton_short.mp4")
#: An overlap of at least this share of the shorter moment is the same time read twice.
SHARE = READ_TWICE_SHARE


def drawn_questions(n: int) -> list[str]:
    """``n`` development questions (``studies.question_readings.labelled_questions``' text, deduplicated, sorted,
    shuffled by ``SEED``)."""
    from studies.question_readings import labelled_questions

    questions = sorted({q for _, q, _ in labelled_questions()})
    random.Random(SEED).shuffle(questions)
    return questions[:n]


def ask_all(n: int, cache_dir: str | None, media: Path) -> dict[str, list]:
    """Per "video|question": the answer's moments, ``[start_s, end_s, emotion, change]``, best first.

    Raises:
        FileNotFoundError: a video of ``VIDEOS`` is not in ``media``.
    """
    from graphs.pipeline import ask, open_index

    out = {}
    questions = drawn_questions(n)
    for name in VIDEOS:
        if not (media / name).is_file():
            raise FileNotFoundError(f"{media / name}: no such video")
        index = open_index(media / name, cache_dir=cache_dir)
        for q in questions:
            out[f"{name}|{q}"] = [[m.start_s, m.end_s, m.emotion, m.change is not None] for m in ask(index, q).moments]
    return out


def overlap_shares(moments: list[list]) -> list[float]:
    """For each pair of ``moments`` (``ask_all``'s rows) of different emotions, neither at a change, that overlap: the
    overlap's share of the shorter."""
    out = []
    for i, a in enumerate(moments):
        for b in moments[i + 1:]:
            overlap = min(a[1], b[1]) - max(a[0], b[0])
            if a[2] != b[2] and not (a[3] or b[3]) and overlap > 0:
                out.append(overlap / min(a[1] - a[0], b[1] - b[0]))
    return out


def two_readings(moments: list[list]) -> bool:
    """Whether ``moments`` (``ask_all``'s rows) hold two of different emotions, neither at a change, overlapping over
    at least ``SHARE`` of the shorter."""
    return any(share >= SHARE for share in overlap_shares(moments))


def compare(before: Path, after: Path) -> dict:
    """Per video: questions, answers naming two feelings for the same time and moments, before and after; the answers
    that differ, those whose top moment differs and those whose top moment's label does; and how much the overlapping
    different-label pairs overlap before (``overlap_shares``: share -> pairs).

    Raises:
        FileNotFoundError: an answers file is missing.
    """
    old, new = (json.loads(Path(p).read_text()) for p in (before, after))
    rows = {}
    for name in VIDEOS:
        keys = [k for k in old if k.startswith(name + "|") and k in new]
        rows[name] = {"questions": len(keys),
                      "two_feelings_same_time": [sum(two_readings(d[k]) for k in keys) for d in (old, new)],
                      "moments": [sum(len(d[k]) for k in keys) for d in (old, new)],
                      "answers_differ": sum(old[k] != new[k] for k in keys),
                      "top_moment_differs": sum(old[k][:1] != new[k][:1] for k in keys),
                      "top_label_differs": sum([m[2] for m in old[k][:1]] != [m[2] for m in new[k][:1]] for k in keys),
                      "overlap_shares_before": dict(sorted(Counter(round(x, 2) for k in keys
                                                                   for x in overlap_shares(old[k])).items()))}
    return {"before": str(before), "after": str(after), "share": SHARE, "videos": rows}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.read_twice", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ask", help="ask the drawn questions on the shared media with this checkout's graph")
    a.add_argument("--out", type=Path, required=True)
    a.add_argument("--questions", type=int, default=200)
    a.add_argument("--cache-dir", default=None)
    a.add_argument("--media", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "media")
    c = sub.add_parser("compare", help="count the answers that name two feelings for the same time")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "ask":
        def asked() -> dict:
            answers = ask_all(args.questions, args.cache_dir, args.media)
            args.out.write_text(json.dumps(answers, indent=0) + "\n")
            return {"answers": len(answers), "out": str(args.out)}
        return report(asked, None)
    return report(functools.partial(compare, args.before, args.after), args.json)


if __name__ == "__main__":
    sys.exit(main())
