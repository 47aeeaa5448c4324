"""How sure the emotion reasoner is of candidates where a modality saw nothing: label accuracy, mean confidence,
calibration error and Brier score of every judged candidate, by what was observed in it.

    python -m studies.missing_modalities RECORDS.jsonl [...] [--accepted] [--drop-faces SHARE] [--json OUT]

``RECORDS`` are the emotion reasoner's inputs kept by ``python -m studies.fit_fusion collect`` (every verified
candidate of every question of a bench, with the bench's labelled shots). Each candidate is judged again by
``agents.emotion.offline_judge`` with the shipped fusion, whichever code is on the path, and its label compared with
the shot it overlaps most (``studies.fit_fusion.shot_label``), as ``studies.fit_fusion score`` does for the judged
candidates of the answers. Groups: a face was read; no face, and the label is the voice's top reading; no face, and it
is not (the question's own emotions, the words, or nothing chose it). The confidence is an estimate of P(label
right) (``agents/FUSION.md``), so each group's mean confidence should be near its accuracy: ECE over 10 equal-width
bins and the Brier score (``evals.metrics.calibration_scores``). Run it from a worktree of an earlier commit for that
code's figures.

``--accepted`` keeps the candidates the verifier accepted, those an answer is built from. ``--drop-faces SHARE`` reads
that share of the candidates (chosen by a CRC-32 of the question's id and the clip's, so every code drops the same
ones) as if their face had been missed: how the judge does where a face is not found, on benches whose faces all are
(the fusion fold's, read by heads that never saw its people).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.argtypes import number

#: The groups, in the order reported.
GROUPS = ("face", "no face, the voice's label", "no face, another label")


def group_of(cand, label: str) -> str:
    """The group of ``GROUPS`` of a verified candidate (``agents.schema.VerifiedCandidate``) judged ``label``."""
    obs = cand.observations
    if obs.visual.expression_mean:
        return GROUPS[0]
    voice = obs.vocal.voice_distribution or {}
    return GROUPS[1] if voice and max(voice, key=voice.__getitem__) == label else GROUPS[2]


def scores(judged: list[tuple[float, bool]]) -> dict:
    """Count, accuracy, mean confidence, ECE and Brier score of (confidence, right) pairs; only the count when there
    are none."""
    from evals.metrics import calibration_scores

    if not judged:
        return {"n": 0}
    cal = calibration_scores([c for c, _ in judged], [r for _, r in judged])
    return {"n": len(judged), "accuracy": round(cal["accuracy"] or 0.0, 3),
            "mean_confidence": round(float(np.mean([c for c, _ in judged])), 3),
            "ECE": round(cal["ECE"], 3), "Brier": round(cal["Brier"], 3)}


def evaluate(paths: list[Path], accepted: bool = False, drop_faces: float = 0.0) -> dict:
    """Per file of ``paths`` (by its name) and over all: ``scores`` of each group of ``GROUPS`` and of every judged
    candidate (the accepted ones only with ``accepted``; with a ``drop_faces`` share of them read without their face).

    Raises:
        FileNotFoundError: a file is missing.
    """
    import zlib

    from agents.emotion import judge_inputs, offline_judge
    from agents.fusion import load_fusion
    from agents.observations import VisualObservations
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import load_records, shot_label

    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such file")
    fusion = load_fusion()
    result: dict = {"fusion": fusion.source, "accepted_only": accepted, "drop_faces": drop_faces, "files": {}}
    for path in paths:
        by_group: dict[str, list[tuple[float, bool]]] = {g: [] for g in GROUPS}
        for record in load_records([str(path)]):
            weighed = fusion.for_voice(record.get("voice_emotion"))  # as the judge weighs the record's reader
            for raw in record["verified"]:
                cand = raw if isinstance(raw, VerifiedCandidate) else VerifiedCandidate.model_validate(raw)
                truth = shot_label(cand.start_s, cand.end_s, record["shots"])
                if truth is None or (accepted and not cand.accepted):
                    continue
                if zlib.crc32(f"{record['id']}/{cand.clip_id}".encode()) % 1000 < drop_faces * 1000:
                    cand = cand.model_copy(update={"observations": cand.observations.model_copy(
                        update={"visual": VisualObservations()})})
                judged = offline_judge(judge_inputs(cand, record["targets"]), weighed)
                by_group[group_of(cand, judged.emotion)].append((judged.confidence, judged.emotion == truth))
        every = [x for g in GROUPS for x in by_group[g]]
        result["files"][path.name] = {**{g: scores(v) for g, v in by_group.items() if v}, "all": scores(every)}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", type=Path, nargs="+", help="records of python -m studies.fit_fusion collect")
    ap.add_argument("--accepted", action="store_true", help="only the candidates the verifier accepted")
    ap.add_argument("--drop-faces", type=number(0, 1), default=0.0, metavar="SHARE",
                    help="read this share of the candidates as if no face had been found (default 0)")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.records, args.accepted, args.drop_faces), args.json)


if __name__ == "__main__":
    sys.exit(main())
