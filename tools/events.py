"""Social/affective events on a timeline, built from per-frame observations.

Event types follow the social-event vocabulary of GRASP (gaze and deictic-gesture compositions) plus
EmoTrans-style expression changes. This module builds ``expression_change``, ``mutual_gaze``,
``one_sided_gaze`` and ``pointing_at`` events; ``gaze_aversion``, ``addressed_by_speech`` and ``excluded``
are named in ``EventType`` for the speech-turn and exclusion rules still to come.

Gaze and pointing events: per frame, A looks at B when A's gaze ray enters B's face box
(``tools.gaze``); mutual when B looks back at A in the same frame, one-sided otherwise. Frames of the
same (type, participants) no further apart than ``max_gap_s`` merge into one event whose confidence is
the share of that span's frames where the relation held.

Expression change detection: each track's AffectNet-8 probabilities are smoothed with a centred moving
average over ``window`` observations; a change is declared where the smoothed top label switches and
the new label then holds for at least ``min_hold`` observations.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from tools.gaze import Gaze
from tools.schema import AFFECTNET8, FrameFaces, Modality
from tools.tracks import TrackSummary

EventType = Literal["mutual_gaze", "gaze_aversion", "one_sided_gaze", "pointing_at", "addressed_by_speech",
                    "excluded", "expression_change"]


class SocialEvent(BaseModel):
    """One typed event with its participants (track ids), span (s) and the observations behind it."""

    id: str
    type: EventType
    participants: list[int]
    start_s: float
    end_s: float
    confidence: float = Field(ge=0.0, le=1.0)
    modality: Modality
    detail: str
    observation_ids: list[str] = Field(default_factory=list)


def smooth_track_expressions(obs_probs: np.ndarray, window: int = 3) -> np.ndarray:
    """Centred moving average over rows of (N, 8) probabilities (edges use the available rows)."""
    n = len(obs_probs)
    half = window // 2
    return np.stack([obs_probs[max(0, i - half) : i + half + 1].mean(axis=0) for i in range(n)]) if n else obs_probs


def expression_changes(affect: list[FrameFaces], tracks: list[TrackSummary], window: int = 3,
                       min_hold: int = 2) -> list[SocialEvent]:
    """``expression_change`` events per track, in time order.

    The event spans from the last observation of the old label to the first of the new one; its
    confidence is the new label's smoothed probability there.
    """
    faces = {f.id: f for fr in affect for f in fr.faces}
    events: list[SocialEvent] = []
    for tr in tracks:
        obs = [faces[i] for i in tr.observation_ids if i in faces]
        if len(obs) < min_hold + 1:
            continue
        probs = smooth_track_expressions(np.array([[o.expression[k] for k in AFFECTNET8] for o in obs]), window)
        labels = probs.argmax(axis=1)
        current = labels[0]
        for i in range(1, len(obs)):
            if labels[i] != current and all(labels[j] == labels[i] for j in range(i, min(len(obs), i + min_hold))) \
                    and i + min_hold <= len(obs):
                events.append(SocialEvent(
                    id=f"e{len(events)}", type="expression_change", participants=[tr.track_id],
                    start_s=obs[i - 1].t, end_s=obs[i].t, confidence=round(float(probs[i, labels[i]]), 3),
                    modality="visual",
                    detail=f"person {tr.track_id}: {AFFECTNET8[current]} -> {AFFECTNET8[labels[i]]}",
                    observation_ids=[obs[i - 1].id, obs[i].id]))
                current = labels[i]
    return sorted(events, key=lambda e: (e.start_s, e.participants))


def _merge(hits: list[tuple[float, str, tuple[int, ...], str]], frame_times: list[float], max_gap_s: float,
           prefix: str) -> list[SocialEvent]:
    """Merge per-frame (t, type, participants, record id) hits into events."""
    events: list[SocialEvent] = []
    by_key: dict[tuple[str, tuple[int, ...]], list[tuple[float, str]]] = {}
    for t, kind, who, rid in sorted(hits):
        by_key.setdefault((kind, who), []).append((t, rid))
    for (kind, who), items in sorted(by_key.items()):
        run = [items[0]]
        for item in items[1:] + [None]:
            if item is not None and item[0] - run[-1][0] <= max_gap_s:
                run.append(item)
                continue
            s0, s1 = run[0][0], run[-1][0]
            n_frames = sum(1 for t in frame_times if s0 <= t <= s1) or 1
            names = {"mutual_gaze": "person {0} and person {1} look at each other",
                     "one_sided_gaze": "person {0} looks at person {1}, who does not look back",
                     "pointing_at": "person {0} points at person {1}"}
            events.append(SocialEvent(
                id=f"{prefix}{len(events)}", type=kind, participants=list(who), start_s=s0, end_s=s1,
                confidence=round(min(1.0, len({t for t, _ in run}) / n_frames), 3), modality="visual",
                detail=names[kind].format(*who), observation_ids=[r for _, r in run]))
            if item is not None:
                run = [item]
    return sorted(events, key=lambda e: (e.start_s, e.type))


def gaze_and_pointing_events(frames: list[tuple[float, list[int | None], list[Gaze], list[tuple[int, int, str]]]],
                             max_gap_s: float = 0.6, prefix: str = "g") -> list[SocialEvent]:
    """Events from per-frame ``(t, track id per face, Gaze per face, [(pointer, target, record id)])``.

    Faces without a track id are skipped (an event names identity-consistent participants).
    """
    hits = []
    for t, tracks, gazes, points in frames:
        looks = {}
        for i, g in enumerate(gazes):
            if g.looking_at is not None and tracks[i] is not None and tracks[g.looking_at] is not None \
                    and tracks[i] != tracks[g.looking_at]:
                looks[tracks[i]] = (tracks[g.looking_at], g.id)
        for a, (b, rid) in looks.items():
            if looks.get(b, (None,))[0] == a:
                if a < b:
                    hits.append((t, "mutual_gaze", (a, b), rid))
            else:
                hits.append((t, "one_sided_gaze", (a, b), rid))
        for a, b, rid in points:
            if a != b:
                hits.append((t, "pointing_at", (a, b), rid))
    return _merge(hits, [f[0] for f in frames], max_gap_s, prefix)
