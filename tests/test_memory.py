"""Clip segmentation, the FAISS index, atomic cache writes and evidence references."""

from __future__ import annotations

import itertools
import re
import time

import numpy as np
import pytest

from indexing.clips import clip_windows, describe_clip
from memory.cache import VideoCache, atomic_write_bytes, write_json
from memory.index import VectorIndex
from tests.conftest import SAMPLE
from tools.core.frames import iter_frames
from tools.core.media import load_audio, probe


def test_clip_windows_cover_the_video_with_overlap():
    assert clip_windows(10.0, 4.0, 2.0) == [(0.0, 4.0), (2.0, 6.0), (4.0, 8.0), (6.0, 10.0)]
    assert clip_windows(9.2, 4.0, 2.0)[-1] == (6.0, 9.2)
    assert clip_windows(10.02, 4.0, 2.0)[-1] == (6.0, 10.02)  # a 0.02 s tail is no clip of its own
    assert clip_windows(3.0, 4.0, 2.0) == [(0.0, 3.0)]
    assert clip_windows(0.0, 4.0, 2.0) == []


def test_clip_windows_lie_inside_shots():
    """With shot cuts the windows are laid out shot by shot: none spans a cut, a shot shorter than a window and half a
    stride is one window from its start to its end, and a cut under ``MIN_PART_S`` after another makes no shot."""
    assert clip_windows(14.0, 4.0, 2.0, [3.0, 10.5]) == [(0.0, 3.0), (3.0, 7.0), (5.0, 9.0), (7.0, 10.5), (10.5, 14.0)]
    assert clip_windows(14.0, 4.0, 2.0, [3.0, 3.4]) == clip_windows(14.0, 4.0, 2.0, [3.0])
    assert clip_windows(9.8, 4.0, 2.0, [4.9]) == [(0.0, 4.9), (4.9, 9.8)]  # two shots of 4.9 s: a window each
    assert clip_windows(9.9, 4.0, 2.0, [4.9])[1:] == [(4.9, 8.9), (6.9, 9.9)]  # a shot of 5.0 s: two
    assert clip_windows(10.0, 4.0, 2.0, []) == clip_windows(10.0, 4.0, 2.0)
    assert clip_windows(10.0, 1.0, 4.0, [3.5]) == [(0.0, 1.0), (3.5, 4.5), (7.5, 10.0)]  # a stride past a shot's end


def test_vector_index_returns_cosine_neighbours(tmp_path):
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(50, 16)).astype(np.float32)
    idx = VectorIndex(vecs)
    scores, ids = idx.search(vecs[[7]] * 3.0, 3)  # scale must not matter
    assert ids[0, 0] == 7 and scores[0, 0] == pytest.approx(1.0, abs=1e-5)
    idx.save(tmp_path / "i.faiss")
    again = VectorIndex.load(tmp_path / "i.faiss")
    assert len(again) == 50 and again.search(vecs[[3]], 1)[1][0, 0] == 3


def test_an_hnsw_index_asked_for_every_vector_scores_them_all(monkeypatch):
    """Above ``HNSW_THRESHOLD`` vectors the index is an HNSW graph, whose search reaches only part of them when asked
    for all (about half of them here before); the localizer asks for every clip, so that answer is exact."""
    import memory.index as mi

    monkeypatch.setattr(mi, "HNSW_THRESHOLD", 100)
    vecs = np.random.default_rng(1).normal(size=(3000, 16)).astype(np.float32)
    idx = VectorIndex(vecs)
    queries = vecs[[5, 900]]
    scores, ids = idx.search(queries, len(idx))
    exact = mi.l2_normalize(queries) @ mi.l2_normalize(vecs).T
    assert ids.shape == (2, 3000) and all(sorted(row) == list(range(3000)) for row in ids.tolist())
    assert np.allclose(scores, np.take_along_axis(exact, ids, axis=1), atol=1e-5)
    assert (np.diff(scores, axis=1) <= 1e-6).all() and ids[0, 0] == 5 and ids[1, 0] == 900
    _, top_ids = idx.search(queries, 10)  # a top k still comes from the graph
    assert top_ids.shape == (2, 10) and top_ids[0, 0] == 5


_KERNEL_PROBE = """
import hashlib, json, sys
sys.path.insert(0, '.')
import faiss
from memory.index import VectorIndex, l2_normalize
from tools.perception.text import load_text_encoder
from tools.signals.lexicon import EMOTION_DESCRIPTIONS
texts = [t for ts in EMOTION_DESCRIPTIONS.values() for t in ts]
enc = load_text_encoder(model=None, device="cpu")
docs, queries = enc.encode(texts), enc.encode([t.upper() + " now" for t in texts[:24]])
index = VectorIndex(docs)
ours = [index.search(q, len(index)) for q in (queries[:1], queries)]
theirs = [index._index.search(l2_normalize(q), len(index))[0] for q in (queries[:1], queries)]
digest = lambda arrays: hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()
print(json.dumps([faiss.SIMDConfig.get_level_name(), digest([a for pair in ours for a in pair]), digest(theirs)]))
"""


def test_search_scores_do_not_follow_the_cpus_vector_kernels():
    """Cosines and ranks of real text vectors (the emotion descriptions, asked in other words; one query, where FAISS
    sums with its SIMD kernels, and 24, where it calls BLAS) are the same bits whatever kernels FAISS (its dynamic
    dispatch, ``FAISS_SIMD_LEVEL``), OpenBLAS (``OPENBLAS_CORETYPE``) and numpy (``NPY_DISABLE_CPU_FEATURES``) pick, as
    on CPUs with and without AVX2 or AVX-512; FAISS's own scores of the same search differ between its generic and
    its best kernels wherever it has a better one than generic (``evals/RESULTS.md`` section 170)."""
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    def probe_with(env: dict[str, str]) -> list[str]:
        out = subprocess.run([sys.executable, "-c", _KERNEL_PROBE], check=True, cwd=REPO, capture_output=True,
                             text=True, timeout=300, env={**os.environ, **env}).stdout
        return json.loads(out.splitlines()[-1])

    best = probe_with({})
    generic = probe_with({"FAISS_SIMD_LEVEL": "NONE"})
    held = probe_with({"NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
                       "OPENBLAS_CORETYPE": "Sandybridge", "FAISS_SIMD_LEVEL": "NONE"})
    assert generic[0] == "NONE" and best[1] == generic[1] == held[1]
    if best[0] != "NONE":
        assert best[2] != generic[2]  # FAISS's own sums follow the kernels


def test_empty_index_searches_to_nothing():
    scores, ids = VectorIndex(np.zeros((0, 8), np.float32)).search(np.ones((1, 8), np.float32), 5)
    assert scores.shape == (1, 0) and ids.shape == (1, 0)


def test_atomic_write_leaves_no_temp_files(tmp_path):
    target = tmp_path / "a" / "b.json"
    atomic_write_bytes(target, b"{}")
    atomic_write_bytes(target, b'{"x": 1}')
    assert target.read_bytes() == b'{"x": 1}'
    assert [p.name for p in target.parent.iterdir()] == ["b.json"]


def test_refs_resolve_to_records_and_unknown_refs_raise(tmp_path):
    cache = VideoCache(tmp_path, "ab" * 32)
    path = cache.perception_path("faces", 2.0, 6.0)
    write_json(path, [{"t": 2.0, "faces": [{"id": "f0.0", "t": 2.0}]}, {"t": 2.25, "faces": []}])
    ref = cache.ref(path, "f0.0")
    assert cache.resolve(ref) == {"id": "f0.0", "t": 2.0}
    with pytest.raises(KeyError):
        cache.resolve(ref.replace("f0.0", "f9.9"))
    with pytest.raises(KeyError):
        cache.resolve("perception/nothing.json#x")


def test_probe_and_sampled_frames_of_the_sample_video():
    info = probe(SAMPLE)
    assert info.width == 640 and info.height == 360 and info.has_audio
    assert info.duration_s == pytest.approx(10.0, abs=0.1)
    frames = list(iter_frames(SAMPLE, fps=1.0))
    assert len(frames) == 11  # its first frame at 0.844 s, then one per second to 10 s
    times = [t for t, _ in frames]
    assert times == sorted(times) and times[0] == 0.844  # its video stream starts 0.844 s after the audio
    assert all(f.shape == (360, 640, 3) and f.dtype == np.uint8 for _, f in frames)
    span = list(iter_frames(SAMPLE, fps=4.0, start_s=8.0, end_s=9.0))
    assert len(span) == 4 and all(8.0 - 0.02 <= t < 9.0 for t, _ in span)


def test_audio_is_mono_16k():
    audio = load_audio(SAMPLE)
    assert audio.ndim == 1 and audio.dtype == np.float32
    assert len(audio) / 16_000 == pytest.approx(10.0, abs=0.1)
    assert 0.01 < float(np.abs(audio).max()) <= 1.0


def test_descriptor_names_faces_expression_and_speech():
    text = describe_clip({"happiness": 0.6, "neutral": 0.3, "anger": 0.1}, 3, "thank you all")
    assert text.startswith("3 people on screen, smiling")
    assert "happiness 0.60" in text and 'says: "thank you all"' in text
    assert describe_clip({}, 0, "").startswith("no face visible")


def _index_dirs(root):
    return sorted(p for p in root.rglob("index-*") if p.is_dir())


def test_corrupted_index_is_rebuilt_not_used(tmp_path):
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    first = open_index(SAMPLE, IndexConfig(), tmp_path)
    assert first.built_now
    (first.dir / "clips.json").write_text('{"truncated')  # a half-written file
    again = open_index(SAMPLE, IndexConfig(), tmp_path)
    assert again.built_now and [c.id for c in again.clips] == [c.id for c in first.clips]
    # the sample is speech throughout (performer, then laughing audience): no clip is read as music or noise
    assert {c.sound.kind for c in again.clips} == {"speech"} and not any("sound:" in c.descriptor for c in again.clips)
    assert again.transcript.speech_regions and again.transcript.speech_regions[0][0] < 0.5
    assert open_index(SAMPLE, IndexConfig(), tmp_path).built_now is False
    from memory.cache import read_json
    from memory.store import Clip
    from tools.core.schema import FrameFaces, Transcript

    # the records are read in one pass of pydantic's JSON parser: the same as reading the JSON, then each record
    assert again.faces == [FrameFaces.model_validate(f) for f in read_json(again.dir / "faces.json")] and again.faces
    assert again.clips == [Clip.model_validate(c) for c in read_json(again.dir / "clips.json")]
    assert again.transcript == Transcript.model_validate(read_json(again.dir / "transcript.json"))


def test_two_processes_indexing_the_same_video_do_not_collide(tmp_path):
    import subprocess
    import sys

    code = ("import sys; sys.path.insert(0, '.'); from indexing.build import open_index; "
            "from memory.index_config import IndexConfig; "
            f"i = open_index({str(SAMPLE)!r}, IndexConfig(), {str(tmp_path)!r}); print('built' if i.built_now else 'loaded')")
    from tests.conftest import REPO

    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True) for _ in range(2)]
    outs = sorted(p.communicate(timeout=600)[0].strip() for p in procs)
    assert [p.returncode for p in procs] == [0, 0]
    assert outs == ["built", "loaded"]  # one built it, the other waited for the lock and loaded it
    assert len(_index_dirs(tmp_path)) == 1
    assert not [p for p in tmp_path.rglob(".index-*") if p.is_dir()]  # no staging dir left behind


_KILL_AFTER_TWO_CHUNKS = """
import os, signal, sys
sys.path.insert(0, '.')
import indexing.build as ix
from memory.checkpoint import Checkpoints
from memory.index_config import IndexConfig
ix.VISUAL_CHUNK_S, ix.ASR_CHUNK_S = 3.0, 4.0
save, saved = Checkpoints.save, []
def save_then_die(self, name, obj, **arrays):
    save(self, name, obj, **arrays)
    saved.append(name)
    if len(saved) == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # killed mid-build, as by the OOM killer or kill -9
Checkpoints.save = save_then_die
ix.open_index(sys.argv[1], IndexConfig(), sys.argv[2])
"""


@pytest.mark.asr
def test_killed_build_resumes_after_its_last_finished_chunk(tmp_path, monkeypatch):
    import subprocess
    import sys

    import indexing.build as ix
    from memory.index_config import IndexConfig
    from tests.conftest import REPO

    proc = subprocess.run([sys.executable, "-c", _KILL_AFTER_TWO_CHUNKS, str(SAMPLE), str(tmp_path / "a")], check=False,
                          cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9
    partial = [p for p in (tmp_path / "a").rglob(".index-*.partial") if p.is_dir()]
    assert len(partial) == 1 and not _index_dirs(tmp_path / "a")
    # the speech pass runs beside the visual pass, so which two chunks finished first varies
    parts = {p.name for p in (partial[0] / "parts").glob("*.json")} - {"plan.json"}
    assert len(parts) == 2 and all(re.fullmatch(r"(visual|asr)_0000[0-9]\.json", p) for p in parts), parts

    monkeypatch.setattr(ix, "VISUAL_CHUNK_S", 3.0)
    monkeypatch.setattr(ix, "ASR_CHUNK_S", 4.0)
    resumed = ix.open_index(SAMPLE, IndexConfig(), tmp_path / "a")
    assert resumed.built_now and resumed.manifest["resumed_chunks"] == 2
    assert not (resumed.dir / "parts").exists() and not partial[0].exists()

    # an uninterrupted build with the same chunks gives the same index: nothing of the killed run leaks
    whole = ix.open_index(SAMPLE, IndexConfig(), tmp_path / "b")
    assert whole.manifest["resumed_chunks"] == 0
    assert [fr.model_dump() for fr in resumed.faces] == [fr.model_dump() for fr in whole.faces]
    assert resumed.cuts == whole.cuts
    # the luma trace continues across 3 s chunks: the sample's cuts as one pass finds them (tests/test_moments.py)
    assert resumed.cuts == pytest.approx([1.511, 3.580, 7.884], abs=1 / 60)
    assert resumed.transcript.model_dump() == whole.transcript.model_dump()
    assert [u.model_dump() for u in resumed.utterances] == [u.model_dump() for u in whole.utterances]
    # audio cut into ~4 s pieces at quiet points: times stay in order and in range, ids are renumbered
    starts = [s.start_s for s in resumed.transcript.segments]
    assert starts and starts == sorted(starts) and 0 <= starts[0] and resumed.transcript.segments[-1].end_s <= 10.1
    assert [s.id for s in resumed.transcript.segments] == [f"s{i}" for i in range(len(starts))]


def _parts(root) -> set[str]:
    """The finished chunks kept in the one staging directory under ``root`` (a build that failed)."""
    [partial] = [p for p in root.rglob(".index-*.partial") if p.is_dir()]
    return {p.stem for p in (partial / "parts").glob("*.json")} - {"plan"}


def test_a_pass_that_fails_ends_the_build_without_waiting_for_the_other(tmp_path, monkeypatch):
    """The two passes run side by side; when one fails the error comes within a chunk of the other, not after the
    whole of it (on an hour: minutes), and the finished chunks are kept for the next build."""
    import indexing.build as ix
    import indexing.speech
    from memory.index_config import IndexConfig
    from tools.core.registry import BackendUnavailableError
    from tools.perception.engine import PerceptionEngine

    monkeypatch.setattr(ix, "VISUAL_CHUNK_S", 1.0)  # the sample's 10 s: ten visual chunks
    monkeypatch.setattr(ix, "ASR_CHUNK_S", 2.0)  # and about five speech chunks

    def no_recogniser(*_a, **_k):
        raise BackendUnavailableError("asr backend 'faster-whisper' cannot load: no model here")

    observe, load_asr, calls = PerceptionEngine.observe, indexing.speech.load_asr, []

    def slow_observe(self, *args, **kwargs):  # a visual chunk takes at least 0.3 s, as a long video's do
        time.sleep(0.3)
        return observe(self, *args, **kwargs)

    with monkeypatch.context() as m:  # the recogniser cannot load: the visual pass stops at its next chunk
        m.setattr(indexing.speech, "load_asr", no_recogniser)
        m.setattr(PerceptionEngine, "observe", slow_observe)
        with pytest.raises(BackendUnavailableError, match="no model here"):
            ix.open_index(SAMPLE, IndexConfig(), tmp_path / "a")
    visual = {p for p in _parts(tmp_path / "a") if p.startswith("visual_")}
    assert len(visual) <= 5, visual  # of ten

    def fails_on_the_second_chunk(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the expression model broke")
        return observe(self, *args, **kwargs)

    class SlowRecogniser:  # a speech chunk takes at least 0.5 s (the loaded model, shared by other tests, untouched)
        def __init__(self, *args, **kwargs) -> None:
            self.asr = load_asr(*args, **kwargs)

        def transcribe(self, audio):
            time.sleep(0.5)
            return self.asr.transcribe(audio)

    monkeypatch.setattr(PerceptionEngine, "observe", fails_on_the_second_chunk)
    monkeypatch.setattr(indexing.speech, "load_asr", SlowRecogniser)
    with pytest.raises(RuntimeError, match="expression model broke"):  # the speech pass stops after its chunk
        ix.open_index(SAMPLE, IndexConfig(), tmp_path / "b")
    speech = {p for p in _parts(tmp_path / "b") if p.startswith("asr_")}
    assert len(speech) <= 3, speech  # of five


_INDEX_FILES = ("clips.json", "transcript.json", "faces.json", "tracks.json", "events.json", "utterances.json",
                "voices.json", "clips.faiss", "segments.faiss", "events.faiss")


@pytest.mark.slow
@pytest.mark.asr
def test_the_same_video_indexed_twice_from_empty_caches_gives_the_same_index_and_answer(tmp_path):
    """Decoding at temperature 0 and a build whose passes join in a fixed order: two cold runs of the same
    command (separate processes, empty caches) store byte-identical index files and give the same answer."""
    from tests.conftest import load_json, run_cli

    answers, dirs = [], []
    for run in ("a", "b"):
        proc = run_cli(str(SAMPLE), "when does the audience enjoy the show?", "--cache-dir", str(tmp_path / run),
                       "--json", str(tmp_path / f"{run}.json"), "--quiet")
        assert proc.returncode == 0, proc.stderr
        answers.append(load_json(tmp_path / f"{run}.json"))
        [d] = _index_dirs(tmp_path / run)
        dirs.append(d)
    assert dirs[0].name == dirs[1].name  # the same cache key
    for name in _INDEX_FILES:
        assert (dirs[0] / name).read_bytes() == (dirs[1] / name).read_bytes(), name
    first, second = (load_json(d / "manifest.json") for d in dirs)
    for m in (first, second):
        m.pop("timings_s"), m.pop("created"), m["video"].pop("path")
    assert first == second
    assert load_json(dirs[0] / "transcript.json")["segments"]  # the sample's speech was transcribed
    for a in answers:  # what may differ: seconds spent, and where each cache lives
        a.pop("timings_s"), a["index"].pop("dir")
        for step in a["trace"]:
            step.pop("elapsed_s")
    assert answers[0]["moments"] and answers[0] == answers[1]


def test_asr_chunks_cut_speech_at_quiet_points():
    from indexing.speech import asr_chunks
    from tests.conftest import shared_media

    audio = load_audio(shared_media("jfk.flac"))  # 11 s of speech with pauses between phrases
    spans = asr_chunks(audio, 16_000, chunk_s=3.0, search_s=1.5)
    assert spans[0][0] == 0 and spans[-1][1] == len(audio)
    assert all(a1 == b0 for (_, a1), (b0, _) in itertools.pairwise(spans))  # contiguous
    frame_rms = np.sqrt(np.mean(audio[: len(audio) // 1600 * 1600].reshape(-1, 1600) ** 2, axis=1))
    for _, cut in spans[:-1]:
        around = audio[cut - 800:cut + 800]
        assert np.sqrt(np.mean(around ** 2)) < np.median(frame_rms) / 3  # in a pause, not mid-word


def test_asr_chunks_shrink_towards_the_end_so_the_last_chunks_are_short():
    """A long track is cut into full chunks first and ever shorter ones at the end (a quarter of what is left, down to
    ``last_s``), so the two threads that share them end close together (the cuts at pauses: the test above)."""
    from indexing.speech import asr_chunks
    from tests.conftest import shared_media

    speech = load_audio(shared_media("jfk.flac"))
    audio = np.concatenate([speech] * 12)  # 2 min 12 s of real speech with pauses, the plan scaled down 100 times
    spans = asr_chunks(audio, 16_000, chunk_s=3.0, search_s=0.5, last_s=0.6)
    lengths = [(b - a) / 16_000 for a, b in spans]
    assert spans[0][0] == 0 and spans[-1][1] == len(audio)
    assert all(a1 == b0 for (_, a1), (b0, _) in itertools.pairwise(spans))
    assert 2.4 <= lengths[0] <= 3.0 and max(lengths) <= 3.0
    assert max(lengths[-3:]) < 1.2 < min(lengths[:len(lengths) // 2])  # short at the end, full at the start
    assert asr_chunks(audio, 16_000, chunk_s=3.0, search_s=0.5, last_s=3.0)[-2:] != spans[-2:]  # not the old plan
    assert asr_chunks(audio[:16_000 * 60], 16_000) == [(0, 16_000 * 60)]  # a minute of audio stays one chunk


def test_chunk_transcripts_join_in_the_language_most_chunks_heard_and_a_tie_in_the_first_chunks():
    """The joined transcript's language decides which encoder embeds its segments; it is the language most chunks
    detected, and on a tie the earlier chunk's, so the same chunks give the same language in every process (a set's
    order changes with the hash seed)."""
    from indexing.speech import merge_transcripts
    from tools.core.schema import Transcript, TranscriptSegment

    def chunk(language: str) -> Transcript:
        return Transcript(language=language, duration_s=300.0, model="m",
                          segments=[TranscriptSegment(id="s0", start_s=1.0, end_s=2.0, text="hallo")])

    def joined(*languages: str) -> str | None:
        return merge_transcripts([(300.0 * k, chunk(lang)) for k, lang in enumerate(languages)], 1200.0).language

    assert joined("de", "en", "en", "de") == "de" and joined("en", "de", "de", "en") == "en"
    assert joined("de", "en", "en") == "en"


def test_speech_pass_beside_the_visual_pass_builds_the_same_index(tmp_path):
    """The overlapped build (speech on a second thread) stores what the one-after-the-other build stores."""
    from indexing.build import NullProgress, build_index
    from memory.cache import VideoCache, file_sha256
    from memory.index_config import IndexConfig
    from memory.store import load_index

    info, cfg = probe(SAMPLE), IndexConfig()
    built = {}
    for overlap in (False, True):
        out = tmp_path / f"overlap-{overlap}"
        out.mkdir()
        timings: dict[str, float] = {}
        build_index(info, cfg, out, NullProgress(), timings, overlap=overlap)
        built[overlap] = load_index(info, VideoCache(tmp_path / "c", file_sha256(SAMPLE)), cfg, out)
        assert timings["visual_and_speech"] > 0
    a, b = built[False], built[True]
    assert [f.model_dump() for f in a.faces] == [f.model_dump() for f in b.faces]
    assert a.transcript.model_dump() == b.transcript.model_dump()
    assert [c.model_dump() for c in a.clips] == [c.model_dump() for c in b.clips]
    assert [u.model_dump() for u in a.utterances] == [u.model_dump() for u in b.utterances]
