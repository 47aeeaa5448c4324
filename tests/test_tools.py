"""Perception tools on real media from ../shared/media (see its README for sources)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import REPO, SAMPLE, shared_media
from tools.core.frames import iter_frames
from tools.core.media import load_audio
from tools.core.registry import UnknownBackendError
from tools.core.schema import AFFECTNET8
from tools.perception.asr import load_asr
from tools.perception.expression import load_expression_classifier
from tools.perception.faces import load_face_detector


@pytest.mark.asr
def test_asr_words_of_a_known_speech_with_timestamps():
    # jfk.flac: "And so my fellow Americans, ask not what your country can do for you, ..."
    audio = load_audio(shared_media("jfk.flac"))
    tr = load_asr("faster-whisper").transcribe(audio)
    text = " ".join(s.text for s in tr.segments).lower()
    assert "ask not what your country can do for you" in text
    assert tr.language == "en"
    words = [w for s in tr.segments for w in s.words]
    assert len(words) >= 20
    starts = [w.start_s for w in words]
    assert starts == sorted(starts)
    assert all(0.0 <= w.start_s <= w.end_s <= tr.duration_s + 0.5 for w in words)
    # Every word span overlaps voiced audio (100 ms frames above -30 dBFS RMS).
    frames = audio[: len(audio) // 1600 * 1600].reshape(-1, 1600)
    voiced = 20 * np.log10(np.sqrt((frames**2).mean(axis=1)) + 1e-9) > -30
    for w in words:
        assert voiced[int(w.start_s * 10) : int(np.ceil(w.end_s * 10)) + 1].any(), w
    # The RMS profile (10 ms frames) shows "Americans" ending at 2.0 s, "ask" spoken from 3.28 to 3.64 s and
    # "not" starting at 4.03 s, each between pauses; word times refined against the audio land within
    # 0.1 s of those edges (Whisper's own, before refinement, put "ask" at 3.72-3.88 s or 2.26-3.88 s,
    # depending on the CPU's instruction set)
    first = {w.text.lower().strip(",."): w for w in reversed(words)}
    assert first["americans"].end_s == pytest.approx(2.0, abs=0.15)
    assert first["ask"].start_s == pytest.approx(3.28, abs=0.1) and first["ask"].end_s == pytest.approx(3.64, abs=0.1)
    assert first["not"].start_s == pytest.approx(4.03, abs=0.1)


@pytest.mark.asr
def test_asr_words_fall_inside_the_speech_of_a_talking_head():
    # WDA_KatieHill_000.mp4: she speaks from 0.0 to about 7.7 s about new member orientation
    path = shared_media("WDA_KatieHill_000.mp4")
    tr = load_asr("faster-whisper").transcribe(load_audio(path))
    text = " ".join(s.text for s in tr.segments).lower()
    assert "orientation" in text
    assert all(0.0 <= w.start_s and w.end_s <= 8.1 for s in tr.segments for w in s.words)


def test_one_face_per_frame_in_a_talking_head():
    det = load_face_detector("mediapipe")
    frames = list(iter_frames(shared_media("WDA_KatieHill_000.mp4"), fps=1.0))
    counts = [len(det.detect(f)) for _, f in frames]
    assert counts == [1] * len(frames)
    box, score = det.detect(frames[0][1])[0]
    assert score > 0.8 and 0.2 < (box.x0 + box.x1) / 2 < 0.8  # a frontal face near the centre


def test_several_faces_in_the_audience_shot():
    # hamilton_short.mp4 cuts to the laughing audience at 7.9 s: at least two faces are visible
    det = load_face_detector("mediapipe")
    frame = next(f for t, f in iter_frames(SAMPLE, fps=1.0, start_s=9.0, end_s=10.0))
    assert len(det.detect(frame)) >= 2


def test_the_short_range_model_finds_the_close_up_the_full_range_one_misses():
    """At 1.5 s the sample cuts to the performer's profile filling the right of the frame: the full-range model finds
    no face, ``mediapipe-ranges`` finds it with the short-range model; the audience shot keeps the full-range boxes."""
    full, ranges = load_face_detector("mediapipe"), load_face_detector("mediapipe-ranges")
    close_up = next(f for t, f in iter_frames(SAMPLE, fps=2.0) if abs(t - 1.5) < 0.25)
    assert full.detect(close_up) == []
    [(box, score)] = ranges.detect(close_up)
    assert score > 0.5 and box.x0 > 0.5 and box.x1 - box.x0 > 0.25  # a large face on the right
    audience = next(f for t, f in iter_frames(SAMPLE, fps=1.0, start_s=9.0, end_s=10.0))
    assert ranges.detect(audience) == full.detect(audience)


def test_expression_rows_are_affectnet8_distributions():
    det, clf = load_face_detector("mediapipe"), load_expression_classifier("fer")
    frame = next(f for _, f in iter_frames(shared_media("WDA_KatieHill_000.mp4"), fps=1.0))
    boxes = [b for b, _ in det.detect(frame)]
    probs = clf.classify(frame, boxes)
    assert probs.shape == (1, len(AFFECTNET8))
    assert probs.sum(axis=1) == pytest.approx(np.ones(1), abs=1e-4)
    assert probs[0, AFFECTNET8.index("contempt")] == 0.0  # FER2013 has no contempt class
    assert clf.classify(frame, []).shape == (0, len(AFFECTNET8))


@pytest.mark.parametrize("engine", ["auto", "torch"])
def test_minixception_matches_the_keras_model(engine):
    # reference outputs of the Keras model (keras 3.15, torch backend) on four real face crops of the
    # sample, saved before the network moved to plain torch (tools.perception.minixception); "auto" runs the
    # torch module's onnxruntime export on the CPU (tools.perception.cpu_onnx)
    from tools.perception.expression import _model_input, fer_weights_path
    from tools.perception.minixception import MiniXception

    ref = np.load(Path(__file__).parent / "data" / "minixception_keras_reference.npz")
    net = MiniXception(fer_weights_path())
    out = net.forward(_model_input(ref["crops"]), engine=engine)
    assert out["predictions"] == pytest.approx(ref["predictions"], abs=1e-5)
    assert out["add_4"] == pytest.approx(ref["add_4"], abs=1e-4)
    assert out["add_3"].mean(axis=(1, 2)) == pytest.approx(ref["add_3_mean"], abs=1e-4)
    assert out["predictions"].argmax(1).tolist() == ref["predictions"].argmax(1).tolist()
    assert bool(net._onnx.threads_used) == (engine == "auto")  # onnxruntime ran only when asked for


def test_minixception_rejects_a_file_that_is_not_one(tmp_path):
    from tools.perception.minixception import MiniXception

    bad = tmp_path / "w.hdf5"
    bad.write_bytes(b"not hdf5")
    with pytest.raises(ValueError, match="not a Keras HDF5"):
        MiniXception(bad)
    with pytest.raises(FileNotFoundError):
        MiniXception(tmp_path / "missing.hdf5")


def test_unknown_backend_names_the_choices():
    with pytest.raises(UnknownBackendError, match="mediapipe"):
        load_face_detector("yolo-face")


def test_pitch_of_synthetic_tones_and_noise():
    from tools.perception.prosody import pitch_track

    sr = 16_000
    t = np.arange(sr) / sr
    assert np.median(pitch_track(0.5 * np.sin(2 * np.pi * 150 * t), sr)) == pytest.approx(150, abs=3)
    noisy = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.05 * np.random.default_rng(0).normal(size=sr)
    assert np.median(pitch_track(noisy, sr)) == pytest.approx(220, abs=5)
    assert len(pitch_track(0.01 * np.random.default_rng(1).normal(size=sr), sr)) == 0  # unvoiced


def test_pitch_track_is_the_per_frame_autocorrelation_pitch_on_real_speech():
    """The FFT form gives the F0 that Boersma's per-frame autocorrelation (``np.correlate``, the definition) gives,
    frame for frame, on recorded speech of two speakers, a quiet copy and a span cut mid-frame."""
    from tools.perception.prosody import F0_MAX_HZ, F0_MIN_HZ, VOICING_THRESHOLD, pitch_track

    def by_definition(audio: np.ndarray, sr: int) -> list[float]:
        n, lo, hi = int(0.04 * sr), int(sr / F0_MAX_HZ), int(sr / F0_MIN_HZ)
        frames = audio[: len(audio) // n * n].reshape(-1, n).astype(np.float64)
        energy = (frames**2).mean(axis=1)
        out = []
        for fr in frames[energy > energy.max() * 1e-3]:
            ac = np.correlate(fr - fr.mean(), fr - fr.mean(), mode="full")[n - 1 :]
            if ac[0] > 0 and ac[lo:hi].max() / ac[0] >= VOICING_THRESHOLD:
                out.append(sr / (lo + int(np.argmax(ac[lo:hi]))))
        return out

    sr = 16_000
    jfk = load_audio(shared_media("jfk.flac"))
    ravdess = load_audio(REPO / "tests" / "data" / "ravdess" / "03-01-05-02-01-01-20.flac")
    for audio in (jfk, ravdess, 1e-4 * jfk, jfk[1234:50_000]):
        f0 = pitch_track(audio, sr)
        assert len(f0) > 20
        assert f0.tolist() == by_definition(audio, sr)


def test_onnx_text_encoder_matches_sentence_transformers(tmp_path):
    from tools.perception.text import SentenceTransformerEncoder
    from tools.perception.text_onnx import OnnxSentenceEncoder

    texts = ["she feels left out", "nobody looks at her while the others laugh", "the audience laughs",
             "and so my fellow Americans, ask not what your country can do for you " * 20]  # > 256 tokens
    onnx = OnnxSentenceEncoder(cache_dir=tmp_path)  # exports the shipped weights into tmp_path
    assert len(list(tmp_path.glob("all-MiniLM-L6-v2-*.onnx"))) == 1
    a, b = onnx.encode(texts), SentenceTransformerEncoder().encode(texts)
    assert a.shape == b.shape == (4, 384)
    assert np.allclose((a * b).sum(axis=1), 1.0, atol=1e-4)  # the same embeddings, truncation included
    assert onnx.encode([]).shape == (0, 384)


def test_onnx_text_encoder_gives_a_text_one_vector_whatever_is_beside_it():
    """A text's vector does not depend on the texts encoded with it, nor on what this encoder met before; a text met
    again is served from the encoder's kept vectors, not run again."""
    from tools.perception.text_onnx import OnnxSentenceEncoder

    texts = ["when does she mention being new?", "ok",
             "I'm currently in DC for my second week of new member orientation, and it has been a long week"]
    first = OnnxSentenceEncoder()
    together = first.encode(texts)
    alone = OnnxSentenceEncoder()
    assert np.array_equal(np.stack([alone.encode([t])[0] for t in reversed(texts)])[::-1], together)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(together[0], together[2])

    def unexpected(text: str) -> np.ndarray:
        raise AssertionError(f"ran {text!r} again")

    first._run = unexpected
    assert np.array_equal(first.encode([texts[2], texts[0], texts[2]]), together[[2, 0, 2]])


def test_onnx_text_encoder_runs_a_text_as_long_as_its_tokens():
    """all-MiniLM-L6-v2's tokenizer file pads every text to 128 tokens; the encoder runs a text unpadded (a short
    transcript segment costs its few tokens, not 128), and the vector is the one the padded run gives when its mean
    leaves the padding out (within 1e-6: another CPU's kernels may round the two runs differently)."""
    from tokenizers import Tokenizer

    from tools.perception.text_onnx import OnnxSentenceEncoder, default_model_dir

    texts = ["ok", "when does she mention being new?",
             "I'm currently in DC for my second week of new member orientation, and it has been a long week"]
    enc = OnnxSentenceEncoder()
    session, lengths = enc._session, []

    class Recorder:
        def run(self, out, feed):
            lengths.append(feed["input_ids"].shape)
            return session.run(out, feed)

    enc._session = Recorder()
    unpadded = enc.encode(texts)
    padded = Tokenizer.from_file(str(Path(default_model_dir()) / "tokenizer.json"))  # as the file says: 128 tokens
    masked_means = []
    for t in texts:
        e = padded.encode(t)
        feed = {name: np.array([ids], np.int64) for name, ids in
                (("input_ids", e.ids), ("attention_mask", e.attention_mask), ("token_type_ids", e.type_ids))}
        mask = feed["attention_mask"][0].astype(bool)
        assert len(e.ids) == 128 and sum(mask) < 128
        v = session.run(None, feed)[0][0][mask].mean(axis=0)
        masked_means.append(v / np.linalg.norm(v))
    assert sorted(lengths) == sorted((1, int(sum(padded.encode(t).attention_mask))) for t in texts)  # run side by side
    assert min(lengths) == (1, 3)
    assert np.allclose(unpadded, np.stack(masked_means), atol=1e-6) and not np.allclose(unpadded[0], unpadded[1])


def test_onnx_text_encoder_runs_float32_with_its_softmax_in_float64_and_no_fused_kernels():
    """What makes the encoder's vectors the same bits on AVX2 and AVX-512 CPUs (``evals/RESULTS.md`` section 125): every
    Softmax of the export reads a float64 cast of its scores (onnxruntime's float32 Softmax kernels differ by CPU), the
    session stops at the basic graph optimizations (the extended level swaps in kernels of its own, BiasGelu and
    FusedMatMul, whose bits on other CPUs were not checked), the rest is float32; and the vectors stay about as close
    to all-MiniLM-L6-v2 run in float64 by transformers as the float32 model run by torch is (1.2e-7 on these texts; the
    export 2.0e-7)."""
    import onnx
    import onnxruntime as ort
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    from tools.perception.text_onnx import OnnxSentenceEncoder, default_model_dir

    texts = ["ok", "when does she mention being new?",
             "I'm currently in DC for my second week of new member orientation, and it has been a long week"]
    model = AutoModel.from_pretrained(str(default_model_dir())).eval().double()
    tok = Tokenizer.from_file(str(Path(default_model_dir()) / "tokenizer.json"))
    tok.no_padding()
    reference = []
    with torch.no_grad():
        for t in texts:
            e = tok.encode(t)
            hidden = model(**{name: torch.tensor([ids]) for name, ids in (("input_ids", e.ids), (
                "attention_mask", e.attention_mask), ("token_type_ids", e.type_ids))}).last_hidden_state[0].numpy()
            v = hidden.mean(axis=0)
            reference.append((v / np.linalg.norm(v)).astype(np.float32))
    enc = OnnxSentenceEncoder()
    got = enc.encode(texts)
    assert enc._session.get_outputs()[0].type == "tensor(float)"
    assert enc._session.get_session_options().graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    graph = onnx.load(str(enc.path)).graph
    casts = {n.output[0]: n for n in graph.node if n.op_type == "Cast"}
    softmaxes = [n for n in graph.node if n.op_type == "Softmax"]
    assert len(softmaxes) == 6  # one per layer's attention
    for n in softmaxes:
        cast = casts[n.input[0]]
        assert next(a.i for a in cast.attribute if a.name == "to") == onnx.TensorProto.DOUBLE
    assert got.dtype == np.float32 and np.abs(got - np.stack(reference)).max() <= 3e-7


def test_stop_words_are_scikit_learns_without_importing_it():
    """``english_stop_words`` is scikit-learn's list, read without importing scikit-learn (a 2 s import)."""
    import subprocess
    import sys

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    code = ("import sys, json; sys.path.insert(0, '.'); from tools.signals.lexicon import english_stop_words; "
            "print(json.dumps([sorted(english_stop_words()), 'sklearn' in sys.modules]))")
    words, imported = json.loads(subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO,
                                                capture_output=True, text=True, timeout=120).stdout)
    assert set(words) == ENGLISH_STOP_WORDS and len(words) == 318 and not imported


def test_warm_query_loads_no_torch_and_no_perception_model(cache_root):
    """With the index and the candidates' perception outputs cached, a query needs only the ONNX text
    encoder: torch, keras and mediapipe (most of a cold start) are never imported, nor scikit-learn, whose
    stop-word list the localizer reads (``tools.signals.lexicon.english_stop_words``)."""
    import subprocess
    import sys

    from tests.conftest import REPO, SAMPLE

    code = ("import sys; sys.path.insert(0, '.'); from graphs.pipeline import answer_query; "
            "a = answer_query(sys.argv[1], 'when does the audience enjoy the show?', cache_dir=sys.argv[2]); "
            "print(len(a.moments), a.index['built_now'], sorted(m for m in ('torch', 'keras', 'mediapipe') "
            "if m in sys.modules), 'sklearn' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", code, str(SAMPLE), str(cache_root)], check=True, cwd=REPO,
                           capture_output=True, text=True, timeout=600).stdout.split("\n")[-2] for _ in range(2)]
    assert runs[1].endswith("False [] False"), runs  # second run: loaded from cache, no heavy import
    assert runs[1].split()[0] == runs[0].split()[0] != "0"  # same number of moments, at least one


def test_a_question_that_reads_new_faces_imports_neither_torch_nor_scipy_nor_matplotlib(cache_root, tmp_path):
    """On an indexed video whose candidates were never read, the verifier's expression networks run from their
    exports in the model cache (``tools.perception.cpu_onnx``): faces are read (MediaPipe is loaded) and torch is
    not imported, nor SciPy (the heads' softmax is numpy's) nor matplotlib (``tools.core.runtime.import_mediapipe``
    leaves out the plotting that ``import mediapipe`` pulls in)."""
    import shutil
    import subprocess
    import sys

    from tests.conftest import REPO, SAMPLE

    code = ("import json, sys; sys.path.insert(0, '.'); from graphs.pipeline import answer_query; "
            "a = answer_query(sys.argv[1], 'when does the audience enjoy the show?', cache_dir=sys.argv[2]); "
            "print(json.dumps([a.index['tool_calls'].get('face_expression_frames', 0), "
            "[m for m in ('torch', 'scipy', 'matplotlib', 'mediapipe') if m in sys.modules], "
            "[(m.start_s, m.end_s, m.emotion) for m in a.moments]]))")

    def ask(cache: Path) -> list:
        out = subprocess.run([sys.executable, "-c", code, str(SAMPLE), str(cache)], check=True, cwd=REPO,
                             capture_output=True, text=True, timeout=600).stdout
        return json.loads(out.splitlines()[-1])

    first = ask(cache_root)  # builds the index (and the exports) where no test did yet
    copy = Path(shutil.copytree(cache_root, tmp_path / "cache"))
    read = [p for p in copy.glob("*/perception/*") if "4fps" in p.name or p.name.startswith("own-frames")]
    for folder in read:  # the verifier's readings: the next question reads its candidates' frames again
        shutil.rmtree(folder)
    frames, loaded, moments = ask(copy)
    assert read and frames > 0 and loaded == ["mediapipe"]
    assert moments == first[2]


def test_mediapipe_is_imported_without_matplotlib_which_still_loads_when_used():
    import subprocess
    import sys

    from tests.conftest import REPO

    code = ("import sys; sys.path.insert(0, '.'); from tools.core.runtime import import_mediapipe; "
            "mp = import_mediapipe(); before = 'matplotlib' in sys.modules; "
            "from mediapipe.python.solutions import drawing_utils; "
            "import matplotlib, matplotlib.pyplot as plt; "
            "print(before, hasattr(mp.solutions, 'face_mesh'), drawing_utils.plt.figure is plt.figure, "
            "bool(matplotlib.__version__))")
    out = subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, capture_output=True, text=True,
                         timeout=300).stdout
    assert out.split() == ["False", "True", "True", "True"]


def test_the_heads_softmax_gives_scipys_bits():
    from scipy.special import softmax as scipy_softmax

    from tools.perception.heads import softmax

    rng = np.random.default_rng(0)
    z = (rng.normal(size=(64, 8)) * 10).astype(np.float32)
    assert np.array_equal(softmax(z, axis=1), scipy_softmax(z, axis=1))
    assert np.array_equal(softmax(z[0] / 0.05), scipy_softmax(z[0] / 0.05))
    assert np.allclose(softmax(z, axis=1).sum(axis=1), 1.0)


@pytest.mark.asr
def test_speech_splits_into_utterances_at_pauses():
    from tools.signals.utterances import split_utterances

    words = [{"word": w, "start": s, "end": e} for w, s, e in
             [("yes.", 0.0, 0.3), ("fine", 0.5, 0.8), ("then", 0.85, 1.0), ("later", 1.8, 2.1)]]
    assert [[w["word"] for w in g] for g in split_utterances(words)] == [["yes."], ["fine", "then"], ["later"]]
    # three RAVDESS sentences (actor 20) with half a second of silence between them: one utterance each
    a = load_audio(REPO / "tests/data/ravdess/03-01-01-01-01-01-20.flac", 16_000)
    b = load_audio(REPO / "tests/data/ravdess/03-01-05-02-01-01-20.flac", 16_000)
    gap = np.zeros(8000, np.float32)
    clips = [(0.0, len(a) / 16_000)]
    clips.append((clips[-1][1] + 0.5, clips[-1][1] + 0.5 + len(b) / 16_000))
    clips.append((clips[-1][1] + 0.5, clips[-1][1] + 0.5 + len(a) / 16_000))
    # the three sentences say the same words, which the repetition guard takes for a decoding loop when
    # Whisper decodes them as three segments (it does with some instruction sets, not with others): this
    # test is about the split, so it keeps every decoded segment
    tr = load_asr("faster-whisper", guards=None).transcribe(np.concatenate([a, gap, b, gap, a]))
    assert len(tr.segments) >= 3
    for seg in tr.segments:  # no utterance runs across the silence between two sentences
        assert any(c0 - 0.1 <= seg.start_s and seg.end_s <= c1 + 0.1 for c0, c1 in clips), (seg.start_s, seg.end_s)
    assert len({s.id for s in tr.segments}) == len(tr.segments)


#: The English half of tests/data/multilingual.mp3: the MIT licence's permission paragraph.
MIT_PERMISSION = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated "
    "documentation files to deal in the software without restriction, including without limitation the rights to "
    "use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the software, and to permit "
    "persons to whom the software is furnished to do so, subject to the following conditions: The above copyright "
    "notice and this permission notice shall be included in all copies or substantial portions of the software.")


@pytest.mark.asr
def test_english_only_model_invents_little_over_german_speech_and_says_so():
    import re

    import jiwer

    from tools.signals.transcript import speech_warning

    asr = load_asr("faster-whisper")
    audio = load_audio(REPO / "tests" / "data" / "multilingual.mp3")  # English 0-30 s, then German 30-60 s
    tr = asr.transcribe(audio)
    # the decoder alone puts English words over the German half; the guards drop most of them and say why
    # (on the dev split about 7 invented words per minute of German pass them, evals/RESULTS.md section 8;
    # what the decoder invents depends on the CPU's instruction set: 175 words with AVX2, 19 with the
    # portable kernels, and none is kept with either)
    raw, _, _ = asr.decode(audio)
    invented = sum(len(seg["words"]) for seg in raw if seg["start"] >= 31)
    kept = sum(len(s.words) for s in tr.segments if s.start_s >= 31)
    assert invented >= 10 and kept <= 15  # a few may pass on some CPU: the dev split's rate
    assert any(r.start_s >= 31 for r in tr.rejected) and all(r.reason for r in tr.rejected)
    assert tr.untranscribed_s >= 20 and tr.speech_s >= 50
    # the English half keeps its words
    norm = lambda t: " ".join(re.findall(r"[\w']+", t.lower()))
    assert jiwer.wer(norm(MIT_PERMISSION), norm(" ".join(s.text for s in tr.segments if s.start_s < 31))) < 0.1
    # German speech alone: most of it goes untranscribed, and the answer says why and what to use instead
    german = asr.transcribe(audio[31 * 16_000:])
    warning = speech_warning(german)
    assert warning and "English-only" in warning and "--asr-model" in warning


@pytest.mark.asr
def test_the_decoder_finds_the_speech_once_and_decodes_what_faster_whispers_own_voice_filter_gives(monkeypatch):
    """``FasterWhisperASR.decode`` runs Silero VAD once, for the speech regions it reports and for the audio it decodes;
    the segments and word times are those faster-whisper's own ``vad_filter=True`` gives, on speech in two regions (two
    real recordings 5 s apart), so the words' times are mapped back across the gap (``evals/RESULTS.md`` section
    128)."""
    import faster_whisper.transcribe
    import faster_whisper.vad

    from tools.perception.asr import FasterWhisperASR
    from tools.perception.whisper import resolve_whisper_model, whisper_model

    audio = np.concatenate([load_audio(shared_media("jfk.flac")), np.zeros(5 * 16_000, np.float32),
                            load_audio(shared_media("RD_Radio31_000.wav"))])
    calls, real = [], faster_whisper.vad.get_speech_timestamps

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(faster_whisper.vad, "get_speech_timestamps", counted)
    monkeypatch.setattr(faster_whisper.transcribe, "get_speech_timestamps", counted)
    raw, speech, language = FasterWhisperASR(threads=1).decode(audio)
    assert len(calls) == 1 and len(speech) == 2 and speech[1][0] > 15.0 and language == "en"
    segments, _ = whisper_model(resolve_whisper_model(None), threads=1).transcribe(
        audio, word_timestamps=True, vad_filter=True, condition_on_previous_text=False, beam_size=5, temperature=0.0)
    theirs = [(s.start, s.end, s.text, s.avg_logprob, [(w.word, w.start, w.end, w.probability) for w in s.words])
              for s in segments]
    assert len(calls) == 2 and sum(len(s[4]) for s in theirs) >= 20
    assert [(s["start"], s["end"], s["text"], s["avg_logprob"],
             [(w["word"], w["start"], w["end"], w["probability"]) for w in s["words"]]) for s in raw] == theirs
    assert any(w[1] >= speech[1][0] for s in theirs for w in s[4])  # words after a gap: their times mapped back


@pytest.mark.asr
def test_greedy_decoding_is_an_option_with_its_own_guards_and_its_own_index():
    """``--asr-beam 1`` decodes greedily under the guards fitted on greedy decodes (``GREEDY_GUARDS``), keeps every word
    of clean English speech (JFK's line, the words known), and builds another index than the default beam search."""
    import re

    import jiwer

    from memory.index_config import IndexConfig
    from tools.signals.transcript import DEFAULT_GUARDS, GREEDY_GUARDS

    greedy = load_asr("faster-whisper", beam_size=1)
    assert greedy.guards is GREEDY_GUARDS and load_asr("faster-whisper").guards is DEFAULT_GUARDS
    tr = greedy.transcribe(load_audio(shared_media("jfk.flac")))
    norm = lambda t: " ".join(re.findall(r"[\w']+", t.lower()))
    said = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
    assert not tr.rejected and jiwer.wer(norm(said), norm(" ".join(s.text for s in tr.segments))) < 0.1
    assert IndexConfig(asr_beam_size=1).key() != IndexConfig().key() == IndexConfig(asr_beam_size=5).key()


@pytest.mark.asr
def test_guards_keep_every_word_of_clean_english_speech():
    from tools.signals.transcript import speech_warning

    tr = load_asr("faster-whisper").transcribe(load_audio(shared_media("jfk.flac")))
    assert not tr.rejected and speech_warning(tr) is None
    assert tr.untranscribed_s < 1.0 < tr.speech_s


def test_repetition_guard_names_the_repeated_words():
    from tools.signals.transcript import screen_segments

    seg = lambda text, t: {"start": t, "end": t + 2, "text": text,
                           "words": [{"word": w, "probability": 0.9} for w in text.split()]}
    kept, rejected = screen_segments([
        seg("We had to focus on the rest of the rest of the rest of the rest.", 0.0),
        seg("You are q'an.", 2.0), seg("You are q'an.", 4.0), seg("you are Q'an", 6.0), seg("Is this a MVP?", 8.0),
        seg("Dogs are sitting by the door.", 10.0), seg("Dogs are sitting by the door.", 12.0)])
    assert [k["text"] for k in kept] == ["Is this a MVP?", "Dogs are sitting by the door.",
                                         "Dogs are sitting by the door."]  # two speakers may say the same
    assert "'the rest of' repeated" in rejected[0].reason
    assert [r.reason for r in rejected[1:]] == ["the same words in 3 segments in a row"] * 3


def test_word_times_move_onto_the_voiced_stretches_they_name():
    """Three bursts of noise (the "words") between silences, with decoded times that drift as Whisper's do:
    into the pause before, onto a pause, across a pause. Each word lands on its own burst, in order."""
    from tools.signals.word_times import refine_words

    rng = np.random.default_rng(0)
    sr = 16_000
    audio = rng.normal(0, 1e-4, 4 * sr).astype(np.float32)  # a quiet floor, 80 dB under the bursts
    bursts = [(0.5, 1.0), (1.5, 1.8), (2.6, 3.0)]
    for a, b in bursts:
        audio[int(a * sr):int(b * sr)] += rng.normal(0, 0.3, int(b * sr) - int(a * sr)).astype(np.float32)
    decoded = [(0.3, 1.2), (1.9, 2.1), (2.1, 3.2)]  # starts early; lies in a pause; spans a pause
    refined = refine_words(decoded, audio, sr)
    for (a, b), (c, d) in zip(refined, bursts, strict=True):
        assert a == pytest.approx(c, abs=0.02) and b == pytest.approx(d, abs=0.02)
    # without a pause in sight (steady noise), nothing can be told from the energy: the times stay
    steady = rng.normal(0, 0.3, 4 * sr).astype(np.float32)
    assert refine_words(decoded, steady, sr) == decoded


def test_a_fluent_segment_alone_among_rejected_ones_is_rejected_too():
    """The island rule (``SpeechGuards.island_gap_s``): a segment that passes every guard but whose
    neighbours within 2 s all failed goes with them; with a kept neighbour, or farther away, it stays."""
    from tools.signals.transcript import DEFAULT_GUARDS, screen_segments

    def seg(start, text, logprob):
        return {"start": start, "end": start + 1.5, "text": text, "avg_logprob": logprob, "no_speech_prob": 0.1,
                "words": [{"word": w, "start": start, "end": start + 1.5, "probability": 0.9} for w in text.split()]}

    doubtful, fluent = -1.4, -0.2  # under and over Whisper's log-probability threshold (-1.0)
    kept, rejected = screen_segments([seg(0.0, "so ja nein", doubtful), seg(2.0, "a fine sentence", fluent),
                                      seg(4.0, "und dann", doubtful)], DEFAULT_GUARDS)
    assert kept == [] and [r.reason for r in rejected][1] == "alone among rejected segments"
    kept, _ = screen_segments([seg(0.0, "so ja nein", doubtful), seg(2.0, "a fine sentence", fluent),
                               seg(4.0, "and it goes on", fluent)], DEFAULT_GUARDS)
    assert [k["text"] for k in kept] == ["a fine sentence", "and it goes on"]
    kept, _ = screen_segments([seg(0.0, "so ja nein", doubtful), seg(5.0, "a fine sentence", fluent)], DEFAULT_GUARDS)
    assert [k["text"] for k in kept] == ["a fine sentence"]
    # Whisper may decode one span twice: a fluent segment with the very times of a rejected one is its island
    kept, rejected = screen_segments([seg(2.0, "a fine sentence", fluent), seg(2.0, "so ja nein", doubtful)],
                                     DEFAULT_GUARDS)
    assert kept == [] and "alone among rejected segments" in {r.reason for r in rejected}


def test_a_word_beside_its_voiced_stretch_keeps_its_length():
    """A word decoded in the pause before (or after) a stretch of speech is moved into it whole, not
    squeezed to nothing at its edge; the stretch's other word keeps its own part."""
    from tools.signals.word_times import refine_words

    rng = np.random.default_rng(1)
    sr = 16_000
    audio = rng.normal(0, 1e-4, 2 * sr).astype(np.float32)
    audio[int(0.5 * sr):int(1.0 * sr)] += rng.normal(0, 0.3, int(0.5 * sr)).astype(np.float32)
    (first, second) = refine_words([(0.1, 0.2), (0.6, 0.8)], audio, sr)
    assert first[0] == pytest.approx(0.5, abs=0.02) and first[1] - first[0] >= 0.08
    assert second[0] >= first[1] and second[1] == pytest.approx(1.0, abs=0.02)
    [(a, b)] = refine_words([(1.4, 1.5)], audio, sr)  # after the stretch, 0.4 s away
    assert b == pytest.approx(1.0, abs=0.02) and b - a == pytest.approx(0.1, abs=0.02)


def test_torch_device_names_become_ctranslate2_device_and_index():
    from tools.perception.whisper import ct2_device

    assert ct2_device("cpu") == ("cpu", 0) and ct2_device("cuda") == ("cuda", 0) and ct2_device("cuda:1") == ("cuda", 1)


def test_a_new_expression_backend_is_one_registry_entry(monkeypatch):
    """A backend registered in ``tools.perception.expression`` alone is offered by ``ask`` and ``eval``, accepted by the
    settings (flags, variables, TOML) and loaded by the engine; an unregistered name is refused by the settings
    with the registered names. The existing backends' names appear nowhere else in the commands."""
    from app.ask import build_parser
    from evals.run import build_parser as eval_parser
    from graphs.settings import SettingsError, load_settings
    from tools.perception.engine import PerceptionConfig, PerceptionEngine
    from tools.perception.expression import EXPRESSION_CLASSIFIERS, FerMiniXception

    monkeypatch.setattr(EXPRESSION_CLASSIFIERS, "_loaders", dict(EXPRESSION_CLASSIFIERS._loaders))
    monkeypatch.setattr(EXPRESSION_CLASSIFIERS, "_about", dict(EXPRESSION_CLASSIFIERS._about))
    monkeypatch.setattr(EXPRESSION_CLASSIFIERS, "_cache", {})
    EXPRESSION_CLASSIFIERS.register("fer-again", about="fer once more")(lambda device="cpu": FerMiniXception(device=device))
    for parser in (build_parser(), eval_parser("eval")):
        flag = next(a for a in parser._actions if "--expression-backend" in a.option_strings)
        assert "fer-again" in flag.choices and "fer-again: fer once more" in flag.help
    assert load_settings({"expression_backend": "fer-again"}).expression_backend == "fer-again"
    with pytest.raises(SettingsError, match=r"unknown expression backend 'nope'; choose one of \['face8', 'faceres', 'faceres\+face8', 'fer', 'fer-again'"):
        load_settings({"expression_backend": "nope"})
    engine = PerceptionEngine(PerceptionConfig(expression_backend="fer-again"))
    assert engine.classifier.name == load_expression_classifier("fer").name
    for module in ("app/ask.py", "graphs/settings.py", "evals/run.py"):
        assert "hsemotion" not in (REPO / module).read_text()


@pytest.mark.parametrize(("variable", "given", "kept"), [("ONEDNN_MAX_CPU_ISA", None, "SSE41"),
                                                       ("ONEDNN_MAX_CPU_ISA", "AVX2", "AVX2"),
                                                       ("CT2_USE_MKL", None, "0"), ("CT2_USE_MKL", "1", "1")])
def test_speech_recognition_keeps_to_kernels_that_decode_alike_unless_told_otherwise(variable, given, kept):
    """The recogniser's loader caps oneDNN at SSE4.1 and keeps CTranslate2 off Intel MKL before CTranslate2 first runs
    (oneDNN's kernels above SSE4.1 and MKL decode differently from CPU to CPU: ``tools.core.runtime.ONEDNN_MAX_ISA``,
    ``CT2_USE_MKL``); a value the environment already holds is the user's."""
    import subprocess
    import sys

    from tests.conftest import command_env

    env = {k: v for k, v in command_env().items() if k != variable}
    if given is not None:
        env[variable] = given
    code = ("import os, sys; sys.path.insert(0, '.'); from tools.perception.asr import load_asr; "
            "assert sys.argv[1] not in os.environ or sys.argv[2] != 'None'; load_asr(); "
            "print(os.environ[sys.argv[1]])")
    out = subprocess.run([sys.executable, "-c", code, variable, str(given)], check=True, cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=300).stdout.split()
    assert out[-1] == kept


_DECODE_AFTER = """
import json, sys, warnings
sys.path.insert(0, ".")
from tools.core.media import load_audio
audio = load_audio(sys.argv[1], 16_000)
if sys.argv[2] == "voice-features":
    from tools.perception.voice_emotion import voice_features
    voice_features(audio)
elif sys.argv[2] == "faster-whisper":
    import faster_whisper
from tools.perception.asr import FasterWhisperASR
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    raw, _, _ = FasterWhisperASR(threads=1).decode(audio)
words = [[w["word"], w["start"], w["end"]] for s in raw for w in s["words"]]
print(json.dumps({"words": words, "warnings": [str(w.message) for w in caught]}))
"""


@pytest.mark.asr
def test_a_recogniser_loaded_after_voice_features_decodes_as_one_loaded_first():
    """CTranslate2 reads ``CT2_USE_MKL`` as it is imported, and the voice features import it (through faster-whisper's
    feature extractor, ``tools.perception.log_mel``) before any recogniser loads: a process that read a voice first
    then decodes the talking head's words at the same times as a process that loaded the recogniser first. When
    ``log_mel`` did not set the variable, such a process decoded with Intel MKL on an Intel CPU ("DC" from 2.08 s for
    2.06 s), and a pinned answer moved in the test worker that had read a voice first (``evals/RESULTS.md`` section
    118). A program that imports faster-whisper itself before affectseek is warned."""
    import subprocess
    import sys

    from tests.conftest import command_env

    env = {k: v for k, v in command_env().items() if k not in ("CT2_USE_MKL", "ONEDNN_MAX_CPU_ISA")}

    def decode_after(first: str) -> dict:
        out = subprocess.run([sys.executable, "-c", _DECODE_AFTER, str(shared_media("WDA_KatieHill_000.mp4")), first],
                             check=True, cwd=REPO, env=env, capture_output=True, text=True, timeout=300).stdout
        return json.loads(out.splitlines()[-1])

    alone, after_voice, after_import = (decode_after(first)
                                        for first in ("nothing", "voice-features", "faster-whisper"))
    assert len(alone["words"]) > 20 and [w[0].strip() for w in alone["words"][5:7]] == ["in", "DC"]
    assert after_voice == alone and not alone["warnings"]
    assert any("CT2_USE_MKL=0" in w for w in after_import["warnings"])
