"""What a clip sounds like beyond words: quiet, speech, music or noise, and whether it swells.

A pure function of the waveform and the voice-activity regions the speech pass already found (the Silero
VAD inside faster-whisper, ``Transcript.speech_regions``; Silero is trained to reject music and noise).
Over one clip:

- ``loudness_dbfs``: RMS level (dBFS, ``tools.perception.prosody.rms_dbfs``); below ``QUIET_DBFS`` the clip is quiet;
- ``speech_share``: the share of the clip inside speech regions; at least ``SPEECH_SHARE``: speech;
- otherwise the sound outside speech is music when tonal, noise (applause, crowd, traffic) when not:
  its median spectral flatness over 100-4000 Hz (Wiener entropy, the geometric over the arithmetic mean
  of the power spectrum; Johnston 1988, MPEG-7 AudioSpectralFlatness) is below ``TONAL_FLATNESS``
  (a pure tone is near 0, white noise near 0.56 with a periodogram);
- ``change_db``: RMS level of the last third minus the first third; at least ``SWELL_DB`` the sound
  swells ("before the music swells"), at most -``SWELL_DB`` it fades.

Measured on labelled 1-s clips (pyAudioAnalysis's speech / music / silence test set; ``evals/RESULTS.md``
section 9); the constants were set before that measurement, from the definitions above, not fitted.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from tools.perception.prosody import rms_dbfs

QUIET_DBFS = -50.0
SPEECH_SHARE = 0.5
TONAL_FLATNESS = 0.3
SWELL_DB = 6.0
#: Analysis frame (samples at 16 kHz: 64 ms) and the band whose flatness is read (Hz).
FRAME = 1024
BAND_HZ = (100.0, 4000.0)


class SoundStats(BaseModel):
    """A clip's sound (module doc); ``flatness`` is None when nothing outside speech was loud enough."""

    kind: Literal["quiet", "speech", "music", "noise"]
    loudness_dbfs: float
    change_db: float
    speech_share: float = Field(ge=0.0, le=1.0)
    flatness: float | None = None


def band_flatness(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Spectral flatness in ``BAND_HZ`` of each ``FRAME``-sample frame louder than ``QUIET_DBFS``
    (Hann window); shape (n_loud_frames,)."""
    if len(audio) < FRAME:
        return np.zeros(0)
    frames = audio[: len(audio) // FRAME * FRAME].reshape(-1, FRAME).astype(np.float64)
    loud = np.array([rms_dbfs(f) >= QUIET_DBFS for f in frames])
    if not loud.any():
        return np.zeros(0)
    power = np.abs(np.fft.rfft(frames[loud] * np.hanning(FRAME), axis=1)) ** 2 + 1e-12
    freqs = np.fft.rfftfreq(FRAME, 1.0 / sample_rate)
    band = power[:, (freqs >= BAND_HZ[0]) & (freqs <= BAND_HZ[1])]
    return np.exp(np.log(band).mean(axis=1)) / band.mean(axis=1)


def sound_stats(audio: np.ndarray, sample_rate: int, start_s: float, end_s: float,
                speech_regions: list[tuple[float, float]]) -> SoundStats:
    """The sound of ``audio`` (mono float, shape (n,)) over [start_s, end_s) given the speech regions
    (seconds, any order).

    Raises:
        ValueError: the span is empty.
    """
    if end_s <= start_s:
        raise ValueError(f"empty span [{start_s}, {end_s})")
    a, b = int(start_s * sample_rate), int(end_s * sample_rate)
    seg = audio[a:b]
    loudness = rms_dbfs(seg)
    third = len(seg) // 3
    change = rms_dbfs(seg[-third:]) - rms_dbfs(seg[:third]) if third >= FRAME else 0.0
    in_speech = np.zeros(len(seg), bool)
    for s, e in speech_regions:
        lo, hi = max(0, int(s * sample_rate) - a), min(len(seg), int(e * sample_rate) - a)
        if hi > lo:
            in_speech[lo:hi] = True
    share = float(in_speech.mean()) if len(seg) else 0.0
    flat = band_flatness(seg[~in_speech], sample_rate)
    flatness = float(np.median(flat)) if len(flat) else None
    if loudness < QUIET_DBFS:
        kind = "quiet"
    elif share >= SPEECH_SHARE or flatness is None:
        kind = "speech" if share > 0 else "quiet"
    else:
        kind = "music" if flatness < TONAL_FLATNESS else "noise"
    return SoundStats(kind=kind, loudness_dbfs=round(loudness, 1), change_db=round(change, 1),
                      speech_share=round(share, 3), flatness=None if flatness is None else round(flatness, 4))


def describe_sound(stats: SoundStats | None) -> str | None:
    """Plain words for a clip descriptor when the clip has music or noise (and whether it swells or
    fades); None for speech or quiet."""
    if stats is None:
        return None
    trend = ("getting louder" if stats.change_db >= SWELL_DB else
             "fading" if stats.change_db <= -SWELL_DB else None)
    if stats.kind == "music":
        return "music playing" + (f", {trend}" if trend else "")
    if stats.kind == "noise":
        return "noise such as applause, a crowd or traffic" + (f", {trend}" if trend else "")
    return None  # speech: its level follows words and pauses, not a swell
