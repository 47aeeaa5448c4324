"""Index a video once: clips, index-time affect pass, transcript, vocal cues, embeddings, FAISS.

``open_index`` returns the cached index when one exists for (file content, config) and builds it
otherwise. A build runs the visual pass (``indexing.visual``: frames at 1 fps through the perception
engine, shot cuts, tracks), the speech pass (``indexing.speech``: ASR with word timestamps), derives
voice turns (``tools.signals.diarization``), utterances with their speakers and voices and the social event
timeline (``indexing.speakers``), makes the clips and their vectors (``indexing.clips``), and
stores it all (``memory.store``) in a staging directory that is renamed into place only when complete.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from indexing.clips import caption_keyframes, clip_vectors, clip_voice_features, clip_windows, make_clips, with_voices
from indexing.observe import save_index_frames
from indexing.speakers import clip_speakers, person_frames, utterances_and_events
from indexing.speech import ASR_CHUNK_S, ASR_LAST_CHUNK_S, SharedChunks, transcribe_track
from indexing.visual import VISUAL_CHUNK_S, observe_video
from memory.cache import VideoCache, video_digest
from memory.checkpoint import Checkpoints
from memory.store import (
    INDEX_FORMAT,
    IndexConfig,
    IndexRecords,
    VideoIndex,
    load_index,
    load_matching_index,
    save_index,
)
from tools.core.media import VideoInfo, probe
from tools.core.runtime import cpu_budget
from tools.core.schema import Transcript
from tools.perception.engine import load_engine
from tools.perception.text import load_text_encoder, load_transcript_encoder, transcript_encoder_for
from tools.perception.voice_emotion import load_voice_emotion
from tools.perception.voices import load_voice_identity
from tools.signals.diarization import VoiceTurn, cluster_voices, speech_windows, voice_turns

#: Run the speech pass beside the visual pass (``build_index``); ``AFFECTSEEK_OVERLAP_SPEECH=0`` runs
#: them one after the other. Measured on 10 minutes of dialogue, 2 cores: index RTF 4.8 -> 6.0.
OVERLAP_SPEECH = os.environ.get("AFFECTSEEK_OVERLAP_SPEECH", "1") != "0"


class NullProgress:
    """A progress display that shows nothing (``rich.progress.Progress``'s ``add_task`` and ``update``)."""

    def add_task(self, *_a, **_k) -> int:
        return 0

    def update(self, *_a, **_k) -> None:
        return None


def open_index(video: str | os.PathLike, config: IndexConfig, cache_root: str | os.PathLike | None = None,
               progress=None) -> VideoIndex:
    """Return the index of ``video`` for ``config``, building and caching it when missing.

    Args:
        video: path of the video file.
        config: index settings (the cache key derives from them and the file's content hash).
        cache_root: cache directory (default ``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``).
        progress: a ``rich.progress.Progress`` to report stages on, or None.

    A build holds an inter-process lock, so two processes indexing the same video do not collide; an
    index that is corrupted, or was written by another format or config, is deleted and rebuilt. A
    build checkpoints every finished chunk (``memory.checkpoint``): a killed build resumes after the
    last finished chunk on the next call (``manifest["resumed_chunks"]`` counts what it reused).

    Raises:
        tools.core.media.VideoError: the file is not a usable video.
        tools.core.registry.BackendUnavailableError: an index must be built and a backend's fetched weights are
            missing (``IndexConfig.require_weights``; before any build work, staging folder included).

    A file without an audio track is indexed as ``config.use_audio=False`` would index it (the pictures alone);
    the answers' warnings say so (``tools.core.media.video_warnings``).
    """
    timings: dict[str, float] = {}
    t = time.perf_counter()
    info = probe(video)
    if config.use_audio and not info.has_audio:
        config = config.model_copy(update={"use_audio": False})
    cache = VideoCache(cache_root, video_digest(video, cache_root))
    timings["probe_hash"] = time.perf_counter() - t
    key = config.key()
    final = cache.index_dir(key)
    built = False
    with cache.lock(key):
        t = time.perf_counter()
        idx = load_matching_index(info, cache, config, final) if (final / "manifest.json").is_file() else None
        if idx is None:
            if final.exists():
                shutil.rmtree(final)  # corrupted, or another format or config: rebuilt, never used
            config.require_weights()  # weights not fetched: one line now, not after the first chunk of speech
            staging = cache.staging_dir(key)  # kept when a build dies: the next one resumes from it
            build_index(info, config, staging, progress or NullProgress(), timings)
            final = cache.commit(staging, key)
            built = True
            t = time.perf_counter()
            idx = load_index(info, cache, config, final)
    idx.built_now = built
    timings["load_index"] = time.perf_counter() - t
    idx.timings_s = timings
    return idx


def diarize(audio: np.ndarray, transcript: Transcript, backend: str, device: str = "cpu") -> list[VoiceTurn]:
    """Voice turns of the speech regions (``tools.signals.diarization`` over ``tools.perception.voices`` ``backend`` on ``device``)."""
    windows = speech_windows(transcript.speech_regions)
    if not windows:
        return []
    embeddings = load_voice_identity(backend, device=device).embed(audio, windows)
    return voice_turns(windows, cluster_voices(embeddings))


def speech_threads(beside_pictures: bool) -> int:
    """The recogniser's CPU threads in the speech pass: one per core this process may use
    (``tools.core.runtime.cpu_budget``), less the core the visual pass takes when the two run side by side (at least
    one). On 2 cores of a Zen 4 EPYC, Whisper tiny.en (int8, beam 5) decoded a
    300-s chunk as fast on one CTranslate2 thread as on two, and beside the visual pass its second thread only took
    time from it: 10 minutes of dialogue indexed in 101.5-105.6 s on two, 95.9-100.7 s on one, the same index
    (``evals/RESULTS.md`` section 93)."""
    cores = cpu_budget()
    return max(1, cores - 1) if beside_pictures else cores


def _speech_pass(info: VideoInfo, cfg: IndexConfig, ckpt: Checkpoints, progress,
                 shared: SharedChunks | None = None) -> tuple[np.ndarray, Transcript, list[VoiceTurn], float, float]:
    """The speech pass: (16 kHz audio, transcript, voice turns, seconds transcribing, seconds diarizing);
    ``shared``: it runs beside the visual pass (``speech_threads``), which sets ``shared.stop`` when it fails and
    helps with the chunks left when it is done (``indexing.speech.SharedChunks``)."""
    t0 = time.perf_counter()
    audio, transcript = transcribe_track(info, cfg, ckpt, progress, ASR_CHUNK_S, speech_threads(shared is not None),
                                         shared=shared)
    t1 = time.perf_counter()
    voices = diarize(audio, transcript, cfg.voice_id_backend, cfg.device) if cfg.use_audio and cfg.voice_id_backend else []
    return audio, transcript, voices, t1 - t0, time.perf_counter() - t1


def _visual_pass(info: VideoInfo, cfg: IndexConfig, engine, embedder, ckpt: Checkpoints, out: Path, progress,
                 timings: dict[str, float], chunk_s: float, speech: Future | None, shared: SharedChunks):
    """``observe_video`` (and the index frames for gestures) beside the ``speech`` pass: between its chunks it raises
    the speech pass's error (``_failed``), and when it fails itself it sets ``shared.stop``, so the speech pass ends
    after the chunk in progress, not after the whole track."""
    try:
        visual = observe_video(info, cfg, engine, embedder, ckpt, out, progress, timings, chunk_s,
                               between_chunks=functools.partial(_failed, speech))
    except BaseException:
        shared.stop.set()
        raise
    if cfg.index_gestures:
        save_index_frames(out, visual.observed)
    return visual


def _failed(speech: Future | None) -> None:
    """Raise the speech pass's error if it has failed (the visual pass asks between its chunks)."""
    if speech is not None and speech.done() and speech.exception() is not None:
        raise speech.exception()


def _split_visual_timings(timings: dict[str, float], spent: dict[str, float]) -> None:
    """Split the visual pass's wall time (``decode_faces``) in ``timings`` into gaze + shot cuts
    (``gaze_cuts``) and detection + expression + track linking (``faces_expression``); ``spent``: the
    engine's seconds per tool during the pass."""
    timings["gaze_cuts"] = spent.get("gaze", 0.0) + timings.pop("cuts", 0.0)
    timings["faces_expression"] = timings["decode_faces"] - sum(
        timings.get(k, 0.0) for k in ("decode", "gaze_cuts", "clip_frames", "face_crops", "tracks"))


def build_index(info: VideoInfo, cfg: IndexConfig, out: Path, progress, timings: dict[str, float],
                overlap: bool | None = None) -> None:
    """Build the index of ``info`` into the staging directory ``out`` (see the module doc); adds the
    seconds of each stage to ``timings`` (``visual_and_speech``: the wall time of both passes).

    ``overlap`` (default ``OVERLAP_SPEECH``) runs the speech pass (ASR, then voice diarization) on a second thread while
    the visual pass runs, so the two share the cores instead of taking turns; once its pictures are done, this thread
    transcribes the speech chunks still untaken beside it (``indexing.speech.SharedChunks``; the same transcript). A
    failure of either pass ends the build within a chunk of the other (``_failed``); finished chunks are kept.
    """
    overlap = OVERLAP_SPEECH if overlap is None else overlap
    embedder = cfg.clip_embedder()
    engine = load_engine(cfg.perception())
    seconds_before = dict(engine.seconds)
    visual_chunk_s = max(1, round(VISUAL_CHUNK_S * cfg.sample_fps)) / cfg.sample_fps
    plan = {"visual_chunk_s": visual_chunk_s, "asr_chunk_s": ASR_CHUNK_S, "asr_last_chunk_s": ASR_LAST_CHUNK_S}
    ckpt = Checkpoints(out, {"format": INDEX_FORMAT, "config": cfg.key(), **plan, "duration_s": info.duration_s})

    t, shared = time.perf_counter(), SharedChunks(threading.Event())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="asr") as pool:
        speech = pool.submit(_speech_pass, info, cfg, ckpt, progress, shared) if overlap else None  # no GIL
        visual = _visual_pass(info, cfg, engine, embedder, ckpt, out, progress, timings, visual_chunk_s, speech, shared)
        timings["decode_faces"] = time.perf_counter() - t
        if speech is not None:
            shared.help()  # this core's pictures are done: transcribe chunks beside the speech pass
        audio, transcript, voices, timings["transcribe"], timings["diarize"] = (
            speech.result() if speech is not None else _speech_pass(info, cfg, ckpt, progress))
    timings["visual_and_speech"] = time.perf_counter() - t
    _split_visual_timings(timings, {k: v - seconds_before.get(k, 0.0) for k, v in engine.seconds.items()})

    t = time.perf_counter()
    records, models = _records(info, cfg, engine, visual, audio, transcript, voices, embedder, progress, timings)
    timings["embed"] = time.perf_counter() - t
    save_index(out, records, info, cfg, models, timings, ckpt.resumed)


def _records(info: VideoInfo, cfg: IndexConfig, engine, visual, audio: np.ndarray, transcript: Transcript,
             voices: list[VoiceTurn], embedder, progress, timings: dict[str, float]
             ) -> tuple[IndexRecords, dict[str, str]]:
    """The index's records once both passes are done, and the names of the models that made them: utterances and
    events (``utterances_and_events``), the clips (``indexing.clips``) and the vectors of their descriptors, the
    transcript's segments and the events. Each clip's voice features are computed
    (``indexing.clips.clip_voice_features``) on a thread of their own beside the rest, which does not depend on them:
    the stage after the two passes used one core of two while it read them (the 60-minute dialogue: 1,518 clips, 6.3 s
    of reading; ``evals/RESULTS.md`` section 127); they are read after, each against its speaker's own baseline
    with a speaker reader (``indexing.speakers.clip_speakers``: by lips, else by voice)."""
    voice = load_voice_emotion(cfg.voice_backend).for_recording(audio) if cfg.use_audio and cfg.voice_backend else None
    windows = clip_windows(info.duration_s, cfg.clip_len_s, cfg.clip_stride_s, visual.cuts)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="clip-voice") as pool:
        features = pool.submit(clip_voice_features, windows, voice, audio, transcript)
        frames = person_frames(visual.observed, visual.tracks)
        utterances, events = utterances_and_events(visual.observed, visual.tracks, frames, transcript, audio,
                                                   cfg.sample_fps, voices, visual.cuts)
        captioner, captions = None, []
        if cfg.caption_model:
            t_cap = time.perf_counter()
            captioner, captions = caption_keyframes(info, visual.cuts, cfg, progress)
            timings["caption"] = time.perf_counter() - t_cap
        task = progress.add_task("embed", total=len(windows))
        clips = make_clips(windows, visual.faces, transcript, events, audio, captions, cfg.caption_every_s)
        vectors = clip_vectors(clips, embedder, [fr.t for fr in visual.observed], visual.frame_vectors)
        text_enc = load_text_encoder(model=None, device=cfg.device)
        speech_enc = load_transcript_encoder(transcript_encoder_for(cfg.transcript_encoder, transcript),
                                             device=cfg.device)
        segment_vectors = speech_enc.encode([s.text for s in transcript.segments])
        event_vectors = text_enc.encode([ev.detail for ev in events])
        rows, spans = features.result()
        speakers = clip_speakers(spans, voices, frames, visual.cuts)
        clips = with_voices(clips, voice.read_clips(rows, speakers) if voice is not None else rows, speakers)
    progress.update(task, completed=len(windows))
    records = IndexRecords(clips=clips, transcript=transcript, faces=visual.faces, tracks=visual.tracks, cuts=visual.cuts,
                           events=events, utterances=utterances, voices=voices, clip_vectors=vectors,
                           segment_vectors=segment_vectors, event_vectors=event_vectors)
    models = {"clip_embedder": embedder.name, "text_encoder": text_enc.name, "transcript_encoder": speech_enc.name,
              "faces": engine.detector.name, "expression": engine.classifier.name, "asr": transcript.model,
              "voice": voice.name if voice is not None else "none",
              "identity": engine.identity.name if cfg.identity_backend and visual.tracks else "none",
              "voice_identity": load_voice_identity(cfg.voice_id_backend, device=cfg.device).name if voices else "none",
              **({"captions": f"{captioner.model}: {len(captions)} keyframes captioned, {captioner.failures} failed, "
                              f"cost ${captioner.cost_usd:.4f}"} if captioner is not None else {})}
    return records, models
