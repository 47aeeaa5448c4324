"""Social/affective events on a timeline, built from per-frame observations.

Event types follow the social-event vocabulary of GRASP (gaze and deictic-gesture compositions) plus
EmoTrans-style expression changes. This module builds all of ``EventType``.

Gaze and pointing events: per frame, A looks at B when A's gaze ray enters B's face box
(``tools.perception.gaze``); mutual when B looks back at A in the same frame, one-sided otherwise. Frames of the
same (type, participants) no further apart than ``max_gap_s`` merge into one event whose confidence is
the share of that span's frames where the relation held.

Expression change detection: each track's AffectNet-8 probabilities are smoothed with a centred moving
average over ``window`` observations; a change is declared where the smoothed top label switches and
the new label then holds for at least ``min_hold`` observations.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, Field

from tools.core.schema import AFFECTNET8, FrameFaces, Gaze, Modality, TranscriptSegment
from tools.signals.social import SocialFrame, SpeechTurn, speaker_in_view
from tools.signals.timeline import readings
from tools.signals.tracks import TrackSummary

EventType = Literal["mutual_gaze", "gaze_aversion", "one_sided_gaze", "pointing_at", "addressed_by_speech",
                    "excluded", "expression_change", "pointing", "open_palm", "hand_over_mouth", "hand_over_face",
                    "crossed_arms", "thumbs_up", "thumbs_down"]


class SocialEvent(BaseModel):
    """One typed event with its participants (person ids across shots, or track ids in an index without
    re-identification), span (s) and the observations behind it."""

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
    """``expression_change`` events per track, in time order, naming the track's person
    (``TrackSummary.person``, or the track id when tracks were not re-identified).

    The event spans from the last observation of the old label to the first of the new one; its
    confidence is the new label's smoothed probability there.
    """
    faces = {f.id: f for fr in affect for f in fr.faces}
    events: list[SocialEvent] = []
    for tr in tracks:
        obs = [faces[i] for i in tr.observation_ids if i in faces]
        if len(obs) < min_hold + 1:
            continue
        probs = smooth_track_expressions(readings(obs), window)
        labels = probs.argmax(axis=1)
        current = labels[0]
        who = tr.person_id
        for i in range(1, len(obs)):
            if labels[i] != current and all(labels[j] == labels[i] for j in range(i, min(len(obs), i + min_hold))) \
                    and i + min_hold <= len(obs):
                events.append(SocialEvent(
                    id=f"e{len(events)}", type="expression_change", participants=[who],
                    start_s=obs[i - 1].t, end_s=obs[i].t, confidence=round(float(probs[i, labels[i]]), 3),
                    modality="visual",
                    detail=f"person {who}: {AFFECTNET8[current]} -> {AFFECTNET8[labels[i]]}",
                    observation_ids=[obs[i - 1].id, obs[i].id]))
                current = labels[i]
    return sorted(events, key=lambda e: (e.start_s, e.participants))


class RelationHit(NamedTuple):
    """One frame's evidence of a relation between tracks: at ``t`` seconds, ``type`` (an event type)
    holds among ``participants`` (person or track ids, in the event's order), seen in record ``record_id``."""

    t: float
    type: str
    participants: tuple[int, ...]
    record_id: str


def _merge(hits: list[RelationHit], frame_times: list[float], max_gap_s: float, prefix: str) -> list[SocialEvent]:
    """Merge per-frame hits of one (type, participants) no further apart than ``max_gap_s`` into events."""
    events: list[SocialEvent] = []
    by_key: dict[tuple[str, tuple[int, ...]], list[tuple[float, str]]] = {}
    for hit in sorted(hits):
        by_key.setdefault((hit.type, hit.participants), []).append((hit.t, hit.record_id))
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
                     "gaze_aversion": "person {0} looks away from person {1}'s gaze",
                     "addressed_by_speech": "person {0} speaks to person {1}",
                     "pointing_at": "person {0} points at person {1}",
                     "excluded": "nobody looks at or speaks with person {0} while the others interact",
                     "pointing": "person {0} points (at no one on screen)",
                     "open_palm": "person {0} shows an open palm",
                     "hand_over_mouth": "person {0} puts a hand over the mouth",
                     "hand_over_face": "person {0} puts a hand over the face",
                     "crossed_arms": "person {0} crosses the arms",
                     "thumbs_up": "person {0} gives a thumbs up",
                     "thumbs_down": "person {0} gives a thumbs down"}
            events.append(SocialEvent(
                id=f"{prefix}{len(events)}", type=kind, participants=list(who), start_s=s0, end_s=s1,
                confidence=round(min(1.0, len({t for t, _ in run}) / n_frames), 3), modality="visual",
                detail=names[kind].format(*who), observation_ids=[r for _, r in run]))
            if item is not None:
                run = [item]
    return sorted(events, key=lambda e: (e.start_s, e.type))


def _looks(tracks: list[int | None], gazes: list[Gaze]) -> dict[int, tuple[int, str]]:
    """One frame's gaze between tracked faces: track -> (the track it looks at, the gaze record's id), for each
    face with a track that looks at another face of another track."""
    looks = {}
    for i, g in enumerate(gazes):
        if g.looking_at is not None and tracks[i] is not None and tracks[g.looking_at] is not None \
                and tracks[i] != tracks[g.looking_at]:
            looks[tracks[i]] = (tracks[g.looking_at], g.id)
    return looks


def gaze_and_pointing_events(frames: list[SocialFrame], max_gap_s: float = 0.6, prefix: str = "g",
                             turns: list[SpeechTurn] | None = None, min_excluded_s: float = 3.0) -> list[SocialEvent]:
    """Social events from time-ordered ``SocialFrame`` records (``tools.signals.social``).

    Args:
        frames: time-ordered observations; faces without a track id are skipped (events name
            identity-consistent participants).
        max_gap_s: frames of one relation no further apart than this merge into one event.
        turns: speech turns with their speaker tracks.
        min_excluded_s: shortest ``excluded`` run reported.

    Types produced: ``mutual_gaze``; ``one_sided_gaze``; ``gaze_aversion`` (A breaks mutual gaze with
    B while B keeps looking at A); ``pointing_at``; the gestures of ``tools.signals.social.GESTURE_EVENTS``
    (``pointing`` at no one on screen, ``open_palm``, ``hand_over_mouth``, ...); ``addressed_by_speech`` (the speaker of a turn looks
    at B during it); ``excluded`` (B is on screen with at least one other person, nobody looks at B and B
    does not speak, while the others look at each other or speak, for at least ``min_excluded_s``; a
    person alone on screen is never excluded, whoever speaks off screen).
    """
    turns = turns or []
    hits: list[RelationHit] = []
    prev_looks: dict[int, int] = {}
    for fr in frames:
        t, tracks, gazes = fr.t, fr.tracks, fr.gaze
        looks = _looks(tracks, gazes)
        gaze_id = {tr: g.id for tr, g in zip(tracks, gazes, strict=False) if tr is not None}
        for a, (b, rid) in looks.items():
            if looks.get(b, (None,))[0] == a:
                if a < b:
                    hits.append(RelationHit(t, "mutual_gaze", (a, b), rid))
            else:
                hits.append(RelationHit(t, "one_sided_gaze", (a, b), rid))
        for a, b in prev_looks.items():
            if prev_looks.get(b) == a and looks.get(a, (None,))[0] != b and looks.get(b, (None,))[0] == a \
                    and a in gaze_id:
                hits.append(RelationHit(t, "gaze_aversion", (a, b), gaze_id[a]))
        speaking = {u.speaker for u in turns if u.speaker is not None and u.start_s <= t < u.end_s}
        for spk in speaking:
            if spk in looks:
                hits.append(RelationHit(t, "addressed_by_speech", (spk, looks[spk][0]), looks[spk][1]))
        for p in fr.points:
            if p.pointer != p.target:
                hits.append(RelationHit(t, "pointing_at", (p.pointer, p.target), p.record_id))
        for g in fr.gestures:
            hits.append(RelationHit(t, g.gesture, (g.person,), g.record_id))
        present = {tr for tr in tracks if tr is not None}
        looked_at = {b for b, _ in looks.values()}
        anyone_speaks = any(u.start_s <= t < u.end_s for u in turns)
        for x in present:
            # "the others" must be on screen: alone, x is watching or listening, not left out
            others_interact = len(present) > 1 and (any(a != x and b != x for a, (b, _) in looks.items()) or
                                                    bool(speaking - {x}) or (anyone_speaks and not speaking))
            if x not in looked_at and x not in speaking and others_interact and x in gaze_id:
                hits.append(RelationHit(t, "excluded", (x,), gaze_id[x]))
        prev_looks = {a: b for a, (b, _) in looks.items()}
    events = _merge(hits, [f.t for f in frames], max_gap_s, prefix)
    events = [e for e in events if e.type != "excluded" or e.end_s - e.start_s >= min_excluded_s]
    return [e.model_copy(update={"id": f"{prefix}{i}"}) for i, e in enumerate(events)]


def social_timeline(frames: list[SocialFrame], segments: list[TranscriptSegment], start_s: float, end_s: float,
                    max_gap_s: float, min_excluded_s: float = 3.0,
                    known_speakers: dict[str, int] | None = None,
                    sure_speakers: dict[str, int] | None = None) -> list[SocialEvent]:
    """Gaze, pointing, addressing and exclusion events on [start_s, end_s) from ``frames`` and the
    transcript segments overlapping the span, each segment's speaker taken from lip activity, else from
    ``known_speakers`` (segment id -> person, e.g. the index's voice-linked speakers); a speaker of ``sure_speakers``
    (``tools.signals.diarization.sure_speakers``) off screen while a group of others is shown keeps the segment
    (``tools.signals.social.speaker_in_view``)."""
    turns = []
    known_speakers, sure_speakers = known_speakers or {}, sure_speakers or {}
    for seg in segments:
        s0, s1 = max(seg.start_s, start_s), min(seg.end_s, end_s)
        if s0 < s1:
            who = speaker_in_view(frames, s0, s1, known=sure_speakers.get(seg.id))
            turns.append(SpeechTurn(start_s=s0, end_s=s1, record_id=seg.id,
                                    speaker=who if who is not None else known_speakers.get(seg.id)))
    return gaze_and_pointing_events(frames, max_gap_s=max_gap_s, turns=turns, min_excluded_s=min_excluded_s)
