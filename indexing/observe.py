"""Stored perception of a video span: the engine's observations, kept per chunk in the video's cache.

``observe_span`` asks the perception engine (``tools.perception.engine``) for faces + expression, gaze and hands
on a span at a frame rate and stores the records per chunk of the index's clip stride
(``perception/<tool key>/<start>-<end>.json``, written atomically), so any caller that asks again for
an overlapping span (a later candidate, re-query round or query, or ``affectseek inspect``) reads them back
and the models are loaded only when some chunk is not stored yet. A stored chunk that does not parse
is recomputed and overwritten, never used; chunks stored by an earlier ``OBSERVATION_VERSION`` are not read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from memory.cache import read_json, write_json
from memory.store import VideoIndex
from tools.core.media import iter_frames, sampling_start
from tools.perception.engine import FrameObservation, PerceptionEngine, load_engine

#: Version of what a stored chunk holds; raised when the engine's records change for the same models
#: (2: gaze targets drop shared attention, ``tools.perception.gaze.SHARED_ATTENTION_COS``; 3: times on the file's clock,
#: frames on the grid of the first video frame, ``tools.core.media.sampling_start``).
OBSERVATION_VERSION = 3


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
    """
    count = count or (lambda _name, _n=1: None)
    engine = engine or load_engine(index.config.perception())
    cfg = index.config
    key = _tool_key(f"{cfg.face_backend}+{cfg.expression_backend}+gestures+gaze@{fps:g}fps+v{OBSERVATION_VERSION}")
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
            frames = engine.observe(iter_frames(index.info.path, fps, first, c1), f"f{k}.", hands=True)
            for name in ("face_expression_frames", "gesture_frames", "gaze_frames"):
                count(name, len(frames))
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
