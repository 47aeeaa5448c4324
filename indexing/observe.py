"""Stored perception of a video span: the engine's observations, kept per chunk in the video's cache.

``observe_span`` asks the perception engine (``tools.perception.engine``) for faces + expression, gaze and hands
on a span at a frame rate and stores the records per chunk of the index's clip stride
(``perception/<tool key>/<start>-<end>.json``, written atomically), so any caller that asks again for
an overlapping span (a later candidate, re-query round or query, or ``affectseek inspect``) reads them back
and the models are loaded only when some chunk is not stored yet. A stored chunk that does not parse
is recomputed and overwritten, never used; chunks stored by an earlier ``OBSERVATION_VERSION`` are not read.
A question whose support is not a gesture reads hands on the index's own frames only (``hands_between=False``); those
chunks have a folder of their own, and a later question that needs every frame's hands adds them without reading faces
again.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from memory.cache import read_json, read_records, write_json
from memory.store import VideoIndex
from tools.core.frames import SpanReader, prefetched
from tools.core.media import sampling_start
from tools.perception.engine import FrameObservation, PerceptionEngine, load_engine

#: Version of what a stored chunk holds; raised when the engine's records change for the same models
#: (2: gaze targets drop shared attention, ``tools.perception.gaze.SHARED_ATTENTION_COS``; 3: times on the file's clock,
#: frames on the grid of the first video frame, ``tools.core.media.sampling_start``; 4: body pose only on the index's
#: frames where they are at hand, ``observe_span``).
OBSERVATION_VERSION = 4
#: Folder of an index holding its own frames' gaze and hands, one file per minute of video (``save_index_frames``),
#: beside ``faces.json``: a verifier frame that is an index frame is read back from them, not observed again.
INDEX_FRAMES_DIR = "frames"
INDEX_FRAMES_S = 60.0


def _tool_key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", name)


def observe_span(index: VideoIndex, fps: float, start_s: float, end_s: float,
                 count: Callable[[str, int], None] | None = None,
                 engine: PerceptionEngine | None = None,
                 hands_between: bool = True) -> tuple[list[tuple[FrameObservation, Path]], dict[str, str]]:
    """Observations (with hands) of [start_s, end_s) at ``fps``, each with the chunk file holding it.

    Args:
        index: the video's index (its config names the engine's backends, its stride the chunks).
        fps: frame rate of the observation (frames per second).
        start_s, end_s: the span in seconds.
        count: receives cost counters ``(name, n)``.
        engine: the perception engine; default the process-wide one for ``index.config.perception()``.
        hands_between: False (a question whose support is not a gesture: gestures count as 1 fps sees them) keeps hands to the
            index's own 1 fps frames where it has them; hands a stored chunk holds between them are dropped, so the
            result does not depend on what was asked before (``_thin_chunk``).

    Returns:
        (frames with their chunk file, tool names ``{"face": ..., "social": "<gestures>|<gaze>"}``).

    A frame the index pass observed (the same decoded frame: the grids share the first video frame) is read back
    (``index_frames``), renumbered as this chunk numbers its frames; body pose (crossed arms, the costliest model,
    ``evals/RESULTS.md`` section 56) only on those. A chunk without index frames reads pose and hands on every frame.
    """
    count = count or (lambda _name, _n=1: None)
    engine = engine or load_engine(index.config.perception())
    cfg = index.config
    key, thin_key = _span_keys(index, fps)
    names_path = index.cache.dir / "perception" / key / "tools.json"
    same_models = engine.config == cfg.perception()  # only then are the index's frames this engine's readings
    out: list[tuple[FrameObservation, Path]] = []
    with SpanReader(index.info.path, fps) as reader:  # chunk after chunk through one decoder
        for k, c0, c1 in _chunks(index, start_s, end_s):
            full_path, thin_path = (index.cache.perception_path(name, c0, c1) for name in (key, thin_key))
            path, frames = full_path, _stored(full_path)
            # the index's own frames, read when the chunk is to be observed or thinned
            known = index_frames(index, c0, c1) if (frames is None or not hands_between) and same_models else {}
            thin = not hands_between and bool(known)  # without index frames, every frame reads hands
            if frames is None and known:
                frames, path = _thin_chunk(engine, index, reader, (full_path, thin_path), known, thin, (k, c0, c1),
                                           count)
            if frames is not None:
                count("visual_cached_chunks", 1)
            else:
                path = thin_path if thin else full_path
                frames = _observed_chunk(engine, index, reader, known, thin, (k, c0, c1), count)
                write_json(path, frames)
                if not names_path.is_file():
                    write_json(names_path, engine.tool_names(hands=True))
            if thin:
                frames = [fr if fr.t in known or not fr.hands else fr.model_copy(update={"hands": []}) for fr in frames]
            out += [(fr, path) for fr in frames if start_s <= fr.t < end_s]
    return out, _tool_names(engine, names_path)


def _chunks(index: VideoIndex, start_s: float, end_s: float) -> Iterator[tuple[int, float, float]]:
    """The stored chunks that [start_s, end_s) overlaps: (k, start s, end s) on the grid of the index's clip stride,
    the last one cut at the video's end."""
    stride, duration = index.config.clip_stride_s, index.info.duration_s
    for k in range(math.floor(start_s / stride + 1e-9), math.ceil(end_s / stride - 1e-9)):
        c0, c1 = round(k * stride, 3), round(min(duration, (k + 1) * stride), 3)
        if c1 > c0:
            yield k, c0, c1


def _span_keys(index: VideoIndex, fps: float) -> tuple[str, str]:
    """The folder names of ``observe_span``'s chunks at ``fps`` (every frame's hands; hands on the index's frames only).
    The index's key (format, configuration) ends them: readings made for another index are never read."""
    cfg = index.config
    return tuple(_tool_key(f"{cfg.face_backend}+{cfg.expression_backend}+{g}+gaze@{fps:g}fps+v{OBSERVATION_VERSION}"
                           f"+{cfg.key()}") for g in ("gestures", "gestures@index"))


def span_tool_names(index: VideoIndex, fps: float) -> dict[str, str]:
    """The tool names ``observe_span`` gives at ``fps`` (``{"face", "social"}``): read from its chunks' folder, so no
    model is loaded when a reading at that rate was stored before; from the engine (loading its models) otherwise."""
    engine = load_engine(index.config.perception())
    return _tool_names(engine, index.cache.dir / "perception" / _span_keys(index, fps)[0] / "tools.json")


def _tool_names(engine: PerceptionEngine, path: Path) -> dict[str, str]:
    """The tool names stored at ``path`` (``{"face", "social"}``), written from the engine when missing or unreadable."""
    try:
        names = read_json(path)
        return {"face": names["face"], "social": names["social"]}
    except (OSError, ValueError, KeyError, TypeError):
        names = engine.tool_names(hands=True)
        write_json(path, names)
        return names


def _observed_chunk(engine: PerceptionEngine, index: VideoIndex, reader: SpanReader, known: dict[float, FrameObservation],
                    thin: bool, chunk: tuple[int, float, float], count: Callable[[str, int], None]) -> list[FrameObservation]:
    """Chunk ``chunk`` = (k, start s, end s) observed at ``reader``'s frame rate (its frames are those of
    ``iter_frames``): the index's frames (``known``) read back, the others observed by the engine (hands unless
    ``thin``; body pose only without index frames), numbered in time order."""
    k, c0, c1 = chunk
    first = sampling_start(index.info, c0, reader.fps)  # the same frames whatever the file's first timestamp
    kept: list[FrameObservation] = []
    computed = engine.observe(prefetched(_unknown(reader.frames(first, c1), known, kept)), f"f{k}.",
                              hands=not thin, pose=not known)
    for name in ("face_expression_frames", "gaze_frames"):
        count(name, len(computed))
    count("gesture_frames", 0 if thin else len(computed))
    count("index_frames_reused", len(kept))
    return [renumbered(fr, f"f{k}.{n}.") for n, fr in enumerate(sorted(computed + kept, key=lambda f: f.t))]


def _thin_chunk(engine: PerceptionEngine, index: VideoIndex, reader: SpanReader, paths: tuple[Path, Path],
                known: dict[float, FrameObservation], thin: bool, chunk: tuple[int, float, float],
                count: Callable[[str, int], None]) -> tuple[list[FrameObservation] | None, Path]:
    """Chunk ``chunk`` = (k, start s, end s) stored with hands on the index's frames only (``paths[1]``), when the one
    with every frame's hands (``paths[0]``) is not: as it is for a ``thin`` reading, else with the hands between
    added (``_hands_added``) and stored at ``paths[0]``. ``(None, paths[0])`` when it is not stored either."""
    full_path, thin_path = paths
    frames = _stored(thin_path)
    if frames is None:
        return None, full_path
    if thin:
        return frames, thin_path
    frames = _hands_added(engine, index, reader, frames, known, *chunk)
    count("gesture_frames", sum(fr.t not in known for fr in frames))
    write_json(full_path, frames)
    return frames, full_path


def _hands_added(engine: PerceptionEngine, index: VideoIndex, reader: SpanReader, frames: list[FrameObservation],
                 known: dict[float, FrameObservation], k: int, c0: float, c1: float) -> list[FrameObservation]:
    """Chunk ``k`` ([c0, c1) s at ``reader``'s frame rate) as ``observe_span`` stores it with every frame's hands, from
    ``frames``, the same chunk stored without hands between the index's frames (``known``): the gesture model reads
    those frames now, with the stored face boxes and the ids and pose rule a full reading gives them (no pose beside
    index frames)."""
    first = sampling_start(index.info, c0, reader.fps)
    at = {fr.t: n for n, fr in enumerate(frames)}
    out = list(frames)
    for t, image in reader.frames(first, c1):
        n = at.get(t)
        if n is None or t in known:
            continue
        found = engine.gestures.recognize(np.ascontiguousarray(image), t, [f.box for f in frames[n].faces],
                                          f"h{k}.{n}.", pose=False)
        out[n] = frames[n].model_copy(update={"hands": found.hands})
    return out


def _stored(path: Path) -> list[FrameObservation] | None:
    """The frames stored in ``path``; None when the file is missing or does not parse as frames."""
    if not path.is_file():
        return None
    try:
        return read_records(path, list[FrameObservation])
    except (OSError, ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return None


def _unknown(frames: Iterator[tuple[float, np.ndarray]], known: dict[float, FrameObservation],
             kept: list[FrameObservation]) -> Iterator[tuple[float, np.ndarray]]:
    """``frames`` without those whose time is in ``known``; their observations are added to ``kept`` instead."""
    for t, frame in frames:
        if t in known:
            kept.append(known[t])
        else:
            yield t, frame


def renumbered(frame: FrameObservation, prefix: str) -> FrameObservation:
    """``frame`` with the record ids the engine gives a frame observed with id prefix ``prefix`` (faces
    ``<prefix><i>``, gaze ``<face id>.gaze``, hands ``h<prefix minus its first character><i or pose>``), no track ids."""
    faces = [f.model_copy(update={"id": f"{prefix}{i}", "track_id": None}) for i, f in enumerate(frame.faces)]
    gaze = [g.model_copy(update={"id": f"{f.id}.gaze"}) for f, g in zip(faces, frame.gaze, strict=True)]
    hands = [h.model_copy(update={"id": f"h{prefix[1:]}{h.id.rsplit('.', 1)[1]}"}) for h in frame.hands]
    return FrameObservation(t=frame.t, faces=faces, gaze=gaze, hands=hands)


def save_index_frames(out: Path, observed: list[FrameObservation]) -> None:
    """Write the gaze and hands of the index pass's frames (time order) under ``out/INDEX_FRAMES_DIR``, one file per
    ``INDEX_FRAMES_S`` seconds of video (``<n>.json``: a list of ``{"t", "gaze", "hands"}``)."""
    (out / INDEX_FRAMES_DIR).mkdir(exist_ok=True)
    by_file: dict[int, list[dict]] = {}
    for fr in observed:
        by_file.setdefault(int(fr.t // INDEX_FRAMES_S), []).append({"t": fr.t, "gaze": fr.gaze, "hands": fr.hands})
    for n, rows in by_file.items():
        write_json(out / INDEX_FRAMES_DIR / f"{n:05d}.json", rows)


def index_frames(index: VideoIndex, start_s: float, end_s: float) -> dict[float, FrameObservation]:
    """The index pass's observations (faces from ``faces.json`` with their gaze and hands) of its frames in
    [start_s, end_s), by frame time in seconds; empty for an index stored without them (built without hands, or
    by an earlier version)."""
    times, out = index.face_times, {}
    for fr in index.faces[bisect.bisect_left(times, start_s) : bisect.bisect_left(times, end_s)]:
        path = index.dir / INDEX_FRAMES_DIR / f"{int(fr.t // INDEX_FRAMES_S):05d}.json"
        try:
            social = _social_file(path, path.stat().st_mtime_ns).get(fr.t)
        except OSError:  # an index stored without them
            continue
        try:
            out[fr.t] = FrameObservation(t=fr.t, faces=fr.faces, gaze=social["gaze"], hands=social["hands"])
        except (TypeError, KeyError, ValueError):  # missing, or not records (pydantic's ValidationError): observed
            continue
    return out


def index_span(index: VideoIndex, start_s: float, end_s: float) -> list[tuple[FrameObservation, Path]]:
    """The index pass's own frames in [start_s, end_s) (``index_frames``: 1 fps by default) in time order, each with
    the file that holds it, as ``observe_span`` gives frames but observing nothing: per chunk of the clip stride the
    chunk's index frames (faces, gaze, hands, with the index's record ids) are stored once as a chunk of their own
    (``perception/own-frames+<version>+<index key>/<start>-<end>.json``), so evidence cites one file per frame. Empty
    for an index stored without its frames' gaze and hands."""
    key = _tool_key(f"own-frames+v{OBSERVATION_VERSION}+{index.config.key()}")
    out = []
    for _k, c0, c1 in _chunks(index, start_s, end_s):
        path = index.cache.perception_path(key, c0, c1)
        frames = _stored(path)
        if frames is None:
            known = index_frames(index, c0, c1)
            frames = [known[t] for t in sorted(known)]
            if frames:
                write_json(path, frames)
        out += [(fr, path) for fr in frames if start_s <= fr.t < end_s]
    return out


@functools.lru_cache(maxsize=64)
def _social_file(path: Path, _mtime_ns: int) -> dict[float, dict]:
    """One file of ``save_index_frames`` by frame time (read once per version of the file); empty when it does not
    parse."""
    try:
        return {row["t"]: row for row in read_json(path)}
    except (OSError, ValueError, TypeError, KeyError):
        return {}
