"""The emotion reasoner's fitted fusion (``agents/fusion.json``, ``studies.fit_fusion``)."""

from __future__ import annotations

import pytest

from agents.emotion import offline_judge
from agents.fusion import FUSION_FILE, HAND_FUSION, Fusion, load_fusion, resolve_fusion


def _inputs(face: dict, voice: dict, targets: list[str]) -> dict:
    return {"labels": [], "target_emotions": targets, "span": [10.0, 14.0],
            "visual": {"expression_mean": face, "frames": [], "frame_step_s": 0.25},
            "verbal": {}, "vocal": {"voice_distribution": voice}}


def test_the_shipped_fusion_maps_a_top_probability_through_its_fitted_platt_scaling():
    """The fitted fusion's confidence is Platt scaling with the two numbers and the label's intercept that
    ``agents/fusion.json`` stores (read here from the file itself; fitted in ``evals/RESULTS.md`` section 163, where
    ``tests/test_label_calibration.py`` checks the fit): a fused top probability of 0.3 is a confidence of about 0.15
    without a label's offset and 0.6 one of about 0.61, a surprise read at 0.6 about 0.59 and an anger read at 0.6
    about 0.97; the hand-set fusion passes the probability through."""
    import json
    import math

    stored = json.loads(FUSION_FILE.read_text())
    (a, b), offsets = stored["calibration"], stored["label_offsets"]
    fitted = resolve_fusion("fitted")
    assert resolve_fusion("hand") == HAND_FUSION and HAND_FUSION.confidence(0.3) == 0.3
    for p in (0.2, 0.3, 0.6, 1.0):
        assert fitted.confidence(p) == pytest.approx(1.0 / (1.0 + math.exp(-(a * p + b))), abs=1e-9)
        assert fitted.confidence(p, "fear") == pytest.approx(1.0 / (1.0 + math.exp(-(a * p + b + offsets["fear"]))))
    assert fitted.confidence(0.3) == pytest.approx(0.15, abs=0.01)
    assert fitted.confidence(0.6) == pytest.approx(0.61, abs=0.01)
    assert fitted.confidence(0.6, "surprise") == pytest.approx(0.59, abs=0.01)
    assert fitted.confidence(0.6, "anger") == pytest.approx(0.97, abs=0.01)


def test_the_fusion_is_fitted_on_people_of_the_dev_split_only():
    """The fit reads the fusion fold (``evals.data.assemble.in_fusion_fold``): whatever split field a record
    carries, no person the documented test rules put in test (CK+ subjects whose number is divisible by 3,
    RAVDESS actors 19-24; ``evals/data/SOURCES.md``) is in it, and it holds some dev people of each set."""
    from evals.data.assemble import in_fusion_fold

    def fold(name: str, n: int, split: str) -> bool:
        return in_fusion_fold(name, {"split": split, "person": f"{'S' if name == 'ckplus' else 'A'}{n:03d}",
                                     "path": f"{n}.png"})

    assert not [n for n in range(1, 1000) if fold("ckplus", n, "test")]
    assert not [n for n in range(1, 1000) if n % 3 == 0 and fold("ckplus", n, "dev")]  # even mislabelled as dev
    assert not [n for n in range(19, 25) if fold("ravdess", n, "test")]
    assert [n for n in range(1, 19) if fold("ravdess", n, "dev")] == [1, 4, 7, 10, 13, 16]
    assert any(fold("ckplus", n, "dev") for n in range(1, 200))


def test_resolve_fusion_reads_a_file_and_rejects_a_missing_one(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(Fusion(visual=1, vocal=0, verbal=0, prior=0).model_dump_json())
    assert resolve_fusion(str(path)).visual == 1
    with pytest.raises(OSError):
        resolve_fusion(str(tmp_path / "missing.json"))


def test_the_asked_emotion_no_longer_outweighs_what_face_and_voice_show():
    """A mostly neutral face and voice, asked about anger: the hand-set prior (0.15 on the asked emotion)
    turned it into anger; the fitted fusion (prior weight fitted on dev) reads it as it shows."""
    face = {"neutral": 0.45, "anger": 0.25, "sadness": 0.3}
    voice = {"neutral": 0.5, "anger": 0.3, "sadness": 0.2}
    assert offline_judge(_inputs(face, voice, ["anger"]), HAND_FUSION).emotion == "anger"
    assert offline_judge(_inputs(face, voice, ["anger"])).emotion == "neutral"


def test_the_fusion_fold_holds_dev_people_only():
    from evals.data.assemble import in_fusion_fold

    assert in_fusion_fold("ckplus", {"split": "dev", "person": "S010"})
    assert not in_fusion_fold("ckplus", {"split": "dev", "person": "S011"})
    assert not in_fusion_fold("ckplus", {"split": "test", "person": "S010"})  # test never
    actors = [a for a in range(1, 19) if in_fusion_fold("ravdess", {"split": "dev", "person": f"A{a:02d}"})]
    assert actors == [1, 4, 7, 10, 13, 16]  # three men (odd), three women (even)
    raf = [in_fusion_fold("rafdb", {"split": "dev", "person": None, "path": f"train/x/train_{i:05d}_aligned.jpg"})
           for i in range(2000)]
    assert 0.05 < sum(raf) / len(raf) < 0.15



def _draft(judged: dict[str, tuple[str, float, float, float]], cuts: list[float]) -> list[tuple[float, float, str]]:
    """``draft_moments`` over accepted candidates named in ``judged`` (clip -> emotion, start, end, support),
    each judged to its own span, asked about happiness."""
    from agents.moments import draft_moments
    from agents.schema import EmotionJudgement, VerifiedCandidate

    cands = [VerifiedCandidate(clip_id=c, start_s=s0 - 1, end_s=s1 + 1, retrieval_score=0.5, source="clips",
                               support=sup, accepted=True) for c, (_, s0, s1, sup) in judged.items()]

    def judge(c: VerifiedCandidate) -> EmotionJudgement:
        emotion, start, end, _ = judged[c.clip_id]
        return EmotionJudgement(emotion=emotion, confidence=0.6, start_s=start, end_s=end, target_probability=0.6)

    drafts, weak = draft_moments(cands, ["happiness"], cuts, top_k=5, abstain_below=0.0, judge_fn=judge)
    assert not weak
    return [(d.start_s, d.end_s, d.emotion) for d in drafts]


def test_a_span_judged_twice_with_different_emotions_is_one_moment():
    """Two clips whose judged spans snap to the same shot cuts (seen on an 11-minute loop: 102-104 s listed
    twice, once per emotion) make one moment with the better-ranked label."""
    assert _draft({"c1": ("surprise", 102.0, 104.0, 0.5), "c2": ("happiness", 102.0, 104.05, 0.9)},
                  cuts=[102.0, 104.0]) == [(102.0, 104.0, "happiness")]


def test_overlapping_spans_of_one_emotion_merge_even_with_another_reading_between_them():
    """The two happiness spans merge across the surprise read between them; the surprise, read as confidently and lying
    inside the merged moment, is the same time read twice (``agents.moments.one_reading_per_time``), so the answer
    names one feeling there (the asked one, first in a tie)."""
    got = _draft({"c0": ("happiness", 100.0, 102.5, 0.3), "c1": ("surprise", 102.2, 103.4, 0.5),
                  "c2": ("happiness", 102.4, 104.0, 0.9)}, cuts=[])
    assert got == [(100.0, 104.0, "happiness")]


def test_spans_of_one_emotion_that_meet_at_a_cut_stay_two_moments():
    """Two shots read as the same emotion, one after the other (two people surprised in turn): two moments, each its
    own shot, the better-supported first; spans that meet inside a shot still merge."""
    got = _draft({"c0": ("happiness", 100.0, 102.5, 0.3), "c1": ("happiness", 102.5, 105.0, 0.9)}, cuts=[102.5])
    assert got == [(102.5, 105.0, "happiness"), (100.0, 102.5, "happiness")]
    # the same spans meeting inside a shot (the cut elsewhere) are one moment
    assert _draft({"c0": ("happiness", 100.0, 102.5, 0.3), "c1": ("happiness", 102.5, 105.0, 0.9)},
                  cuts=[99.0]) == [(100.0, 105.0, "happiness")]


def test_a_judgement_with_nothing_observed_is_no_more_confident_than_chance():
    """No face, voice or words read in the span (a gesture alone, or nothing): whatever the fusion, the
    confidence is at most chance among the eight labels; one face read lifts the cap."""
    from agents.emotion import NO_OBSERVATION_CONFIDENCE, offline_judge

    assert NO_OBSERVATION_CONFIDENCE == 0.125
    nothing = {"labels": [], "target_emotions": ["happiness"], "span": [0.0, 4.0], "visual": {}, "verbal": {},
               "vocal": {"prosody": {}}, "behaviour": {"span": [1.0, 1.5], "evidence_id": "c0.g0", "match": 0.8}}
    for fusion in (HAND_FUSION, None):  # the hand-set fusion (a prior weight) and the fitted one (none)
        assert offline_judge(nothing, fusion).confidence <= NO_OBSERVATION_CONFIDENCE
    seen = {**nothing, "visual": {"expression_mean": {"happiness": 0.9, "neutral": 0.1}, "n_faces": 1,
                                  "frame_step_s": 0.25, "frames": [{"t": 1.0, "top": "happiness", "p": 0.9}]}}
    judged = offline_judge(seen)
    assert judged.emotion == "happiness" and judged.confidence > 0.5


def test_the_reasoner_caps_any_judges_confidence_where_nothing_was_read():
    """Through the emotion reasoner's ``judge``: a candidate with no face, voice or words read (its gesture
    evidence alone) keeps at most chance confidence whether the offline judge or a model that answers 0.97
    judged it; the same model's answer on a candidate with a face read keeps its 0.97."""
    from agents.emotion import NO_OBSERVATION_CONFIDENCE, judge
    from agents.llm import OfflineReasoner
    from agents.observations import Observations, VisualObservations
    from agents.schema import EmotionJudgement, VerifiedCandidate
    from agents.state import RunContext

    class Sure:
        """A reasoning backend that is sure of happiness, whatever it is shown."""

        name = "sure"

        def structured(self, task, inputs, validate=None, images=()):
            out = EmotionJudgement(emotion="happiness", confidence=0.97, start_s=inputs["span"][0],
                                   end_s=inputs["span"][1])
            if validate is not None:
                validate(out)
            return out

    bare = VerifiedCandidate(clip_id="c3", start_s=6.0, end_s=10.0, retrieval_score=0.5, source="events",
                             support=0.4, accepted=True, observations=Observations())
    face = bare.model_copy(update={"observations": Observations(visual=VisualObservations(
        expression_mean={"happiness": 0.8, "neutral": 0.2}, n_faces=1, frame_step_s=0.25))})
    for llm in (OfflineReasoner(), Sure()):
        assert judge(RunContext(index=None, llm=llm), bare, ["happiness"]).confidence <= NO_OBSERVATION_CONFIDENCE
    assert judge(RunContext(index=None, llm=Sure()), face, ["happiness"]).confidence == 0.97


def test_replay_counts_an_answer_that_repeats_an_absent_emotion_and_scores_its_label():
    """``studies.fit_fusion.replay`` on a question about anger in a video whose only labelled shot is neutral (an
    absent-emotion record of ``collect(absent=True)``) beside an ordinary question: a face read mostly neutral, a
    little angry. A fusion that leans on the asked emotion names anger (the echo counted, the judged label wrong);
    one that reads the face names neutral (no echo, the label right). R1@0.5 and Joint count the ordinary question
    only."""
    from agents.fusion import Fusion
    from agents.observations import Observations, VisualObservations
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import replay

    def cand(clip: str, start: float, face: dict) -> VerifiedCandidate:
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=start + 4.0, retrieval_score=0.5, source="clips",
                                 support=0.5, accepted=True, observations=Observations(visual=VisualObservations(
                                     expression_mean=face, n_faces=1, frame_step_s=0.25)))

    shots = [[0.0, 4.0, "neutral"], [4.0, 8.0, "happiness"]]
    common = {"cuts": [4.0], "top_k": 5, "abstain_below": 0.0, "shots": shots}
    records = [{**common, "id": "v-absent-anger", "targets": ["anger"], "truth": [], "absent": "anger",
                "verified": [cand("c0", 0.0, {"neutral": 0.55, "anger": 0.45})]},
               {**common, "id": "v-happiness", "targets": ["happiness"], "truth": [[4.0, 8.0, "happiness"]],
                "verified": [cand("c1", 4.0, {"happiness": 0.8, "neutral": 0.2})]}]
    face_only = Fusion(visual=1.0, vocal=0.0, verbal=0.0, prior=0.0)
    leaning = replay(records, Fusion(visual=0.5, vocal=0.0, verbal=0.0, prior=0.5))
    reading = replay(records, face_only)
    assert (leaning["n_absent"], leaning["absent_echo"], reading["absent_echo"]) == (1, 1.0, 0.0)
    assert (leaning["label_accuracy"], reading["label_accuracy"]) == (0.5, 1.0)
    assert leaning["R1@0.5"] == reading["R1@0.5"] == 1.0 and leaning["Joint"] == reading["Joint"] == 1.0
    assert replay(records[1:], face_only)["absent_echo"] is None


def test_a_voice_reader_gets_the_weight_chosen_for_it():
    """The fitted fusion's vocal weight is voice8's (the default reader); whisper8, read on recorded dev clips with
    its own weight (``vocal_by_reader``, evals/RESULTS.md section 77), gets that one: a face leaning to happiness
    beside a voice sure of anger reads happiness with voice8's weight and anger with whisper8's."""
    fitted = load_fusion(FUSION_FILE)
    assert fitted.for_voice("voice8") == fitted and fitted.for_voice(None) == fitted
    whisper = fitted.for_voice("whisper8")
    assert whisper.vocal == fitted.vocal_by_reader["whisper8"] > fitted.vocal
    assert (whisper.visual, whisper.verbal, whisper.prior, whisper.calibration) == \
        (fitted.visual, fitted.verbal, fitted.prior, fitted.calibration)
    face, voice = {"happiness": 0.5, "neutral": 0.3, "anger": 0.2}, {"anger": 0.95, "neutral": 0.05}
    assert offline_judge(_inputs(face, voice, []), fitted).emotion == "happiness"
    assert offline_judge(_inputs(face, voice, []), whisper).emotion == "anger"


def test_replay_weighs_a_record_s_voice_as_the_judge_weighs_its_reader():
    """``studies.fit_fusion.replay`` judges a record collected with ``--voice-emotion whisper8`` as the pipeline does
    (``Fusion.for_voice``): a face leaning to happiness beside a voice sure of anger reads anger in a whisper8 record,
    happiness in one collected with voice8 or before records named their reader."""
    from agents.observations import Observations, VisualObservations, VocalObservations
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import replay

    face = VisualObservations(expression_mean={"happiness": 0.5, "neutral": 0.3, "anger": 0.2}, n_faces=1,
                              frame_step_s=0.25)
    voice = VocalObservations(voice_distribution={"anger": 0.95, "neutral": 0.05})
    cand = VerifiedCandidate(clip_id="c0", start_s=0.0, end_s=4.0, retrieval_score=0.5, source="clips", support=0.5,
                             accepted=True, observations=Observations(visual=face, vocal=voice))
    record = {"id": "v-0", "targets": ["anger", "happiness"], "truth": [[0.0, 4.0, "anger"]], "cuts": [], "top_k": 5,
              "abstain_below": 0.0, "shots": [[0.0, 4.0, "anger"]], "verified": [cand]}
    labels = {reader: replay([{**record, **({"voice_emotion": reader} if reader else {})}],
                             load_fusion(FUSION_FILE))["judged"][0][3] for reader in ("whisper8", "voice8", None)}
    assert labels == {"whisper8": "anger", "voice8": "happiness", None: "happiness"}


def test_a_refit_keeps_the_vocal_weight_chosen_for_whisper8_and_no_stale_label_offsets(tmp_path, capsys):
    """``studies.fit_fusion fit`` writes the weights it fits with ``vocal_by_reader`` carried from ``--carry`` (the
    shipped fusion by default: whisper8's weight is chosen by ``studies.recorded_voice``, not by the fit), and without
    the shipped label offsets, which ``studies.label_calibration fit`` refits for the new weights. A ``--carry`` that
    is not a fusion file, and records read by whisper8 (whose weight the carried fusion sets apart), are one line,
    exit status 2; so is collecting with a reader that is not one, or into a file of another reader's records."""
    import json

    from agents.observations import Observations, VisualObservations
    from agents.schema import VerifiedCandidate
    from studies.fit_fusion import main

    cand = VerifiedCandidate(clip_id="c0", start_s=0.0, end_s=4.0, retrieval_score=0.5, source="clips", support=0.5,
                             accepted=True, observations=Observations(visual=VisualObservations(
                                 expression_mean={"anger": 0.6, "neutral": 0.4}, n_faces=1, frame_step_s=0.25)))
    wrong = cand.model_copy(update={"clip_id": "c1", "start_s": 4.0, "end_s": 8.0, "observations": Observations(
        visual=VisualObservations(expression_mean={"anger": 0.7, "neutral": 0.3}, n_faces=1, frame_step_s=0.25))})
    records = tmp_path / "fold.jsonl"
    records.write_text(json.dumps({"id": "v-0", "targets": ["anger"], "truth": [[0.0, 4.0, "anger"]], "cuts": [4.0],
                                   "top_k": 5, "abstain_below": 0.0,
                                   "shots": [[0.0, 4.0, "anger"], [4.0, 8.0, "neutral"]],
                                   "verified": [c.model_dump(mode="json") for c in (cand, wrong)]}) + "\n")
    out = tmp_path / "fusion.json"
    assert main(["fit", str(records), "--step", "0.25", "--out", str(out)]) == 0
    written, shipped = load_fusion(out), load_fusion(FUSION_FILE)
    assert written.vocal_by_reader == shipped.vocal_by_reader == {"whisper8": 0.4}
    assert written.label_offsets == {} and shipped.label_offsets
    whisper = tmp_path / "whisper8.jsonl"
    whisper.write_text(json.dumps({**json.loads(records.read_text()), "voice_emotion": "whisper8"}) + "\n")
    capsys.readouterr()
    assert main(["fit", str(records), "--step", "0.25", "--out", str(out), "--carry", str(records)]) == 2
    assert main(["fit", str(whisper), "--step", "0.25", "--out", str(out)]) == 2
    assert main(["collect", "--bench", str(records), "--out", str(out), "--voice-emotion", "voice9"]) == 2
    assert main(["collect", "--bench", str(records), "--out", str(whisper)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("error: ") for line in err)
    for line, said in zip(err, ("not a fusion", "records read with --voice-emotion whisper8",
                                "unknown voice emotion backend 'voice9'",
                                "holds records read with --voice-emotion whisper8"), strict=True):
        assert said in line


def test_an_open_question_placed_by_nothing_takes_the_faces_span_not_the_words():
    """"How does someone feel?" on CREMA-D's joined videos: the words said in a clip ("It's eleven o'clock", 14.4-15.6
    s) set the moment of a question about speech; an open question that names no speech spans the feeling from its
    onset to its offset instead (section 145: five top moments cut to their line fell under tIoU 0.5 of their clip)."""
    from tools.core.schema import AFFECTNET8

    seen = _inputs({**{k: 0.02 for k in AFFECTNET8}, "disgust": 0.86}, {}, [])
    seen["visual"]["frames"] = [{"t": 10.125 + 0.25 * n, "top": "disgust", "p": 0.8} for n in range(16)]  # 4 fps
    seen["visual"]["shown_s"] = {"disgust": [10.1, 13.9]}
    seen["verbal"] = {"span": [11.4, 12.6], "query_similarity": 0.2}
    assert (offline_judge(seen).start_s, offline_judge(seen).end_s) == (11.4, 12.6)  # about speech: its words
    judged = offline_judge({**seen, "feeling_only": True})
    assert judged.emotion == "disgust" and (judged.start_s, judged.end_s) == (10.1, 13.9)


def test_a_label_the_voice_carries_keeps_the_candidates_span_and_one_the_words_carry_takes_theirs():
    """No face shows the label: the words set the span when they read it at least as strongly as the voice (weighted
    as fused), else the candidate's span stays, since the voice was read over the clip's speech, not over the few
    words the recogniser caught ("Dogs are sitting by", 12.1-12.8 s, in a 10.8-14.3 s shot the voice reads sad)."""
    face = {"neutral": 0.4, "sadness": 0.38, "fear": 0.22}  # each frame's top label neutral: no face shows sadness
    voice = {"sadness": 0.8, "neutral": 0.2}
    sad_voice = {**_inputs(face, voice, ["sadness"]),
                 "verbal": {"emotion_distribution": {"neutral": 0.4, "sadness": 0.2, "anger": 0.4},
                            "span": [12.1, 12.8]}}
    sad_voice["visual"]["frames"] = [{"t": t, "top": "neutral", "p": 0.4} for t in (10.5, 11.5, 12.5, 13.5)]
    judged = offline_judge(sad_voice)
    assert judged.emotion == "sadness" and (judged.start_s, judged.end_s) == (10.0, 14.0)
    sad_words = {**sad_voice, "vocal": {"voice_distribution": {"neutral": 0.7, "sadness": 0.3}},
                 "verbal": {**sad_voice["verbal"], "emotion_distribution": {"sadness": 0.9, "neutral": 0.1}}}
    judged = offline_judge(sad_words)
    assert judged.emotion == "sadness" and (judged.start_s, judged.end_s) == (12.1, 12.8)
    # weighted as fused: words at 0.3 (x 0.15 = 0.045) outweigh a voice at 0.8 (x 0.05 = 0.04), though 0.3 < 0.8
    from agents.emotion import observed, words_carry
    from agents.fusion import load_fusion

    fitted = load_fusion()
    assert (fitted.verbal, fitted.vocal) == (0.15, 0.05)  # a pin of agents/fusion.json, which this example rests on
    weighed = {**sad_voice, "verbal": {**sad_voice["verbal"], "emotion_distribution": {"sadness": 0.3, "neutral": 0.7}}}
    assert words_carry(observed(weighed), fitted, "sadness") and not words_carry(observed(sad_voice), fitted, "sadness")


def test_the_missing_modality_study_groups_candidates_by_what_was_seen(tmp_path):
    """``studies.missing_modalities`` on a records file in ``studies.fit_fusion collect``'s form: a shown face, a
    face-less shot whose voice reads its (sad) label, and a face-less shot asked about sadness whose voice leans to
    happiness, labelled by the question's own emotion: each in its group, scored with the judge's own confidence;
    ``--drop-faces 1`` reads the face-less; ``--accepted`` keeps the accepted."""
    import json

    from agents.emotion import judge_inputs
    from agents.observations import Observations, VisualObservations, VocalObservations
    from agents.schema import VerifiedCandidate
    from studies.missing_modalities import GROUPS, evaluate

    def cand(clip: str, start: float, face: dict, voice: dict) -> dict:
        obs = Observations(visual=VisualObservations(expression_mean=face, n_faces=1 if face else 0, frame_step_s=0.25),
                           vocal=VocalObservations(voice_distribution=voice or None))
        return VerifiedCandidate(clip_id=clip, start_s=start, end_s=start + 4.0, retrieval_score=0.5, source="clips",
                                 support=0.5, accepted=True, observations=obs).model_dump()

    shots = [[0.0, 4.0, "sadness"], [4.0, 8.0, "sadness"], [8.0, 12.0, "happiness"]]
    record = {"id": "v-sadness", "targets": ["sadness"], "cuts": [4.0, 8.0], "top_k": 5, "abstain_below": 0.0,
              "truth": [[0.0, 4.0, "sadness"]], "shots": shots,
              "verified": [cand("c0", 0.0, {"sadness": 0.7, "neutral": 0.3}, {"neutral": 1.0}),
                           cand("c1", 4.0, {}, {"sadness": 0.9, "neutral": 0.1}),
                           cand("c2", 8.0, {}, {"happiness": 0.4, "neutral": 0.35, "sadness": 0.25})]}
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(record) + "\n")
    result = evaluate([path])["files"]["records.jsonl"]
    assert [result[g]["n"] for g in GROUPS] == [1, 1, 1] and result["all"]["n"] == 3
    assert result[GROUPS[0]]["accuracy"] == result[GROUPS[1]]["accuracy"] == 1.0 and result[GROUPS[2]]["accuracy"] == 0
    last = VerifiedCandidate.model_validate(record["verified"][2])
    judged = offline_judge(judge_inputs(last, ["sadness"]))
    assert judged.emotion == "sadness" and result[GROUPS[2]]["mean_confidence"] == round(judged.confidence, 3)
    assert result[GROUPS[2]]["Brier"] == round(judged.confidence ** 2, 3)  # wrong: the square of its confidence
    blind = evaluate([path], drop_faces=1.0)["files"]["records.jsonl"]
    assert GROUPS[0] not in blind and blind["all"]["n"] == 3
    record["verified"][1]["accepted"] = False
    path.write_text(json.dumps(record) + "\n")
    assert evaluate([path], accepted=True)["files"]["records.jsonl"]["all"]["n"] == 2
    record["verified"][0]["accepted"] = record["verified"][2]["accepted"] = False
    path.write_text(json.dumps(record) + "\n")
    assert evaluate([path], accepted=True)["files"]["records.jsonl"]["all"] == {"n": 0}  # nothing to score
    with pytest.raises(FileNotFoundError):
        evaluate([tmp_path / "missing.jsonl"])


def test_a_second_asked_emotion_the_question_does_not_name_ranks_below_the_first():
    """"when does someone get a kick out of something?" reads happiness, then surprise. A surprised face showed more of
    the two summed than a smiling one, so the surprise came first; weighed as ``agents.emotion.target_weights`` weighs
    them, the smile ranks first, and the judged labels are the same either way."""
    from agents.emotion import target_weights

    targets = ["happiness", "surprise"]
    smile = _inputs({"happiness": 0.6, "neutral": 0.4}, {}, targets)
    gasp = _inputs({"surprise": 0.9, "neutral": 0.1}, {}, targets)
    weights = target_weights("when does someone get a kick out of something?", targets)
    assert weights == [1.0, 0.5]
    assert offline_judge(gasp).target_probability > offline_judge(smile).target_probability
    weighed = [offline_judge({**x, "target_weights": weights}) for x in (smile, gasp)]
    assert weighed[0].target_probability > weighed[1].target_probability
    assert [j.emotion for j in weighed] == ["happiness", "surprise"]


def test_a_face_seen_in_one_frame_of_a_shot_does_not_cut_the_moment_to_that_frame():
    """A 3.6 s needle shot whose face the detector found in 1 of its 14 frames at 4 fps (a composed 5-minute
    development video) was cut to that frame (then to 1 s); the faces place a moment only where they were seen in at
    least half the frames read. Seen in every frame, the same face showing anger for its first second places it."""
    span = [32.0, 35.6]

    def shot(times: list[float], angry: list[float]) -> dict:
        frames = [{"t": t, "top": "anger" if t in angry else "neutral", "p": 0.9} for t in times]
        return {**_inputs({"anger": 0.9, "neutral": 0.1}, {}, ["anger"]), "span": span,
                "visual": {"expression_mean": {"anger": 0.9, "neutral": 0.1}, "frames": frames, "frame_step_s": 0.25,
                           "shown_s": {"anger": [angry[0] - 0.125, angry[-1] + 0.125]}}}

    once = offline_judge(shot([32.125], [32.125]))
    assert (once.emotion, once.start_s, once.end_s) == ("anger", 32.0, 35.6)
    every = [round(32.125 + 0.25 * n, 3) for n in range(14)]
    held = offline_judge(shot(every, every[:4]))
    assert (held.emotion, held.start_s, held.end_s) == ("anger", 32.0, 33.0)
    # a bystander (person 1) seen in every frame does not stand in for the angry face (person 0) seen once
    crowd = shot([32.125], [32.125])
    crowd["visual"]["frames"] = [{**crowd["visual"]["frames"][0], "person": 0},
                                 *({"t": t, "top": "neutral", "p": 0.8, "person": 1} for t in every)]
    assert (offline_judge(crowd).start_s, offline_judge(crowd).end_s) == (32.0, 35.6)


def test_the_weights_reach_the_judge_only_when_a_target_counts_less():
    from agents.emotion import judge_inputs
    from agents.schema import VerifiedCandidate

    cand = VerifiedCandidate(clip_id="c", start_s=1.0, end_s=4.0, retrieval_score=0.5, source="clips", support=0.5,
                             accepted=True)
    assert judge_inputs(cand, ["happiness", "surprise"], weights=[1.0, 0.5])["target_weights"] == [1.0, 0.5]
    assert "target_weights" not in judge_inputs(cand, ["fear", "surprise"], weights=[1.0, 1.0])


def test_a_face_is_named_against_its_persons_usual_reading_and_ranked_as_read():
    """Where the verifier read a face against its person's usual reading (``departure_mean``, the person seen long
    enough for one), the label is named by that; the moment is still ranked by the asked emotion's probability as read
    (so no moment moves for it), and the confidence takes the label's probability as read or against the usual reading,
    whichever is higher (``agents.fusion.judged_label``; ``evals/RESULTS.md`` section 166), through the calibration of
    a label the departure named (section 167)."""
    from agents.fusion import fuse, judged_label
    from tools.core.schema import AFFECTNET8

    read = {**{k: 0.02 for k in AFFECTNET8}, "surprise": 0.46, "anger": 0.30, "neutral": 0.12}
    departed = {**{k: 0.03 for k in AFFECTNET8}, "anger": 0.44, "surprise": 0.28, "neutral": 0.10}
    as_read = _inputs(read, {}, ["anger"])
    named = {**as_read, "visual": {**as_read["visual"], "departure_mean": departed}}
    plain, against = offline_judge(as_read), offline_judge(named)
    assert (plain.emotion, against.emotion) == ("surprise", "anger")
    assert against.target_probability == plain.target_probability  # ranked as read
    fusion = load_fusion()
    fused, label, p = judged_label(named, fusion)
    assert label == "anger" and fused == pytest.approx(fuse(as_read, fusion))
    i = AFFECTNET8.index("anger")
    assert p == pytest.approx(max(fused[i], fuse(named, fusion, named=True)[i]))
    assert against.confidence == round(fusion.confidence(p, "anger", departed=True), 3)  # its own calibration (167)
    # a face that departs less than it reads keeps its label and the confidence it had as read
    flatter = {**as_read, "visual": {**as_read["visual"], "departure_mean": {
        **{k: 0.06 for k in AFFECTNET8}, "surprise": 0.34, "anger": 0.20, "neutral": 0.10}}}
    kept = offline_judge(flatter)
    assert kept.emotion == "surprise" and kept.confidence == plain.confidence
    assert fuse(flatter, fusion, named=True)[AFFECTNET8.index("surprise")] < fused[AFFECTNET8.index("surprise")]
    # a question about a gesture (no feeling asked) reads the faces of whoever makes it, around it, as read
    about = {**named, "target_emotions": [], "behaviour": {"span": [11.0, 12.0], "match": 0.9, "expression_mean": read}}
    assert offline_judge(about).emotion == "surprise"
