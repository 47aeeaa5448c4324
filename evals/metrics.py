"""VQAU-Bench metrics: moment localization, emotion, rationale, grounding.

Sources:
- tIoU, R1@tIoU and mIoU of the top-1 moment: the temporal grounding convention (Gao et al., 2017,
  TALL / Charades-STA).
- mAP over tIoU 0.5:0.05:0.95 and recall@5: QVHighlights / Moment-DETR evaluation (Lei et al., 2021):
  per query, average precision of the ranked predictions against the annotated moments (each matched
  once), averaged over thresholds and queries.
- Emotion accuracy, macro-F1 and confusion matrix on predictions matched to ground truth at tIoU >= 0.3
  (AffectSeek/VQAU emotion classification task); F1 and the matrix from scikit-learn.
- Joint: the top-1 moment reaches tIoU >= 0.5 with a ground-truth moment *and* names that moment's
  emotion (AffectSeek/VQAU's joint localization-and-emotion measure).
- Confidence calibration of the emotion (matched moments): expected calibration error over 10
  equal-width confidence bins (Guo et al., 2017, "On Calibration of Modern Neural Networks") and the
  Brier score (Brier, 1950).
- Moment length buckets: short <= 10 s, middle 10-30 s, long > 30 s, as QVHighlights reports
  (Lei et al., 2021, Moment-DETR ``standalone_eval``), by the ground-truth moment's length.
- Rationale: Social Genome's Similarity-Trace, Similarity-Step, Similarity-NumSteps (all-MiniLM-L6-v2),
  modality-sequence similarity (1 - normalised edit distance over visual/verbal/vocal tags) and
  emotion-word overlap.
- Grounding: in the spirit of GRASP's Social Grounding Reward, the share of evidence a rationale cites
  that exists among the moment's observations.
- Multiple-choice reasoning traces (Social Genome, Mathur et al., 2025): DifferenceSequence (the
  modality-sequence similarity above over visual/verbal/vocal/n/a), All Modality Steps (unique
  modalities both traces use), Visual / Verbal / Vocal / External Knowledge Steps and NumSteps (absolute
  difference between the two traces' counts of such steps; lower is closer).
- Intervals: percentile bootstrap 95% intervals (Efron and Tibshirani, 1993) with ``scipy.stats.bootstrap``,
  resampling whole groups (people, videos) when items of one group are not independent (the cluster
  bootstrap; Field and Welsh, 2007).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from tools.core.schema import AFFECTNET8, temporal_iou

Span = tuple[float, float]
#: tIoU thresholds of the mAP (QVHighlights): 0.50, 0.55, ..., 0.95.
MAP_THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
#: Similarity above which a predicted step counts as matching a reference step (Similarity-NumSteps).
STEP_MATCH_TAU = 0.5


def recall_at_1(top1: Span | None, truths: Sequence[Span], threshold: float) -> float:
    """1.0 when the top-1 span reaches tIoU >= ``threshold`` with any ground-truth span, else 0.0."""
    if top1 is None:
        return 0.0
    return float(any(temporal_iou(top1, t) >= threshold for t in truths))


def joint_at_1(top1: Span | None, top1_emotion: str | None, truths: Sequence[Span], emotions: Sequence[str],
               threshold: float = 0.5) -> float:
    """1.0 when the top-1 span reaches tIoU >= ``threshold`` with a ground-truth span whose emotion is
    ``top1_emotion`` (case-insensitive), else 0.0. ``emotions[i]`` is the emotion of ``truths[i]``."""
    if top1 is None or top1_emotion is None:
        return 0.0
    return float(any(temporal_iou(top1, t) >= threshold and e.lower() == top1_emotion.lower()
                     for t, e in zip(truths, emotions, strict=True)))


#: Moment length buckets in seconds (QVHighlights): (name, lower bound exclusive, upper bound inclusive).
LENGTH_BUCKETS = (("short", 0.0, 10.0), ("middle", 10.0, 30.0), ("long", 30.0, float("inf")))


def length_bucket(span: Span) -> str:
    """``short`` (<= 10 s), ``middle`` (10-30 s) or ``long`` (> 30 s) for a ground-truth span."""
    length = span[1] - span[0]
    return next(name for name, lo, hi in LENGTH_BUCKETS if lo < length <= hi or (lo == 0.0 and length <= hi))


def best_iou(pred: Span | None, truths: Sequence[Span]) -> float:
    """Highest tIoU of ``pred`` with any ground-truth span (0 when there is no prediction)."""
    return max((temporal_iou(pred, t) for t in truths), default=0.0) if pred else 0.0


def recall_at_k(preds: Sequence[Span], truths: Sequence[Span], k: int = 5, threshold: float = 0.5) -> float:
    """Share of ``truths`` (one question's ground-truth spans) hit (tIoU >= threshold) by any of the top-``k``
    predictions: a recall of moments, which for a question of one moment is the field's R@k (a hit, 1 or 0); a
    question of several moments scores the share it found, where R@k would count any one as a hit."""
    top = preds[:k]
    return float(np.mean([any(temporal_iou(p, t) >= threshold for p in top) for t in truths])) if truths else 0.0


def average_precision(preds: Sequence[Span], truths: Sequence[Span], threshold: float) -> float:
    """AP of ranked ``preds`` (best first) against ``truths`` at one tIoU threshold.

    Greedy one-to-one matching in rank order; all-point interpolated precision (VOC 2010+, as in
    Moment-DETR's ``standalone_eval``).
    """
    if not truths:
        return 0.0
    used: set[int] = set()
    tp = []
    for p in preds:
        ious = [(temporal_iou(p, t), i) for i, t in enumerate(truths) if i not in used]
        iou, i = max(ious, default=(0.0, -1))
        hit = iou >= threshold
        if hit:
            used.add(i)
        tp.append(hit)
    if not tp:
        return 0.0
    tp_arr = np.array(tp, dtype=float)
    cum = np.cumsum(tp_arr)
    precision = cum / np.arange(1, len(tp_arr) + 1)
    recall = cum / len(truths)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    prev_recall = np.concatenate([[0.0], recall[:-1]])
    return float(np.sum((recall - prev_recall) * envelope))


def mean_average_precision(preds: Sequence[Span], truths: Sequence[Span]) -> float:
    """AP averaged over ``MAP_THRESHOLDS`` (one query)."""
    return float(np.mean([average_precision(preds, truths, t) for t in MAP_THRESHOLDS]))


def match_moments(preds: Sequence[Span], truths: Sequence[Span], threshold: float = 0.3) -> list[tuple[int, int]]:
    """One-to-one (pred index, truth index) pairs with tIoU >= ``threshold``, highest tIoU first."""
    pairs = sorted(((temporal_iou(p, t), i, j) for i, p in enumerate(preds) for j, t in enumerate(truths)),
                   reverse=True)
    out, used_p, used_t = [], set(), set()
    for iou, i, j in pairs:
        if iou < threshold:
            break
        if i not in used_p and j not in used_t:
            out.append((i, j))
            used_p.add(i)
            used_t.add(j)
    return out


def emotion_scores(y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str] = AFFECTNET8) -> dict:
    """Accuracy, macro-F1 (over labels present in either list) and the confusion matrix over ``labels``
    (the label set's names; AffectNet-8 by default).

    Returns ``{"n", "accuracy", "macro_f1", "labels", "confusion"}``; rows of ``confusion`` are true labels.
    """
    from sklearn.metrics import confusion_matrix, f1_score

    labels = list(labels)
    if not y_true:
        return {"n": 0, "accuracy": None, "macro_f1": None, "labels": labels, "confusion": None}
    order = {lab: i for i, lab in enumerate(labels)}
    present = sorted(set(y_true) | set(y_pred), key=lambda lab: order.get(lab, len(order)))
    return {
        "n": len(y_true),
        "accuracy": float(np.mean([a == b for a, b in zip(y_true, y_pred, strict=True)])),
        "macro_f1": float(f1_score(y_true, y_pred, labels=present, average="macro", zero_division=0)),
        "labels": labels,
        "confusion": confusion_matrix(y_true, y_pred, labels=labels).tolist(),
    }


def calibration_scores(confidence: Sequence[float], right: Sequence[bool], bins: int = 10) -> dict:
    """How well confidences in [0, 1] predict correctness: ``{"n", "ECE", "Brier", "mean_confidence",
    "accuracy"}`` (None values when empty). ECE: the mean over ``bins`` equal-width bins of
    |accuracy - mean confidence|, weighted by each bin's share of the samples (Guo et al., 2017: bin m holds the
    confidences in ((m-1)/M, m/M], a confidence of 0 the first)."""
    conf, ok = np.asarray(confidence, float), np.asarray(right, float)
    if not len(conf):
        return {"n": 0, "ECE": None, "Brier": None, "mean_confidence": None, "accuracy": None}
    # rounded first, so that 0.3 * 10 (3.0000000000000004 in floating point) is the upper edge of bin 3, not in bin 4
    which = np.clip(np.ceil(np.round(conf * bins, 9)).astype(int) - 1, 0, bins - 1)
    ece = sum(abs(ok[which == b].mean() - conf[which == b].mean()) * (which == b).mean()
              for b in range(bins) if (which == b).any())
    return {"n": len(conf), "ECE": float(ece), "Brier": float(np.mean((conf - ok) ** 2)),
            "mean_confidence": float(conf.mean()), "accuracy": float(ok.mean())}


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two sequences of tags."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def modality_similarity(pred: Sequence[str], ref: Sequence[str]) -> float:
    """1 - edit distance / longer length over modality tags (1.0 when both are empty)."""
    longest = max(len(pred), len(ref))
    return 1.0 - edit_distance(pred, ref) / longest if longest else 1.0


def trace_structure(pred: Sequence[tuple[str, bool]], ref: Sequence[tuple[str, bool]]) -> dict[str, float]:
    """Social Genome's structural trace metrics of a predicted and a reference trace, each a sequence
    of (modality tag, uses external knowledge) steps (module doc): ``difference_sequence`` (higher is
    closer), ``all_modality_steps`` (shared unique modalities), and absolute count differences
    ``visual_steps``, ``verbal_steps``, ``vocal_steps``, ``external_knowledge_steps``, ``num_steps``."""
    pm, rm = [m for m, _ in pred], [m for m, _ in ref]
    out = {"difference_sequence": modality_similarity(pm, rm), "all_modality_steps": float(len(set(pm) & set(rm)))}
    for tag in ("visual", "verbal", "vocal"):
        out[f"{tag}_steps"] = float(abs(pm.count(tag) - rm.count(tag)))
    out["external_knowledge_steps"] = float(abs(sum(k for _, k in pred) - sum(k for _, k in ref)))
    out["num_steps"] = float(abs(len(pred) - len(ref)))
    return out


def split_steps(text: str) -> list[str]:
    """A reference rationale's sentences, used as its steps."""
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+", text) if s.strip()]


def rationale_similarity(pred_steps: Sequence[str], ref_steps: Sequence[str], encoder) -> dict[str, float]:
    """Social Genome's trace similarities with a sentence ``encoder`` (``encode(list) -> (N, D)`` normalised).

    - ``similarity_trace``: cosine of the mean step embeddings;
    - ``similarity_step``: mean over predicted steps of the best cosine to any reference step;
    - ``similarity_numsteps``: number of predicted steps whose best match is >= ``STEP_MATCH_TAU``.
    """
    p, r = encoder.encode(list(pred_steps)), encoder.encode(list(ref_steps))
    mp, mr = p.mean(axis=0), r.mean(axis=0)
    trace = float(mp @ mr / (np.linalg.norm(mp) * np.linalg.norm(mr) + 1e-12))
    best = (p @ r.T).max(axis=1)
    return {"similarity_trace": trace, "similarity_step": float(best.mean()),
            "similarity_numsteps": float((best >= STEP_MATCH_TAU).sum())}


def emotion_words(text: str) -> set[str]:
    """Emotion vocabulary words in ``text``: AffectNet-8 names and the lexicon's description words."""
    from tools.signals.lexicon import EMOTION_DESCRIPTIONS, content_words

    vocab = set(AFFECTNET8) | {w for phrases in EMOTION_DESCRIPTIONS.values() for p in phrases for w in content_words(p)}
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w in vocab}


def emotion_word_overlap(pred: str, ref: str) -> float | None:
    """Jaccard overlap of the emotion words of two rationales; None when neither has any."""
    a, b = emotion_words(pred), emotion_words(ref)
    return len(a & b) / len(a | b) if a | b else None


def grounding_score(cited: Sequence[str], observed: set[str]) -> float | None:
    """Share of cited evidence ids that are among the ``observed`` ones; None when nothing is cited."""
    return sum(c in observed for c in cited) / len(cited) if cited else None


#: Bootstrap resamples of ``ratio_interval`` / ``bootstrap_interval``, and the seed that makes an interval the
#: same run after run.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


def ratio_interval(sums: Sequence[float], counts: Sequence[float], confidence: float = 0.95,
                   n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of ``sum(sums) / sum(counts)`` resampling groups: ``sums[g]`` is group g's
    total score (e.g. items right, seconds of error), ``counts[g]`` its number of items (the cluster bootstrap:
    a group's items are not independent). Deterministic for a given ``seed``.

    Returns (low, high); one group, or groups that all have the same ratio, give that ratio twice.

    Raises:
        ValueError: no groups, or ``sums`` and ``counts`` differ in length.
    """
    from scipy.stats import bootstrap

    s, n = np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64)
    if s.size == 0 or s.shape != n.shape:
        raise ValueError(f"{s.size} group sums for {n.size} group counts")
    if s.size < 2 or np.ptp(s / n) == 0:
        return float(s.sum() / n.sum()), float(s.sum() / n.sum())
    ci = bootstrap((s, n), lambda a, b, axis=-1: np.sum(a, axis=axis) / np.sum(b, axis=axis), paired=True,
                   vectorized=True, confidence_level=confidence, n_resamples=n_resamples, method="percentile",
                   random_state=seed).confidence_interval
    return float(ci.low), float(ci.high)


def bootstrap_interval(values: Sequence[float], groups: Sequence[str] | None = None, confidence: float = 0.95
                       ) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (per-item scores, e.g. 1/0 right), resampling
    whole ``groups`` (one label per item: the person or video it comes from) when given, items otherwise
    (``ratio_interval``).

    Raises:
        ValueError: ``values`` is empty, or ``groups`` is not one label per value.
    """
    x = np.asarray(values, dtype=np.float64)
    labels = list(range(x.size)) if groups is None else list(groups)
    if x.size == 0 or len(labels) != x.size:
        raise ValueError(f"{len(labels)} group labels for {x.size} values")
    keys = list(dict.fromkeys(labels))
    members = [[i for i, g in enumerate(labels) if g == k] for k in keys]
    return ratio_interval([x[m].sum() for m in members], [len(m) for m in members], confidence)
