"""Per-video perception on demand: faces + expression, hand gestures and gaze on a span of frames.

Results are stored per chunk of the index's clip stride under the video's cache
(``perception/<tool key>/<chunk>.json``, written atomically), so any caller that asks again for an
overlapping span (a later candidate, re-query round or query, or ``tools.inspect``) reads them back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from memory.cache import read_json, write_json
from memory.indexer import VideoIndex, analyze_faces
from memory.video import iter_frames
from tools.events import SocialEvent, gaze_and_pointing_events
from tools.expression import load_expression_classifier
from tools.faces import load_face_detector
from tools.gaze import Gaze, lip_speaker, load_gaze_estimator
from tools.gestures import HandObservation, load_gesture_recognizer
from tools.schema import FrameFaces


def _tool_key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", name)


class FrameVisual(FrameFaces):
    """What the verifier saw in one frame: faces with expressions and gaze, hands with gestures."""

    hands: list[HandObservation] = Field(default_factory=list)
    gaze: list[Gaze] = Field(default_factory=list, description="one per face, same order")


def visual_on_span(index: VideoIndex, fps: float, start_s: float, end_s: float,
                   count: Callable[[str, int], None] | None = None) -> tuple[list[tuple[FrameVisual, Path]], str, str]:
    """Faces + expressions and hand gestures on [start_s, end_s) at ``verify_fps``, each frame with its file.

    Work is done and stored per chunk of the index's clip stride ([k*stride, (k+1)*stride)), so
    overlapping candidates, later rounds and later queries reuse what was already computed; the tool
    models are loaded only when some chunk is not stored yet.
    ``count(name, n)`` receives cost counters. Returns ``(frames with the path of the chunk file
    holding them, face tool name, "<gesture tool>|<gaze tool>")``.
    """
    count = count or (lambda _name, _n=1: None)
    cfg = index.config
    key = _tool_key(f"{cfg.face_backend}+{cfg.expression_backend}+gestures+gaze@{fps:g}fps")
    names_path = index.cache.dir / "perception" / key / "tools.json"
    models: dict = {}

    def loaded() -> dict:  # the models load only when a chunk is not in the cache yet
        if not models:
            models.update(det=load_face_detector(cfg.face_backend), clf=load_expression_classifier(cfg.expression_backend),
                          hands=load_gesture_recognizer(), gaze=load_gaze_estimator())
            write_json(names_path, {"face_tool": f"{models['det'].name}+{models['clf'].name}",
                                    "hand_gaze_tool": f"{models['hands'].name}|{models['gaze'].name}"})
        return models

    stride, duration = index.config.clip_stride_s, index.info.duration_s
    out: list[tuple[FrameVisual, Path]] = []
    for k in range(math.floor(start_s / stride + 1e-9), math.ceil(end_s / stride - 1e-9)):
        c0, c1 = round(k * stride, 3), round(min(duration, (k + 1) * stride), 3)
        if c1 <= c0:
            continue
        path = index.cache.perception_path(key, c0, c1)
        frames = _stored(path)
        if frames is not None:
            count("visual_cached_chunks", 1)
        else:  # not computed yet, or unreadable (then recomputed and overwritten, never used)
            found: list[FrameVisual] = []
            m = loaded()
            hands, gaze = m["hands"], m["gaze"]

            def with_hands(t: float, frame, faces: FrameFaces, k=k, found=found, hands=hands, gaze=gaze) -> None:
                boxes = [f.box for f in faces.faces]
                fh = hands.recognize(frame, t, boxes, f"h{k}.{len(found)}.")
                gz = [g.model_copy(update={"id": f"{f.id}.gaze"})
                      for f, g in zip(faces.faces, gaze.estimate(frame, boxes), strict=True)]
                found.append(FrameVisual(t=t, faces=faces.faces, hands=fh.hands, gaze=gz))

            analyze_faces(iter_frames(index.info.path, fps, c0, c1), f"f{k}.", m["det"], m["clf"], with_hands)
            frames = found
            count("face_expression_frames", len(frames))
            count("gesture_frames", len(frames))
            count("gaze_frames", len(frames))
            write_json(path, frames)
        out += [(fr, path) for fr in frames if start_s <= fr.t < end_s]
    try:
        names = read_json(names_path)
    except (OSError, ValueError):
        loaded()
        names = read_json(names_path)
    return out, names["face_tool"], names["hand_gaze_tool"]


def _stored(path: Path) -> list[FrameVisual] | None:
    """The frames stored in ``path``; None when the file is missing or does not parse as frames."""
    if not path.is_file():
        return None
    try:
        return [FrameVisual.model_validate(f) for f in read_json(path)]
    except (OSError, ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return None


def speaker_track(index: VideoIndex, stored: list[tuple[FrameVisual, Path]], start_s: float, end_s: float) -> int | None:
    """The track whose lips move most during [start_s, end_s) (``tools.gaze.lip_speaker``); None = unknown."""
    gaps: dict[int, list[float]] = {}
    for fr, _ in stored:
        if start_s <= fr.t < end_s:
            for f, g in zip(fr.faces, fr.gaze, strict=False):
                tr = index.track_at(f.t, f.box)
                if tr is not None and g.mouth_open is not None:
                    gaps.setdefault(tr, []).append(g.mouth_open)
    return lip_speaker(gaps)


def hand_owner(index: VideoIndex, fr: FrameVisual, h: HandObservation) -> int | None:
    """Track of the face horizontally nearest the hand's wrist (the person the hand most likely belongs to)."""
    if not fr.faces:
        return None
    near = min(fr.faces, key=lambda f: abs((f.box.x0 + f.box.x1) / 2 - h.wrist[0]))
    return index.track_at(near.t, near.box)


def social_timeline(index: VideoIndex, stored: list[tuple[FrameVisual, Path]], start_s: float, end_s: float,
                    max_gap_s: float, min_excluded_s: float = 3.0) -> list[SocialEvent]:
    """Social events (``tools.events``) on [start_s, end_s) from stored frames and the transcript's turns,
    each turn's speaker taken from lip activity (``speaker_track``)."""
    frames = []
    for fr, _ in stored:
        tracks = [index.track_at(f.t, f.box) for f in fr.faces]
        points = []
        for h in fr.hands:
            if h.gesture == "point" and h.target_box is not None and h.target_box < len(tracks):
                owner, target = hand_owner(index, fr, h), tracks[h.target_box]
                if owner is not None and target is not None:
                    points.append((owner, target, h.id))
        frames.append((fr.t, tracks, fr.gaze, points))
    turns = []
    for seg in index.transcript.segments:
        s0, s1 = max(seg.start_s, start_s), min(seg.end_s, end_s)
        if s0 < s1:
            turns.append((s0, s1, speaker_track(index, stored, s0, s1), seg.id))
    return gaze_and_pointing_events(frames, max_gap_s=max_gap_s, turns=turns, min_excluded_s=min_excluded_s)
