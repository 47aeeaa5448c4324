"""Resumable index builds: per-chunk checkpoints in a build's staging directory.

An index build walks the video in chunks (``VISUAL_CHUNK_S`` of sampled frames, ``ASR_CHUNK_S`` of
audio). Each finished chunk is written atomically under ``<staging>/parts/``; a build that was killed
finds the finished chunks there on its next run and starts after the last one. The staging directory
belongs to one (video content, index config) pair, and ``plan.json`` records the chunking, so a
checkpoint is only ever reused by a build that would have produced it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from memory.cache import atomic_write_bytes, read_json, write_json
from tools.schema import Transcript, TranscriptSegment, Word

VISUAL_CHUNK_S = 60.0
"""Video seconds of sampled frames per checkpoint (60 s = 60 frames at the default 1 fps)."""

ASR_CHUNK_S = 300.0
"""Audio seconds per transcription chunk; each cut is moved to the quietest point before it."""

SPLIT_SEARCH_S = 10.0
"""How far before each nominal ASR cut to look for the quietest 100 ms (seconds)."""


class Checkpoints:
    """Finished chunks of one build, kept in ``<staging>/parts``.

    Args:
        staging: the build's staging directory.
        plan: what makes the chunks comparable (chunk lengths, index config key); when the directory
            holds parts from another plan they are deleted first.
    """

    def __init__(self, staging: Path, plan: dict[str, Any]) -> None:
        self.dir = Path(staging) / "parts"
        plan_path = self.dir / "plan.json"
        if self.dir.is_dir():
            try:
                same = read_json(plan_path) == json.loads(json.dumps(plan))
            except (OSError, ValueError):
                same = False
            if not same:
                for p in self.dir.iterdir():
                    p.unlink()
        self.dir.mkdir(parents=True, exist_ok=True)
        if not plan_path.is_file():
            write_json(plan_path, plan)
        self.resumed = 0

    def load(self, name: str) -> tuple[Any, dict[str, np.ndarray]] | None:
        """The JSON object and arrays saved as ``name``, or None when that chunk is not finished."""
        path = self.dir / f"{name}.json"
        if not path.is_file():
            return None
        try:
            obj = read_json(path)
            arrays_path = self.dir / f"{name}.npz"
            arrays = dict(np.load(arrays_path)) if arrays_path.is_file() else {}
        except (OSError, ValueError):
            return None
        self.resumed += 1
        return obj, arrays

    def save(self, name: str, obj: Any, **arrays: np.ndarray) -> None:
        """Atomically write chunk ``name``: its arrays first, its JSON (the completion mark) last."""
        if arrays:
            buf = io.BytesIO()
            np.savez(buf, **arrays)
            atomic_write_bytes(self.dir / f"{name}.npz", buf.getvalue())
        write_json(self.dir / f"{name}.json", obj)


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
    The language is the one most chunks detected; speech and untranscribed seconds add up; rejected
    segments are kept, shifted.
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
                                              end_s=round(seg.end_s + offset, 3), text=seg.text, words=words))
    langs = [tr.language for _, tr in parts if tr.language and tr.segments]
    language = max(set(langs), key=langs.count) if langs else None
    model = parts[0][1].model if parts else "none"
    notes = list(dict.fromkeys(n for _, tr in parts for n in tr.notes))
    return Transcript(language=language, duration_s=duration_s, model=model, segments=segments, notes=notes,
                      speech_s=round(sum(tr.speech_s for _, tr in parts), 3),
                      untranscribed_s=round(sum(tr.untranscribed_s for _, tr in parts), 3),
                      rejected=rejected, english_only=any(tr.english_only for _, tr in parts))
