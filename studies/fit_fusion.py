"""Fit the offline judge's fusion weights and its confidence calibration on dev benches.

    python -m studies.train_face --without-fusion-fold --c 0.001 --out H/face8_fold.npz    # heads without the fold
    python -m studies.train_voice --without-fusion-fold --c 0.03 --out H/voice8_fold.npz
    python -m evals.composed --split fusion --form joined --videos 16 --out B              # the fold's people
    python -m studies.fit_fusion collect --bench B/bench.jsonl --out R/fold.jsonl [--absent] \
        --face-head H/face8_fold.npz --voice-head H/voice8_fold.npz --cache-dir C
    python -m studies.fit_fusion fit R/fold.jsonl [more.jsonl ...] --out agents/fusion.json
    python -m studies.fit_fusion score R/test.jsonl --fusion agents/fusion.json             # report only, once

Why the fold: the face and voice heads were trained on the dev split's people, so on dev benches they
are nearly always right (label accuracy of judged candidates 0.92 on dev, 0.64 on test), and weights
and a calibration fitted there trust them far too much. The fusion is fitted where the heads are as
they are on new people: on the fold's people (``evals.data.assemble.in_fusion_fold``), read by heads
trained on the rest of the dev split; the shipped heads stay those trained on all of it.

``collect`` runs the agent graph on every bench item and keeps what the emotion reasoner received: the
verifier's candidates with their observations, the intent's target emotions and the shot cuts, with
the bench's labels. A composed bench lists every labelled shot of a video as an item, so each judged
candidate gets the label of the labelled moment of its video that covers most of it.

``fit`` replays the emotion reasoner (``agents.moments.draft_moments``, the code the graph runs) on the
collected candidates for every weight vector on a grid (visual, vocal and prior in steps of ``--step``;
the speech-content weight held at ``--verbal``, the hand-set 0.15, because the composed benches' words
carry no emotion, so they cannot tell what words are worth). Each vector's confidence is calibrated by
Platt scaling (logistic regression of "the judged label is right" on the fused top probability; Platt
1999) over the judged candidates and replayed so, since the confidence enters the ranking. Kept: the
highest sum of Joint (top-1 moment at tIoU >= 0.5 with the right emotion) and label accuracy over
judged candidates (every returned moment's emotion counts, not only the first), plus, when the records
hold questions about an emotion the video does not show (``collect --absent``), the share of those whose
top moment does not name the asked emotion; ties to the vector nearest the hand-set one. The verifier does not depend on these weights, so the replay gives the graph's answers exactly.
The written fusion keeps ``vocal_by_reader`` of ``--carry`` (default: the shipped fusion): a reader's own vocal weight
is chosen by ``studies.recorded_voice`` on recorded clips, not fitted here, so records of a reader it names are
refused. It has no ``label_offsets`` (as before) and no ``departed_calibration``: the probability they map depends on
the weights, so they are fitted again for the new ones by ``studies.label_calibration fit``
(``studies/scripts/label_calibration.sh``) and ``studies.departed_calibration fit``.

``score`` prints the replayed metrics of a stored fusion (or the hand-set one) with the expected
calibration error (ECE, 10 equal-width bins; ``evals.metrics.calibration_scores``) and the Brier score of the confidence.
Fit only on dev benches; score a test bench once, to report.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from agents.emotion import judge_inputs, offline_judge, read_nothing, stated_from
from agents.fusion import FUSION_FILE, HAND_FUSION, Fusion, observed, read_fusion
from agents.moments import draft_moments
from agents.schema import VerifiedCandidate
from evals.bench import BenchError, load_bench
from evals.metrics import calibration_scores, joint_at_1, recall_at_1, temporal_iou
from memory.jsonl import JsonlLog, dict_record

#: Keys every collected record holds (``collect``).
RECORD_KEYS = {"id", "targets", "cuts", "top_k", "abstain_below", "truth", "shots", "verified"}


def collect(bench: str, out: Path, cache_dir: str | None = None, face_head: Path | None = None,
            voice_head: Path | None = None, absent: bool = False, voice_emotion: str = "voice8") -> int:
    """Run the graph on every item of ``bench``; append one record per item to ``out`` (JSONL). Returns
    the number of items written (items already in ``out`` are skipped, so a run resumes).

    ``absent``: also ask each video about every emotion none of its items holds
    (``studies.absent_emotions.absent_questions``, its plain ``QUESTIONS``); such a record has id
    ``<video stem>-absent-<emotion>``, no ``truth`` and ``absent`` = the asked emotion. Its judged candidates
    still carry the labels of the shots they cover, so a fusion that names the asked emotion where the face
    shows another loses label accuracy on them.

    ``face_head`` / ``voice_head`` replace the shipped face8 / voice8 heads for this process (heads
    trained without the fusion fold, ``--without-fusion-fold``); give a ``cache_dir`` of their own with
    them, since the index key names the backend, not the head file. ``voice_emotion``: the index's vocal emotion
    backend (``IndexSettings.voice_backend``: voice8, whisper8, voice8-speaker), kept in each record as
    ``voice_emotion``: the judge weighs its reading by ``Fusion.for_voice``, and so does ``replay``.

    Raises:
        ValueError: ``voice_emotion`` names no registered backend, or ``out`` holds records of another reader (one
            line).
    """
    from rich.progress import track

    import tools.perception.expression
    import tools.perception.voice_emotion

    if face_head is not None:
        tools.perception.expression.FACE8_HEAD = Path(face_head)
    if voice_head is not None:
        tools.perception.voice_emotion.VOICE8_HEAD = Path(voice_head)

    from agents.llm import load_llm
    from agents.state import RunContext, RunSettings
    from graphs.pipeline import run_graph
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    try:
        config = IndexConfig(voice_backend=voice_emotion)
    except ValidationError as exc:
        raise ValueError(f"--voice-emotion: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    log = JsonlLog(out)
    kept = log.read(dict_record(RECORD_KEYS))  # a torn last line is dropped
    readers = {r.get("voice_emotion", "voice8") for r in kept} - {config.voice_backend}
    if readers:
        raise ValueError(f"{out} holds records read with --voice-emotion {', '.join(sorted(map(str, readers)))}; "
                         "collect another reader's into another file")
    items = load_bench(bench)
    shots: dict[str, list] = defaultdict(list)
    for it in items:
        shots[it.video] += [[m.start_s, m.end_s, m.emotion] for m in it.moments]
    # (id, video path, shots key, query, truth, asked-but-absent emotion or None)
    jobs = [(it.id, it.video_path(bench), it.video, it.query, [[m.start_s, m.end_s, m.emotion] for m in it.moments],
             None) for it in items]
    if absent:
        from studies.absent_emotions import QUESTIONS, absent_questions

        jobs += [(f"{Path(it.video).stem}-absent-{emotion}", it.video_path(bench), it.video, QUESTIONS[emotion], [],
                  emotion) for it, emotion in absent_questions(items)]
    settings, llm = RunSettings(), load_llm("offline")
    done = {r["id"] for r in kept}
    n = 0
    for job_id, video, key, query, truth, asked in track([j for j in jobs if j[0] not in done], description="collect",
                                                         console=_stderr(), transient=True):
        index = open_index(video, config, cache_dir)
        state, _ = run_graph(query, RunContext(index=index, llm=llm, settings=settings))
        log.append([{"id": job_id, "query": query, "targets": list(state["intent"].target_emotions),
                     "cuts": list(index.cuts), "top_k": settings.top_k, "abstain_below": settings.abstain_below,
                     "utterances": [[u.start_s, u.end_s, u.speaker] for u in index.utterances],
                     "truth": truth, "shots": shots[key], "absent": asked, "voice_emotion": config.voice_backend,
                     "answer": [[m.start_s, m.end_s, m.emotion] for m in state.get("moments", [])],
                     "verified": [c.model_dump(mode="json") for c in state.get("verified", [])]}])
        n += 1
    return n


def _stderr():
    """A rich console on stderr (progress bars stay off the JSON on stdout)."""
    from rich.console import Console

    return Console(stderr=True)


def load_records(paths: list[str]) -> list[dict]:
    """Collected records of every file, with ``verified`` parsed into ``VerifiedCandidate``s.

    Raises:
        OSError: a file is missing.
    """
    records = []
    for path in paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such records file (python -m studies.fit_fusion collect)")
        for r in JsonlLog(path).read(dict_record(RECORD_KEYS)):
            records.append({**r, "verified": [VerifiedCandidate.model_validate(c) for c in r["verified"]]})
    return records


def shot_label(start_s: float, end_s: float, shots: list) -> str | None:
    """The emotion of the labelled shot that overlaps [start_s, end_s) most, or None when none does."""
    iou, label = max(((temporal_iou((start_s, end_s), (s[0], s[1])), s[2]) for s in shots),
                     key=lambda x: x[0], default=(0.0, None))
    return label if iou > 0 else None


def replay(records: list[dict], fusion: Fusion) -> dict:
    """The emotion reasoner on every record with ``fusion``: R1@0.5 and Joint of the top-1 moment (records with
    a truth), label accuracy over judged candidates (all records), the share of absent-emotion records
    (``collect(absent=True)``) whose top moment names the asked emotion (``absent_echo``; None without such
    records), and per judged candidate (the probability its confidence is calibrated from,
    ``agents.emotion.stated_from``: the fused top probability, or where a face was read against its person's usual
    reading the label's probability as read or as departed, whichever is higher, or at a change point the after
    side's top; confidence, right, label, the record's id, the label whose intercept its confidence took; whether
    nothing was read: ``agents.emotion.read_nothing``; whether the departure named the label). A record's voice is
    weighed as the judge weighs its index's vocal emotion backend (``Fusion.for_voice`` of its
    ``voice_emotion``; records collected before that field: voice8)."""
    r1, joint, judged, echo = [], [], [], []
    for r in records:
        targets, weighed = r["targets"], fusion.for_voice(r.get("voice_emotion"))
        seen: list[tuple] = []

        def judge_fn(cand, targets=targets, seen=seen, weighed=weighed):
            inputs = judge_inputs(cand, targets)
            j, obs = offline_judge(inputs, weighed), observed(inputs)
            top_p, calibrated, named = stated_from(inputs, weighed, obs)
            seen.append((cand, top_p, j.emotion, j.confidence, calibrated, read_nothing(obs), named))
            return j

        drafts, _ = draft_moments(r["verified"], targets, r["cuts"], r["top_k"], r["abstain_below"], judge_fn,
                                  utterances=[tuple(u) for u in r.get("utterances", [])])  # records before: none
        if r.get("absent"):
            echo.append(float(bool(drafts) and drafts[0].emotion == r["absent"]))
        else:
            truths = [(s, e) for s, e, _ in r["truth"]]
            top1 = (drafts[0].start_s, drafts[0].end_s) if drafts else None
            r1.append(recall_at_1(top1, truths, 0.5))
            joint.append(joint_at_1(top1, drafts[0].emotion if drafts else None, truths, [x[2] for x in r["truth"]]))
        for cand, top_p, label, conf, calibrated, nothing, named in seen:
            truth = shot_label(cand.start_s, cand.end_s, r["shots"])
            if truth is not None:
                judged.append((top_p, conf, label == truth, label, r["id"], calibrated, nothing, named))
    cal = calibration_scores([j[1] for j in judged], [j[2] for j in judged])
    return {"n_items": len(records), "R1@0.5": float(np.mean(r1)) if r1 else None,
            "Joint": float(np.mean(joint)) if joint else None,
            "n_absent": len(echo), "absent_echo": float(np.mean(echo)) if echo else None,
            "n_judged": len(judged), "label_accuracy": cal["accuracy"] or 0.0, "ECE": cal["ECE"], "Brier": cal["Brier"],
            "judged": judged}


def simplex(step: float, verbal: float) -> list[tuple[float, float, float, float]]:
    """Every (visual, vocal, verbal, prior) with ``verbal`` fixed and the other three multiples of ``step``
    summing to 1 - ``verbal``."""
    n = round((1 - verbal) / step)
    return [(round(a * step, 4), round(b * step, 4), verbal, round((n - a - b) * step, 4))
            for a, b in itertools.product(range(n + 1), repeat=2) if a + b <= n]


def platt(judged: list[tuple]) -> tuple[float, float]:
    """Platt scaling (a, b) of "the judged label is right" on the fused top probability (``replay``'s
    ``judged`` rows), by logistic regression without regularisation to speak of."""
    from sklearn.linear_model import LogisticRegression

    y = np.array([j[2] for j in judged], dtype=int)
    if len(set(y)) < 2:
        raise ValueError("calibration needs judged candidates both right and wrong")
    lr = LogisticRegression(C=1e6).fit(np.array([[j[0]] for j in judged]), y)
    return round(float(lr.coef_[0][0]), 4), round(float(lr.intercept_[0]), 4)


def criterion(m: dict) -> float:
    """What ``fit`` maximises over a replay's metrics ``m``: Joint + label accuracy, plus 1 - ``absent_echo`` when the
    records hold absent-emotion questions (``collect(absent=True)``): an answer that names an emotion nobody shows
    only because it was asked counts against the weights as a missed moment does."""
    return m["Joint"] + m["label_accuracy"] + (1.0 - m["absent_echo"] if m.get("absent_echo") is not None else 0.0)


def fit(records: list[dict], step: float = 0.05, verbal: float = HAND_FUSION.verbal) -> tuple[Fusion, list[dict]]:
    """The fitted fusion and the grid's rows (module doc). Each weight vector is calibrated (``platt``)
    and replayed calibrated; the choice maximises ``criterion`` (ties: nearest the hand-set weights)."""
    from rich.progress import track

    rows = []
    for w in track(simplex(step, verbal), description="grid", console=_stderr(), transient=True):
        raw = Fusion(visual=w[0], vocal=w[1], verbal=w[2], prior=w[3])
        fused = raw.model_copy(update={"calibration": platt(replay(records, raw)["judged"])})
        m = replay(records, fused)
        rows.append({"fusion": fused, "weights": [round(x, 4) for x in w], "Joint": m["Joint"],
                     "R1@0.5": m["R1@0.5"], "label_accuracy": m["label_accuracy"], "ECE": m["ECE"],
                     "absent_echo": m["absent_echo"]})
    hand = np.array([HAND_FUSION.visual, HAND_FUSION.vocal, HAND_FUSION.verbal, HAND_FUSION.prior])
    best = max(rows, key=lambda r: (round(criterion(r), 9),
                                    -float(np.abs(np.array(r["weights"]) - hand).sum())))
    return best["fusion"], [{k: v for k, v in r.items() if k != "fusion"} for r in rows]


def _summary(m: dict) -> dict:
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in m.items() if k != "judged"}


def main(argv: list[str] | None = None) -> int:
    """The command line (module doc); returns the exit code."""
    p = argparse.ArgumentParser(prog="python -m studies.fit_fusion", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="run the graph on a bench and keep the emotion reasoner's inputs")
    c.add_argument("--bench", required=True)
    c.add_argument("--out", required=True, type=Path)
    c.add_argument("--cache-dir")
    c.add_argument("--face-head", type=Path, help="a face8 head to use instead of the shipped one (needs --cache-dir)")
    c.add_argument("--voice-head", type=Path, help="a voice8 head to use instead of the shipped one (needs --cache-dir)")
    c.add_argument("--voice-emotion", default="voice8", help="the index's vocal emotion model (voice8, whisper8, "
                   "voice8-speaker; default voice8)")
    c.add_argument("--absent", action="store_true",
                   help="also ask each video about every emotion none of its items holds (studies.absent_emotions)")
    f = sub.add_parser("fit", help="fit weights and calibration on collected dev records")
    f.add_argument("records", nargs="+")
    f.add_argument("--step", type=float, default=0.05)
    f.add_argument("--verbal", type=float, default=HAND_FUSION.verbal,
                   help="the speech-content weight, held fixed (composed benches carry no emotional words)")
    f.add_argument("--out", required=True, type=Path, help="the fusion JSON to write (agents/fusion.json)")
    f.add_argument("--carry", type=Path, default=FUSION_FILE, help="the fusion whose vocal_by_reader the written one "
                   "keeps (default: the shipped one)")
    s = sub.add_parser("score", help="replayed metrics of a fusion on collected records")
    s.add_argument("records", nargs="+")
    s.add_argument("--fusion", type=Path, help="a fusion JSON (default: the hand-set weights)")
    args = p.parse_args(argv)
    try:
        if args.cmd == "collect":
            if (args.face_head or args.voice_head) and not args.cache_dir:
                p.error("--face-head/--voice-head need a --cache-dir of their own")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            n = collect(args.bench, args.out, args.cache_dir, args.face_head, args.voice_head, args.absent,
                        args.voice_emotion)
            print(f"{n} item(s) collected into {args.out}")
            return 0
        records = load_records(args.records)
        carried = read_fusion(args.carry).vocal_by_reader if args.cmd == "fit" else {}
        weighed_apart = sorted({r["voice_emotion"] for r in records if r.get("voice_emotion") in carried})
        if weighed_apart:
            raise ValueError(f"records read with --voice-emotion {', '.join(weighed_apart)}, whose vocal weight "
                             f"{args.carry.name} sets apart: fit on the default reader's records")
    except (BenchError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.cmd == "score":
        try:
            fusion = read_fusion(args.fusion) if args.fusion else HAND_FUSION
        except ValueError as exc:
            print(f"error: --fusion {exc}", file=sys.stderr)
            return 2
        print(json.dumps({"fusion": fusion.model_dump(), **_summary(replay(records, fusion))}, indent=2))
        return 0
    fusion, rows = fit(records, args.step, args.verbal)
    fusion = fusion.model_copy(update={"vocal_by_reader": carried, "source": (
        f"studies.fit_fusion fit on {', '.join(args.records)} (step {args.step}, verbal fixed at {args.verbal}); "
        f"composed benches of the dev split's people only; vocal_by_reader carried from {args.carry.name}")})
    args.out.write_text(fusion.model_dump_json(indent=2) + "\n")
    print(json.dumps({"fusion": fusion.model_dump(), "hand": _summary(replay(records, HAND_FUSION)),
                      "fitted": _summary(replay(records, fusion)),
                      "top_grid": sorted(rows, key=lambda r: -criterion(r))[:10]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
