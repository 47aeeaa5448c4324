"""Vocal emotion: AffectNet-8 probabilities and arousal/valence of a stretch of speech.

Features (``voice_features``, 252 values): Whisper's 80-band log-mel spectrogram (faster-whisper's
feature extractor: 25 ms windows, 10 ms hop) over the frames within 35 dB of the loudest, summarised
by mean, standard deviation and mean absolute frame-to-frame change per band, plus 12 prosodic values
(F0 from ``tools.perception.prosody.pitch_track``: log median, 10-90th percentile range and IQR in semitones,
voiced share; RMS level mean, spread and 90th percentile in dB; active share; spectral tilt).
Head: standardisation + multinomial logistic regression trained on RAVDESS speech actors 1-18
(``studies/train_voice.py``; model card ``tools/models/VOICE8.md``); RAVDESS has no contempt, so it
gets probability ~0. Arousal and valence are the expectations of ``CIRCUMPLEX`` under the
distribution.

Devices: everything here is numpy on the CPU (the feature extractor is faster-whisper's numpy one, the head
a linear model of 252 inputs: microseconds per clip, nothing a GPU would speed up). The loader takes
``device`` like the other models' loaders, so a torch or ONNX backend registered here would get it;
``voice8`` ignores it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tools.core.registry import Registry
from tools.core.schema import AFFECTNET8
from tools.perception.heads import LinearHead
from tools.perception.prosody import pitch_track

SAMPLE_RATE = 16_000
#: Where the trained head lives.
VOICE8_HEAD = Path(__file__).parents[1] / "models" / "voice8_head.npz"
#: (valence, arousal) in [-1, 1] of each AffectNet-8 label: placements on Russell's circumplex
#: (Russell, 1980, "A circumplex model of affect", J. Pers. Soc. Psychol. 39(6)), rounded; contempt
#: placed beside disgust. Used to read arousal/valence off a categorical distribution.
CIRCUMPLEX: dict[str, tuple[float, float]] = {
    "neutral": (0.0, 0.0), "happiness": (0.8, 0.5), "sadness": (-0.7, -0.4), "surprise": (0.2, 0.8),
    "fear": (-0.6, 0.7), "disgust": (-0.7, 0.3), "anger": (-0.6, 0.8), "contempt": (-0.5, 0.2)}
MIN_SPEECH_S = 0.5
#: Where the head for telephone-band speech lives (``python -m studies.train_voice --band-limited``).
VOICE8_NARROWBAND_HEAD = Path(__file__).parents[1] / "models" / "voice8_narrowband_head.npz"
#: A recording whose speech carries less energy above 4.2 kHz than this, relative to 0.3-3.5 kHz (dB,
#: ``upper_band_db``), was sampled at 8 kHz or passed through a telephone band. Measured: RAVDESS speech at 48 kHz
#: -27 to -11 dB, the same band-limited to 8 kHz sampling -57 to -37 dB, CREMA-D's 8 kHz speech -61 to -38 dB, the
#: shared Katie Hill and Hamilton clips -15 and -17 dB (``evals/RESULTS.md`` section 46).
NARROWBAND_BELOW_DB = -32.0


def voice_features(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Feature vector (252,) of mono float audio (n,) at ``sample_rate`` Hz (16 kHz expected).

    Raises:
        ValueError: shorter than ``MIN_SPEECH_S`` seconds.
    """
    from faster_whisper.feature_extractor import FeatureExtractor

    if len(audio) < MIN_SPEECH_S * sample_rate:
        raise ValueError(f"speech shorter than {MIN_SPEECH_S} s")
    audio = np.asarray(audio, np.float32)
    mel = FeatureExtractor(feature_size=80, sampling_rate=sample_rate)(audio)[:, :-1]  # (80, frames)
    hop = sample_rate // 100
    frames = audio[: len(audio) // hop * hop].reshape(-1, hop)
    db = 10 * np.log10((frames.astype(np.float64) ** 2).mean(axis=1) + 1e-10)
    active = db >= db.max() - 35
    n = min(mel.shape[1], len(active))
    m = mel[:, :n][:, active[:n]] if active[:n].sum() >= 5 else mel[:, :n]
    delta = np.abs(np.diff(m, axis=1)).mean(axis=1) if m.shape[1] > 1 else np.zeros(80)
    f0 = pitch_track(audio, sample_rate)
    if len(f0) >= 5:
        st = 12 * np.log2(f0 / np.median(f0))
        pitch = [np.log(np.median(f0)), np.percentile(st, 90) - np.percentile(st, 10),
                 np.percentile(st, 75) - np.percentile(st, 25), len(f0) / max(1, len(audio) / (0.04 * sample_rate))]
    else:
        pitch = [np.log(150.0), 0.0, 0.0, 0.0]
    act_db = db[active]
    tilt = float(m[:40].mean() - m[40:].mean())
    prosodic = [*pitch, act_db.mean(), act_db.std(), np.percentile(act_db, 90), active.mean(), tilt,
                float(db.max()), float(np.percentile(db, 50)), float(m.mean())]
    return np.concatenate([m.mean(axis=1), m.std(axis=1), delta, prosodic]).astype(np.float32)


def upper_band_db(audio: np.ndarray, sample_rate: int = SAMPLE_RATE, max_frames: int = 2000) -> float:
    """Energy above 4.2 kHz relative to 0.3-3.5 kHz, in dB, of mono audio (n,) at ``sample_rate`` Hz, over its
    active 64 ms frames (within 35 dB of the loudest; at most ``max_frames`` of them, evenly spread, so an hour
    costs what a minute does): about -30 dB or less for speech recorded at 8 kHz or through a telephone band, -25
    to -10 dB for full-band speech (``NARROWBAND_BELOW_DB``).

    Raises:
        ValueError: ``audio`` is shorter than one frame.
    """
    n = round(0.064 * sample_rate)
    if len(audio) < n:
        raise ValueError("audio shorter than one 64 ms frame")
    frames = np.asarray(audio[: len(audio) // n * n]).reshape(-1, n)
    frames = frames[np.linspace(0, len(frames) - 1, min(len(frames), max_frames)).astype(int)] * np.hanning(n)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    energy = power.sum(axis=1)
    power = power[energy >= energy.max() * 10 ** -3.5].sum(axis=0)
    freqs = np.fft.rfftfreq(n, 1.0 / sample_rate)
    return float(10 * np.log10(power[freqs > 4200].sum() / (power[(freqs > 300) & (freqs < 3500)].sum() + 1e-20)
                               + 1e-12))


class VoiceEmotion:
    """Logistic-regression head over ``voice_features``, with a second head for telephone-band recordings
    (``for_recording``).

    Args:
        head: ``.npz`` with ``mean``, ``scale`` (D,), ``coef`` (8, D), ``intercept`` (8,) in AffectNet-8
            order; default ``VOICE8_HEAD``.
        narrowband_head: the same for speech recorded at 8 kHz (``VOICE8_NARROWBAND_HEAD``); None: ``head`` for
            every recording.

    Raises:
        FileNotFoundError: a head file is missing.
    """

    def __init__(self, head: str | Path = VOICE8_HEAD, narrowband_head: str | Path | None = None) -> None:
        self._head = LinearHead.load(head)
        self._narrowband = Path(narrowband_head) if narrowband_head is not None else None
        if self._narrowband is not None and not self._narrowband.is_file():
            raise FileNotFoundError(f"{self._narrowband}: voice head not found")
        self.name = f"voice8-head:{Path(head).name}"

    def for_recording(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> VoiceEmotion:
        """The reader for one recording, mono audio (n,): the telephone-band head when its speech has next to
        nothing above 4 kHz (``upper_band_db`` below ``NARROWBAND_BELOW_DB``: the full-band head reads such speech
        at chance, mostly as happiness; ``evals/RESULTS.md`` section 46), else this reader itself."""
        if self._narrowband is None or len(audio) < 0.064 * sample_rate:
            return self
        return VoiceEmotion(self._narrowband) if upper_band_db(audio, sample_rate) < NARROWBAND_BELOW_DB else self

    def predict_features(self, feats: np.ndarray) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` for feature rows (N, 252)."""
        return self._head.probs(feats)

    def distribution(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> dict[str, float] | None:
        """AffectNet-8 probabilities of the speech in ``audio``; None when it is too short to read."""
        try:
            p = self.predict_features(voice_features(audio, sample_rate))[0]
        except ValueError:
            return None
        return {lab: round(float(v), 4) for lab, v in zip(AFFECTNET8, p, strict=True)}


def valence_arousal(dist: dict[str, float]) -> tuple[float, float]:
    """Expected (valence, arousal) in [-1, 1] of an AffectNet-8 distribution under ``CIRCUMPLEX``."""
    total = sum(dist.values()) or 1.0
    v = sum(p * CIRCUMPLEX[k][0] for k, p in dist.items()) / total
    a = sum(p * CIRCUMPLEX[k][1] for k, p in dist.items()) / total
    return round(v, 4), round(a, 4)


VOICE_EMOTION: Registry[VoiceEmotion] = Registry("voice emotion")


@VOICE_EMOTION.register("voice8", about="RAVDESS-trained head over acoustic features; a second head for 8 kHz speech")
def _load_voice8(head: str | None = None, device: str = "cpu") -> VoiceEmotion:
    return VoiceEmotion(head or VOICE8_HEAD, None if head else VOICE8_NARROWBAND_HEAD)  # numpy on the CPU (module doc)


def load_voice_emotion(name: str = "voice8", **opts: object) -> VoiceEmotion:
    """Return the cached vocal emotion model ``name`` (see ``VOICE_EMOTION.names()``); ``opts`` go to its
    loader (``head=PATH``; ``device="cpu"|"cuda"|"cuda:N"``, which ``voice8``, numpy on the CPU, ignores).

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: unknown backend, or its
            head file is missing.
    """
    return VOICE_EMOTION.load(name, **opts)
