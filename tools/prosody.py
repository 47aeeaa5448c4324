"""Vocal cues per time span: loudness from the waveform, speech rate from word timestamps.

Loudness is the RMS level in dBFS (20 log10 of RMS amplitude, full scale = 1.0); silence is
clamped at -100 dBFS. Speech rate is recognised words per second of the span.
"""

from __future__ import annotations

import numpy as np

from tools.schema import ProsodyStats, Transcript

SILENCE_DBFS = -100.0


def _dbfs(x: float) -> float:
    return float(max(SILENCE_DBFS, 20.0 * np.log10(max(x, 1e-10))))


def prosody(audio: np.ndarray, sample_rate: int, transcript: Transcript, start_s: float, end_s: float,
            id: str) -> ProsodyStats:
    """Measure ``audio`` (mono float32, shape (n,)) over [start_s, end_s).

    Raises:
        ValueError: the span is empty.
    """
    if end_s <= start_s:
        raise ValueError(f"empty span [{start_s}, {end_s})")
    seg = audio[int(start_s * sample_rate) : int(end_s * sample_rate)]
    rms = float(np.sqrt(np.mean(seg.astype(np.float64) ** 2))) if len(seg) else 0.0
    peak = float(np.max(np.abs(seg))) if len(seg) else 0.0
    n_words = len(transcript.words_between(start_s, end_s))
    return ProsodyStats(
        id=id, start_s=start_s, end_s=end_s, rms_dbfs=round(_dbfs(rms), 2), peak_dbfs=round(_dbfs(peak), 2),
        speech_rate_wps=round(n_words / (end_s - start_s), 3),
    )
