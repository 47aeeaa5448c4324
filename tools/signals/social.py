"""Typed per-frame social records and the pure functions that derive who speaks and who points.

Everything here is a pure function of typed records (``tools.perception.engine.FrameObservation``) and a
``track_of`` function that names the person track of a face observation (the index supplies it):
``social_frames`` turns observations into ``SocialFrame`` records (track per face, gaze per face,
pointing pairs, the other gestures of tracked people), ``speaker_of`` picks the speaking track of a span from lip
activity (``lip_speaker``; ``speaker_in_view`` keeps a known speaker who is off screen while a group is shown), and
``tools.signals.events.gaze_and_pointing_events`` builds events from them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from tools.core.schema import FaceObservation, FrameFaces, Gaze, HandObservation

#: Lip activity (std of the inner-lip gap over a speech span, in inter-ocular distances) above which a
#: face counts as the one speaking.
MIN_LIP_ACTIVITY = 0.03


def lip_speaker(mouth_gaps: dict[int, list[float]], min_activity: float = MIN_LIP_ACTIVITY) -> int | None:
    """The track whose inner-lip gap varies most over a speech span (at least 3 samples and
    ``min_activity``); None when no face moves its lips enough (speaker unknown)."""
    activity = {tr: float(np.std(v)) for tr, v in mouth_gaps.items() if len(v) >= 3}
    if not activity:
        return None
    best = max(activity, key=activity.get)
    return best if activity[best] >= min_activity else None


TrackOf = Callable[[FaceObservation], "int | None"]


class Pointing(BaseModel):
    """Track ``pointer`` points at track ``target`` in one frame; ``record_id`` names the hand record."""

    pointer: int
    target: int
    record_id: str


class GestureHit(BaseModel):
    """Track ``person`` makes ``gesture`` (an event type of ``GESTURE_EVENTS``) in one frame; ``record_id``
    names the hand record."""

    person: int
    gesture: str
    record_id: str


#: Hand classes (``tools.perception.gestures``) that become gesture events, by event type; a ``point`` whose target is
#: a tracked face is ``pointing_at`` instead.
GESTURE_EVENTS = {"point": "pointing", "palm": "open_palm", "hand_over_mouth": "hand_over_mouth",
                  "hand_over_face": "hand_over_face", "crossed_arms": "crossed_arms", "like": "thumbs_up",
                  "dislike": "thumbs_down"}
GESTURE_EVENT_TYPES = frozenset(GESTURE_EVENTS.values())


class SocialFrame(BaseModel):
    """One frame as the social layer sees it: the track of each face (None: unknown), its gaze, pointing
    at tracked people, and the other gestures of tracked people."""

    t: float
    tracks: list[int | None]
    gaze: list[Gaze]
    points: list[Pointing] = Field(default_factory=list)
    gestures: list[GestureHit] = Field(default_factory=list)


class SpeechTurn(BaseModel):
    """A span of speech (seconds) with its speaker track (None: unknown) and the record it comes from."""

    start_s: float
    end_s: float
    speaker: int | None
    record_id: str


def hand_owner(frame: FrameFaces, hand: HandObservation, track_of: TrackOf) -> int | None:
    """Track of the face horizontally nearest the hand's wrist (whose hand it most likely is); None when
    the frame has no face or that face has no track."""
    if not frame.faces:
        return None
    near = min(frame.faces, key=lambda f: abs((f.box.x0 + f.box.x1) / 2 - hand.wrist[0]))
    return track_of(near)


def social_frames(observations, track_of: TrackOf) -> list[SocialFrame]:
    """``SocialFrame`` per observation (``tools.perception.engine.FrameObservation``: faces, gaze, hands); a hand
    counts when its owner (``hand_owner``) has a track: pointing at a tracked face is a ``Pointing``, the
    other classes of ``GESTURE_EVENTS`` (pointing elsewhere included) are ``GestureHit``s."""
    out = []
    for obs in observations:
        tracks = [track_of(f) for f in obs.faces]
        points, gestures = [], []
        for h in obs.hands:
            owner = hand_owner(obs, h, track_of)
            if owner is None or h.gesture not in GESTURE_EVENTS:
                continue
            target = tracks[h.target_box] if h.target_box is not None and h.target_box < len(tracks) else None
            if h.gesture == "point" and target is not None:
                points.append(Pointing(pointer=owner, target=target, record_id=h.id))
            else:
                gestures.append(GestureHit(person=owner, gesture=GESTURE_EVENTS[h.gesture], record_id=h.id))
        out.append(SocialFrame(t=obs.t, tracks=tracks, gaze=list(obs.gaze), points=points, gestures=gestures))
    return out


#: Lip activity is read over at least this many seconds around a span (an utterance can be shorter
#: than the three samples ``lip_speaker`` needs at the index's 1 fps).
MIN_LIP_WINDOW_S = 3.0
#: Faces shown without the known speaker from which a shot is a cutaway to a group (an audience, listeners) whose moving
#: lips are a reaction (``speaker_in_view``): two, the sample's audience shot showing three.
MIN_GROUP = 2


def lip_window(start_s: float, end_s: float, cuts: Sequence[float] = ()) -> tuple[float, float]:
    """The seconds [a, b) lip activity is read over for the span [start_s, end_s): the span widened symmetrically to
    ``MIN_LIP_WINDOW_S`` when shorter, but not across a shot cut (``cuts``: seconds, sorted): what would cross the cut
    before the span widens it after instead, and the other way round, up to the next cut (another shot shows other
    faces, whose lips say nothing about this speech). Cuts inside the span stay inside."""
    widen = max(0.0, MIN_LIP_WINDOW_S - (end_s - start_s)) / 2
    a, b = start_s - widen, end_s + widen
    if widen == 0 or not cuts:
        return a, b
    i, j = bisect.bisect_right(cuts, start_s), bisect.bisect_left(cuts, end_s)
    lo, hi = cuts[i - 1] if i > 0 else -math.inf, cuts[j] if j < len(cuts) else math.inf
    if a < lo:
        a, b = lo, min(hi, b + lo - a)
    if b > hi:
        a, b = max(lo, a - (b - hi)), hi
    return a, b


def mouth_gaps(frames: Sequence[SocialFrame], start_s: float, end_s: float,
               cuts: Sequence[float] = ()) -> dict[int, list[float]]:
    """Each track's inner-lip gaps (``Gaze.mouth_open``) in the frames of ``lip_window(start_s, end_s, cuts)``
    (seconds), in frame order."""
    start_s, end_s = lip_window(start_s, end_s, cuts)
    gaps: dict[int, list[float]] = {}
    for fr in frames:
        if start_s <= fr.t < end_s:
            for tr, g in zip(fr.tracks, fr.gaze, strict=False):
                if tr is not None and g.mouth_open is not None:
                    gaps.setdefault(tr, []).append(g.mouth_open)
    return gaps


def speaker_of(frames: Sequence[SocialFrame], start_s: float, end_s: float, cuts: Sequence[float] = ()) -> int | None:
    """The track whose lips move most during [start_s, end_s) (seconds), widened to ``MIN_LIP_WINDOW_S`` when shorter
    but not across a shot cut in ``cuts`` (``lip_window``, ``mouth_gaps``, ``lip_speaker``); None = unknown."""
    return lip_speaker(mouth_gaps(frames, start_s, end_s, cuts))


def in_view(frames: Sequence[SocialFrame], start_s: float, end_s: float, cuts: Sequence[float] = ()) -> set[int]:
    """The tracks with a face in the frames of ``lip_window(start_s, end_s, cuts)`` (seconds)."""
    a, b = lip_window(start_s, end_s, cuts)
    return {tr for fr in frames if a <= fr.t < b for tr in fr.tracks if tr is not None}


def speaker_in_view(frames: Sequence[SocialFrame], start_s: float, end_s: float, cuts: Sequence[float] = (),
                    known: int | None = None) -> int | None:
    """Who speaks [start_s, end_s) (seconds) as the frames show it: ``speaker_of``, unless ``known`` (the speaker the
    index found for the utterance: by lips over all of it, or by its voice) is in none of the frames of the span's
    ``lip_window`` while a group of others (``MIN_GROUP`` faces or more) is: then the speech comes from off screen (a
    cutaway to listeners, an audience laughing), the lips moving among them are a reaction, not its speaker's, and
    ``known`` is returned. One face shown whose lips move is taken as the speaker: on the joined talking-head clips of
    CREMA-D the voice link behind ``known`` (diarization that merges actors) was the wrong one every time it named
    someone off screen there (``evals/RESULTS.md`` section 143). None = unknown."""
    shown = in_view(frames, start_s, end_s, cuts)
    if known is not None and len(shown) >= MIN_GROUP and known not in shown:
        return known
    return speaker_of(frames, start_s, end_s, cuts)


def silent_tracks(mouth_gaps: dict[int, list[float]], min_activity: float = MIN_LIP_ACTIVITY) -> set[int]:
    """The tracks whose lips are seen still over a span: at least the 3 samples ``lip_speaker`` needs, and less
    activity than ``min_activity`` (a listener, not a face whose lips could not be read)."""
    return {tr for tr, v in mouth_gaps.items() if len(v) >= 3 and float(np.std(v)) < min_activity}
