"""The index build's speech pass: the audio track transcribed in checkpointed chunks cut at quiet points.

``transcribe_track`` decodes the audio once (16 kHz mono), cuts it into chunks of about ``chunk_s``
seconds at the quietest 100 ms before each nominal cut (``asr_chunks``), transcribes each chunk with
the configured ASR backend (``tools.perception.asr``; its speech guards drop hallucinated segments) and joins the
chunk transcripts (``merge_transcripts``). Each finished chunk is a checkpoint, so a killed build
resumes after the last one. Each chunk is decoded whole by one recogniser, so a second recogniser that takes the
chunks left once the visual pass is done (``SharedChunks``) gives the same transcript sooner.
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
"""Audio seconds per transcription chunk, at most; each cut is moved to the quietest point before it."""

ASR_LAST_CHUNK_S = 60.0
"""The shortest chunk (seconds) the chunks shrink to towards the end of the audio (``asr_chunks``)."""

SPLIT_SEARCH_S = 10.0
"""How far before each nominal ASR cut to look for the quietest 100 ms (seconds)."""


def asr_chunks(audio: np.ndarray, sample_rate: int, chunk_s: float = ASR_CHUNK_S,
               search_s: float = SPLIT_SEARCH_S, last_s: float = ASR_LAST_CHUNK_S) -> list[tuple[int, int]]:
    """Split an audio track into ``[start, end)`` sample ranges of at most about ``chunk_s`` seconds, shrinking
    towards the end: a chunk is nominally a quarter of the audio left at its start, between ``last_s`` and ``chunk_s``
    seconds (an hour of dialogue: nine chunks of about 300 s, then ten from 257 s down to under a minute). The two
    threads that share the chunks once the pictures are done (``SharedChunks``) then end within a short chunk of each
    other, where a last 300-s chunk was decoded alone while the other core idled (10 minutes of dialogue: 23 s at half
    the machine; ``evals/RESULTS.md`` section 121), and the plan is still a function of the audio alone.

    Each cut is placed at the quietest 100 ms window (lowest RMS) in the ``search_s`` seconds (at most
    half a chunk) before the nominal cut, so a cut rarely falls inside a word. Returns
    [(0, len(audio))] for audio of at most ``last_s`` plus the search seconds.
    """
    n = len(audio)
    win = max(1, sample_rate // 10)
    cuts, start = [], 0
    while True:
        step_s = min(chunk_s, max(last_s, (n - start) / sample_rate / 4))
        search = int(min(search_s, step_s / 2) * sample_rate)
        step = int(step_s * sample_rate)
        if n - start <= step + search:
            break
        lo, hi = start + step - search, start + step
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


class SharedChunks:
    """The speech pass's chunks still to transcribe, shared by the recogniser that runs beside the visual pass and
    a helper thread that joins once the visual pass is done (``indexing.build.build_index``), on the core the
    pictures leave idle. Each chunk is decoded whole by whichever takes it first, in order, so the transcript does
    not depend on who took what: only when it is ready. On 2 cores the visual pass ends well before the recogniser
    (the hour: pictures at RTF 21 or more, recognition at 6-7; ``evals/RESULTS.md`` sections 92 and 114).

    ``transcribe_track`` ``open``s it with the chunks' decoder and ``finish``es it on every way out; ``help`` waits
    for either, then decodes chunks until none is left. ``stop``: set by the build when the visual pass failed; no
    further chunk is taken (``PassStopped``). A decoder's error ends the taking on both threads and is raised by
    ``wait`` (and in the thread that met it).
    """

    def __init__(self, stop: threading.Event | None = None) -> None:
        self.stop = stop
        self.helped: list[int] = []
        self._cond = threading.Condition()
        self._todo: list[int] = []
        self._decode = None
        self._taken = 0
        self._opened = self._finished = self._helpers = False
        self._error: BaseException | None = None

    def open(self, todo: list[int], decode, helpers: bool = True) -> None:
        """Offer chunks ``todo`` (indices, taken in this order) decoded by ``decode(k)`` (thread-safe when
        ``helpers``; without, ``help`` takes none)."""
        with self._cond:
            self._todo, self._decode, self._opened, self._helpers = list(todo), decode, True, helpers
            self._cond.notify_all()

    def finish(self) -> None:
        """The speech pass has nothing more to offer (its chunks are done, or it never opened any)."""
        with self._cond:
            self._finished = True
            self._cond.notify_all()

    def raise_if_stopped(self, chunk: int) -> None:
        """Raise ``PassStopped`` (before ``chunk``) when the build has set ``stop``."""
        if self.stop is not None and self.stop.is_set():
            raise PassStopped(f"speech pass stopped before chunk {chunk}")

    def _take(self) -> int | None:
        with self._cond:
            if self._error is not None or not self._todo:
                return None
            self.raise_if_stopped(self._todo[0])
            self._taken += 1
            return self._todo.pop(0)

    def work(self, helper: bool = False) -> None:
        """Decode chunks until none is left or a decoder failed (its error is raised here too)."""
        while (k := self._take()) is not None:
            try:
                self._decode(k)
            except BaseException as exc:
                with self._cond:
                    self._error = self._error or exc
                raise
            finally:
                with self._cond:
                    self._taken -= 1
                    self._cond.notify_all()
            if helper:
                self.helped.append(k)

    def help(self) -> None:
        """Wait until the speech pass opens its chunks or finishes, then decode what is left (another thread)."""
        with self._cond:
            self._cond.wait_for(lambda: self._opened or self._finished)
        if self._opened and self._helpers:
            self.work(helper=True)

    def wait(self) -> None:
        """Block until every taken chunk is decoded; raise a decoder's error."""
        with self._cond:
            self._cond.wait_for(lambda: self._taken == 0)
            if self._error is not None:
                raise self._error


def transcribe_track(info: VideoInfo, cfg: IndexConfig, ckpt: Checkpoints, progress,
                     chunk_s: float = ASR_CHUNK_S, threads: int = 0, shared: SharedChunks | None = None
                     ) -> tuple[np.ndarray, Transcript]:
    """The audio track (float32 samples at ``SAMPLE_RATE``; NaN/Inf read as silence, with a note on the
    transcript) and its transcript; without ``cfg.use_audio`` an empty track and an empty transcript.
    ``threads``: the recogniser's CPU threads (``tools.perception.asr.FasterWhisperASR``; 0: one per core).
    ``shared``: the build's ``SharedChunks``: its ``stop``, set when the visual pass beside this one failed, ends the
    transcribing before the next chunk, and the chunks are offered to a helper thread too (on the CPU, when the
    recogniser can decode two calls at once, i.e. ``faster-whisper``); it is finished on every way out.

    Raises:
        tools.core.registry.BackendUnavailableError: the ASR backend cannot load.
        PassStopped: ``shared.stop`` was set before a chunk still to transcribe.
    """
    try:
        return _transcribe_track(info, cfg, ckpt, progress, chunk_s, threads, shared or SharedChunks(),
                                 shared is not None)
    finally:
        if shared is not None:
            shared.finish()


def _transcribe_track(info: VideoInfo, cfg: IndexConfig, ckpt: Checkpoints, progress, chunk_s: float, threads: int,
                      shared: SharedChunks, offered: bool) -> tuple[np.ndarray, Transcript]:
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
    parts: dict[int, Transcript] = {}
    for k in range(len(spans)):
        saved = ckpt.load(f"asr_{k:05d}")
        if saved is not None:
            parts[k] = Transcript.model_validate(saved[0])
            progress.update(task, advance=1)
    todo = [k for k in range(len(spans)) if k not in parts]
    if todo:
        shared.raise_if_stopped(todo[0])  # the build failed already: load no recogniser
        helped = offered and cfg.asr_backend == "faster-whisper" and cfg.device == "cpu" and len(todo) > 1
        asr = load_asr(cfg.asr_backend, model=cfg.asr_model, device=cfg.device, language=cfg.language,
                       batch_size=cfg.asr_batch_size, task=cfg.asr_task, beam_size=cfg.asr_beam_size,
                       threads=threads, **({"workers": 2} if helped else {}))

        def decode(k: int) -> None:
            a, b = spans[k]
            part = asr.transcribe(audio[a:b])
            ckpt.save(f"asr_{k:05d}", part)
            parts[k] = part
            progress.update(task, advance=1)

        shared.open(todo, decode, helpers=helped)
        shared.work()
        shared.wait()
    transcript = merge_transcripts([(spans[k][0] / SAMPLE_RATE, parts[k]) for k in range(len(spans))],
                                   len(audio) / SAMPLE_RATE)
    note = transcript_encoder_note(spoken_language(transcript), transcript_encoder_for(cfg.transcript_encoder, transcript))
    transcript.notes.extend([note] if note else [])
    if invalid_s:
        transcript.notes.append(
            f"the audio track has {invalid_s:.1f} s of invalid samples (NaN or infinite): "
            "they were read as silence, so speech there could not be transcribed")
    return audio, transcript
