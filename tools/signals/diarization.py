"""Voice diarization: who spoke when, from the sound of the voice, and which person each voice is.

Pure functions of typed records (the embedding model is ``tools.perception.voices``):

- ``speech_windows`` cuts the speech regions (Silero VAD, ``Transcript.speech_regions``) into windows of
  1.6 s every 0.8 s, the partial-utterance length the GE2E encoder was trained on (Wan et al., 2018);
- ``cluster_voices`` groups the windows' embeddings by average-linkage agglomerative clustering on
  cosine distance (scikit-learn), cut at ``VOICE_MAX_DISTANCE``, the clustering most d-vector
  diarization systems start from (Wang et al., 2018, "Speaker Diarization with LSTM", ICASSP);
- ``voice_turns`` gives each window the middle of its span (halfway to its neighbours) and merges runs
  of one voice into turns; ``voice_of`` names the voice of a span (most overlap);
- ``link_voices`` names the person of each voice from lip activity: the person whose lips moved with
  most of that voice's speech (utterances whose speaker lip activity found), when that person holds
  at least ``LINK_MIN_SHARE`` of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, Field

T = TypeVar("T")
K = TypeVar("K")

#: Window length and hop (seconds): GE2E's 1.6 s partial utterances (Resemblyzer ``partials_n_frames``),
#: half overlapping.
WINDOW_S, HOP_S = 1.6, 0.8
#: Speech regions shorter than this are not embedded (too little voice to tell speakers apart).
MIN_REGION_S = 0.5
#: Cosine distance at which voice clusters stop merging; chosen on RAVDESS and EMO-DB dev speakers
#: (lowest mean DER over composed conversations; ``python -m studies.diarization``, evals/RESULTS.md).
VOICE_MAX_DISTANCE = 0.4
#: At most this many windows are clustered (about an hour of continuous speech; the clustering's memory
#: grows with the square): past it, an evenly spaced subset is clustered and every window joins the voice
#: whose mean embedding is nearest.
MAX_CLUSTERED_WINDOWS = 4000
#: A voice is linked to a person when lip activity gives that person at least this share of the
#: voice's lip-attributed speech time.
LINK_MIN_SHARE = 0.6


class VoiceTurn(BaseModel):
    """A stretch of speech (seconds) in one voice; ``voice`` numbers the voices in order of first speech."""

    start_s: float
    end_s: float
    voice: int = Field(description="voice cluster id, 0 = the first voice heard")


def speech_windows(regions: list[tuple[float, float]], window_s: float = WINDOW_S, hop_s: float = HOP_S,
                   min_s: float = MIN_REGION_S) -> list[tuple[float, float]]:
    """Windows (start_s, end_s) covering each speech region (seconds) at ``hop_s``; a region shorter than
    ``window_s`` is one window, one shorter than ``min_s`` none. The last window of a region ends at
    its end."""
    out: list[tuple[float, float]] = []
    for a, b in regions:
        if b - a < min_s:
            continue
        if b - a <= window_s:
            out.append((a, b))
            continue
        last = round(b - window_s, 3)
        s = a
        while s + window_s < b and round(s, 3) < last:  # a sum of hops can land on the last window's start
            out.append((round(s, 3), round(s + window_s, 3)))
            s += hop_s
        out.append((last, b))
    return out


def clustered_rows(n: int, max_windows: int = MAX_CLUSTERED_WINDOWS) -> np.ndarray:
    """Indices (int, ascending) of the rows of ``n`` that ``cluster_voices`` clusters: all of them, or past
    ``max_windows`` an evenly spaced subset of ``max_windows``."""
    return np.linspace(0, n - 1, min(n, max_windows)).round().astype(int)


def cluster_voices(embeddings: np.ndarray, max_distance: float = VOICE_MAX_DISTANCE,
                   max_windows: int = MAX_CLUSTERED_WINDOWS) -> np.ndarray:
    """Voice labels (N,) int for (N, D) unit embeddings: average-linkage clusters on cosine distance, cut
    at ``max_distance``, numbered by first appearance (row order). Past ``max_windows`` rows an evenly
    spaced subset is clustered and each row takes the label of the nearest cluster mean (cosine)."""
    n = len(embeddings)
    if n < 2:
        return np.zeros(n, int)
    from sklearn.cluster import AgglomerativeClustering

    subset = clustered_rows(n, max_windows)
    raw = AgglomerativeClustering(n_clusters=None, distance_threshold=max_distance, metric="cosine",
                                  linkage="average").fit_predict(embeddings[subset])
    if len(subset) < n:
        means = np.stack([embeddings[subset[raw == c]].mean(0) for c in range(raw.max() + 1)])
        means /= np.linalg.norm(means, axis=1, keepdims=True)
        raw = (embeddings @ means.T).argmax(1)
    order = {c: i for i, c in enumerate(dict.fromkeys(raw.tolist()))}
    return np.asarray([order[c] for c in raw], int)


def voice_turns(windows: list[tuple[float, float]], labels: np.ndarray) -> list[VoiceTurn]:
    """Turns from labelled windows (time order): each window owns its span up to halfway into the windows
    it overlaps; touching spans of one voice merge."""
    turns: list[VoiceTurn] = []
    for i, ((a, b), v) in enumerate(zip(windows, labels, strict=True)):
        if i > 0 and windows[i - 1][1] > a:
            a = (a + windows[i - 1][1]) / 2
        if i + 1 < len(windows) and windows[i + 1][0] < b:
            b = (b + windows[i + 1][0]) / 2
        if turns and turns[-1].voice == int(v) and a - turns[-1].end_s < 1e-6:
            turns[-1].end_s = round(b, 3)
        else:
            turns.append(VoiceTurn(start_s=round(a, 3), end_s=round(b, 3), voice=int(v)))
    return turns


def seconds_within(turns: Iterable[T], start_s: float, end_s: float, key: Callable[[T], K]) -> dict[K, float]:
    """Seconds of [start_s, end_s) covered by ``turns`` (records with ``start_s`` / ``end_s``), summed per ``key(turn)``;
    turns that do not overlap the span are left out."""
    held: dict[K, float] = defaultdict(float)
    for t in turns:
        overlap = min(end_s, t.end_s) - max(start_s, t.start_s)
        if overlap > 0:
            held[key(t)] += overlap
    return held


def voice_of(turns: list[VoiceTurn], start_s: float, end_s: float) -> int | None:
    """The voice heard longest in [start_s, end_s) (seconds); None when no turn overlaps it."""
    heard = seconds_within(turns, start_s, end_s, lambda t: t.voice)
    return max(heard, key=heard.get) if heard else None


def link_voices(spans: list[tuple[float, float, int | None, int | None]],
                min_share: float = LINK_MIN_SHARE) -> dict[int, int]:
    """``{voice: person}`` from spans ``(start_s, end_s, voice, lip speaker)``: a voice is the person whose
    lips moved during at least ``min_share`` of that voice's lip-attributed speech time; voices with no
    lip-attributed speech, or split between people, stay unlinked."""
    time: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for a, b, voice, person in spans:
        if voice is not None and person is not None:
            time[voice][person] += b - a
    links = {}
    for voice, by_person in time.items():
        person, best = max(by_person.items(), key=lambda kv: kv[1])
        if best >= min_share * sum(by_person.values()):
            links[voice] = person
    return links


def sure_speakers(utterances: Iterable[tuple[str, int | None, int | None, str | None]]) -> dict[str, int]:
    """Segment id -> speaker for the utterances whose speaker stands even where other faces' lips move on screen:
    found by its own lips (``speaker_by == "lips"``), or by a voice that was heard only with that one person's lips
    (every lip-attributed utterance of the voice names them). A voice heard with several people's lips (the
    diarization merged them: e.g. several acted speakers of one sex) names nobody surely.

    Args:
        utterances: ``(segment_id, voice, speaker, speaker_by)`` per utterance (``memory.store.Utterance``).
    """
    rows = list(utterances)
    lips: dict[int, set[int]] = defaultdict(set)
    for _, voice, speaker, by in rows:
        if by == "lips" and voice is not None and speaker is not None:
            lips[voice].add(speaker)
    return {seg: speaker for seg, voice, speaker, by in rows if speaker is not None
            and (by == "lips" or (by == "voice" and voice is not None and lips.get(voice) == {speaker}))}
