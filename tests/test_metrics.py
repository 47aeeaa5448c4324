"""Localization and emotion metrics on constructed spans with known answers, and against Moment-DETR's definitions."""

from __future__ import annotations

import pytest

from evals.metrics import recall_at_1, temporal_iou


def test_tiou_known_values():
    assert temporal_iou((2.0, 6.0), (2.0, 6.0)) == 1.0
    assert temporal_iou((0.0, 2.0), (3.0, 5.0)) == 0.0
    assert temporal_iou((0.0, 2.0), (1.0, 3.0)) == pytest.approx(1 / 3)
    assert temporal_iou((1.0, 1.0), (0.0, 2.0)) == 0.0


def test_recall_at_1_thresholds():
    truths = [(8.0, 10.0)]
    assert recall_at_1((8.0, 10.0), truths, 0.7) == 1.0
    assert recall_at_1((7.0, 9.0), truths, 0.3) == 1.0 and recall_at_1((7.0, 9.0), truths, 0.5) == 0.0
    assert recall_at_1(None, truths, 0.3) == 0.0


def test_average_precision_known_cases():
    from evals.metrics import average_precision, mean_average_precision, recall_at_k

    truths = [(0.0, 2.0), (5.0, 7.0)]
    assert average_precision([(0.0, 2.0), (5.0, 7.0)], truths, 0.5) == 1.0
    # a miss ranked first: precision 1/2 then 2/3 at the hits; the interpolated envelope is 2/3 at both
    assert average_precision([(10.0, 11.0), (0.0, 2.0), (5.0, 7.0)], truths, 0.5) == pytest.approx(2 / 3)
    assert average_precision([(0.0, 2.0), (10.0, 11.0)], truths, 0.5) == pytest.approx(0.5)
    assert mean_average_precision([(20.0, 21.0)], truths) == 0.0
    assert recall_at_k([(10.0, 11.0), (5.0, 7.0)], truths, k=5, threshold=0.5) == 0.5
    assert recall_at_k([(10.0, 11.0), (5.0, 7.0)], [(5.0, 7.0)], k=5, threshold=0.5) == 1.0  # one moment: R@5
    assert recall_at_k([(10.0, 11.0), (5.0, 7.0)], [(5.0, 7.0)], k=1, threshold=0.5) == 0.0


def test_match_emotion_and_rationale_metrics():
    from evals.metrics import (
        emotion_scores,
        emotion_word_overlap,
        grounding_score,
        match_moments,
        modality_similarity,
    )

    assert match_moments([(0.0, 2.0), (1.0, 3.0)], [(1.0, 3.0)]) == [(1, 0)]
    s = emotion_scores(["happiness", "sadness", "happiness"], ["happiness", "happiness", "happiness"])
    assert s["accuracy"] == pytest.approx(2 / 3)
    assert s["macro_f1"] == pytest.approx((0.8 + 0.0) / 2)  # happiness F1 = 2*(2/3*1)/(2/3+1) = 0.8
    assert s["confusion"][1][1] == 2 and s["confusion"][2][1] == 1
    assert modality_similarity(["visual", "verbal"], ["visual", "verbal"]) == 1.0
    assert modality_similarity(["visual"], ["visual", "verbal", "vocal"]) == pytest.approx(1 / 3)
    # {happy} vs {happy, laughing}
    assert emotion_word_overlap("She is happy.", "Happy faces, laughing.") == pytest.approx(1 / 2)
    assert emotion_word_overlap("The room.", "A table.") is None
    assert grounding_score(["c1.v0", "c9.v9"], {"c1.v0", "c1.t0"}) == 0.5
    assert grounding_score([], {"x"}) is None


def _reference_moment_detr(gt: list[dict], submission: list[dict]) -> dict:
    """R1@{0.5,0.7} and mAP written from the documented definitions of QVHighlights' ``standalone_eval``
    (Lei et al., 2021; moment_detr/standalone_eval/README): R1 takes each query's top-scoring window and
    the ground-truth window it overlaps most; mAP is ActivityNet-style detection AP per query (windows in
    score order, each matched to the unmatched ground-truth window of highest IoU at or above the
    threshold, VOC all-point interpolation) averaged over IoU 0.50:0.05:0.95 and over queries. In percent."""
    import numpy as np

    def iou(a, b):
        inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
        return inter / (max(a[1], b[1]) - min(a[0], b[0]))

    preds = {d["qid"]: sorted(d["pred_relevant_windows"], key=lambda w: -w[2]) for d in submission}
    r1 = {0.5: [], 0.7: []}
    aps = []
    for d in gt:
        windows, ranked = d["relevant_windows"], preds[d["qid"]]
        best = max(iou(ranked[0][:2], g) for g in windows) if ranked else 0.0
        for thr, hits in r1.items():
            hits.append(best >= thr)
        per_thr = []
        for thr in [0.5 + 0.05 * i for i in range(10)]:
            matched, tp = set(), []
            for w in ranked:
                order = sorted(range(len(windows)), key=lambda j: -iou(w[:2], windows[j]))
                hit = next((j for j in order if iou(w[:2], windows[j]) >= thr and j not in matched), None)
                if hit is not None:
                    matched.add(hit)
                tp.append(hit is not None)
            cum = np.cumsum(tp)
            rec = np.concatenate([[0.0], cum / len(windows), [1.0]])
            prec = np.concatenate([[0.0], cum / np.arange(1, len(tp) + 1), [0.0]])
            for i in range(len(prec) - 2, -1, -1):
                prec[i] = max(prec[i], prec[i + 1])
            steps = np.where(rec[1:] != rec[:-1])[0] + 1
            per_thr.append(float(np.sum((rec[steps] - rec[steps - 1]) * prec[steps])))
        aps.append(np.mean(per_thr))
    return {"R1@0.5": 100 * np.mean(r1[0.5]), "R1@0.7": 100 * np.mean(r1[0.7]), "mAP": 100 * np.mean(aps)}


def test_r1_and_map_equal_moment_detr_definitions_and_joint_needs_the_right_emotion():
    from evals.bench import BenchItem
    from evals.evaluate import evaluate, moment_detr_predictions
    from evals.methods import Prediction

    gts = {"q1": [(10, 20, "anger")], "q2": [(0, 4, "fear"), (30, 42, "fear")], "q3": [(50, 90, "joy")],
           "q4": [(5, 9, "sadness"), (12, 16, "sadness"), (40, 44, "sadness")]}
    # no tIoU falls exactly on a threshold (0.5, 0.55, ...), where float rounding decides
    ranked = {"q1": [(11.2, 20, "anger"), (0, 5, "neutral")],                      # hit, right emotion
              "q2": [(31, 40.5, "sadness"), (0, 3.1, "fear"), (60, 61, "fear")],   # hit, wrong emotion; 2nd hit
              "q3": [(70, 95, "joy"), (41, 90, "joy")],                            # top-1 misses at 0.5
              "q4": [(12, 15.3, "sadness"), (12, 16, "sadness"), (5, 9, "sadness"), (41.2, 45, "sadness")]}
    items = [BenchItem(id=q, video=f"{q}.mp4", query=f"query {q}",
                       moments=[{"start_s": s, "end_s": e, "emotion": emo if emo != "joy" else "happiness"}
                                for s, e, emo in spans]) for q, spans in gts.items()]
    preds = {q: Prediction(id=q, method="fixture", wall_s=0.0, moments=[
        {"start_s": s, "end_s": e, "emotion": emo if emo != "joy" else "happiness", "score": 1.0 - 0.1 * k}
        for k, (s, e, emo) in enumerate(spans)]) for q, spans in ranked.items()}
    ours = evaluate(items, preds)
    submission = moment_detr_predictions(items, preds)
    assert submission[0] == {"qid": "q1", "query": "query q1", "vid": "q1.mp4",
                             "pred_relevant_windows": [[11.2, 20.0, 1.0], [0.0, 5.0, 0.9]]}
    ref = _reference_moment_detr([{"qid": q, "relevant_windows": [s[:2] for s in spans]} for q, spans in gts.items()],
                                 submission)
    loc = ours["localization"]
    assert 100 * loc["R1@0.5"] == pytest.approx(ref["R1@0.5"]) and 100 * loc["R1@0.7"] == pytest.approx(ref["R1@0.7"])
    assert 100 * loc["mAP"] == pytest.approx(ref["mAP"], abs=0.01)  # ours is rounded to 4 decimals
    assert 0 < ref["mAP"] < 100 and ref["R1@0.5"] == 75.0
    assert loc["Joint"] == 0.5  # q1 and q4: q2's top-1 overlaps fear but says sadness, q3's misses
    by_length = ours["by_moment_length"]  # q1 (10 s), q2 (4 s), q4 (4 s) short; q3 (40 s) long
    assert by_length["short"]["n"] == 3 and by_length["short"]["Joint"] == pytest.approx(2 / 3, abs=1e-4)
    assert by_length["long"] == {"n": 1, "R1@0.3": 1.0, "R1@0.5": 0.0, "R1@0.7": 0.0,
                                 "mIoU": pytest.approx(0.4444, abs=1e-4), "mAP": pytest.approx(0.35, abs=1e-4),
                                 "Joint": 0.0, "Accuracy": 1.0}  # matched at tIoU 0.44 >= 0.3, emotion right


def test_calibration_scores_known_values():
    """Two bins: confidence 0.9 right half the time (gap 0.4), 0.1 never right (gap 0.1); each half the samples."""
    from evals.metrics import calibration_scores

    got = calibration_scores([0.9, 0.9, 0.1, 0.1], [True, False, False, False])
    assert got["ECE"] == pytest.approx(0.25)
    assert got["Brier"] == pytest.approx((0.01 + 0.81 + 0.01 + 0.01) / 4)
    assert got["n"] == 4 and got["accuracy"] == 0.25
    assert calibration_scores([], [])["ECE"] is None
    assert calibration_scores([1.0, 0.0], [True, False])["ECE"] == 0.0  # confidence 1.0 falls in the top bin
    # bins are (lo, hi] as Guo et al. define them: 0.5 sits with 0.45 in (0.4, 0.5], not with 0.55 in (0.5, 0.6]
    assert calibration_scores([0.5, 0.55], [True, False])["ECE"] == pytest.approx(0.5 * 0.5 + 0.5 * 0.55)
    assert calibration_scores([0.5, 0.45], [True, False])["ECE"] == pytest.approx(abs(0.5 - 0.475))
    assert calibration_scores([0.3, 0.25], [True, True])["ECE"] == pytest.approx(1 - 0.275)  # 0.3 * 10 > 3 in floats


def test_a_bootstrap_interval_of_a_share_matches_the_normal_approximation_and_repeats():
    """56 of 96 right: the normal approximation gives 0.583 +- 1.96 sqrt(p (1 - p) / n) = [0.485, 0.682]; the
    percentile bootstrap agrees within 0.02 and gives the same interval twice."""
    from evals.metrics import bootstrap_interval

    values = [1] * 56 + [0] * 40
    low, high = bootstrap_interval(values)
    assert low == pytest.approx(0.485, abs=0.02) and high == pytest.approx(0.682, abs=0.02)
    assert bootstrap_interval(values) == (low, high)


def test_resampling_people_widens_the_interval_when_a_persons_items_agree():
    """Eight clips of four people, each person's two clips both right or both wrong: resampled by person the
    interval is wider than resampled by clip, as four independent draws say less than eight."""
    from evals.metrics import bootstrap_interval

    values, people = [1, 1, 1, 1, 0, 0, 1, 1], ["a", "a", "b", "b", "c", "c", "d", "d"]
    by_clip, by_person = bootstrap_interval(values), bootstrap_interval(values, groups=people)
    assert by_person[1] - by_person[0] > by_clip[1] - by_clip[0]
    assert by_person[0] <= 0.75 <= by_person[1]
    assert bootstrap_interval([1, 1, 0], groups=["a", "a", "a"]) == (2 / 3, 2 / 3)  # one person: no spread to draw
    with pytest.raises(ValueError):
        bootstrap_interval([1, 0], groups=["a"])
