"""Stored perception of a video span: the engine's observations, kept per chunk in the video's cache.

``observe_span`` asks the perception engine (``tools.perception.engine``) for faces + expression, gaze and hands
on a span at a frame rate and stores the records per chunk of the index's clip stride
(``perception/<tool key>/<start>-<end>.json``, written atomically), so any caller that asks again for
an overlapping span (a later candidate, re-query round or query, or ``affectseek inspect``) reads them back
and the models are loaded only when some chunk is not stored yet. A stored chunk that does not parse
is recomputed and overwritten, never used; chunks stored by an earlier ``OBSERVATION_VERSION`` are not read.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from memory.cache import read_json, write_json
from memory.store import VideoIndex
from tools.core.media import iter_frames, sampling_start
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
                 engine: PerceptionEngine | None = None) -> tuple[list[tuple[FrameObservation, Path]], dict[str, str]]:
    """Observations (with hands) of [start_s, end_s) at ``fps``, each with the chunk file holding it.

    Args:
        index: the video's index (its config names the engine's backends, its stride the chunks).
        fps: frame rate of the observation (frames per second).
        start_s, end_s: the span in seconds.
        count: receives cost counters ``(name, n)``.
        engine: the perception engine; default the process-wide one for ``index.config.perception()``.

    Returns:
        (frames with their chunk file, tool names ``{"face": ..., "social": "<gestures>|<gaze>"}``).

    A frame the index pass already observed with hands (the same decoded frame: the sampling grids share the first
    video frame) is read back from the index (``index_frames``) instead of observed again: the same models gave
    the same records, renumbered as this chunk numbers its frames (``renumbered``). Body pose (crossed arms) is then
    read on those frames only (1 fps): a posture is held for seconds, and the pose model is the most costly of a
    frame's models (66 ms of about 200 ms on one core here; ``evals/RESULTS.md`` section 56), so the frames between
    them run hands, faces and gaze alone. A chunk without index frames reads pose on every frame.
    """
    count = count or (lambda _name, _n=1: None)
    engine = engine or load_engine(index.config.perception())
    cfg = index.config
    # the index's key (format, configuration) names the folder: readings made for another index are never read
    key = _tool_key(f"{cfg.face_backend}+{cfg.expression_backend}+gestures+gaze@{fps:g}fps+v{OBSERVATION_VERSION}"
                    f"+{cfg.key()}")
    names_path = index.cache.dir / "perception" / key / "tools.json"
    stride, duration = cfg.clip_stride_s, index.info.duration_s
    out: list[tuple[FrameObservation, Path]] = []
    for k in range(math.floor(start_s / stride + 1e-9), math.ceil(end_s / stride - 1e-9)):
        c0, c1 = round(k * stride, 3), round(min(duration, (k + 1) * stride), 3)
        if c1 <= c0:
            continue
        path = index.cache.perception_path(key, c0, c1)
        frames = _stored(path)
        if frames is not None:
            count("visual_cached_chunks", 1)
        else:
            first = sampling_start(index.info, c0, fps)  # the same frames whatever the file's first timestamp
            known = index_frames(index, c0, c1) if engine.config == cfg.perception() else {}  # the index's models
            kept: list[FrameObservation] = []
            computed = engine.observe(_unknown(iter_frames(index.info.path, fps, first, c1), known, kept), f"f{k}.",
                                      hands=True, pose=not known)
            frames = [renumbered(fr, f"f{k}.{n}.") for n, fr in enumerate(sorted(computed + kept, key=lambda f: f.t))]
            for name in ("face_expression_frames", "gesture_frames", "gaze_frames"):
                count(name, len(computed))
            count("index_frames_reused", len(kept))
            write_json(path, frames)
            if not names_path.is_file():
                write_json(names_path, engine.tool_names(hands=True))
        out += [(fr, path) for fr in frames if start_s <= fr.t < end_s]
    try:
        names = read_json(names_path)
        names = {"face": names["face"], "social": names["social"]}
    except (OSError, ValueError, KeyError, TypeError):
        names = engine.tool_names(hands=True)
        write_json(names_path, names)
    return out, names


def _stored(path: Path) -> list[FrameObservation] | None:
    """The frames stored in ``path``; None when the file is missing or does not parse as frames."""
    if not path.is_file():
        return None
    try:
        return [FrameObservation.model_validate(f) for f in read_json(path)]
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


@functools.lru_cache(maxsize=64)
def _social_file(path: Path, _mtime_ns: int) -> dict[float, dict]:
    """One file of ``save_index_frames`` by frame time (read once per version of the file); empty when it does not
    parse."""
    try:
        return {row["t"]: row for row in read_json(path)}
    except (OSError, ValueError, TypeError, KeyError):
        return {}
