"""How sure the emotion reasoner is of candidates where a modality saw nothing: label accuracy, mean confidence,
calibration error and Brier score of every judged candidate, by what was observed in it.

    python -m studies.missing_modalities RECORDS.jsonl [RECORDS.jsonl ...] [--json OUT]

``RECORDS`` are the emotion reasoner's inputs kept by ``python -m studies.fit_fusion collect`` (every verified
candidate of every question of a bench, with the bench's labelled shots). Each candidate is judged again by
``agents.emotion.offline_judge`` with the shipped fusion, whichever code is on the path, and its label compared with
the shot it overlaps most (``studies.fit_fusion.shot_label``), as ``studies.fit_fusion score`` does for the judged
candidates of the answers. Groups: a face was read; no face, and the label is the voice's top reading; no face, and it
is not (the question's own emotions, the words, or nothing chose it). The confidence is an estimate of P(label
right) (``agents/FUSION.md``), so each group's mean confidence should be near its accuracy: ECE over 10 equal-width
bins and the Brier score (``evals.metrics.calibration_scores``). Run it from a worktree of an earlier commit for that
code's figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report

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
    """Count, accuracy, mean confidence, ECE and Brier score of (confidence, right) pairs."""
    from evals.metrics import calibration_scores

    cal = calibration_scores([c for c, _ in judged], [r for _, r in judged])
    return {"n": len(judged), "accuracy": round(cal["accuracy"] or 0.0, 3),
            "mean_confidence": round(float(np.mean([c for c, _ in judged])), 3),
            "ECE": round(cal["ECE"], 3), "Brier": round(cal["Brier"], 3)}


def evaluate(paths: list[Path]) -> dict:
    """Per file of ``paths`` and over all: ``scores`` of each group of ``GROUPS`` and of every judged candidate.

    Raises:
        FileNotFoundError: a file is missing.
    """
    from agents.emotion import judge_inputs, offline_judge
    from agents.fusion import load_fusion
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import load_records, shot_label

    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such file")
    fusion = load_fusion()
    result: dict = {"fusion": fusion.source, "files": {}}
    for path in paths:
        by_group: dict[str, list[tuple[float, bool]]] = {g: [] for g in GROUPS}
        for record in load_records([str(path)]):
            for raw in record["verified"]:
                cand = raw if isinstance(raw, VerifiedCandidate) else VerifiedCandidate.model_validate(raw)
                truth = shot_label(cand.start_s, cand.end_s, record["shots"])
                if truth is None:
                    continue
                judged = offline_judge(judge_inputs(cand, record["targets"]), fusion)
                by_group[group_of(cand, judged.emotion)].append((judged.confidence, judged.emotion == truth))
        every = [x for g in GROUPS for x in by_group[g]]
        result["files"][path.name] = {**{g: scores(v) for g, v in by_group.items() if v}, "all": scores(every)}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", type=Path, nargs="+", help="records of python -m studies.fit_fusion collect")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.records), args.json)


if __name__ == "__main__":
    sys.exit(main())
