"""The confidence of a label the departure named (``studies.departed_calibration``, ``Fusion.departed_calibration``;
``evals/RESULTS.md`` section 167), checked on the judged candidates it was fitted on (committed as rows)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agents.emotion import offline_judge
from agents.fusion import FUSION_FILE, departed, load_fusion
from evals.metrics import calibration_scores
from studies.departed_calibration import fit_departed, held_out, main, with_departed
from tools.core.schema import AFFECTNET8

RESULTS = Path(__file__).resolve().parents[1] / "evals" / "results"
ROWS = RESULTS / "departed_calibration_rows_dev.jsonl"
REPORT = json.loads((RESULTS / "departed_calibration_dev.json").read_text())["study"]


def _rows() -> list[dict]:
    return [json.loads(line) for line in ROWS.read_text().splitlines()]


def test_the_shipped_departed_calibration_is_the_chosen_c_fitted_on_the_committed_candidates():
    """Refitting at the C the study chose on the committed judged candidates of the three recorded development sets
    gives the two numbers ``agents/fusion.json`` ships; the row counts are those the result file reports."""
    rows = _rows()
    shipped = json.loads(FUSION_FILE.read_text())
    assert {r["set"] for r in rows} == set(REPORT["sets"])
    for name, s in REPORT["sets"].items():
        part = [r for r in rows if r["set"] == name]
        assert (len(part), sum(r["departed"] for r in part)) == (s["judged"], s["named by the departure"])
    assert list(fit_departed(rows, REPORT["chosen"]["C"])) == pytest.approx(shipped["departed_calibration"], abs=2e-3)


def test_a_label_the_departure_named_is_stated_nearer_how_often_it_is_right_on_people_left_out():
    """On each set of the Javanese people (five development people; the five read as test in section 166, development
    data since), the labels the departure named are right more often than the calibration before states by more than
    0.1; with a departed calibration fitted on the other sets (other people) the confidence of every judged candidate
    of the set is nearer how often it is right (ECE, 10 bins) by more than 0.05, and that of the named labels by
    more than 0.2."""
    rows, fusion = _rows(), with_departed(load_fusion(), None)
    outside = held_out(rows, fusion, REPORT["chosen"]["C"])
    from studies.label_calibration import confidences

    for name in ("javanese_dev", "javanese_former_test"):
        part = [r for r in rows if r["set"] == name]
        named = [i for i, r in enumerate(part) if r["departed"]]
        right = [r["right"] for r in part]
        before, after = confidences(part, fusion), outside[name]
        assert np.mean([right[i] for i in named]) > np.mean([before[i] for i in named]) + 0.1
        assert calibration_scores(after, right)["ECE"] < calibration_scores(before, right)["ECE"] - 0.05
        assert calibration_scores([after[i] for i in named], [right[i] for i in named])["ECE"] < \
            calibration_scores([before[i] for i in named], [right[i] for i in named])["ECE"] - 0.2
        unnamed = [i for i in range(len(part)) if i not in named]
        assert [after[i] for i in unnamed] == [before[i] for i in unnamed]  # every other label as before


def test_only_a_label_the_departure_named_takes_the_departed_calibration():
    """``Fusion.confidence`` maps a departed label's probability x through ``departed_calibration`` (a, b) alone,
    1 / (1 + exp(-(a x + b))), with no label offset; any other judgement, and every judgement of a fusion without
    one, keeps the label's calibration; ``departed`` says whether the faces as read name another top label."""
    fusion = load_fusion()
    a, b = fusion.departed_calibration
    for x in (0.2, 0.27, 0.4):
        assert fusion.confidence(x, "anger", True) == pytest.approx(1 / (1 + math.exp(-(a * x + b))))
        assert fusion.confidence(x, "anger", False) == with_departed(fusion, None).confidence(x, "anger", True)
    assert fusion.confidence(0.27, "sadness", True) > fusion.confidence(0.27, "sadness") + 0.15
    as_read = np.array([0.5, 0.1, 0.2, 0.1, 0.05, 0.02, 0.02, 0.01])
    assert departed(as_read, "sadness") and not departed(as_read, AFFECTNET8[0])


def test_the_judge_states_a_departed_label_with_its_own_calibration():
    """Face read as surprise, read against the person's usual reading as anger: the offline judge names anger and
    states it through the departed calibration; a face whose departure keeps its label keeps the label's calibration."""
    read = {**{k: 0.02 for k in AFFECTNET8}, "surprise": 0.46, "anger": 0.30, "neutral": 0.12}
    against = {**{k: 0.03 for k in AFFECTNET8}, "anger": 0.44, "surprise": 0.28, "neutral": 0.10}
    inputs = {"labels": [], "target_emotions": ["anger"], "span": [10.0, 14.0], "verbal": {}, "vocal": {},
              "visual": {"expression_mean": read, "departure_mean": against, "frames": [], "frame_step_s": 0.25}}
    from agents.fusion import judged_label

    fusion = load_fusion()
    fused, label, x = judged_label(inputs, fusion)
    judged = offline_judge(inputs, fusion)
    assert (label, judged.emotion) == ("anger", "anger") and departed(fused, "anger")
    assert judged.confidence == round(fusion.confidence(x, "anger", True), 3) != round(fusion.confidence(x, "anger"), 3)
    kept = {**inputs, "visual": {**inputs["visual"], "departure_mean": {**against, "anger": 0.1, "surprise": 0.62}}}
    fused, label, x = judged_label(kept, fusion)
    assert label == "surprise" and offline_judge(kept, fusion).confidence == round(fusion.confidence(x, "surprise"), 3)


def test_the_study_refuses_bad_sets_in_one_line(tmp_path, capsys):
    """One set, a missing records file, and sets of records with no judged candidate: each one line, exit status 2."""
    one = tmp_path / "one.jsonl"
    one.write_text("")
    runs = [["fit", "--set", f"a={one}"], ["fit", "--set", f"a={tmp_path / 'missing.jsonl'}", "--set", f"b={one}"],
            ["fit", "--set", f"a={one}", "--set", f"b={one}"]]
    assert [main(r) for r in runs] == [2] * len(runs)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == len(runs) and all(line.startswith("error: ") for line in err)
    for line, said in zip(err, ("needs two sets or more", "missing.jsonl: no such records file",
                                "no judged candidate"), strict=True):
        assert said in line


def _run(folder: Path, moments: list[tuple[float, float, str, float]]) -> Path:
    folder.mkdir()
    (folder / "predictions.jsonl").write_text(json.dumps({"id": "v-anger", "method": "graph", "moments": [
        {"start_s": s, "end_s": e, "emotion": emo, "score": c} for s, e, emo, c in moments]}) + "\n")
    return folder


def test_answers_scores_each_answered_moment_by_the_labelled_moment_it_overlaps_most(tmp_path, capsys):
    """A bench video with an angry moment (0-4 s) and a neutral one (4-10 s); an answer of three moments: anger over
    1-5 s (mostly the angry one: right), neutral over 3-9 s (mostly the neutral one: right), anger over 12-14 s (no
    labelled moment: not scored). Two runs with the same moments and other confidences are paired; runs whose moments
    differ are refused in one line."""
    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"id": "v-anger", "video": "v.mp4", "query": "when is she angry?", "moments": [
        {"start_s": 0.0, "end_s": 4.0, "emotion": "anger"}, {"start_s": 4.0, "end_s": 10.0, "emotion": "neutral"}]})
        + "\n")
    before = _run(tmp_path / "before", [(1.0, 5.0, "anger", 0.2), (3.0, 9.0, "neutral", 0.4),
                                        (12.0, 14.0, "anger", 0.9)])
    after = _run(tmp_path / "after", [(1.0, 5.0, "anger", 0.8), (3.0, 9.0, "neutral", 0.9),
                                      (12.0, 14.0, "anger", 0.1)])
    from studies.departed_calibration import answered, answers

    rows = answered(bench, before)
    assert [(r["rank"], r["span"], r["right"], r["confidence"]) for r in rows] == [
        (0, [1.0, 5.0], True, 0.2), (1, [3.0, 9.0], True, 0.4)]
    report = answers(bench, {"before": before, "after": after})["runs"]
    assert report["before"]["all"]["accuracy"] == 1.0 and report["after"]["all"]["n"] == 2
    assert report["after"]["all"]["mean_confidence"] == pytest.approx(0.85)
    assert report["after"]["top"]["n"] == 1 and report["after"]["all"]["ECE"] < report["before"]["all"]["ECE"]
    # paired over the one video: after's ECE (0.15) minus before's (0.70), every resample alike
    assert report["after"]["all"]["minus the first, 95 % interval"]["ECE"] == pytest.approx([-0.55, -0.55])
    bad = [_run(tmp_path / "moved", [(1.0, 6.0, "anger", 0.8)]),
           _run(tmp_path / "relabelled", [(1.0, 5.0, "fear", 0.2), (3.0, 9.0, "neutral", 0.4)]),
           _run(tmp_path / "off", [(20.0, 24.0, "anger", 0.8)])]
    (bad[2].parent / "unknown").mkdir()
    (bad[2].parent / "unknown" / "predictions.jsonl").write_text(json.dumps({"id": "w-fear", "moments": []}) + "\n")
    (bad[2].parent / "unscored").mkdir()
    (bad[2].parent / "unscored" / "predictions.jsonl").write_text(json.dumps(
        {"id": "v-anger", "moments": [{"start_s": 1.0, "end_s": 5.0, "emotion": "anger"}]}) + "\n")
    runs = [["--run", f"a={before}", "--run", f"b={bad[0]}"], ["--run", f"a={before}", "--run", f"b={bad[1]}"],
            ["--run", f"a={bad[2]}", "--run", f"b={bad[2]}"], ["--run", f"a={bad[2].parent / 'unknown'}"],
            ["--run", f"a={bad[2].parent / 'unscored'}", "--run", f"b={before}"], ["--run", f"={before}"]]
    assert [main(["answers", "--bench", str(bench), *r]) for r in runs] == [2] * len(runs)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == len(runs) and all(line.startswith("error: ") for line in err)
    for line, said in zip(err, ("moments and labels are the same", "moments and labels are the same",
                                "overlaps a labelled moment", "is not an item of", "without start_s, end_s, emotion",
                                "give NAME=RUN"), strict=True):
        assert said in line


def test_replay_states_each_candidate_as_the_judge_does():
    """``studies.fit_fusion.replay``'s rows say what the judge's confidence was stated from
    (``agents.emotion.stated_from``): a face named against its person's usual reading (anger, read as surprise) is a
    departed row, a change point (calm to sad) and a face read as usual are not, and each row's confidence, stated
    again from its x, label and flag by ``studies.label_calibration.confidences``, is the judge's."""
    from agents.change_schema import ChangeObservations
    from agents.observations import Observations, VisualObservations
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import replay
    from studies.label_calibration import confidences, replay_rows

    read = {**{k: 0.02 for k in AFFECTNET8}, "surprise": 0.46, "anger": 0.30, "neutral": 0.12}
    against = {**{k: 0.03 for k in AFFECTNET8}, "anger": 0.44, "surprise": 0.28, "neutral": 0.10}

    def cand(clip: str, start: float, **obs) -> VerifiedCandidate:
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=start + 4.0, retrieval_score=0.5, source="clips",
                                 support=0.5, accepted=True, change_s=start + 2.0 if "change" in obs else None,
                                 observations=Observations(**obs))

    visual = {"n_faces": 1, "frame_step_s": 0.25}
    verified = [cand("c0", 0.0, visual=VisualObservations(expression_mean=read, departure_mean=against, **visual)),
                cand("c1", 4.0, visual=VisualObservations(expression_mean=read, **visual)),
                cand("c2", 8.0, visual=VisualObservations(expression_mean=read, **visual), change=ChangeObservations(
                    t_s=10.0, person=0, before={"neutral": 0.7, "sadness": 0.3},
                    after={"sadness": 0.62, "neutral": 0.38}, n_before=4, n_after=4))]
    record = {"id": "v-anger", "targets": [], "truth": [[0.0, 4.0, "anger"]], "cuts": [4.0, 8.0], "top_k": 5,
              "abstain_below": 0.0, "shots": [[0.0, 4.0, "anger"], [4.0, 8.0, "surprise"], [8.0, 12.0, "sadness"]],
              "verified": verified}
    fusion = load_fusion()
    replayed = replay([record], fusion)
    rows = replay_rows("s", "records.jsonl", replayed)
    assert sorted((r["label"], r["departed"], r["face"]) for r in rows) == [
        ("anger", True, True), ("sadness", False, False), ("surprise", False, True)]
    assert confidences(rows, fusion) == [j[1] for j in replayed["judged"]]
    change = next(r for r in rows if r["label"] == "sadness")
    assert change["x"] == pytest.approx(0.62)


def test_a_refit_of_the_label_calibration_leaves_the_named_labels_to_theirs(tmp_path):
    """``studies.label_calibration fit`` with a fusion that has a departed calibration neither fits nor scores the
    candidates whose label the departure named (they are stated by theirs), keeps that calibration and what the
    fusion's ``source`` says of it."""
    from agents.observations import Observations, VisualObservations
    from agents.schema import VerifiedCandidate
    from studies.label_calibration import DEPARTED_SOURCE, fit

    read = {**{k: 0.02 for k in AFFECTNET8}, "surprise": 0.46, "anger": 0.30, "neutral": 0.12}
    against = {**{k: 0.03 for k in AFFECTNET8}, "anger": 0.44, "surprise": 0.28, "neutral": 0.10}

    def cand(clip: str, start: float, **faces) -> dict:
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=start + 4.0, retrieval_score=0.5, source="clips",
                                 support=0.5, accepted=True, observations=Observations(visual=VisualObservations(
                                     n_faces=1, frame_step_s=0.25, **faces))).model_dump(mode="json")

    shots = [[0.0, 4.0, "anger"], [4.0, 8.0, "surprise"], [8.0, 12.0, "neutral"]]
    sets = {}
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"id": f"{name}-0", "targets": [], "truth": [], "cuts": [4.0, 8.0], "top_k": 5,
                                    "abstain_below": 0.0, "shots": shots, "verified": [
                                        cand("c0", 0.0, expression_mean=read, departure_mean=against),
                                        cand("c1", 4.0, expression_mean=read), cand("c2", 8.0, expression_mean=read)]})
                        + "\n")
        sets[name] = str(path)
    shipped = load_fusion()
    fitted, report, rows = fit(sets, shipped)
    assert sum(r["departed"] for r in rows) == 3 and report["left to the departed calibration"] == 3
    assert all(s["before (the fusion read)"]["n"] == 2 for s in report["sets"].values())
    assert fitted.departed_calibration == shipped.departed_calibration
    assert fitted.source.endswith(DEPARTED_SOURCE + shipped.source.split(DEPARTED_SOURCE)[1])
    assert fitted.source.count(DEPARTED_SOURCE) == 1 and "(evals/RESULTS.md section 163)" in fitted.source
