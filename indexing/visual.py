"""The index build's visual pass: sampled frames observed once, chunk by chunk, with shot cuts and tracks.

``observe_video`` decodes the video at the index frame rate (default 1 fps) in checkpointed chunks of
``chunk_s`` seconds; each frame goes through the perception engine (``tools.perception.engine``: faces +
AffectNet-8 expression, gaze and lip activity, and hands with gestures and body pose unless
``IndexConfig.index_gestures`` is off) and, with a CLIP embedder, the image encoder; every decoded frame, sampled
or not, adds to the luma-change trace from which hard shot cuts are found at frame accuracy (``tools.signals.shots``). Faces are
then linked into tracks within shots (``tools.signals.tracks.link_tracks``), each track gets a thumbnail, and
tracks are re-identified across shots by face identity descriptors (``tools.signals.tracks.reidentify``).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory.checkpoint import Checkpoints
from memory.store import IndexConfig
from tools.core.frames import iter_frames
from tools.core.media import VideoInfo, sampling_start
from tools.core.schema import Box, FaceObservation, FrameFaces
from tools.perception.crops import box_in_crop, crop_face, jpeg_rgb
from tools.perception.engine import FrameObservation, PerceptionEngine
from tools.signals.shots import ChangeTrace, hard_cuts
from tools.signals.tracks import TrackSummary, link_tracks, reidentify

VISUAL_CHUNK_S = 60.0
"""Video seconds of sampled frames per checkpoint (60 s = 60 frames at the default 1 fps)."""
REID_FACES = 2
"""Faces per track whose identity descriptors are averaged (the mean of several views is steadier than
the most confident one: on the sample the performer's two tracks are 0.50 apart with 1 face, 0.43 with 2,
0.39 with 3). Each descriptor costs about 6 ms on one core (``tools.perception.identity``), so tracks and
re-identification take about 1/130 of the video's duration on the cut-heavy bench footage (the hour's 27.4 s,
``benches/results_layout_60.json``)."""
REID_MIN_FACE_PX = 32
"""Faces smaller than this (box height, pixels of the frame the pass reads: turned upright and at most 960 px on its
longer side, ``frame_shape``) get no identity descriptor: dlib's 150 px chip of a smaller face is mostly upsampling
blur."""


@dataclass
class VisualPass:
    """What the visual pass found.

    ``observed``: one record per sampled frame, faces carrying their ``track_id``; ``cuts``: shot-cut
    times in seconds; ``tracks``: one summary per track, with a thumbnail path relative to the index
    directory; ``frame_vectors``: (n_frames, dim) CLIP image vectors, or None without a frame embedder.
    """

    observed: list[FrameObservation]
    cuts: list[float]
    tracks: list[TrackSummary]
    frame_vectors: np.ndarray | None

    @property
    def faces(self) -> list[FrameFaces]:
        """The faces of each frame (the index's ``faces.json``)."""
        return [o.faces_only() for o in self.observed]


def _add(timings: dict[str, float], key: str, seconds: float) -> None:
    timings[key] = timings.get(key, 0.0) + seconds


def _timed(items: Iterator, timings: dict[str, float], key: str) -> Iterator:
    """Yield from ``items``, adding the seconds spent producing them to ``timings[key]``."""
    items, end = iter(items), object()
    while True:
        t = time.perf_counter()
        item = next(items, end)
        _add(timings, key, time.perf_counter() - t)
        if item is end:
            return
        yield item


def _observe_chunk(info: VideoInfo, cfg: IndexConfig, start_s: float, end_s: float | None, first_number: int,
                   trace: ChangeTrace, engine: PerceptionEngine, embedder, advance,
                   timings: dict[str, float]) -> tuple[list[FrameObservation], dict[str, np.ndarray]]:
    """The engine's observations, luma-change trace and (with a frame embedder) CLIP frame vectors of one chunk.

    Returns (observations, arrays ``change_t`` / ``change`` (each decoded frame's time in seconds and luma change,
    added to ``trace``, the chunk before's continued: ``chunk_frames``), ``last_luma`` and ``last_t``,
    ``crops`` / ``crops_ends`` (each face's JPEG crop, ``face_jpeg``, in observation order, packed by
    ``pack_bytes``) and, with a frame embedder, ``frame_vecs`` of shape (n_frames, dim)). Adds the seconds spent
    decoding (the luma trace included) and on CLIP frame embedding to ``timings`` (``decode``, ``clip_frames``).
    """
    crops: list[bytes] = []
    pending: list[np.ndarray] = []
    vecs: list[np.ndarray] = []

    def embed_pending() -> None:
        t = time.perf_counter()
        vecs.append(embedder.embed_frames(pending))
        pending.clear()
        _add(timings, "clip_frames", time.perf_counter() - t)

    def on_frame(ts: float, frame: np.ndarray, obs: FrameObservation) -> None:
        t = time.perf_counter()
        crops.extend(face_jpeg(frame, f.box) for f in obs.faces)
        _add(timings, "face_crops", time.perf_counter() - t)
        if embedder.uses_frames:
            pending.append(frame)
            if len(pending) == 16:
                embed_pending()
        advance(1)

    frames = _timed(chunk_frames(info, cfg.sample_fps, start_s, end_s, trace), timings, "decode")
    observed = engine.observe(frames, "a", hands=cfg.index_gestures, first_number=first_number, on_frame=on_frame)
    if pending:
        embed_pending()
    arrays = {"change_t": np.asarray(trace.times), "change": np.asarray(trace.changes)}
    if trace.prev is not None:
        arrays.update(last_luma=trace.prev, last_t=np.asarray([trace.last_t]))
    arrays.update(pack_bytes(crops, "crops"))
    if embedder.uses_frames:
        arrays["frame_vecs"] = np.concatenate(vecs) if vecs else np.zeros((0, 1), np.float32)
    return observed, arrays


def chunk_frames(info: VideoInfo, fps: float, start_s: float, end_s: float | None,
                 trace: ChangeTrace) -> Iterator[tuple[float, np.ndarray]]:
    """The frames sampled at ``fps`` in [start_s, end_s) on the grid of the video's first frame
    (``tools.core.media.sampling_start``), every decoded frame added to ``trace``. The decoder seeks a second before
    ``start_s``, so the frames between the chunk before's last one and this chunk's first sample are decoded and
    added (``trace`` skips those it already has). FFmpeg decodes on one thread: the speech pass keeps the other cores
    busy, and a frame then costs the least CPU time (``iter_frames``'s ``threads``)."""
    first = sampling_start(info, start_s, fps)
    return iter_frames(info.path, fps, first, end_s, on_decoded=trace.add, seek_s=start_s - 1.0, threads=1)


THUMB_MARGIN = 0.25
"""Margin (fraction of the face box side) of the face crops kept from the pass: thumbnails and identity."""


def frame_shape(info: VideoInfo) -> tuple[int, int]:
    """(H, W) in pixels of the frames the visual pass reads (``tools.core.frames.iter_frames``: turned upright and
    downscaled), which the face boxes' normalized coordinates and the face crops refer to; ``info``'s size is the coded
    one, which a portrait phone video stores turned. Read from the first frame; ``info``'s size when none decodes."""
    with contextlib.closing(iter_frames(info.path, 1.0, info.first_frame_s)) as frames:
        first = next(frames, None)
    return first[1].shape[:2] if first is not None else (info.height, info.width)


def face_jpeg(frame: np.ndarray, box: Box) -> bytes:
    """The face at ``box`` in an RGB frame as a JPEG crop (``crop_face`` with ``THUMB_MARGIN``)."""
    import cv2

    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(crop_face(frame, box, THUMB_MARGIN), cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes() if ok else b""


def pack_bytes(items: list[bytes], name: str) -> dict[str, np.ndarray]:
    """Byte strings as two arrays for a checkpoint: ``name`` (all bytes, uint8) and ``<name>_ends`` (int64)."""
    return {name: np.frombuffer(b"".join(items), np.uint8),
            f"{name}_ends": np.cumsum([len(b) for b in items], dtype=np.int64)}


def unpack_bytes(arrays: dict[str, np.ndarray], name: str) -> list[bytes]:
    """The byte strings ``pack_bytes`` packed (empty when the arrays lack them)."""
    if f"{name}_ends" not in arrays or not len(arrays[f"{name}_ends"]):
        return []
    data, ends = arrays[name].tobytes(), arrays[f"{name}_ends"].tolist()
    return [data[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def track_descriptors(tracks: list[TrackSummary], faces: dict[str, FaceObservation], crops: dict[str, bytes],
                      shape: tuple[int, int], engine: PerceptionEngine) -> dict[int, list[np.ndarray]]:
    """Track id -> the identity descriptors (each (128,), ``tools.perception.identity``) of the track's ``REID_FACES``
    most confident faces of at least ``REID_MIN_FACE_PX`` pixels high in frames of ``shape`` (H, W; ``frame_shape``)
    that have a crop (``face_jpeg``, by face id); a track without such a face is left out."""
    out = {}
    for tr in tracks:
        ranked = sorted((faces[i] for i in tr.observation_ids), key=lambda f: -f.det_score)
        sized = [f for f in ranked if (f.box.y1 - f.box.y0) * shape[0] >= REID_MIN_FACE_PX and crops.get(f.id)]
        if sized[:REID_FACES]:
            out[tr.track_id] = [engine.describe(jpeg_rgb(crops[f.id]), [box_in_crop(shape, f.box, THUMB_MARGIN)])[0]
                                for f in sized[:REID_FACES]]
    return out


def _thumbnails_and_people(info: VideoInfo, affect: list[FrameFaces], tracks: list[TrackSummary], out: Path,
                           engine: PerceptionEngine | None, crops: dict[str, bytes]) -> list[TrackSummary]:
    """Save each track's most confident face crop (kept from the pass, ``face_jpeg``) as its thumbnail under
    ``out/thumbs`` and, with an ``engine``, re-identify tracks across shots: each track's identity
    descriptor is the mean of its ``track_descriptors``, read as ``TrackSummary.appearance``
    (``tools.perception.appearance``), and ``tools.signals.tracks.reidentify`` gives each track its ``person``."""
    faces = {f.id: f for fr in affect for f in fr.faces}
    (out / "thumbs").mkdir(exist_ok=True)
    result = []
    for tr in tracks:
        best = max((faces[i] for i in tr.observation_ids), key=lambda f: f.det_score)
        update: dict = {"thumbnail": None}
        if crops.get(best.id):
            update["thumbnail"] = f"thumbs/track_{tr.track_id}.jpg"
            (out / update["thumbnail"]).write_bytes(crops[best.id])
        result.append(tr.model_copy(update=update))
    if engine is None or not tracks:
        return result
    described = track_descriptors(result, faces, crops, frame_shape(info), engine)  # one frame decoded for the shape
    descriptors = {tid: np.mean(vecs, axis=0) for tid, vecs in described.items()}
    result = [tr.model_copy(update={"appearance": engine.appearance(np.stack(described[tr.track_id]))})
              if tr.track_id in described else tr for tr in result]
    person = reidentify(result, descriptors)
    return [tr.model_copy(update={"person": person[tr.track_id]}) for tr in result]


def observe_video(info: VideoInfo, cfg: IndexConfig, engine: PerceptionEngine, embedder, ckpt: Checkpoints,
                  out: Path, progress, timings: dict[str, float], chunk_s: float = VISUAL_CHUNK_S,
                  between_chunks: Callable[[], None] | None = None) -> VisualPass:
    """Run the visual pass over the whole video (see the module doc); finished chunks are checkpoints
    in ``ckpt`` and are read back instead of recomputed. Thumbnails go under ``out/thumbs``. ``between_chunks`` is
    called after each chunk (the build's check that the speech pass beside it has not failed; it may raise)."""
    chunk_s = max(1, round(chunk_s * cfg.sample_fps)) / cfg.sample_fps
    n_frames = max(1, int(info.duration_s * cfg.sample_fps) + 1)
    task = progress.add_task("decode + faces", total=n_frames)
    observed: list[FrameObservation] = []
    crops: dict[str, bytes] = {}
    frame_vecs: list[np.ndarray] = []
    change_t: list[np.ndarray] = []
    change: list[np.ndarray] = []
    trace = ChangeTrace()
    n_chunks = max(1, math.ceil(info.duration_s / chunk_s))
    for k in range(n_chunks):
        name = f"visual_{k:05d}"
        saved = ckpt.load(name)
        if saved is None:
            ch_obs, arrays = _observe_chunk(
                info, cfg, k * chunk_s, (k + 1) * chunk_s if k + 1 < n_chunks else None, len(observed),
                ChangeTrace(trace.last_t, trace.prev), engine, embedder, lambda n: progress.update(task, advance=n), timings)
            ckpt.save(name, {"observed": ch_obs}, **arrays)
        else:
            obj, arrays = saved
            ch_obs = [FrameObservation.model_validate(f) for f in obj["observed"]]
            progress.update(task, advance=len(ch_obs))
        observed += ch_obs
        crops.update(zip((f.id for fr in ch_obs for f in fr.faces), unpack_bytes(arrays, "crops"), strict=False))
        change_t.append(arrays["change_t"])
        change.append(arrays["change"])
        if "last_t" in arrays:
            trace = ChangeTrace(float(arrays["last_t"][0]), arrays["last_luma"])
        if embedder.uses_frames and len(arrays.get("frame_vecs", ())):
            frame_vecs.append(arrays["frame_vecs"])
        if between_chunks is not None:
            between_chunks()
    t = time.perf_counter()
    cuts = hard_cuts(np.concatenate(change_t).tolist(), np.concatenate(change).tolist())
    _add(timings, "cuts", time.perf_counter() - t)
    tracks, assign = link_tracks(observed, cuts)
    for fr in observed:
        for f in fr.faces:
            f.track_id = assign.get(f.id)
    t = time.perf_counter()
    tracks = _thumbnails_and_people(info, observed, tracks, out, engine if cfg.identity_backend else None, crops)
    _add(timings, "tracks", time.perf_counter() - t)
    progress.update(task, completed=n_frames)
    vectors = None
    if embedder.uses_frames:
        vectors = np.concatenate(frame_vecs) if frame_vecs else np.zeros((0, 1), np.float32)
    return VisualPass(observed=observed, cuts=cuts, tracks=tracks, frame_vectors=vectors)
