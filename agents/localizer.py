"""Candidate localizer: FAISS search over clip embeddings, transcript segments and social events.

Clip search embeds the query and the intent's search text with the index's clip embedder; transcript
and event search embed the search text with the text encoder and map matching segments / index-time
social events (``tools.signals.events``: gaze, addressing, exclusion, expression changes) onto the clips they
overlap. Each search scores every clip it reaches (every clip has a clip-search cosine; a clip has a transcript or
event score where a segment or event overlaps it), and a clip's retrieval score is the best of its scores plus
``BOTH_BONUS`` for each further search that ranks it within ``FOUND_REACH``; a candidate's ``source`` names those
searches (or, where none does and no affect was read, the search of its best score). The reach is fixed, so a clip's
score does not depend on how many candidates are asked or were seen (before, the bonus and the transcript's and
events' scores counted only a search's top k, with k the candidates asked plus those seen, and asking for two
candidates could propose other clips than the first two of three; evals/RESULTS.md section 172).

When the intent names target emotions, every clip is a candidate and also gets an affect score from what the
index-time pass perceived there (``affect_scores``: the target emotions' probability in the clip's faces, each
against its person's own usual reading where there is one, and voice), ranked by retrieval +
``RunSettings.affect_weight`` x affect; so fewer candidates are the first of more. Each keeps its clip-search cosine
however far down that search it lies (a median of 0.3-0.5 over a long video's clips with the descriptor embedder, a
step the reading could seldom make up without it; section 82). Otherwise the candidates are the clips a search ranks
within the candidates asked plus those seen, best score first.

Clips already verified in earlier rounds are not proposed again. The index's clips lie inside shots
(``indexing.clips.clip_windows``: a short shot is one clip from its frame-accurate start to its end), so the faces,
voice and words a candidate is judged on come from one shot; overlapping clips of a shot judged the same emotion
merge in the emotion reasoner, and two shots stay two moments. A question about a change of feeling gets the change
points of the people's affect timelines instead (``agents.change.change_candidates``), and the searches above only
when the video has none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from langgraph.runtime import Runtime

from agents.change import change_candidates
from agents.grounding import grounded_persons, speech_of_others
from agents.schema import Proposal
from agents.state import AffectState, RunContext, RunSettings
from memory.index import ranking
from memory.store import Clip, VideoIndex
from tools.core.spans import SpansByStart
from tools.perception.text import load_text_encoder, load_transcript_encoder
from tools.signals.lexicon import keyword_overlap, speech_match

#: Added to a clip's score for each search beyond the first that found it within ``FOUND_REACH``.
BOTH_BONUS = 0.05
#: How far down a search's ranking (clips, transcript segments, events) a clip counts as found by it, for the bonus
#: and a candidate's ``source``: fixed at the default ``candidates_per_round`` (8), so a clip's score does not depend
#: on how many candidates are asked or were seen (evals/RESULTS.md section 172).
FOUND_REACH: int = RunSettings.model_fields["candidates_per_round"].default
#: Weight of the face against the voice in the affect score (the weight of affect against retrieval is
#: ``RunSettings.affect_weight``); chosen on the composed dev bench (evals/RESULTS.md), never on test.
FACE_WEIGHT, VOICE_WEIGHT = 0.6, 0.4


def affect_scores(index: VideoIndex, targets: list[str], persons: set[int] | frozenset = frozenset(),
                  own_baseline: bool = True) -> dict[str, float]:
    """Per clip id, how strongly the index-time pass perceived ``targets`` there, in [0, 1]: the summed
    probability of the target emotions in the clip's mean face expression and in its voice
    (``Clip.voice_emotion``), weighted ``FACE_WEIGHT``/``VOICE_WEIGHT``; a clip with only one of the two uses
    it alone; a clip with neither gets no score.

    With ``own_baseline`` each face is read against its person's own usual reading where the person has one
    (``VideoIndex.salient_p``): a face that always reads a little sad scores no sadness. With grounded ``persons``
    (``agents.grounding``) the face part reads only their faces (the 1 fps observations in the clip), and the
    voice part is left out where all the clip's speech is known to be other people's
    (``agents.grounding.speech_of_others``), as the verifier does."""
    shifted = own_baseline and bool(index.baseline_shift)
    per_face: dict[str, list[float]] = {}
    if persons or shifted:
        for fr in index.faces:
            p = [index.salient_p(f, targets) if shifted else sum(f.expression.get(t, 0.0) for t in targets)
                 for f in fr.faces
                 if not persons or (f.track_id is not None and index.person_of(f.track_id) in persons)]
            for clip in index.clips_by_start.overlapping(fr.t, fr.t, include_end=True) if p else ():
                per_face.setdefault(clip.id, []).extend(p)  # the clips holding the frame
    out = {}
    for clip in index.clips:
        parts = []
        if clip.id in per_face:
            parts.append((FACE_WEIGHT, sum(per_face[clip.id]) / len(per_face[clip.id])))
        elif clip.max_faces and not persons:
            parts.append((FACE_WEIGHT, sum(clip.expression.get(t, 0.0) for t in targets)))
        if clip.voice_emotion and not speech_of_others(index, clip.start_s, clip.end_s, set(persons)):
            parts.append((VOICE_WEIGHT, sum(clip.voice_emotion.get(t, 0.0) for t in targets)))
        if parts:
            out[clip.id] = sum(w * x for w, x in parts) / sum(w for w, _ in parts)
    return out


def search_clips(index: VideoIndex, texts: list[str], k: int | None,
                 queries: np.ndarray | None = None) -> dict[str, float]:
    """Best cosine score per clip id over ``texts`` (top ``k`` per text; every clip when ``k`` is None) in the clip
    index; ``queries``: the texts' clip-embedder vectors (len(texts), D) when the caller has them already.

    Raises:
        ValueError: ``k`` is negative.
    """
    return {cid: m.score for cid, m in _clip_matches(index, texts, queries, k).items()}


@dataclass(frozen=True)
class Match:
    """What one search found of one clip: ``score``, its best score there (a cosine or a speech match), and ``rank``,
    the best place (0 = first) among the search's items (clips, transcript segments, events) of an item that gave
    the clip a score; a literal transcript match ranks 0."""

    score: float
    rank: int


def _clip_matches(index: VideoIndex, texts: list[str], queries: np.ndarray | None, k: int | None) -> dict[str, Match]:
    """Per clip id, its best clip-search cosine over ``texts`` and its best place in their rankings; the top ``k`` per
    text, every clip when ``k`` is None."""
    if queries is None:
        queries = index.config.clip_embedder().embed_queries(texts)
    out: dict[str, Match] = {}
    cosines = index.clip_index.cosines(queries)
    for row, ids in zip(cosines, ranking(cosines, k), strict=True):
        for rank, i in enumerate(ids):
            cid = index.clips[int(i)].id
            old = out.get(cid)
            out[cid] = Match(float(row[i]), rank) if old is None else \
                Match(max(old.score, float(row[i])), min(old.rank, rank))
    return out


def _spread(clips: SpansByStart[Clip], spans: list[tuple[float, float, float, int]], include_end: bool = False
            ) -> dict[str, Match]:
    """Per clip id, the best score and best rank of the ``(start_s, end_s, score, rank)`` spans (seconds) that overlap
    the clip ([start_s, end_s) meets the clip's [start_s, end_s); ``SpansByStart.overlapping``); ``include_end`` also
    counts a clip that starts exactly at a span's end (events may last 0 s). Clips no span reaches are left out."""
    best: dict[str, Match] = {}
    for start_s, end_s, score, rank in spans:
        for clip in clips.overlapping(start_s, end_s, include_end):
            old = best.get(clip.id)
            best[clip.id] = Match(score, rank) if old is None else Match(max(old.score, score), min(old.rank, rank))
    return best


def _transcript_matches(index: VideoIndex, text: str, k: int | None) -> dict[str, Match]:
    """Per clip id, the best speech match and best rank of the transcript segments over it (``search_transcript``)."""
    if len(index.segment_index) == 0:
        return {}
    enc = load_transcript_encoder(index.transcript_encoder, device=index.config.device)
    cosines = index.segment_index.cosines(enc.encode([text]))[0]
    overlaps = {i: o for i, seg in enumerate(index.transcript.segments) if (o := keyword_overlap(text, seg.text)) > 0}
    rank = {int(i): r for r, i in enumerate(ranking(cosines, k))} | dict.fromkeys(overlaps, 0)
    segs = index.transcript.segments
    return _spread(index.clips_by_start, [(segs[i].start_s, segs[i].end_s,
                                           speech_match(float(cosines[i]), overlaps.get(i, 0.0)), r)
                                          for i, r in sorted(rank.items())])


def search_transcript(index: VideoIndex, text: str, k: int | None = None) -> dict[str, float]:
    """Best speech-match score per clip id of the transcript segments that overlap the clip.

    Segments come from the top ``k`` by embedding cosine (every segment when ``k`` is None; the index's transcript
    encoder, ``tools.perception.text.load_transcript_encoder``; ``memory.index.VectorIndex.cosines``) and from a
    scan for literal content-word matches; each scores ``speech_match(cosine, keyword overlap)``.

    Raises:
        ValueError: ``k`` is negative.
    """
    return {cid: m.score for cid, m in _transcript_matches(index, text, k).items()}


def _event_matches(index: VideoIndex, text: str, k: int | None) -> dict[str, Match]:
    """Per clip id, the best cosine and best rank of the social events over it (``search_events``)."""
    if len(index.event_index) == 0:
        return {}
    cosines = index.event_index.cosines(load_text_encoder(model=None, device=index.config.device).encode([text]))[0]
    evs = index.events
    return _spread(index.clips_by_start, [(evs[i].start_s, evs[i].end_s, float(cosines[i]), r)
                                          for r, i in enumerate(map(int, ranking(cosines, k)))], include_end=True)


def search_events(index: VideoIndex, text: str, k: int | None = None) -> dict[str, float]:
    """Best cosine score per clip id of the index-time social events that overlap the clip: the top ``k`` events
    (every event when ``k`` is None).

    Raises:
        ValueError: ``k`` is negative.
    """
    return {cid: m.score for cid, m in _event_matches(index, text, k).items()}


def in_window(window: tuple[float, float] | None, start_s: float, end_s: float) -> bool:
    """Whether the span [start_s, end_s] (seconds) has its middle inside ``window`` (seconds; None: the whole video)."""
    return window is None or window[0] <= (start_s + end_s) / 2 <= window[1]


def localize_candidates(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Propose up to ``candidates_per_round`` unseen clips for the current search text, best first (module doc: a
    clip's score does not depend on how many candidates are asked; for a question about a feeling every clip is a
    candidate, otherwise those a search ranks within ``candidates_per_round`` + the clips seen); where the question
    names a part of the video (``window``, ``tools.signals.time_words``), only clips whose middle lies in it."""
    ctx = runtime.context
    index, n = ctx.index, ctx.settings.candidates_per_round
    seen = {c.clip_id for c in state.get("candidates", [])}
    change = state["intent"].change
    persons = grounded_persons(state.get("people", []), state["intent"].feeling_of)  # whose feeling: as the verifier
    window = state.get("window")  # the part of the video the question names: clips whose middle lies in it
    if change is not None:  # a question about a change: the change points of the people's timelines (in the window)
        every = change_candidates(index, change, persons, seen, None, state.get("round", 0))  # all, then cut
        proposals = [p for p in every if in_window(window, p.start_s, p.end_s)][:n]
        if proposals or seen:
            return {"candidates": proposals}
    texts, text = list(dict.fromkeys([state["query"], state["search_text"]])), state["search_text"]
    queries = index.config.clip_embedder().embed_queries(texts)
    matches = {"clips": _clip_matches(index, texts, queries, None),
               "transcript": _transcript_matches(index, text, None), "events": _event_matches(index, text, None)}
    targets = list(state["intent"].target_emotions)
    affect = affect_scores(index, targets, persons, ctx.settings.own_baseline) if targets else {}
    reach = n + len(seen)  # a question about no feeling: what each search ranks within reach is a candidate
    ranked = []
    for clip in index.clips:
        hits = {name: m[clip.id] for name, m in matches.items() if clip.id in m}
        found = [name for name, m in hits.items() if m.rank < FOUND_REACH]
        if clip.id in seen or not in_window(window, clip.start_s, clip.end_s):
            continue
        if not (clip.id in affect or (hits and (targets or window)) or any(m.rank < reach for m in hits.values())):
            continue  # in a window every clip a search reaches competes, ranked by its score, as for a feeling
        score = (max(m.score for m in hits.values()) + BOTH_BONUS * max(len(found) - 1, 0) if hits else 0.0) \
            + ctx.settings.affect_weight * affect.get(clip.id, 0.0)
        source = "+".join([*found, *(["affect"] if clip.id in affect else [])]) \
            or max(hits, key=lambda name: hits[name].score)  # else the search of its best score
        ranked.append(Proposal(clip_id=clip.id, start_s=clip.start_s, end_s=clip.end_s,
                               retrieval_score=round(score, 4), source=source, round=state.get("round", 0)))
    ranked.sort(key=lambda c: -c.retrieval_score)
    ctx.count("faiss_search", len(texts) + 1 + (len(index.event_index) > 0))  # the clip, transcript, event searches
    return {"candidates": ranked[:n]}


def describe(update: dict) -> str:
    """The trace line of this node: the proposed clips with their scores and sources."""
    cands = update.get("candidates", [])
    return f"{len(cands)} candidates: " + ", ".join(
        f"{c.clip_id} {c.start_s:.1f}-{c.end_s:.1f}s ({c.source} {c.retrieval_score:.2f})" for c in cands)
