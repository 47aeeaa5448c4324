"""The index build's speech pass: the audio track transcribed in checkpointed chunks cut at quiet points.

``transcribe_track`` decodes the audio once (16 kHz mono), cuts it into chunks of about ``chunk_s``
seconds at the quietest 100 ms before each nominal cut (``asr_chunks``), transcribes each chunk with
the configured ASR backend (``tools.perception.asr``; its speech guards drop hallucinated segments) and joins the
chunk transcripts (``merge_transcripts``). Each finished chunk is a checkpoint, so a killed build
resumes after the last one.
"""

from __future__ import annotations

import threading

import numpy as np

from memory.checkpoint import Checkpoints
from memory.store import IndexConfig
from tools.core.media import VideoInfo, load_audio
from tools.core.schema import Transcript, TranscriptSegment, Word
from tools.perception.asr import SAMPLE_RATE, load_asr
from tools.perception.text import spoken_language, transcript_encoder_for, transcript_encoder_note

ASR_CHUNK_S = 300.0
"""Audio seconds per transcription chunk; each cut is moved to the quietest point before it."""

SPLIT_SEARCH_S = 10.0
"""How far before each nominal ASR cut to look for the quietest 100 ms (seconds)."""


def asr_chunks(audio: np.ndarray, sample_rate: int, chunk_s: float = ASR_CHUNK_S,
               search_s: float = SPLIT_SEARCH_S) -> list[tuple[int, int]]:
    """Split an audio track into ``[start, end)`` sample ranges of about ``chunk_s`` seconds.

    Each cut is placed at the quietest 100 ms window (lowest RMS) in the ``search_s`` seconds (at most
    half a chunk) before the nominal cut, so a cut rarely falls inside a word. Returns
    [(0, len(audio))] for short audio.
    """
    search_s = min(search_s, chunk_s / 2)
    n = len(audio)
    step, win = int(chunk_s * sample_rate), max(1, sample_rate // 10)
    cuts, start = [], 0
    while n - start > step + int(search_s * sample_rate):
        lo, hi = start + step - int(search_s * sample_rate), start + step
        seg = audio[lo:hi]
        usable = len(seg) // win * win
        rms = np.sqrt(np.mean(seg[:usable].reshape(-1, win).astype(np.float64) ** 2, axis=1))
        cut = lo + int(np.argmin(rms)) * win + win // 2
        cuts.append((start, cut))
        start = cut
    cuts.append((start, n))
    return cuts


def merge_transcripts(parts: list[tuple[float, Transcript]], duration_s: float) -> Transcript:
    """Join chunk transcripts (each with its offset in seconds) into one, renumbering segment ids.

    Times are shifted by each chunk's offset; ids follow the single-pass scheme ``s<i>`` and ``w<i>.<j>``.
    The language is the one most chunks detected (on a tie, the first chunk's of them); speech and untranscribed
    seconds add up; speech regions and rejected segments are kept, shifted.
    """
    segments: list[TranscriptSegment] = []
    rejected = [r.model_copy(update={"start_s": round(r.start_s + offset, 3), "end_s": round(r.end_s + offset, 3)})
                for offset, tr in parts for r in tr.rejected]
    for offset, tr in parts:
        for seg in tr.segments:
            i = len(segments)
            words = [Word(id=f"w{i}.{j}", text=w.text, start_s=round(w.start_s + offset, 3),
                          end_s=round(w.end_s + offset, 3), probability=w.probability)
                     for j, w in enumerate(seg.words)]
            segments.append(TranscriptSegment(id=f"s{i}", start_s=round(seg.start_s + offset, 3),
                                              end_s=round(seg.end_s + offset, 3), text=seg.text, words=words,
                                              translated_from=seg.translated_from))
    langs = [tr.language for _, tr in parts if tr.language and tr.segments]
    # the language most chunks detected; a tie goes to the earlier chunk's, so every run joins alike
    language = max(dict.fromkeys(langs), key=langs.count) if langs else None
    model = parts[0][1].model if parts else "none"
    notes = list(dict.fromkeys(n for _, tr in parts for n in tr.notes))
    return Transcript(language=language, duration_s=duration_s, model=model, segments=segments, notes=notes,
                      speech_s=round(sum(tr.speech_s for _, tr in parts), 3),
                      speech_regions=[(round(a + offset, 3), round(b + offset, 3))
                                      for offset, tr in parts for a, b in tr.speech_regions],
                      untranscribed_s=round(sum(tr.untranscribed_s for _, tr in parts), 3),
                      rejected=rejected, english_only=any(tr.english_only for _, tr in parts))


class PassStopped(Exception):
    """The speech pass stopped before its next chunk because the build failed elsewhere (``transcribe_track``)."""


def transcribe_track(info: VideoInfo, cfg: IndexConfig, ckpt: Checkpoints, progress,
                     chunk_s: float = ASR_CHUNK_S, threads: int = 0, stop: threading.Event | None = None
                     ) -> tuple[np.ndarray, Transcript]:
    """The audio track (float32 samples at ``SAMPLE_RATE``; NaN/Inf read as silence, with a note on the
    transcript) and its transcript; without ``cfg.use_audio`` an empty track and an empty transcript.
    ``threads``: the recogniser's CPU threads (``tools.perception.asr.FasterWhisperASR``; 0: one per core).
    ``stop``: set by the build when the visual pass beside this one failed; no further chunk is transcribed.

    Raises:
        tools.core.registry.BackendUnavailableError: the ASR backend cannot load.
        PassStopped: ``stop`` was set before a chunk still to transcribe.
    """
    if not cfg.use_audio:
        task = progress.add_task("transcribe", total=1)
        progress.update(task, completed=1)
        return np.zeros(0, np.float32), Transcript(duration_s=info.duration_s, model="none (--no-audio)")
    audio = load_audio(info.path, SAMPLE_RATE)
    invalid_s = float(np.count_nonzero(~np.isfinite(audio))) / SAMPLE_RATE
    if invalid_s:
        audio = np.nan_to_num(audio, nan=0.0, posinf=0.0, neginf=0.0)
    spans = asr_chunks(audio, SAMPLE_RATE, chunk_s)
    task = progress.add_task("transcribe", total=len(spans))
    asr = None
    parts = []
    for k, (a, b) in enumerate(spans):
        name = f"asr_{k:05d}"
        saved = ckpt.load(name)
        if saved is None and stop is not None and stop.is_set():
            raise PassStopped(f"speech pass stopped before chunk {k}")
        if saved is None:
            asr = asr or load_asr(cfg.asr_backend, model=cfg.asr_model, device=cfg.device, language=cfg.language,
                                  batch_size=cfg.asr_batch_size, task=cfg.asr_task, beam_size=cfg.asr_beam_size,
                                  threads=threads)
            part = asr.transcribe(audio[a:b])
            ckpt.save(name, part)
        else:
            part = Transcript.model_validate(saved[0])
        parts.append((a / SAMPLE_RATE, part))
        progress.update(task, advance=1)
    transcript = merge_transcripts(parts, len(audio) / SAMPLE_RATE)
    note = transcript_encoder_note(spoken_language(transcript), transcript_encoder_for(cfg.transcript_encoder, transcript))
    transcript.notes.extend([note] if note else [])
    if invalid_s:
        transcript.notes.append(
            f"the audio track has {invalid_s:.1f} s of invalid samples (NaN or infinite): "
            "they were read as silence, so speech there could not be transcribed")
    return audio, transcript

