"""Who speaks, and what people do to each other, as the index records it: each frame's faces named by person
(``person_frames``), the utterances with their speakers and voices and the social event timeline
(``utterances_and_events``), and the speaker of each clip's speech (``clip_speakers``), which a voice reader with a
speaker baseline groups clips by (``indexing.clips.clip_voices``). Speakers are found by lips first
(``tools.signals.social.speaker_of``), then by voices linked to lips (``tools.signals.diarization.link_voices``).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from memory.store import Utterance
from tools.core.schema import Transcript, WordTimes
from tools.perception.asr import SAMPLE_RATE
from tools.perception.engine import FrameObservation
from tools.perception.prosody import prosody
from tools.signals.diarization import VoiceTurn, link_voices, voice_of
from tools.signals.events import SocialEvent, expression_changes, gaze_and_pointing_events
from tools.signals.social import (
    SocialFrame,
    SpeechTurn,
    lip_speaker,
    lip_window,
    mouth_gaps,
    silent_tracks,
    social_frames,
    speaker_of,
)
from tools.signals.tracks import TrackSummary


def person_frames(observed: list[FrameObservation], tracks: list[TrackSummary]) -> list[SocialFrame]:
    """The social frames (``tools.signals.social.social_frames``) of ``observed``, in its order, each face named by
    its person id across shots (``TrackSummary.person``; the track id without re-identification)."""
    person = {t.track_id: t.person_id for t in tracks}
    return social_frames(observed, lambda f: person.get(f.track_id, f.track_id) if f.track_id is not None else None)


def utterances_and_events(observed: list[FrameObservation], tracks: list[TrackSummary], frames: list[SocialFrame],
                          transcript: Transcript, audio: np.ndarray, sample_fps: float,
                          voices: list[VoiceTurn] | None = None, cuts: Sequence[float] = ()
                          ) -> tuple[list[Utterance], list[SocialEvent]]:
    """Utterances (speaker, voice, vocal cues) and the index-time social event timeline, events numbered
    ``e<i>`` in time order; ``observed`` (in time order) carries each face's track id, ``frames`` are its
    ``person_frames``. People are named by their person id across shots. An utterance's speaker is the person whose
    lips move with it (read over ``tools.signals.social.lip_window``, which does not widen a short utterance across
    the shot ``cuts``, seconds), else the person its voice is linked to (``tools.signals.diarization.link_voices``)."""
    times, spans = [fr.t for fr in frames], []
    for seg in transcript.segments:
        end = max(seg.end_s, seg.start_s + 1e-3)
        lips = speaker_of(_around(frames, times, seg.start_s, end, cuts), seg.start_s, end, cuts)
        spans.append((seg.start_s, end, voice_of(voices or [], seg.start_s, end), lips))
    links = link_voices(spans)
    words = WordTimes(transcript)
    utterances = []
    for i, (seg, (start, end, voice, lips)) in enumerate(zip(transcript.segments, spans, strict=True)):
        speaker = lips if lips is not None else links.get(voice) if voice is not None else None
        utterances.append(Utterance(id=f"u{i}", segment_id=seg.id, start_s=start, end_s=end, speaker=speaker,
                                    speaker_by=None if speaker is None else "lips" if lips is not None else "voice",
                                    voice=voice,
                                    prosody=prosody(audio, SAMPLE_RATE, words, start, end, id=f"pt{i}")))
    events = expression_changes(observed, tracks) + gaze_and_pointing_events(
        frames, max_gap_s=1.5 / sample_fps,
        turns=[SpeechTurn(start_s=u.start_s, end_s=u.end_s, speaker=u.speaker, record_id=u.id) for u in utterances])
    events.sort(key=lambda e: (e.start_s, e.type))
    return utterances, [e.model_copy(update={"id": f"e{i}"}) for i, e in enumerate(events)]


def clip_speakers(spans: Sequence[tuple[float, float] | None], turns: Sequence[VoiceTurn] = (),
                  frames: Sequence[SocialFrame] = (), cuts: Sequence[float] = ()) -> list[tuple[str, int] | None]:
    """Who speaks in each span (seconds; None: no speech), as the key a speaker baseline groups clips by; found as an
    utterance's speaker is (``utterances_and_events``), but over the clips' speech, which needs no recognised words.
    ``frames``: the index's social frames in time order, their tracks named by person (``person_frames``); ``cuts``:
    the shot cuts (seconds), across which a short span's lips are not read (``tools.signals.social.lip_window``).

    - ``("person", id)``: the person whose lips move most in the span (``tools.signals.social.speaker_of``), else the
      person its voice is linked to by lips in other spans (``tools.signals.diarization.link_voices`` over these
      spans), where that person is on screen or nobody else who might be speaking is (everyone else on screen has
      lips seen still: ``silent_tracks``; a listener in a reverse shot).
    - ``("voice", id)``: the diarized voice heard longest (``voice_of``), for a voice never heard with moving lips.
    - None: no speech; or a linked voice where others whose lips could not be read are on screen, or a voice heard
      with the lips of several people and linked to none: a voice the diarization merged from several people is
      nobody's there.

    The person comes first because diarization splits and merges voices where faces do not: on one recorded person a
    video it split the person into two or three voices in four of ten development videos, and on CREMA-D it heard
    eight actors as one (``evals/RESULTS.md`` sections 133-134)."""
    turns = sorted(turns, key=lambda t: t.start_s)  # in time order, not overlapping (voice_turns)
    turn_starts, times = [t.start_s for t in turns], [fr.t for fr in frames]
    voices: list[int | None] = []
    lips: list[int | None] = []
    seen: list[set[int]] = []  # the people on screen during each span, less those seen not to speak
    for span in spans:
        if span is None:
            voices.append(None)
            lips.append(None)
            seen.append(set())
            continue
        s, e = span
        around = _around(frames, times, s, e, cuts)
        gaps = mouth_gaps(around, s, e, cuts)
        near = turns[max(0, bisect.bisect_right(turn_starts, s) - 1) : bisect.bisect_left(turn_starts, e)]
        voices.append(voice_of(near, s, e))
        lips.append(lip_speaker(gaps))
        seen.append({p for fr in around if s <= fr.t < e for p in fr.tracks if p is not None} - silent_tracks(gaps))
    heard = [(*span, v, p) for span, v, p in zip(spans, voices, lips, strict=True) if span is not None]
    links = link_voices(heard)
    lipped = {v for _, _, v, p in heard if p is not None}  # voices heard with moving lips (every linked one among them)
    keys: list[tuple[str, int] | None] = []
    for voice, person, faces in zip(voices, lips, seen, strict=True):
        linked = links.get(voice)
        if person is None and linked is not None and (linked in faces or not faces):
            person = linked  # the voice's person on screen, or nobody who might speak; else others may be speaking
        keys.append(("person", person) if person is not None else
                    ("voice", voice) if voice is not None and voice not in lipped else None)
    return keys


def _around(frames: Sequence[SocialFrame], times: list[float], start_s: float, end_s: float,
            cuts: Sequence[float]) -> Sequence[SocialFrame]:
    """The frames (in time order, ``times`` their times) that ``mouth_gaps`` reads for [start_s, end_s) (seconds): those
    of its ``lip_window``."""
    a, b = lip_window(start_s, end_s, cuts)
    return frames[bisect.bisect_left(times, a) : bisect.bisect_left(times, b)]
