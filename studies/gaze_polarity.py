"""Questions about a look away or toward: does the answer rest on a look the question asks for, before and now?

    python -m studies.gaze_polarity [--javanese BENCH] [--javanese-cache DIR] [--cache-dir DIR]
        [--before FILE | --answers-only] [--json evals/results/gaze_polarity.json]

``evals/data/questions_gaze.jsonl`` holds, each with the direction of its look labelled by hand (``polarity``:
toward, away, or null for a look at a thing or nobody's look) and its ``group``: ``study``, five questions per kind of
video written before ``tools.signals.gaze_words`` existed (three that ask for a look away from the camera, two for a
look at it; ``video``: ``sample``, ``katie``, ``javanese``); ``behaviour``, every question about a look in
``evals/data/questions_behaviour.jsonl``; ``review``, wordings a review of the first version of the reader found it
reading the wrong way round (development questions of the reader as it is).

``words``: ``look_polarity`` against the hand labels, per group (right, wrong where it names the other direction,
none where a direction is labelled, a direction where none is). ``detail_wording``: the behaviour reader's match
(``speech_match`` of all-MiniLM-L6-v2's cosine and the literal overlap) of the look-away questions asked of the
Javanese videos to a look away from the camera said plainly and as ``AWAY_FROM_CAMERA`` says it.

``answers``: each question of the study group asked of its videos (the bundled sample, the shared talking head
``../shared/media/WDA_KatieHill_000.mp4``, and with ``--javanese`` the videos of a Javanese bench directory,
``evals.data.javanese``) by the graph of this checkout. ``--before FILE`` adds the answers a checkout of the code
before wrote (this module and ``QUESTIONS`` copied into it, run with ``--answers-only --json FILE``). Per answer:
whether support was found (not "weak support"), the top moment and the looks it cites (``Evidence.look``; for code
without it, read from the item's text, ``_look``); ``contradicted`` counts supported answers whose top moment cites
only looks the question denies. ``checked_by_eye``: the distinct looks away (video, start, end) cited by the top
moments of supported answers to look-away questions, joined with ``evals/data/gaze_away_checked.jsonl`` (each look
watched at 4 fps and labelled a look away or not; ``evals/RESULTS.md`` section 173): how many are, are not, and were
not checked. ``paired`` (with ``--before``): the shares contradicted, supported, and supported among look-away
questions, before and now and their paired difference, with bootstrap 95 % intervals over videos.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from studies.command import report

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "evals" / "data" / "questions_gaze.jsonl"
CHECKED = REPO / "evals" / "data" / "gaze_away_checked.jsonl"
KATIE = REPO.parent / "shared" / "media" / "WDA_KatieHill_000.mp4"


def questions() -> list[dict]:
    """The rows of ``QUESTIONS``."""
    return [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]


def words() -> dict:
    """``look_polarity`` against each group's hand labels: right, wrong (the other direction), none (null read where
    a direction is labelled), a direction where none is labelled, and each miss."""
    from tools.signals.gaze_words import look_polarity

    out = {}
    for group in dict.fromkeys(q["group"] for q in questions()):
        rows = [(q["query"], q["polarity"], look_polarity(q["query"])) for q in questions() if q["group"] == group]
        out[group] = {"n": len(rows), "right": sum(lab == got for _, lab, got in rows),
                      "wrong": sum(lab is not None and got is not None and lab != got for _, lab, got in rows),
                      "none_for_labelled": sum(lab is not None and got is None for _, lab, got in rows),
                      "direction_for_unlabelled": sum(lab is None and got is not None for _, lab, got in rows),
                      "misses": [{"query": q, "label": lab, "read": got} for q, lab, got in rows if lab != got]}
    return out


def detail_wording() -> dict:
    """Each look-away question asked of the Javanese videos: its match to a look away said plainly and as shipped."""
    from agents.behaviour_evidence import AWAY_FROM_CAMERA
    from tools.perception.text import load_text_encoder
    from tools.signals.lexicon import keyword_overlap, speech_match

    details = {"plain": "person 0 looks away from the camera (3 frames in a row; 3 of 16)",
               "shipped": f"person 0 {AWAY_FROM_CAMERA} (3 frames in a row; 3 of 16)"}
    queries = [q["query"] for q in questions() if q["video"] == "javanese" and q["polarity"] == "away"]
    enc = load_text_encoder(model=None, device="cpu")
    sims = enc.encode(queries) @ enc.encode(list(details.values())).T
    return {q: {name: round(speech_match(float(sims[i, j]), keyword_overlap(q, d)), 3)
                for j, (name, d) in enumerate(details.items())} for i, q in enumerate(queries)}


#: How the verifier's evidence states a look (``agents.behaviour_evidence``, ``tools.signals.events``), for the code
#: before, which marked no look, and for a trace's words (``studies.gaze_choice``).
STATED_LOOKS = {"toward": ("looks at the camera", "(mutual_gaze", "(one_sided_gaze"),
                "away": ("looks away from the camera", "(gaze_aversion")}


def stated_look(text: str) -> str | None:
    """The look ``text`` states (``STATED_LOOKS``: toward first), or None."""
    return next((look for look, words in STATED_LOOKS.items() if any(w in text for w in words)), None)


def _look(item) -> str | None:
    """An evidence item's look (``Evidence.look``), or for code without that field the look its text states."""
    return item.look if hasattr(item, "look") else stated_look(item.detail)


def _row(answer, polarity: str) -> dict:
    """One answer: supported, its top moment and cited looks, contradicted."""
    top = answer.moments[0] if answer.moments else None
    looks = sorted({_look(e) for e in top.evidence if _look(e)}) if top else []
    supported = bool(top) and not answer.message.startswith("weak support")
    row = {"query": answer.query, "polarity": polarity, "supported": supported,
           "top": [top.start_s, top.end_s, top.emotion, top.confidence] if top else None, "looks": looks,
           "look_details": [e.detail for e in top.evidence if _look(e)] if top else [],
           "looks_away": [[e.start_s, e.end_s] for e in top.evidence if _look(e) == "away"] if top else [],
           "contradicted": supported and bool(looks) and polarity not in looks}
    return row


def answers(videos: list[tuple[str, Path, str | None]]) -> dict:
    """Each (kind, video, cache dir)'s questions answered by this checkout: rows and counts."""
    from graphs.pipeline import ask, open_index

    rows = []
    for kind, video, cache in videos:
        index = open_index(video, cache_dir=cache)
        for q in (q for q in questions() if q["video"] == kind):
            rows.append({"video": video.name, "kind": kind, **_row(ask(index, q["query"]), q["polarity"])})
    return {"n": len(rows), "supported": sum(r["supported"] for r in rows),
            "contradicted": sum(r["contradicted"] for r in rows),
            "supported_away_questions": sum(r["supported"] for r in rows if r["polarity"] == "away"),
            "supported_toward_questions": sum(r["supported"] for r in rows if r["polarity"] == "toward"),
            "rows": rows}


def checked_by_eye(rows: list[dict]) -> dict:
    """The looks away the supported look-away answers' top moments cite, against ``CHECKED``'s labels."""
    labels = {(r["video"], r["start_s"], r["end_s"]): r["look_away"]
              for r in (json.loads(line) for line in CHECKED.read_text().splitlines() if line.strip())}
    cited = sorted({(r["video"], s, e) for r in rows if r["supported"] and r["polarity"] == "away"
                    for s, e in r.get("looks_away", [])})
    seen = [labels.get(c) for c in cited]
    return {"cited": len(cited), "look_away": seen.count(True), "not": seen.count(False),
            "unchecked": [list(c) for c, v in zip(cited, seen, strict=True) if v is None]}


def paired(before: list[dict], now: list[dict]) -> dict:
    """Shares before and now, and now minus before, with bootstrap 95 % intervals over videos (``evals.metrics.
    bootstrap_interval``): answers contradicted and supported, and supported among the look-away questions."""
    from evals.metrics import bootstrap_interval

    if [(r["video"], r["query"]) for r in before] != [(r["video"], r["query"]) for r in now]:
        raise ValueError("the two runs did not answer the same questions")
    out = {}
    for name, key, pick in (("contradicted", "contradicted", None), ("supported", "supported", None),
                            ("supported_away_questions", "supported", "away")):
        idx = [i for i, r in enumerate(now) if pick is None or r["polarity"] == pick]
        videos = [now[i]["video"] for i in idx]
        b, n = [float(before[i][key]) for i in idx], [float(now[i][key]) for i in idx]
        d = [y - x for x, y in zip(b, n, strict=True)]
        out[name] = {code: {"share": round(sum(v) / len(v), 3), "ci95": [round(x, 3) for x in bootstrap_interval(v, videos)]}
                     for code, v in (("before", b), ("now", n), ("now_minus_before", d))}
    return out


def with_before(now: dict, before: Path | None, pair) -> dict:
    """``now`` (a look study's result) with the answers of the result file ``before`` (the code before's) beside its
    own, and ``pair(before rows, now rows)`` as ``paired``; ``now`` itself without ``before``."""
    if before:
        now["answers"] = {"before": json.loads(before.read_text())["answers"]["now"], **now["answers"]}
        now["paired"] = pair(now["answers"]["before"]["rows"], now["answers"]["now"]["rows"])
    return now


def study_arguments(description: str, argv: list[str] | None) -> tuple[argparse.Namespace, list[tuple[str, Path, str]]]:
    """The command line of a look study (this one, ``studies.gaze_choice``) and its videos: (kind, video, cache dir)
    for the sample, the shared talking head and with ``--javanese`` each video of that bench."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--javanese", type=Path, help="a Javanese bench directory (its videos/*.mp4)")
    ap.add_argument("--javanese-cache", help="cache root of the Javanese videos' indexes")
    ap.add_argument("--cache-dir", help="cache root of the sample's and the talking head's indexes")
    ap.add_argument("--before", type=Path, help="a result file the code before wrote: its answers are added")
    ap.add_argument("--answers-only", action="store_true", help="only the answers (for a checkout of the code before)")
    ap.add_argument("--json", type=Path, help="write the result here")
    args = ap.parse_args(argv)
    videos = [("sample", REPO / "samples" / "hamilton_short.mp4", args.cache_dir), ("katie", KATIE, args.cache_dir)]
    if args.javanese:
        videos += [("javanese", v, args.javanese_cache) for v in sorted((args.javanese / "videos").glob("*.mp4"))]
    return args, videos


def main(argv: list[str] | None = None) -> int:
    args, videos = study_arguments(__doc__.split("\n\n")[0], argv)

    def compute() -> dict:
        if args.answers_only:
            return {"answers": {"now": answers(videos)}}
        now = {"words": words(), "detail_wording": detail_wording(), "answers": {"now": answers(videos)}}
        now["answers"]["now"]["checked_by_eye"] = checked_by_eye(now["answers"]["now"]["rows"])
        return with_before(now, args.before, paired)

    return report(compute, args.json, echo=False)


if __name__ == "__main__":
    raise SystemExit(main())
