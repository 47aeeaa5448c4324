"""Questions about behaviour read without a feeling: the offline question reader on what people do and say.

    python -m studies.behaviour_questions read --split dev|test [--file open] --json OUT   # this checkout's reading
    python -m studies.behaviour_questions compare BEFORE.json AFTER.json [--json OUT]

A question the offline reader (``agents.intent.offline_intent``) gives a feeling to is searched for that feeling:
the behaviour evidence is then off (``agents.readers.BehaviourReader`` supports only questions without one), so
"when does the crowd clap?" read as sadness cannot find the clapping. The questions: ``questions_behaviour.jsonl``
(``evals/data/SOURCES.md``): behaviour and speech questions labelled ``null`` (no feeling asked), questions whose
verb carries a feeling ("when do they argue?": anger) or that join one to a behaviour ("when does he angrily point
at her?"), and real change questions. ``read`` writes, for one split, each question's reading (targets, change,
cues, people) and the counts: ``no_feeling_kept_empty`` (null questions given no feeling and no change),
``feeling_first`` (labelled questions whose first target is the label), ``change_read`` and, over the null
questions that name a behaviour or speech (``tools.signals.lexicon.names_behaviour``/``names_speech`` as this
checkout has them), ``cue_carried`` (the reading's cues hold gesture or gaze for a behaviour, speech for speech).
``--file open`` reads ``questions_open.jsonl`` instead: questions that ask for a feeling without naming it ("how does
she feel when he yells at her?"), labelled ``null``, and questions that name the feeling they ask about.
With ``--split dev`` it adds the reader's labelled development questions (``studies.negation.development_trial``:
388 questions and the 16 that name no feeling), so a change that costs them shows. ``compare`` joins two such files
(the code before a change and after it, each run on its own checkout) with paired differences
(``studies.intent.paired``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tools.core.argtypes import CommandParser

QUESTIONS = Path(__file__).resolve().parents[1] / "evals" / "data" / "questions_behaviour.jsonl"
#: The question files ``read`` reads (``--file``), by name.
FILES = {"behaviour": QUESTIONS, "open": QUESTIONS.with_name("questions_open.jsonl")}
#: The counts ``read`` reports, each over its own questions (``compare`` pairs them question by question).
COUNTS = ("no_feeling_kept_empty", "feeling_first", "change_read", "cue_carried")


def questions(split: str, path: Path = QUESTIONS) -> list[dict]:
    """The records of one split of the questions in ``path`` (``FILES``): ``query``, ``emotion`` (AffectNet-8 or
    None), ``change``.

    Raises:
        ValueError: the file has no question of that split.
    """
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not (chosen := [r for r in records if r["split"] == split]):
        raise ValueError(f"{path.name} has no '{split}' questions")
    return chosen


def _right(record: dict, reading: dict) -> dict[str, bool]:
    """Which counts of ``COUNTS`` the question of ``record`` enters, and whether ``reading`` is right there."""
    from tools.signals.lexicon import names_behaviour, names_speech

    q, label = record["query"], record["emotion"]
    if record["change"]:
        return {"change_read": reading["change"]}
    if label is not None:
        return {"feeling_first": reading["targets"][:1] == [label]}
    out = {"no_feeling_kept_empty": not reading["targets"] and not reading["change"]}
    wanted = ({"gesture", "gaze"} if names_behaviour(q) else set()) | ({"speech"} if names_speech(q) else set())
    if wanted:
        out["cue_carried"] = bool(wanted & set(reading["cues"]))
    return out


def read(split: str, path: Path = QUESTIONS) -> dict:
    """This checkout's reading of one split of the questions in ``path`` (module doc): per question its reading and
    the counts it enters, the totals, and with ``split == "dev"`` the labelled development questions' rows."""
    from agents.intent import offline_intent

    rows = []
    for record in questions(split, path):
        intent = offline_intent({"query": record["query"]})
        reading = {"targets": intent.target_emotions, "change": intent.change is not None, "cues": intent.cues,
                   "people": intent.people, "asks_feeling": intent.asks_feeling, "feeling_of": intent.feeling_of}
        rows.append({**record, "reading": reading, "right": _right(record, reading)})
    totals = {k: [sum(r["right"][k] for r in rows if k in r["right"]), sum(k in r["right"] for r in rows)]
              for k in COUNTS}
    out = {"split": split, "questions": len(rows), "totals": totals, "rows": rows}
    if split == "dev":
        from agents.intent import asked_emotions
        from studies.negation import development_trial

        trial = development_trial({"this": asked_emotions, "again": asked_emotions}, "this", "again")
        out["labelled_development"] = trial["rows"]["this"]
    return out


def compare(before: dict, after: dict) -> dict:
    """Both readings' totals and, per count, the paired difference over the questions both enter
    (``studies.intent.paired``) with the questions whose reading changed."""
    from studies.intent import paired

    if before["split"] != after["split"] or [r["query"] for r in before["rows"]] != [r["query"] for r in after["rows"]]:
        raise ValueError("the two readings are not of the same questions")
    diffs = {}
    for k in COUNTS:
        pairs = [(a["right"][k], b["right"][k]) for b, a in zip(before["rows"], after["rows"], strict=True)
                 if k in a["right"] and k in b["right"]]
        if pairs:
            diffs[k] = paired([a for a, _ in pairs], [b for _, b in pairs])
    changed = [{"query": b["query"], "label": b["emotion"], "before": b["reading"], "after": a["reading"]}
               for b, a in zip(before["rows"], after["rows"], strict=True) if b["reading"] != a["reading"]]
    out = {"split": before["split"], "before": before["totals"], "after": after["totals"], "paired": diffs,
           "changed": changed}
    if "labelled_development" in before and "labelled_development" in after:
        out["labelled_development"] = {"before": before["labelled_development"],
                                       "after": after["labelled_development"]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m studies.behaviour_questions", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read", help="this checkout's reading of one split")
    r.add_argument("--split", choices=["dev", "test", "test2"], required=True,
                   help="dev; test (read once, section 141); test2 (written after that read)")
    r.add_argument("--file", choices=sorted(FILES), default="behaviour",
                   help="behaviour: questions_behaviour.jsonl; open: questions_open.jsonl (test2 is behaviour's only)")
    r.add_argument("--json", type=Path, default=None)
    c = sub.add_parser("compare", help="two readings joined, with paired differences")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        result = (read(args.split, FILES[args.file]) if args.cmd == "read"
                  else compare(*(json.loads(p.read_text()) for p in (args.before, args.after))))
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=1, ensure_ascii=False)
    if args.json:
        args.json.write_text(text + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("rows", "changed")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
