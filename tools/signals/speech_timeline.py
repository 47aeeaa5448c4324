"""Each person's voice and words over the whole video: timelines like the face's (``tools.signals.timeline``:
smoothed, against the person's own baseline, salience, change points), read from stretches of speech.

Input is what an index stores: readings of stretches of speech (each an AffectNet-8 distribution over
[start_s, end_s) seconds: the voice of a clip's speech, ``memory.store.Clip.voice_emotion``; the words of an
utterance, the words8 head over its sentence vector) and the utterances with their speakers
(``tools.signals.social.SpeechTurn``: the person whose lips moved with it or whose voice it is). Pure functions of
those records.

- **Whose speech**: a stretch is a person's when that person's utterances cover at least ``SPEAKER_SHARE`` of the
  utterance time inside it (a voice read over two speakers is neither's); a stretch no utterance falls in is its own
  speaker's where it has one (a clip's, named by lips: ``memory.store.Clip.speaker``), so untranscribed speech is
  still someone's; otherwise it belongs to nobody. Its reading is placed at its middle.
- **Baseline**: the person's own median reading with ``tools.signals.timeline.MIN_OWN_BASELINE`` stretches or more,
  else the median over every stretch of the video in that modality (the video's usual sound or words), as for
  faces (person-specific normalisation, Baltrusaitis et al., 2015).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

import numpy as np

from tools.core.schema import AFFECTNET8
from tools.core.spans import SpansByStart
from tools.signals.diarization import seconds_within
from tools.signals.social import SpeechTurn
from tools.signals.timeline import PersonTimeline, median_distribution, person_timeline

#: Least share of the utterance time inside a stretch that one speaker must hold for the stretch to be theirs
#: (fixed, not tuned: a short interjection by someone else, under a fifth of the speech, leaves it theirs).
SPEAKER_SHARE = 0.8

#: A reading of one stretch of speech: (start_s, end_s, AffectNet-8 label -> probability).
SpeechReading = tuple[float, float, dict[str, float]]


def speaker_of_stretch(turns: list[SpeechTurn], start_s: float, end_s: float,
                       min_share: float = SPEAKER_SHARE) -> int | None:
    """The person who holds at least ``min_share`` of the utterance time of ``turns`` inside [start_s, end_s)
    (seconds), or None (no utterance inside, or no speaker holds that share; unknown speakers count against). Over
    many stretches, pass the turns near each."""
    return _holder(seconds_within(turns, start_s, end_s, lambda u: u.speaker), min_share)


def _holder(held: dict[int | None, float], min_share: float) -> int | None:
    """The speaker holding at least ``min_share`` of the seconds in ``held`` (speaker -> seconds), or None."""
    total = sum(held.values())
    if total <= 0:
        return None
    who, most = max(held.items(), key=lambda kv: kv[1])
    return who if who is not None and most >= min_share * total else None


def speech_timelines(spans: list[SpeechReading], turns: list[SpeechTurn],
                     modality: Literal["vocal", "verbal"], speakers: Sequence[int | None] | None = None
                     ) -> list[PersonTimeline]:
    """One ``PersonTimeline`` (``modality``) per person who holds a read stretch of speech, in order of person id.

    Args:
        spans: readings of stretches of speech in one modality, (start_s, end_s, reading) in seconds.
        turns: the utterances with their speakers (person ids; None when unknown).
        modality: ``vocal`` (the voice) or ``verbal`` (the words).
        speakers: each stretch's own speaker where it has one (the index's clips: ``memory.store.Clip.speaker``),
            taken for a stretch no utterance falls in (speech the recogniser did not transcribe, e.g. a language it
            cannot read); None: the utterances alone.

    Raises:
        ValueError: ``speakers`` is not one per stretch.
    """
    if speakers is not None and len(speakers) != len(spans):
        raise ValueError(f"{len(speakers)} speakers for {len(spans)} stretches of speech")
    if not spans:
        return []
    x_all = np.asarray([[r.get(k, 0.0) for k in AFFECTNET8] for _, _, r in spans], dtype=np.float64)
    video_baseline = median_distribution(x_all)
    by_start = SpansByStart(turns)
    per: dict[int, list[int]] = defaultdict(list)
    for i, (a, b, _) in enumerate(spans):
        held = seconds_within(by_start.near(a, b), a, b, lambda u: u.speaker)
        # no utterance inside: the stretch's own speaker where it has one
        who = _holder(held, SPEAKER_SHARE) if held else speakers[i] if speakers is not None else None
        if who is not None:
            per[who].append(i)
    timelines = []
    for person in sorted(per):
        rows = sorted(per[person], key=lambda i: spans[i][0] + spans[i][1])
        times = np.asarray([(spans[i][0] + spans[i][1]) / 2 for i in rows])
        timelines.append(person_timeline(person, times, x_all[rows], video_baseline, modality))
    return timelines
