"""Word timestamps refined against the audio: Whisper's words moved onto the voiced stretches they name.

Whisper's word timestamps come from cross-attention alignment (Radford et al., 2022; the dynamic time
warping of openai/whisper's ``timing.py``, which faster-whisper follows) and drift by a few hundred
milliseconds, most at pauses: a word after a pause often starts inside the pause, or lands in the next
pause; and the int8 kernels of different instruction sets shift them differently. The audio itself tells
where speech is. Here:

1. **Voicing.** Frame energy (RMS of 20 ms windows every 10 ms, in dB). A frame is voiced when it is
   above ``floor + max(MIN_RISE_DB, RISE_SHARE * (peak - floor))``, with ``floor`` and ``peak`` the 10th
   and 95th percentiles of the frames around the words (their span plus ``CONTEXT_S`` each side). Voiced
   runs closer than ``MIN_PAUSE_S`` are joined (stop closures inside a word are shorter than a pause) and
   runs shorter than ``MIN_RUN_S`` are dropped. Where the contrast ``peak - floor`` is under
   ``MIN_CONTRAST_DB`` (music, crowd noise, no pause at all) the energy says nothing and the words keep
   Whisper's times.
2. **Assignment.** Each word goes to one voiced run, in order (a word never goes to an earlier run than
   the word before it), minimising the total distance between each word's span and its run (zero when
   they overlap; among overlapping runs, the one covering more of the word): a dynamic programme over
   the words, each with the runs within ``MAX_SHIFT_S`` of it. A word with no run that near keeps its
   times.
3. **Placement.** A word that overlaps its run keeps Whisper's times clipped to the run; a word beside
   it (at most ``MAX_SHIFT_S`` away) is moved into it, keeping its length. The first word of a run starts
   where the run starts and the last ends where it ends, when Whisper's edge was within ``MAX_SHIFT_S`` of
   the run's (Whisper drops fillers such as "um", which a longer stretch may hold).

The error this leaves, measured against forced-aligned word times, is in ``evals/RESULTS.md`` (section 24).
"""

from __future__ import annotations

import numpy as np

HOP_S = 0.01
"""Energy frame step (seconds)."""
WINDOW_S = 0.02
"""Energy frame length (seconds)."""
CONTEXT_S = 1.0
"""Audio beyond the first and last word (seconds, each side) that sets the floor and peak levels."""
MIN_RISE_DB = 6.0
"""A voiced frame is at least this far above the floor (dB)."""
RISE_SHARE = 0.3
"""... and at least this share of the floor-to-peak range above the floor."""
MIN_CONTRAST_DB = 15.0
"""Below this floor-to-peak range (dB) the energy cannot tell speech from pause: words are left as they are."""
MIN_PAUSE_S = 0.1
"""Voiced runs closer than this (seconds) are one run: shorter silences are stop closures, not pauses."""
MIN_RUN_S = 0.05
"""Voiced runs shorter than this (seconds) are clicks or breaths, not words."""
MAX_SHIFT_S = 0.5
"""A word goes to a run at most this far from Whisper's span, and snaps to the run's edge from at most this far (seconds)."""


def frame_db(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """RMS level in dB (re full scale 1.0) of ``WINDOW_S`` frames every ``HOP_S`` of mono float ``audio``;
    shape (ceil(len(audio) / hop),); frame ``k`` is centred at ``k * HOP_S`` seconds."""
    hop, win = round(HOP_S * sample_rate), round(WINDOW_S * sample_rate)
    x = np.asarray(audio, np.float64)
    padded = np.pad(x, (win // 2, win // 2 + hop))
    n = (len(x) + hop - 1) // hop
    power = np.cumsum(np.concatenate([[0.0], padded ** 2]))
    starts = np.arange(n) * hop
    mean = (power[starts + win] - power[starts]) / win
    return 10 * np.log10(mean + 1e-12)


def voiced_runs(db: np.ndarray, lo: int, hi: int) -> list[tuple[float, float]] | None:
    """Voiced runs (start, end) in seconds among frames ``[lo, hi)`` of ``frame_db``'s output (see the
    module doc), or None when the frames' floor-to-peak contrast is under ``MIN_CONTRAST_DB``."""
    part = db[max(0, lo):max(lo + 1, hi)]
    if len(part) == 0:
        return None
    floor, peak = np.percentile(part, 10), np.percentile(part, 95)
    if peak - floor < MIN_CONTRAST_DB:
        return None
    voiced = part > floor + max(MIN_RISE_DB, RISE_SHARE * (peak - floor))
    edges = np.flatnonzero(np.diff(np.concatenate([[0], voiced.astype(np.int8), [0]])))
    runs: list[list[float]] = []
    for a, b in zip(edges[::2], edges[1::2]):
        start, end = (max(0, lo) + a) * HOP_S, (max(0, lo) + b) * HOP_S
        if runs and start - runs[-1][1] < MIN_PAUSE_S:
            runs[-1][1] = end
        else:
            runs.append([start, end])
    return [(a, b) for a, b in runs if b - a >= MIN_RUN_S]


def _cost(word: tuple[float, float], run: tuple[float, float]) -> float:
    """Distance (seconds) from a word's span to a run's, zero when they overlap, plus a tie-break of
    0.05 times the share of the word outside the run."""
    (a, b), (c, d) = word, run
    gap = max(0.0, c - b, a - d)
    inside = max(0.0, min(b, d) - max(a, c))
    return gap + 0.05 * (1.0 - inside / max(b - a, 1e-3))


def assign_runs(words: list[tuple[float, float]], runs: list[tuple[float, float]]) -> list[int | None]:
    """For time-ordered word spans (seconds), the index of the run each goes to (see the module doc,
    step 2), or None for a word with no run within ``MAX_SHIFT_S``; run indices never decrease."""
    cands = [[j for j, r in enumerate(runs) if max(0.0, r[0] - w[1], w[0] - r[1]) <= MAX_SHIFT_S] for w in words]
    # best[i][j]: least cost of the words so far, the latest placed word in run j; back-pointers beside
    best: dict[int, float] = {-1: 0.0}
    back: list[dict[int, int]] = []
    for w, cs in zip(words, cands):
        if not cs:
            back.append({})
            continue
        order = sorted(best)
        nxt, ptr = {}, {}
        for j in cs:
            prev = [p for p in order if p <= j]
            if not prev:
                continue
            p = min(prev, key=lambda k: (best[k], -k))
            nxt[j], ptr[j] = best[p] + _cost(w, runs[j]), p
        if not nxt:  # every candidate lies before the previous word's run: keep this word as it is
            back.append({})
            continue
        best = nxt
        back.append(ptr)
    out: list[int | None] = [None] * len(words)
    j = min(best, key=lambda k: (best[k], k))
    for i in range(len(words) - 1, -1, -1):
        if not back[i] or j == -1:
            continue
        if j in back[i]:
            out[i], j = j, back[i][j]
    return out


def refine_words(words: list[tuple[float, float]], audio: np.ndarray, sample_rate: int,
                 db: np.ndarray | None = None) -> list[tuple[float, float]]:
    """Refined (start, end) in seconds of time-ordered word spans of ``audio`` (mono float at
    ``sample_rate``; word times relative to its first sample), by the module doc's three steps; the
    spans stay in order, each inside the audio with end >= start. Where the energy shows no voiced stretch near the
    words (steady noise or music), they come back as given. ``db``: ``frame_db(audio)`` when already computed."""
    if not words:
        return []
    db = frame_db(audio, sample_rate) if db is None else db
    lo = int((min(a for a, _ in words) - CONTEXT_S) / HOP_S)
    hi = int((max(b for _, b in words) + CONTEXT_S) / HOP_S) + 1
    runs = voiced_runs(db, lo, hi)
    if not runs:
        return list(words)
    which = assign_runs(words, runs)
    out = list(words)
    for j, (c, d) in enumerate(runs):
        members = [i for i, r in enumerate(which) if r == j]
        for k, i in enumerate(members):
            a0, b0 = words[i]
            length = min(b0 - a0, d - c)
            if b0 <= c:  # beside the run, before it: moved in, keeping its length
                a, b = c, c + length
            elif a0 >= d:  # after it
                a, b = d - length, d
            else:  # overlapping: clipped to it
                a, b = max(a0, c), min(b0, d)
            if k == 0 and abs(a0 - c) <= MAX_SHIFT_S:
                a = c
            if k == len(members) - 1 and abs(d - b0) <= MAX_SHIFT_S:
                b = d
            out[i] = (a, max(a, b))
    for i in range(1, len(out)):  # in order, no overlap: a word that starts early trims the one before
        a = max(out[i][0], out[i - 1][0])
        if a < out[i - 1][1]:
            out[i - 1] = (out[i - 1][0], a)
        out[i] = (a, max(out[i][1], a))
    duration = len(audio) / sample_rate
    return [(round(min(a, duration), 3), round(min(max(a, b), duration), 3)) for a, b in out]


def refine_segments(raw: list[dict], audio: np.ndarray, sample_rate: int) -> list[dict]:
    """Raw decoded segments (dicts with ``start``, ``end``, ``words``: dicts with ``start``/``end`` in
    seconds) with every word refined by ``refine_words`` over all segments at once and each segment's
    ``start``/``end`` set to its first and last word; new dicts, the input is not changed. The decoder's
    times are kept as ``whisper_start``/``whisper_end`` on each word and segment."""
    timed = [(si, wi) for si, seg in enumerate(raw) for wi, w in enumerate(seg.get("words") or [])
             if w.get("start") is not None and w.get("end") is not None]
    spans = [(float(raw[si]["words"][wi]["start"]), float(raw[si]["words"][wi]["end"])) for si, wi in timed]
    spans = [(a, max(a, b)) for a, b in spans]
    order = sorted(range(len(spans)), key=lambda k: spans[k])
    refined = refine_words([spans[k] for k in order], audio, sample_rate)
    new_times = {timed[k]: t for k, t in zip(order, refined)}
    out = []
    for si, seg in enumerate(raw):
        words, times = [], []
        for wi, w in enumerate(seg.get("words") or []):
            if (si, wi) in new_times:
                a, b = new_times[(si, wi)]
                words.append(dict(w, start=a, end=b, whisper_start=w["start"], whisper_end=w["end"]))
                times.append((a, b))
            else:
                words.append(dict(w))
        seg = dict(seg, words=words, whisper_start=seg["start"], whisper_end=seg["end"])
        if times:
            seg["start"], seg["end"] = min(a for a, _ in times), max(b for _, b in times)
        out.append(seg)
    return out
