"""Index a video once: clips, index-time affect pass, transcript, vocal cues, embeddings, FAISS.

``open_index`` returns the cached index when one exists for (file content, config) and builds it
otherwise. A build streams sampled frames (default 1 fps) through face detection + expression and,
with the CLIP embedder, the image encoder; transcribes the audio once with word timestamps; writes
everything into a staging directory and renames it into place only when complete.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import importlib.metadata
import math
import os
import platform
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from memory.cache import VideoCache, config_key, file_sha256, read_json, write_json
from memory.checkpoint import ASR_CHUNK_S, VISUAL_CHUNK_S, Checkpoints, asr_chunks, merge_transcripts
from memory.embedders import load_clip_embedder
from memory.index import VectorIndex
from memory.video import VideoInfo, iter_frames, load_audio, probe
from tools.asr import SAMPLE_RATE, load_asr
from tools.engine import FrameObservation, PerceptionConfig, PerceptionEngine, load_engine
from tools.events import SocialEvent, expression_changes, gaze_and_pointing_events
from tools.lexicon import EMOTION_DESCRIPTIONS
from tools.prosody import prosody
from tools.schema import AFFECTNET8, Box, FaceObservation, FrameFaces, ProsodyStats, Transcript
from tools.social import SpeechTurn, social_frames, speaker_of
from tools.text import load_text_encoder
from tools.tracks import TrackSummary, box_similarity, frame_histogram, is_cut, link_tracks
from tools.voice_emotion import load_voice_emotion

INDEX_FORMAT = 7


class IndexConfig(BaseModel):
    """What an index is built with; everything but ``device`` is part of the cache key.

    Defaults follow the VQAU setting of short overlapping clips: 4 s windows, 2 s stride, frames
    sampled at 1 fps.
    """

    clip_len_s: float = Field(4.0, gt=0)
    clip_stride_s: float = Field(2.0, gt=0)
    sample_fps: float = Field(1.0, gt=0)
    embedder: Literal["minilm", "clip"] = "minilm"
    clip_model: str = "ViT-B-32"
    clip_checkpoint: str | None = None
    asr_backend: str = "faster-whisper"
    asr_model: str | None = None
    language: str | None = None
    face_backend: str = "mediapipe"
    expression_backend: str = "face8"
    voice_backend: str | None = "voice8"
    use_audio: bool = True
    device: str = "cpu"

    def perception(self) -> PerceptionConfig:
        """The perception engine's config (``tools.engine``) this index config names."""
        return PerceptionConfig(face_backend=self.face_backend, expression_backend=self.expression_backend)

    def clip_embedder(self):
        """The (cached) clip embedder this config names (``memory.embedders``)."""
        if self.embedder == "clip":
            return load_clip_embedder("clip", model=self.clip_model, checkpoint=self.clip_checkpoint, device=self.device)
        return load_clip_embedder("minilm", device=self.device)

    def key(self) -> str:
        """Cache key (12 hex) of everything that changes the index's content."""
        return config_key({"format": INDEX_FORMAT, **self.model_dump(exclude={"device"})})


class Turn(BaseModel):
    """A speech turn (one ASR segment) with its speaker track from lip activity and its vocal cues."""

    id: str
    segment_id: str
    start_s: float
    end_s: float
    speaker: int | None = Field(None, description="track id, None when no face's lips moved enough")
    prosody: ProsodyStats


class Clip(BaseModel):
    """One indexed clip: a window [start_s, end_s) with what the index-time pass saw and heard."""

    id: str
    start_s: float
    end_s: float
    descriptor: str
    max_faces: int
    expression: dict[str, float] = Field(description="mean AffectNet-8 probabilities over faces seen")
    speech: str
    voice: dict[str, float] | None = Field(
        None, description="AffectNet-8 probabilities of the voice over the clip's recognised words (tools.voice_emotion); "
                          "None without speech")


@dataclass
class VideoIndex:
    """A loaded index of one video; ``dir`` holds its files, ``cache`` the video's cache."""

    info: VideoInfo
    cache: VideoCache
    config: IndexConfig
    dir: Path
    clips: list[Clip]
    transcript: Transcript
    affect: list[FrameFaces]
    tracks: list[TrackSummary]
    cuts: list[float]
    events: list[SocialEvent]
    turns: list[Turn]
    clip_index: VectorIndex
    segment_index: VectorIndex
    event_index: VectorIndex
    manifest: dict
    built_now: bool = False
    timings_s: dict[str, float] = field(default_factory=dict)

    def ref(self, filename: str, record_id: str) -> str:
        """Evidence reference to record ``record_id`` in this index's file ``filename``."""
        return self.cache.ref(self.dir / filename, record_id)

    @functools.cached_property
    def _times(self) -> list[float]:
        return [fr.t for fr in self.affect]

    def face_track(self, face: FaceObservation) -> int | None:
        """Track id of a face observation made at any frame rate (``track_at`` of its time and box)."""
        return self.track_at(face.t, face.box)

    def track_at(self, t: float, box: Box, min_similarity: float = 0.3) -> int | None:
        """Track id of a face seen at ``t`` (s) in ``box``: the index-time face nearest in time (within
        0.75 sampling intervals, same shot) whose box is similar enough; None when there is none, or
        when ``t`` falls between a shot cut and the sample before it (which shot it is in is unknown)."""
        window = 0.75 / self.config.sample_fps
        for c in self.cuts:  # the shot change happened somewhere between the sample before c and c
            before = self._times[max(0, bisect.bisect_left(self._times, c) - 1)]
            if before < t < c:
                return None
        best, best_sim = None, min_similarity
        lo, hi = bisect.bisect_left(self._times, t - window), bisect.bisect_right(self._times, t + window)
        for fr in self.affect[lo:hi]:
            if any(min(fr.t, t) < c <= max(fr.t, t) for c in self.cuts):
                continue
            for f in fr.faces:
                sim = box_similarity(f.box, box)
                if f.track_id is not None and sim >= best_sim:
                    best, best_sim = f.track_id, sim
        return best


def clip_windows(duration_s: float, length_s: float, stride_s: float) -> list[tuple[float, float]]:
    """Windows [start, end) of ``length_s`` every ``stride_s`` covering [0, duration_s].

    The last window ends at ``duration_s`` (a tail shorter than half a stride is absorbed into the
    window before it); a video shorter than one window gives one window.
    """
    if duration_s <= 0:
        return []
    out, start = [], 0.0
    while True:
        end = min(duration_s, start + length_s)
        if duration_s - end < stride_s / 2:
            end = duration_s
        out.append((round(start, 3), round(end, 3)))
        if end >= duration_s:
            return out
        start += stride_s


def describe_clip(expression: dict[str, float], max_faces: int, speech: str, events: list[str] = ()) -> str:
    """Descriptor text of a clip: what faces showed, what was said and the social events, in plain words."""
    parts = []
    if max_faces:
        ranked = sorted(expression.items(), key=lambda kv: -kv[1])[:2]
        top = ranked[0][0]
        people = "one person" if max_faces == 1 else f"{max_faces} people"
        parts.append(f"{people} on screen, {EMOTION_DESCRIPTIONS[top][0]}")
        parts.append("expressions: " + ", ".join(f"{k} {v:.2f}" for k, v in ranked))
    else:
        parts.append("no face visible")
    parts.append(f'someone says: "{speech}"' if speech else "no speech")
    parts.extend(events)
    return "; ".join(parts)


#: Libraries whose versions an index manifest records.
INDEX_LIBRARIES = ("torch", "faiss-cpu", "av", "mediapipe", "keras", "faster-whisper", "sentence-transformers",
                   "open_clip_torch")


def library_versions(packages: tuple[str, ...] = INDEX_LIBRARIES) -> dict[str, str]:
    """Python's version and the installed version of each of ``packages`` (missing ones left out)."""
    out = {"python": platform.python_version()}
    for pkg in packages:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[pkg] = importlib.metadata.version(pkg)
    return out


class _NullProgress:
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
        memory.video.VideoError: the file is not a usable video, or has no audio track while
            ``config.use_audio`` is set.
    """
    timings: dict[str, float] = {}
    t = time.perf_counter()
    info = probe(video)
    if config.use_audio and not info.has_audio:
        from memory.video import VideoError

        raise VideoError(f"{info.path}: has no audio track (pass --no-audio to answer from the picture alone)")
    cache = VideoCache(cache_root, file_sha256(video))
    timings["probe_hash"] = time.perf_counter() - t
    key = config.key()
    final = cache.index_dir(key)
    built = False
    with cache.lock(key):
        t = time.perf_counter()
        idx = _try_load(info, cache, config, final) if (final / "manifest.json").is_file() else None
        if idx is None:
            if final.exists():
                shutil.rmtree(final)  # corrupted, or another format or config: rebuilt, never used
            staging = cache.staging_dir(key)  # kept when a build dies: the next one resumes from it
            _build(info, config, staging, progress or _NullProgress(), timings)
            final = cache.commit(staging, key)
            built = True
            t = time.perf_counter()
            idx = _load(info, cache, config, final)
    idx.built_now = built
    timings["load_index"] = time.perf_counter() - t
    idx.timings_s = timings
    return idx


def _try_load(info: VideoInfo, cache: VideoCache, config: IndexConfig, d: Path) -> VideoIndex | None:
    """The index in ``d`` when it loads and matches this format and config; None otherwise."""
    try:
        idx = _load(info, cache, config, d)
        ok = idx.manifest.get("format") == INDEX_FORMAT and \
            IndexConfig.model_validate(idx.manifest["config"]).key() == config.key()
        return idx if ok else None
    except (OSError, ValueError, KeyError, RuntimeError):
        return None


def _load(info: VideoInfo, cache: VideoCache, config: IndexConfig, d: Path) -> VideoIndex:
    return VideoIndex(
        info=info,
        cache=cache,
        config=config,
        dir=d,
        clips=[Clip.model_validate(c) for c in read_json(d / "clips.json")],
        transcript=Transcript.model_validate(read_json(d / "transcript.json")),
        affect=[FrameFaces.model_validate(f) for f in read_json(d / "affect.json")],
        tracks=[TrackSummary.model_validate(t) for t in read_json(d / "tracks.json")["tracks"]],
        cuts=read_json(d / "tracks.json")["cuts"],
        events=[SocialEvent.model_validate(e) for e in read_json(d / "events.json")],
        turns=[Turn.model_validate(t) for t in read_json(d / "turns.json")],
        clip_index=VectorIndex.load(d / "clips.faiss"),
        segment_index=VectorIndex.load(d / "segments.faiss"),
        event_index=VectorIndex.load(d / "events.faiss"),
        manifest=read_json(d / "manifest.json"),
    )


def _turns_and_events(observed: list[FrameObservation], tracks: list[TrackSummary], transcript: Transcript,
                      audio: np.ndarray, cfg: IndexConfig) -> tuple[list[Turn], list[SocialEvent]]:
    """Speech turns (speaker by lip activity, vocal cues) and the index-time social event timeline;
    ``observed`` carries the track id of each face."""
    frames = social_frames(observed, lambda f: f.track_id)
    turns = []
    for i, seg in enumerate(transcript.segments):
        end = max(seg.end_s, seg.start_s + 1e-3)
        turns.append(Turn(id=f"turn{i}", segment_id=seg.id, start_s=seg.start_s, end_s=end,
                          speaker=speaker_of(frames, seg.start_s, seg.end_s),
                          prosody=prosody(audio, SAMPLE_RATE, transcript, seg.start_s, end, id=f"pt{i}")))
    events = expression_changes(observed, tracks) + gaze_and_pointing_events(
        frames, max_gap_s=1.5 / cfg.sample_fps,
        turns=[SpeechTurn(start_s=u.start_s, end_s=u.end_s, speaker=u.speaker, record_id=u.id) for u in turns])
    events.sort(key=lambda e: (e.start_s, e.type))
    return turns, [e.model_copy(update={"id": f"e{i}"}) for i, e in enumerate(events)]


def clip_voice(model, audio: np.ndarray, transcript: Transcript, start_s: float, end_s: float) -> dict[str, float] | None:
    """Vocal AffectNet-8 distribution over the recognised words of [start_s, end_s) (from the first
    word's start to the last word's end, so silence and music around them are not read); None without
    a voice model, or with no words or too little speech."""
    words = transcript.words_between(start_s, end_s) if model is not None else []
    if not words:
        return None
    a, b = max(start_s, words[0].start_s), min(end_s, words[-1].end_s)
    return model.distribution(audio[int(a * SAMPLE_RATE) : int(b * SAMPLE_RATE)], SAMPLE_RATE)


def _with_thumbnails(info: VideoInfo, affect: list[FrameFaces], tracks: list[TrackSummary],
                     out: Path) -> list[TrackSummary]:
    """Save a JPEG face crop per track (its most confident observation) under ``out/thumbs``."""
    import cv2

    from tools.expression import crop_face

    faces = {f.id: f for fr in affect for f in fr.faces}
    (out / "thumbs").mkdir(exist_ok=True)
    result = []
    for tr in tracks:
        best = max((faces[i] for i in tr.observation_ids), key=lambda f: f.det_score)
        frame = next((f for _, f in iter_frames(info.path, 10.0, best.t, best.t + 0.1)), None)
        if frame is None:
            result.append(tr)
            continue
        rel = f"thumbs/track_{tr.track_id}.jpg"
        cv2.imwrite(str(out / rel), cv2.cvtColor(crop_face(frame, best.box, 0.25), cv2.COLOR_RGB2BGR))
        result.append(tr.model_copy(update={"thumbnail": rel}))
    return result


def _timed(items: Iterator, timings: dict[str, float], key: str) -> Iterator:
    """Yield from ``items``, adding the seconds spent producing them to ``timings[key]``."""
    items, end = iter(items), object()
    while True:
        t = time.perf_counter()
        item = next(items, end)
        timings[key] = timings.get(key, 0.0) + time.perf_counter() - t
        if item is end:
            return
        yield item


def _visual_chunk(info: VideoInfo, cfg: IndexConfig, start_s: float, end_s: float | None, first_number: int,
                  prev_hist: np.ndarray | None, engine: PerceptionEngine, embedder, progress,
                  task, timings: dict[str, float]) -> tuple[list[FrameObservation], list[float], dict[str, np.ndarray]]:
    """The engine's observations (faces + expression, gaze; no hands), shot cuts and, with a frame
    embedder, CLIP frame vectors for the sampled frames of one chunk.

    Returns (observations, cut times in seconds, arrays ``last_hist`` and, with a frame embedder,
    ``frame_vecs`` of shape (n_frames, dim)). Adds the seconds spent decoding, on shot cuts and on CLIP
    frame embedding to ``timings`` (``decode``, ``cuts``, ``clip_frames``).
    """
    cuts: list[float] = []
    hist_box: list[np.ndarray | None] = [prev_hist]
    pending: list[np.ndarray] = []
    vecs: list[np.ndarray] = []

    def on_frame(ts: float, frame: np.ndarray, _obs: FrameObservation) -> None:
        t0 = time.perf_counter()
        hist = frame_histogram(frame)
        if is_cut(hist_box[0], hist):
            cuts.append(ts)
        hist_box[0] = hist
        t1 = time.perf_counter()
        timings["cuts"] = timings.get("cuts", 0.0) + t1 - t0
        if embedder.uses_frames:
            pending.append(frame)
            if len(pending) == 16:
                vecs.append(embedder.embed_frames(pending))
                pending.clear()
            timings["clip_frames"] = timings.get("clip_frames", 0.0) + time.perf_counter() - t1
        progress.update(task, advance=1)

    frames = _timed(iter_frames(info.path, cfg.sample_fps, start_s, end_s), timings, "decode")
    observed = engine.observe(frames, "a", hands=False, first_number=first_number, on_frame=on_frame)
    if pending:
        t1 = time.perf_counter()
        vecs.append(embedder.embed_frames(pending))
        timings["clip_frames"] = timings.get("clip_frames", 0.0) + time.perf_counter() - t1
    arrays = {"last_hist": hist_box[0]} if hist_box[0] is not None else {}
    if embedder.uses_frames:
        arrays["frame_vecs"] = np.concatenate(vecs) if vecs else np.zeros((0, 1), np.float32)
    return observed, cuts, arrays


def _build(info: VideoInfo, cfg: IndexConfig, out: Path, progress, timings: dict[str, float]) -> None:
    embedder = cfg.clip_embedder()
    engine = load_engine(cfg.perception())
    seconds_before = dict(engine.seconds)
    chunk_frames = max(1, round(VISUAL_CHUNK_S * cfg.sample_fps))
    chunk_s = chunk_frames / cfg.sample_fps
    ckpt = Checkpoints(out, {"format": INDEX_FORMAT, "config": cfg.key(), "visual_chunk_s": chunk_s,
                             "asr_chunk_s": ASR_CHUNK_S, "duration_s": info.duration_s})

    # 1. decode sampled frames once, chunk by chunk: the engine's observations, shot cuts (+ CLIP images)
    t = time.perf_counter()
    n_frames = max(1, int(info.duration_s * cfg.sample_fps) + 1)
    task = progress.add_task("decode + faces", total=n_frames)
    observed: list[FrameObservation] = []
    frame_vecs: list[np.ndarray] = []
    cuts: list[float] = []
    prev_hist: np.ndarray | None = None
    n_chunks = max(1, math.ceil(info.duration_s / chunk_s))
    for k in range(n_chunks):
        name = f"visual_{k:05d}"
        saved = ckpt.load(name)
        if saved is None:
            ch_obs, ch_cuts, arrays = _visual_chunk(
                info, cfg, k * chunk_s, (k + 1) * chunk_s if k + 1 < n_chunks else None, len(observed), prev_hist,
                engine, embedder, progress, task, timings)
            ckpt.save(name, {"observed": ch_obs, "cuts": ch_cuts}, **arrays)
        else:
            obj, arrays = saved
            ch_obs = [FrameObservation.model_validate(f) for f in obj["observed"]]
            ch_cuts = obj["cuts"]
            progress.update(task, advance=len(ch_obs))
        observed += ch_obs
        cuts += ch_cuts
        if "last_hist" in arrays:
            prev_hist = arrays["last_hist"]
        if embedder.uses_frames and "frame_vecs" in arrays and len(arrays["frame_vecs"]):
            frame_vecs.append(arrays["frame_vecs"])
    frame_times = [fr.t for fr in observed]
    tracks, assign = link_tracks(observed, cuts)
    for fr in observed:
        for f in fr.faces:
            f.track_id = assign.get(f.id)
    tracks = _with_thumbnails(info, observed, tracks, out)
    affect = [o.faces_only() for o in observed]
    progress.update(task, completed=n_frames)
    timings["decode_faces"] = time.perf_counter() - t
    spent = {k: v - seconds_before.get(k, 0.0) for k, v in engine.seconds.items()}
    timings["gaze_cuts"] = spent.get("gaze", 0.0) + timings.pop("cuts", 0.0)
    timings["faces_expression"] = timings["decode_faces"] - sum(  # detection + expression + tracks
        timings.get(k, 0.0) for k in ("decode", "gaze_cuts", "clip_frames"))

    # 2. transcribe the audio track in chunks cut at quiet points
    t = time.perf_counter()
    if cfg.use_audio:
        audio = load_audio(info.path, SAMPLE_RATE)
        invalid_s = float(np.count_nonzero(~np.isfinite(audio))) / SAMPLE_RATE
        if invalid_s:
            audio = np.nan_to_num(audio, nan=0.0, posinf=0.0, neginf=0.0)
        spans = asr_chunks(audio, SAMPLE_RATE, ASR_CHUNK_S)
        task = progress.add_task("transcribe", total=len(spans))
        asr = None
        parts = []
        for k, (a, b) in enumerate(spans):
            name = f"asr_{k:05d}"
            saved = ckpt.load(name)
            if saved is None:
                asr = asr or load_asr(cfg.asr_backend, model=cfg.asr_model, device=cfg.device, language=cfg.language)
                part = asr.transcribe(audio[a:b])
                ckpt.save(name, part)
            else:
                part = Transcript.model_validate(saved[0])
            parts.append((a / SAMPLE_RATE, part))
            progress.update(task, advance=1)
        transcript = merge_transcripts(parts, len(audio) / SAMPLE_RATE)
        if invalid_s:
            transcript.notes.append(
                f"the audio track has {invalid_s:.1f} s of invalid samples (NaN or infinite): "
                "they were read as silence, so speech there could not be transcribed")
    else:
        task = progress.add_task("transcribe", total=1)
        audio = np.zeros(0, np.float32)
        transcript = Transcript(duration_s=info.duration_s, model="none (--no-audio)")
        progress.update(task, completed=1)
    timings["transcribe"] = time.perf_counter() - t

    # 3. speech turns with speakers, social events, clips with descriptors, embeddings and FAISS
    t = time.perf_counter()
    turns, events = _turns_and_events(observed, tracks, transcript, audio, cfg)
    voice = load_voice_emotion(cfg.voice_backend) if cfg.use_audio and cfg.voice_backend else None
    windows = clip_windows(info.duration_s, cfg.clip_len_s, cfg.clip_stride_s)
    task = progress.add_task("embed", total=len(windows))
    clips = []
    for i, (s, e) in enumerate(windows):
        faces = [f for fr in affect if s <= fr.t < e for f in fr.faces]
        n_max = max((len(fr.faces) for fr in affect if s <= fr.t < e), default=0)
        expr = {lab: round(float(np.mean([f.expression[lab] for f in faces])), 4) if faces else 0.0
                for lab in AFFECTNET8}
        speech = " ".join(w.text for w in transcript.words_between(s, e))
        ev_text = [ev.detail for ev in events if ev.start_s < e and ev.end_s >= s][:3]
        clips.append(Clip(id=f"c{i}", start_s=s, end_s=e, descriptor=describe_clip(expr, n_max, speech, ev_text),
                          max_faces=n_max, expression=expr, speech=speech,
                          voice=clip_voice(voice, audio, transcript, s, e)))
    if embedder.uses_frames:
        fv = np.concatenate(frame_vecs) if frame_vecs else np.zeros((0, 1), np.float32)
        ft = np.asarray(frame_times)
        vecs = np.stack([fv[(ft >= c.start_s) & (ft < c.end_s)].mean(axis=0)
                         if ((ft >= c.start_s) & (ft < c.end_s)).any() else fv[np.abs(ft - c.start_s).argmin()]
                         for c in clips])
    else:
        vecs = embedder.embed_descriptors([c.descriptor for c in clips])
    text_enc = load_text_encoder(model=None, device=cfg.device)
    seg_vecs = text_enc.encode([s.text for s in transcript.segments])
    event_vecs = text_enc.encode([ev.detail for ev in events])
    progress.update(task, completed=len(windows))
    timings["embed"] = time.perf_counter() - t

    write_json(out / "clips.json", clips)
    write_json(out / "transcript.json", transcript)
    write_json(out / "affect.json", affect)
    write_json(out / "tracks.json", {"cuts": cuts, "tracks": tracks})
    write_json(out / "events.json", events)
    write_json(out / "turns.json", turns)
    VectorIndex(event_vecs if len(event_vecs) else np.zeros((0, text_enc.dim), np.float32)).save(out / "events.faiss")
    VectorIndex(vecs).save(out / "clips.faiss")
    VectorIndex(seg_vecs if len(seg_vecs) else np.zeros((0, text_enc.dim), np.float32)).save(out / "segments.faiss")
    write_json(out / "manifest.json", {
        "format": INDEX_FORMAT,
        "video": {"path": str(info.path), "duration_s": info.duration_s, "fps": info.fps,
                  "width": info.width, "height": info.height},
        "config": cfg.model_dump(),
        "models": {"clip_embedder": embedder.name, "text_encoder": text_enc.name, "faces": engine.detector.name,
                   "expression": engine.classifier.name, "asr": transcript.model,
                   "voice": voice.name if voice is not None else "none"},
        "versions": library_versions(),
        "timings_s": {k: round(v, 3) for k, v in timings.items()},
        "resumed_chunks": ckpt.resumed,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    })
