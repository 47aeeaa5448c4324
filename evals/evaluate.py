"""Score a run's predictions against a bench of moments (metrics in ``evals.metrics``, sources there), and
the ``jsonl`` bench format (``evals.formats``) that ``evals.run`` reads by default."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.taxonomy import load_taxonomy
from evals.bench import BenchItem, load_bench
from evals.formats import BenchFormat, register_format
from evals.methods import Prediction, predict
from evals.metrics import (
    best_iou,
    calibration_scores,
    emotion_scores,
    emotion_word_overlap,
    grounding_score,
    joint_at_1,
    length_bucket,
    match_moments,
    mean_average_precision,
    modality_similarity,
    rationale_similarity,
    recall_at_1,
    recall_at_k,
    split_steps,
)

R1_THRESHOLDS = (0.3, 0.5, 0.7)


def _mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(float(np.mean(xs)), 4) if xs else None


def _score_rationale(pm, gm, encoder, rat: dict[str, list]) -> None:
    """Add the rationale scores of predicted moment ``pm`` against matched ground truth ``gm`` to ``rat``."""
    if pm.rationale is None:
        return
    cited = [e for s in pm.steps for e in s.evidence_ids]
    rat["grounding"].append(grounding_score(cited, set(pm.observed_evidence)))
    if gm.rationale:
        rat["emotion_word_overlap"].append(emotion_word_overlap(pm.rationale, gm.rationale))
        if encoder is not None:
            steps = [s.text for s in pm.steps] or [pm.rationale]
            for k, v in rationale_similarity(steps, split_steps(gm.rationale), encoder).items():
                rat[k].append(v)
    if gm.evidence_modalities:
        rat["modality_similarity"].append(modality_similarity([s.modality for s in pm.steps], gm.evidence_modalities))


#: Metrics reported per moment-length bucket; Accuracy is over the bucket's matched moments (tIoU >= 0.3).
BUCKET_KEYS = ("R1@0.3", "R1@0.5", "R1@0.7", "mIoU", "mAP", "Joint", "Accuracy")


def empty_localization() -> dict[str, list]:
    """The per-item lists ``score_localization`` appends to, one per localization metric."""
    return {f"R1@{t}": [] for t in R1_THRESHOLDS} | {"mIoU": [], "mAP": [], "R5@0.5": [], "Joint": []}


def score_localization(loc: dict[str, list], spans: list[tuple[float, float]], truths: list[tuple[float, float]],
                        top1_emotion: str | None, true_emotions: list[str]) -> None:
    """Append one item's localization scores to ``loc``: R1 at each of ``R1_THRESHOLDS``, mIoU, mAP and R5@0.5
    of the predicted ``spans`` (seconds, best first) against the ground-truth ``truths``, and Joint (the top
    span's emotion ``top1_emotion`` against ``true_emotions``)."""
    top1 = spans[0] if spans else None
    for t in R1_THRESHOLDS:
        loc[f"R1@{t}"].append(recall_at_1(top1, truths, t))
    loc["mIoU"].append(best_iou(top1, truths))
    loc["mAP"].append(mean_average_precision(spans, truths))
    loc["R5@0.5"].append(recall_at_k(spans, truths, 5, 0.5))
    loc["Joint"].append(joint_at_1(top1, top1_emotion, truths, true_emotions))


def evaluate(items: list[BenchItem], predictions: dict[str, Prediction], encoder=None,
             labels: str = "AffectNet-8") -> dict:
    """All metrics over ``items`` (an item without a prediction scores as an empty prediction): R1 at
    ``R1_THRESHOLDS``, mIoU, mAP, R5@0.5 and Joint; R1, mIoU, mAP, Joint and emotion Accuracy by
    ground-truth moment length (QVHighlights' buckets, ``length_bucket``); emotion scores over the label
    set ``labels``; rationale and grounding scores; cost.

    ``encoder`` (a ``tools.perception.text.TextEncoder``) is needed for the rationale similarities; without it
    they are left out. Returns a JSON-serialisable dict.
    """
    loc = empty_localization()
    by_length: dict[str, dict[str, list]] = {}
    y_true, y_pred, confidence = [], [], []
    rat = {"similarity_trace": [], "similarity_step": [], "similarity_numsteps": [], "modality_similarity": [],
           "emotion_word_overlap": [], "grounding": []}
    cost = {"wall_s": [], "tool_calls": [], "frames": []}
    per_item = []
    for item in items:
        pred = predictions.get(item.id)
        spans = [(m.start_s, m.end_s) for m in pred.moments] if pred else []
        truths = [(m.start_s, m.end_s) for m in item.moments]
        top1 = spans[0] if spans else None
        score_localization(loc, spans, truths, pred.moments[0].emotion if spans else None,
                            [m.emotion for m in item.moments])
        bucket = None
        if truths:  # an item's bucket: the length of its first (main) ground-truth moment
            bucket = by_length.setdefault(length_bucket(truths[0]), {k: [] for k in BUCKET_KEYS})
            for k in BUCKET_KEYS[:-1]:
                bucket[k].append(loc[k][-1])
        for i, j in match_moments(spans, truths, 0.3):
            pm, gm = pred.moments[i], item.moments[j]
            y_true.append(gm.emotion)
            y_pred.append(pm.emotion)
            if bucket is not None:
                bucket["Accuracy"].append(float(gm.emotion == pm.emotion))
            confidence.append(min(max(pm.score, 0.0), 1.0))
            _score_rationale(pm, gm, encoder, rat)
        answered = pred is not None and not pred.error
        if answered:  # a failed item's cost was not measured (``failed`` records none)
            cost["wall_s"].append(pred.wall_s)
            cost["tool_calls"].append(pred.tool_calls)
            cost["frames"].append(pred.frames)
        per_item.append({"id": item.id, "top1": top1, "tIoU_top1": round(best_iou(top1, truths), 4),
                         "predicted": answered})
    return {
        "n_items": len(items),
        "n_predicted": sum(row["predicted"] for row in per_item),
        "localization": {k: _mean(v) for k, v in loc.items()},
        "by_moment_length": {name: {"n": len(b["R1@0.5"]), **{k: _mean(v) for k, v in b.items()}}
                             for name, b in sorted(by_length.items())},
        "labels": load_taxonomy(labels).name,
        "emotion": emotion_scores(y_true, y_pred, load_taxonomy(labels).names),
        "emotion_calibration": calibration_scores(confidence, [a == b for a, b in zip(y_true, y_pred, strict=True)]),
        "rationale": {k: _mean(v) for k, v in rat.items()},
        "cost_per_item": {k: _mean(v) for k, v in cost.items()},
        "per_item": per_item,
    }


def moment_detr_predictions(items: list[BenchItem], predictions: dict[str, Prediction]) -> list[dict]:
    """Predictions in Moment-DETR / QVHighlights submission form, one dict per item:
    ``{"qid", "query", "vid", "pred_relevant_windows": [[start_s, end_s, score], ...]}`` (best first;
    the score is the moment's confidence), readable by that benchmark's ``standalone_eval``."""
    out = []
    for item in items:
        pred = predictions.get(item.id)
        windows = [[m.start_s, m.end_s, m.score] for m in pred.moments] if pred else []
        out.append({"qid": item.id, "query": item.query, "vid": item.video, "pred_relevant_windows": windows})
    return out


def _write_moments(items: list[BenchItem], predictions: dict[str, Prediction], metrics: dict, out: Path) -> str:
    """Write ``moment_detr_predictions.jsonl`` into ``out``; the results table by moment length."""
    from evals.report import length_table

    (out / "moment_detr_predictions.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in moment_detr_predictions(items, predictions)))
    return length_table(metrics)


def _summary(method: str, metrics: dict) -> str:
    loc, emo = metrics["localization"], metrics["emotion"]
    return (f"{method}: " + ", ".join(f"{k}={v}" for k, v in loc.items())
            + f", emotion acc={emo['accuracy']} macro-F1={emo['macro_f1']} (n={emo['n']})")


def moment_format(name: str, help: str, default_labels: str, load: Callable) -> BenchFormat:
    """A bench format of ``BenchItem``s (moments with emotions): predicted by ``evals.methods.predict``,
    scored by ``evaluate``, written with Moment-DETR predictions and the table by moment length; ``load``
    as ``BenchFormat.load``."""
    return BenchFormat(
        name=name, help=help, default_labels=default_labels, load=load,
        predict=lambda method, item, video, ctx: predict(method, item.id, video, item.query, ctx),
        failed=lambda method, item, error: Prediction(id=item.id, method=method, moments=[], wall_s=0.0, error=error),
        prediction=Prediction,
        score=lambda items, done, encoder, labels: evaluate(items, done, encoder, labels=labels),
        write=_write_moments, summary=_summary)


register_format(moment_format(
    "jsonl", "one item per line, video paths relative to the bench (default)", "AffectNet-8",
    lambda args, labels: load_bench(args.bench, labels)))
