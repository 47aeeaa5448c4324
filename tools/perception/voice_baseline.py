"""A speaker's own baseline for the voice: each clip's voice read as its departure from that voice's usual sound.

The voice head's features (``tools.perception.voice_emotion.voice_features``) carry absolute levels and the colour of
the microphone and room, so a recording louder than RAVDESS's studio sounds like RAVDESS's anger: the shipped voice8
reads 97 of 120 recorded Javanese clips as anger (``evals/RESULTS.md`` section 132). Read as the departure of a clip's
features from the mean of the same voice's clips, what the recording adds to every clip cancels, and so does what the
person always sounds like; the head that reads departures (``VOICE8_SPEAKER_HEAD``) is trained on RAVDESS with the
baseline drawn from varied mixes of the actor's clips, mostly calm ones included (``python -m studies.train_voice
--speaker-baseline``), since a video's speaker is often calm most of the time (section 133).

Pure functions of feature rows; the index groups a clip by its speaker: the person whose lips move with it, else the
person its voice is linked to, else the diarization's voice (``indexing.speakers.clip_speakers``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

#: A voice heard in at least this many clips is read against its own baseline; a voice heard in fewer is read by the
#: plain head. Read against the mean of n random clips of the same person, a departure head of the shipped recipe
#: (at the study's C = 0.03; ``studies.voice_baseline.baseline_sizes``) names 20.0 / 29.5 / 32.4 / 34.0 / 37.5 of the
#: 120 recorded Javanese development clips for n = 1 / 2 / 3 / 4 / 8 (20 draws), the plain head 28 (``evals/RESULTS.md``
#: section 133): four distinct stretches of speech. The index's clips overlap by half
#: (4 s every 2 s), so four stretches are about eight clips.
MIN_BASELINE_CLIPS = 8


def speaker_departures(rows: Sequence[np.ndarray | None], voices: Sequence[Hashable | None],
                       min_clips: int = MIN_BASELINE_CLIPS) -> list[np.ndarray | None]:
    """Each feature row minus the mean (float64) of the rows of its voice, for voices with at least ``min_clips``
    rows; None for a row that is None, has no voice (None), or whose voice has fewer rows.

    Args:
        rows: one feature vector (D,) per clip, None where the clip had no speech to read.
        voices: who speaks in each clip (any hashable key; the index's are ``indexing.speakers.clip_speakers``: a
            person, else a diarized voice), None when unknown.
        min_clips: the fewest rows a voice needs for a baseline (``MIN_BASELINE_CLIPS``).

    Raises:
        ValueError: ``rows`` and ``voices`` differ in length.
    """
    if len(rows) != len(voices):
        raise ValueError(f"{len(rows)} feature rows for {len(voices)} voices")
    members: dict[Hashable, list[int]] = {}
    for i, (row, voice) in enumerate(zip(rows, voices, strict=True)):
        if row is not None and voice is not None:
            members.setdefault(voice, []).append(i)
    out: list[np.ndarray | None] = [None] * len(rows)
    for idx in members.values():
        if len(idx) < min_clips:
            continue
        stacked = np.stack([np.asarray(rows[i], np.float64) for i in idx])
        baseline = stacked.mean(axis=0)
        for i, row in zip(idx, stacked, strict=True):
            out[i] = row - baseline
    return out
