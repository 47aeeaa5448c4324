"""The face and voice emotion models on real labelled media, and the parts of localization they feed."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO
from tools.core.schema import AFFECTNET8

RAVDESS = REPO / "tests" / "data" / "ravdess"


def _assembled(name: str) -> Path:
    """Root of the assembled labelled sets (``evals.data.assemble``); skips when ``name`` is not there."""
    for root in (os.environ.get("AFFECTSEEK_DATA"), Path.home() / ".cache" / "affectseek" / "data"):
        if root and (Path(root) / name / "manifest.jsonl").is_file():
            return Path(root)
    pytest.skip(f"labelled set {name} not assembled (python -m evals.data.assemble; evals/data/SOURCES.md)")


def test_angry_voice_raises_arousal_over_the_same_speakers_neutral():
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import load_voice_emotion, valence_arousal

    model = load_voice_emotion()
    neutral = model.distribution(load_audio(RAVDESS / "03-01-01-01-01-01-20.flac", 16_000))
    angry = model.distribution(load_audio(RAVDESS / "03-01-05-02-01-01-20.flac", 16_000))
    assert set(neutral) == set(AFFECTNET8) and sum(neutral.values()) == pytest.approx(1.0, abs=1e-3)
    assert max(angry, key=angry.get) == "anger"
    assert max(neutral, key=neutral.get) == "neutral"
    assert valence_arousal(angry)[1] > valence_arousal(neutral)[1] + 0.3
    assert model.distribution(np.zeros(1600, np.float32)) is None  # 0.1 s: too short to read


def test_speech_recorded_at_8_khz_is_read_by_the_telephone_band_head():
    """The two RAVDESS test-actor clips band-limited as an 8 kHz recording keeps them (resampled to 8 kHz and back):
    the full-band head reads both as sadness (it reads such speech at chance, ``evals/RESULTS.md`` section 46); the
    reader for the recording sees the empty upper band and reads them with the telephone-band head, neutral and
    anger as the actor performed them. Full-band speech keeps the full-band head."""
    from scipy.signal import resample_poly

    from tools.core.media import load_audio
    from tools.perception.voice_emotion import NARROWBAND_BELOW_DB, load_voice_emotion, upper_band_db

    model = load_voice_emotion()
    for name, label in (("03-01-01-01-01-01-20.flac", "neutral"), ("03-01-05-02-01-01-20.flac", "anger")):
        full = load_audio(RAVDESS / name, 16_000)
        narrow = resample_poly(load_audio(RAVDESS / name, 8_000), 2, 1).astype(np.float32)
        assert upper_band_db(full) > NARROWBAND_BELOW_DB > upper_band_db(narrow)
        assert model.for_recording(full) is model
        as_full = model.distribution(narrow)
        reader = model.for_recording(narrow)
        as_narrow = reader.distribution(narrow)
        assert "narrowband" in reader.name and max(as_full, key=as_full.get) == "sadness"
        assert max(as_narrow, key=as_narrow.get) == label


def test_face8_gives_contempt_to_posed_contempt_faces_and_sums_to_one():
    from studies.faces import face_crops
    from tools.perception.expression import load_expression_classifier

    root = _assembled("ckplus")
    d = face_crops("ckplus", root)
    test = (d["split"] == "test") & (d["y"] == AFFECTNET8.index("contempt"))
    probs = load_expression_classifier("face8").classify_crops(d["x"][test])
    assert probs.shape == (int(test.sum()), 8) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    top2 = np.argsort(-probs, axis=1)[:, :2]
    assert (top2 == AFFECTNET8.index("contempt")).any(axis=1).mean() >= 0.75  # contempt in the top two
    fer = load_expression_classifier("fer").classify_crops(d["x"][test])
    assert fer[:, AFFECTNET8.index("contempt")].max() == 0.0  # the FER2013 model has no contempt at all


def test_face8_reads_a_real_face_in_a_video_frame():
    from tests.conftest import SAMPLE
    from tools.core.frames import iter_frames
    from tools.perception.expression import load_expression_classifier
    from tools.perception.faces import load_face_detector

    _, frame = next(iter_frames(SAMPLE, 1.0, 3.9, 4.4))  # the performer's close-up, grinning
    boxes = [b for b, _ in load_face_detector().detect(frame)]
    probs = load_expression_classifier("face8").classify(frame, boxes)
    assert probs.shape == (len(boxes), 8) and len(boxes) >= 1
    assert AFFECTNET8[int(probs[0].argmax())] == "happiness"


def test_span_edges_snap_to_a_nearby_shot_cut_only():
    from agents.moments import snap_to_cuts

    assert snap_to_cuts(3.7, 7.9, [3.76, 7.56], 2.0, 10.0) == (3.76, 7.56)
    assert snap_to_cuts(3.0, 7.9, [4.0], 2.0, 10.0) == (3.0, 7.9)  # 1 s away: kept
    assert snap_to_cuts(3.7, 3.9, [3.8], 2.0, 10.0) == (3.7, 3.9)  # both edges on one cut would empty it


def test_composed_bench_puts_each_emotion_on_its_shot(tmp_path):
    from evals import composed
    from tools.core.media import probe

    root = _assembled("ravdess")
    _assembled("ckplus"), _assembled("rafdb")
    bench = composed.build("dev", "joined", tmp_path, videos=1, root=root)
    items = [__import__("json").loads(line) for line in bench.read_text().splitlines()]
    assert sorted(i["id"].split("-")[-1] for i in items) == sorted(AFFECTNET8)
    duration = probe(tmp_path / items[0]["video"]).duration_s
    spans = sorted((i["moments"][0]["start_s"], i["moments"][0]["end_s"]) for i in items)
    assert spans[0][0] == 0.0 and abs(spans[-1][1] - duration) < 0.2 and 20 < duration < 45
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))  # shots back to back
    asked = composed.build("dev", "joined", tmp_path / "questions", videos=1, root=root, wording="questions")
    asked_items = [__import__("json").loads(line) for line in asked.read_text().splitlines()]
    dev_questions = composed.question_templates("dev")
    assert [i["moments"] for i in asked_items] == [i["moments"] for i in items]
    assert all(i["query"] in {composed.ungendered(q) for q in dev_questions[i["id"].split("-")[-1]]}
               for i in asked_items)
    assert (tmp_path / "questions" / items[0]["video"]).read_bytes() == (tmp_path / items[0]["video"]).read_bytes()
    written = composed.build("dev", "joined", tmp_path / "written", videos=1, root=root, wording="questions",
                             as_written=True)
    written_items = [__import__("json").loads(line) for line in written.read_text().splitlines()]
    assert [composed.ungendered(i["query"]) for i in written_items] == [i["query"] for i in asked_items]
    assert all(i["query"] in dev_questions[i["id"].split("-")[-1]] for i in written_items)


def test_a_longer_needle_bench_holds_its_needles_apart_with_every_emotion_before_any_repeats(tmp_path):
    """The long form at 1 minute with 9 needles: 16 shots, the needles on separate shots inside the video, the
    seven emotional labels all shown before two of them come again; each item lists every needle of its emotion."""
    import json
    import random

    from evals import composed
    from tools.core.media import probe

    rounds = composed.needle_emotions(random.Random(0), 16)
    assert sorted(rounds[:7]) == sorted(composed.EMOTIONAL) and sorted(rounds[7:14]) == sorted(composed.EMOTIONAL)
    root = _assembled("ravdess")
    _assembled("ckplus"), _assembled("rafdb")
    bench = composed.build("dev", "long", tmp_path, videos=1, root=root, minutes=1, needles=9)
    items = [json.loads(line) for line in bench.read_text().splitlines()]
    moments = [m for i in items for m in i["moments"]]
    assert len(items) == 7 and len(moments) == 9 and all(m["emotion"] == i["id"].split("-")[-1]
                                                         for i in items for m in i["moments"])
    starts = sorted(m["start_s"] for m in moments)
    assert len(set(starts)) == 9 and starts[0] > 0 and max(m["end_s"] for m in moments) < probe(
        tmp_path / items[0]["video"]).duration_s
    with pytest.raises(ValueError, match="do not fit"):
        composed.build("dev", "long", tmp_path / "full", videos=1, root=root, minutes=1, needles=13)


def _mixed_manifests(root: Path) -> None:
    """Assembled-set manifests (no files) of every set ``--faces mixed`` draws from, two records per label, split
    test: CK+ without neutral, RAF-DB, FER2013 and RAVDESS without contempt."""
    import json

    from evals import composed

    for name, labels in (("ckplus", composed.EMOTIONAL), ("rafdb", [e for e in AFFECTNET8 if e != "contempt"]),
                         ("fer2013", [e for e in AFFECTNET8 if e != "contempt"]),
                         ("ravdess", [e for e in AFFECTNET8 if e != "contempt"])):
        (root / name).mkdir()
        (root / name / "manifest.jsonl").write_text("".join(
            json.dumps({"path": f"{lab}/{name}_{k}.png", "label": lab, "split": "test", "person": f"P{k}"}) + "\n"
            for lab in labels for k in range(2)))


def test_mixed_faces_show_every_class_from_several_sets_and_keep_the_ckplus_draws(tmp_path):
    """``--faces mixed`` pools each emotion's faces per set (CK+, RAF-DB, FER2013 where they hold it; neutral not from
    CK+, contempt from CK+ alone) and draws the set before the image; ``ckplus`` keeps one pool per emotion, so a seed
    draws what it drew before; a set without an emotion it must show is one clear error."""
    import random

    from evals import composed

    _mixed_manifests(tmp_path)
    mixed, voices = composed._pools("test", tmp_path, "mixed")
    sets = {e: sorted(Path(p[0]).parent.parent.name for p in mixed[e]) for e in AFFECTNET8}
    assert sets["happiness"] == ["ckplus", "fer2013", "rafdb"] and sets["neutral"] == ["fer2013", "rafdb"]
    assert sets["contempt"] == ["ckplus"] and voices["contempt"] == voices["neutral"]
    assert all(Path(p).parent.name == e for e in AFFECTNET8 for pool in mixed[e] for p in pool)
    drawn = {Path(composed._face_pool(mixed["anger"], random.Random(k))[0]).parent.parent.name for k in range(40)}
    assert drawn == {"ckplus", "fer2013", "rafdb"}
    ck, _ = composed._pools("test", tmp_path, "ckplus")
    assert all(len(ck[e]) == 1 for e in AFFECTNET8)
    rng = random.Random(0)
    composed._face_pool(ck["fear"], rng)
    assert rng.random() == random.Random(0).random()  # one pool: no draw spent on choosing it
    (tmp_path / "fer2013" / "manifest.jsonl").write_text("")
    with pytest.raises(ValueError, match="fer2013 neutral"):
        composed._pools("test", tmp_path, "mixed")


def test_ferplus_agreed_draws_leave_out_the_fer2013_faces_the_taggers_call_otherwise(tmp_path):
    """``--ferplus-agreed``: of each FER2013 label's two faces the one FER+'s majority calls another emotion is never
    drawn, the other is; the draw (``evals.composed.draw``) repeats with its seed, and a missing ``ferplus.npz`` is a
    clear error."""
    from evals import composed
    from evals.data.assemble import load_manifest

    _mixed_manifests(tmp_path)
    with pytest.raises(FileNotFoundError, match="evals.data.ferplus"):
        composed._pools("test", tmp_path, "mixed", agreed=True)
    recs = load_manifest(tmp_path, "fer2013")
    votes = np.zeros((len(recs), 8), int)
    for i, r in enumerate(recs):  # the first face of each label agreed, the second called happy (or sad if happy)
        other = "sadness" if r["label"] == "happiness" else "happiness"
        votes[i, AFFECTNET8.index(r["label"] if r["path"].endswith("_0.png") else other)] = 8
    np.savez(tmp_path / "ferplus.npz", votes=votes, unknown=np.zeros(len(recs), int),
             not_face=np.zeros(len(recs), int), matched=np.ones(len(recs), bool), rms=np.zeros(len(recs)))
    faces, _ = composed._pools("test", tmp_path, "mixed", agreed=True)
    fer = [p for e in AFFECTNET8 for pool in faces[e] for p in pool if "/fer2013/" in p]
    assert sorted(Path(p).name for p in fer) == ["fer2013_0.png"] * 7
    plan = composed.draw("test", "long", 2, seed=5, root=tmp_path, minutes=2, needles=4, faces_from="mixed",
                         agreed=True)
    assert plan == composed.draw("test", "long", 2, seed=5, root=tmp_path, minutes=2, needles=4,
                                 faces_from="mixed", agreed=True)
    drawn = [face for video in plan for face, _, _ in video]
    assert len(drawn) == 2 * 32 and not [f for f in drawn if f.endswith("fer2013_1.png")]
    assert [f for f in drawn if f.endswith("fer2013_0.png")]
    assert all(Path(face).parent.name == emotion for video in plan for face, _, emotion in video)


def test_composed_bench_options_that_would_do_nothing_are_one_line_errors(tmp_path, capsys):
    """``--ferplus-agreed`` with a face set that draws no FER2013 face, and ``--as-written`` without the labelled
    questions' wording, would build the bench as if they were not given: exit 2 with one line, nothing written."""
    from evals import composed

    for extra, says in ((["--ferplus-agreed"], "--faces ckplus draws none"),
                        (["--as-written"], "it needs --wording questions")):
        try:
            code = composed.main(["--split", "test", "--out", str(tmp_path / "bench"), "--data", str(tmp_path), *extra])
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "bench").exists()


def test_words8_reads_spoken_feelings_and_gives_contempt_nothing():
    from tools.perception.text_emotion import load_text_emotion

    words = load_text_emotion()
    assert words.name.startswith("words8-head:")
    sad = words.distribution("I miss her so much, I just want to cry.")
    angry = words.distribution("Get out of my house right now! I can't stand you!")
    assert set(sad) == set(AFFECTNET8) and sum(sad.values()) == pytest.approx(1.0, abs=1e-3)
    assert max(sad, key=sad.get) == "sadness"
    assert max(angry, key=angry.get) == "anger"
    assert sad["contempt"] < 0.01  # MELD has no contempt: the words never vote for it


def test_words8_reads_meld_test_utterances_far_better_than_the_lexicon_scorer():
    from studies.train_text import meld_features, scores
    from tools.perception.heads import LinearHead
    from tools.perception.text_emotion import WORDS8_HEAD, load_text_emotion

    d = meld_features(_assembled("meld"))
    test = d["fold"] == "test"
    head = scores(d["y"][test], LinearHead.load(WORDS8_HEAD).probs(d["x"][test]).argmax(1))
    sample = np.flatnonzero(test)[::10]  # every tenth test utterance: 261, enough to separate the two
    lexicon = load_text_emotion()
    lex = [max(p, key=p.get) for p in map(lexicon.lexicon_distribution, d["text"][sample].tolist())]
    lex_scores = scores(d["y"][sample], np.asarray([AFFECTNET8.index(k) for k in lex]))
    assert head["weighted_f1"] >= 0.45  # measured 0.515 (evals/results/words_test.json)
    assert head["weighted_f1"] > lex_scores["weighted_f1"] + 0.15


def test_a_voice_the_recogniser_cannot_read_is_still_read_over_its_speech():
    """The German half of the licence reading: the offline English-only recogniser keeps no words there
    (its guards drop invented English), yet the index reads the voice over the detected speech."""
    from indexing.clips import clip_voice, voice_span
    from tools.core.media import load_audio
    from tools.perception.asr import load_asr
    from tools.perception.voice_emotion import load_voice_emotion

    audio = load_audio(REPO / "tests" / "data" / "multilingual.mp3", 16_000)
    transcript = load_asr("faster-whisper").transcribe(audio)
    german = (30.0, 60.0)  # tests/data/README.md: the German reading
    assert voice_span(transcript, *german, by="words") is None
    start, end = voice_span(transcript, *german)
    assert german[0] <= start < end <= german[1] and end - start > 5.0
    read = clip_voice(load_voice_emotion(), audio, transcript, *german)
    assert read is not None and sum(read.values()) == pytest.approx(1.0, abs=1e-3)


def test_the_crema_d_reader_never_matches_the_reserved_actor_and_names_the_emotion():
    from evals.data.sources import _CREMAD, CREMAD_LABELS

    assert _CREMAD.search("Emotion/convolutional_rnn/hdf5/1001_DFA_ANG_XX.hdf5") is None  # reserved: never read
    m = _CREMAD.search("Emotion/convolutional_rnn/hdf5/1005_IEO_ANG_HI.hdf5")
    assert (m.group(1), m.group(2), CREMAD_LABELS[m.group(3)]) == ("1005_IEO_ANG_HI.hdf5", "1005", "anger")
    assert _CREMAD.search("hdf5/1005_IEO_XYZ_HI.hdf5") is None


def test_a_stored_crema_d_clip_becomes_a_video_with_its_speech(tmp_path):
    from evals.data.assemble import load_manifest
    from evals.data.cremad import write_clip
    from tools.core.media import load_audio, probe

    rec = load_manifest(_assembled("cremad"), "cremad")[0]
    duration = write_clip(Path(rec["path"]), tmp_path / "clip.mp4")
    info = probe(tmp_path / "clip.mp4")
    assert info.has_audio and abs(info.duration_s - duration) < 0.1 and (info.width, info.height) == (128, 128)
    audio = load_audio(tmp_path / "clip.mp4", 16_000)
    assert np.abs(audio).max() > 0.01  # the actor's speech, not silence


def test_whisper8_reads_the_test_actor_angry_and_calm_the_same_on_every_run():
    """whisper8 (Whisper's encoder and the head fitted on three corpora that hold no RAVDESS test actor,
    ``tools/models/WHISPER8.md``) reads the test actor's angry take as anger and the neutral one as neutral,
    gives contempt (in none of its corpora) nothing, and the same features twice for the same audio; it refuses
    audio that is not 16 kHz."""
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import WhisperVoiceFeatures, load_voice_emotion, valence_arousal

    model = load_voice_emotion("whisper8")
    neutral_audio = load_audio(RAVDESS / "03-01-01-01-01-01-20.flac", 16_000)
    neutral = model.distribution(neutral_audio)
    angry = model.distribution(load_audio(RAVDESS / "03-01-05-02-01-01-20.flac", 16_000))
    assert set(neutral) == set(AFFECTNET8) and sum(neutral.values()) == pytest.approx(1.0, abs=1e-3)
    assert max(angry, key=angry.get) == "anger" and max(neutral, key=neutral.get) == "neutral"
    assert valence_arousal(angry)[1] > valence_arousal(neutral)[1] + 0.3
    assert max(angry["contempt"], neutral["contempt"]) < 1e-3
    assert model.distribution(np.zeros(1600, np.float32)) is None  # 0.1 s: too short to read
    assert model.for_recording(neutral_audio) is model  # one head for every band
    features = WhisperVoiceFeatures()
    once = features(neutral_audio)
    assert once.shape == (WhisperVoiceFeatures.DIM,) and np.array_equal(once, features(neutral_audio))
    with pytest.raises(ValueError, match="16000 Hz"):
        features(neutral_audio, 8_000)


def test_clips_laid_out_in_shots_read_each_shots_voice_apart():
    """Two takes of one actor joined at a hard cut, calm then angry: the index's clip windows lie inside the shots
    (``indexing.clips.clip_windows`` given the cut), so each clip's voice (``clip_voice``) is its own take's, neutral
    before the cut and anger after; read over a window across the cut the voice would be one blend."""
    from indexing.clips import clip_voice, clip_windows
    from tools.core.media import load_audio
    from tools.perception.asr import load_asr
    from tools.perception.voice_emotion import load_voice_emotion

    calm = load_audio(RAVDESS / "03-01-01-01-01-01-20.flac", 16_000)
    angry = load_audio(RAVDESS / "03-01-05-02-01-01-20.flac", 16_000)
    audio = np.concatenate([calm, angry])
    cut, end = round(len(calm) / 16_000, 3), round(len(audio) / 16_000, 3)  # clip edges are kept to the millisecond
    transcript = load_asr("faster-whisper").transcribe(audio)
    model = load_voice_emotion("whisper8")
    windows = clip_windows(end, 4.0, 2.0, [cut])
    assert all(b <= cut or a >= cut for a, b in windows)
    reads = {(a, b): clip_voice(model, audio, transcript, a, b) for a, b in windows}
    before = [r for (a, b), r in reads.items() if b <= cut and r]
    after = [r for (a, b), r in reads.items() if a >= cut and r]
    assert before and after
    assert all(max(r, key=r.get) == "neutral" for r in before) and all(max(r, key=r.get) == "anger" for r in after)
    whole = clip_voice(model, audio, transcript, 0.0, end)
    assert whole["neutral"] < min(r["neutral"] for r in before) and whole["anger"] < min(r["anger"] for r in after)
