"""Social/affective events on a timeline, built from per-frame observations.

Event types follow the social-event vocabulary of GRASP (gaze and deictic-gesture compositions) plus
EmoTrans-style expression changes. This module builds ``expression_change`` events; the gaze, gesture
and speech events are named in ``EventType`` for the perception tools that will produce them.

Expression change detection: each track's AffectNet-8 probabilities are smoothed with a centred moving
average over ``window`` observations; a change is declared where the smoothed top label switches and
the new label then holds for at least ``min_hold`` observations.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

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
