"""Candidate localizer: FAISS search over clip embeddings, transcript segments and social events.

Clip search embeds the query and the intent's search text with the index's clip embedder; transcript
and event search embed the search text with the text encoder and map matching segments / index-time
social events (``tools.signals.events``: gaze, addressing, exclusion, expression changes) onto the clips they
overlap. A clip's retrieval score is the best of its scores plus a small bonus per additional search
that found it. When the intent names target emotions, every clip also gets an affect score from what
the index-time pass perceived there (``affect_scores``: the target emotions' probability in the clip's
faces, each against its person's own usual reading where there is one, and voice) and is ranked by retrieval +
``RunSettings.affect_weight`` x affect, where each clip's retrieval score also counts its clip-search cosine whether
or not the search's top k holds it (outside it a clip would lose its whole cosine, a median of 0.3-0.5 over a long
video's clips with the descriptor embedder, a step the reading could seldom make up; evals/RESULTS.md section 82); the
bonus and a candidate's ``source`` still name the searches whose top k found it.
Clips already verified in earlier rounds are not proposed again. The index's clips lie inside shots
(``indexing.clips.clip_windows``: a short shot is one clip from its frame-accurate start to its end), so the faces,
voice and words a candidate is judged on come from one shot; overlapping clips of a shot judged the same emotion
merge in the emotion reasoner, and two shots stay two moments. A question about a change of feeling gets the change
points of the people's affect timelines instead (``agents.change.change_candidates``), and the searches above only
when the video has none.
"""

from __future__ import annotations

import bisect

import numpy as np
from langgraph.runtime import Runtime

from agents.change import change_candidates
from agents.grounding import grounded_persons, speech_of_others
from agents.schema import Proposal
from agents.state import AffectState, RunContext
from memory.store import VideoIndex
from tools.perception.text import load_text_encoder, load_transcript_encoder
from tools.signals.lexicon import keyword_overlap, speech_match

#: Added to a clip's score for each search beyond the first that found it.
BOTH_BONUS = 0.05
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
        clips = sorted(index.clips, key=lambda c: c.start_s)
        starts = [c.start_s for c in clips]
        reach = max((c.end_s - c.start_s for c in clips), default=0.0)  # no clip starting earlier holds the frame
        for fr in index.faces:
            p = [index.salient_p(f, targets) if shifted else sum(f.expression.get(t, 0.0) for t in targets)
                 for f in fr.faces
                 if not persons or (f.track_id is not None and index.person_of(f.track_id) in persons)]
            i = bisect.bisect_right(starts, fr.t) - 1
            while p and i >= 0 and starts[i] >= fr.t - reach:
                if fr.t < clips[i].end_s:
                    per_face.setdefault(clips[i].id, []).extend(p)
                i -= 1
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


def search_clips(index: VideoIndex, texts: list[str], k: int, queries: np.ndarray | None = None) -> dict[str, float]:
    """Best cosine score per clip id over ``texts`` (top ``k`` per text) in the clip index; ``queries``: the texts'
    clip-embedder vectors (len(texts), D) when the caller has them already."""
    if queries is None:
        queries = index.config.clip_embedder().embed_queries(texts)
    scores, ids = index.clip_index.search(queries, k)
    best: dict[str, float] = {}
    for row_s, row_i in zip(scores, ids, strict=True):
        for s, i in zip(row_s, row_i, strict=True):
            if i >= 0:
                cid = index.clips[int(i)].id
                best[cid] = max(best.get(cid, -1.0), float(s))
    return best


def _spread(index: VideoIndex, best: dict[str, float], start_s: float, end_s: float, score: float,
            include_end: bool = False) -> None:
    """Raise ``best[clip id]`` to ``score`` for every clip the span [start_s, end_s) overlaps.

    ``include_end`` also counts a clip that starts exactly at ``end_s`` (events may last 0 s).
    """
    for clip in index.clips:
        reaches = clip.start_s <= end_s if include_end else clip.start_s < end_s
        if reaches and start_s < clip.end_s:
            best[clip.id] = max(best.get(clip.id, -1.0), score)


def search_transcript(index: VideoIndex, text: str, k: int) -> dict[str, float]:
    """Best speech-match score per clip id of the transcript segments that overlap the clip.

    Segments come from the top ``k`` by embedding (the index's transcript encoder,
    ``tools.perception.text.load_transcript_encoder``; ``memory.index.VectorIndex.search``) and from a scan for literal
    content-word matches (their cosine from the segment's vector stored in the index); each scores
    ``speech_match(cosine, keyword overlap)``.
    """
    if len(index.segment_index) == 0:
        return {}
    enc = load_transcript_encoder(index.transcript_encoder, device=index.config.device)
    q = enc.encode([text])
    scores, ids = index.segment_index.search(q, k)
    cosines = {int(i): float(s) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0}
    overlaps = {i: o for i, seg in enumerate(index.transcript.segments) if (o := keyword_overlap(text, seg.text)) > 0}
    if overlaps.keys() - cosines.keys():  # literal matches outside the top k: their stored vectors
        every = index.segment_index.cosines(q)[0]
        for i in overlaps.keys() - cosines.keys():
            cosines[i] = float(every[i])
    best: dict[str, float] = {}
    for i, cos in cosines.items():
        seg = index.transcript.segments[i]
        _spread(index, best, seg.start_s, seg.end_s, speech_match(cos, overlaps.get(i, 0.0)))
    return best


def search_events(index: VideoIndex, text: str, k: int) -> dict[str, float]:
    """Best cosine score per clip id of the index-time social events (top ``k``) that overlap the clip."""
    if len(index.event_index) == 0:
        return {}
    enc = load_text_encoder(model=None, device=index.config.device)
    scores, ids = index.event_index.search(enc.encode([text]), k)
    best: dict[str, float] = {}
    for s, i in zip(scores[0], ids[0], strict=True):
        if i < 0:
            continue
        ev = index.events[int(i)]
        _spread(index, best, ev.start_s, ev.end_s, float(s), include_end=True)
    return best


def localize_candidates(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Propose up to ``candidates_per_round`` unseen clips for the current search text, best first (module doc: for a
    question about a feeling every clip is scored, each with its clip-search cosine)."""
    ctx = runtime.context
    index, n = ctx.index, ctx.settings.candidates_per_round
    seen = {c.clip_id for c in state.get("candidates", [])}
    k = n + len(seen)
    change = state["intent"].change
    persons = grounded_persons(state.get("people", []), state["intent"].feeling_of)  # whose feeling: as the verifier
    if change is not None:  # a question about a change: the change points of the people's timelines
        proposals = change_candidates(index, change, persons, seen, n, state.get("round", 0))
        if proposals or seen:
            return {"candidates": proposals}
    texts = list(dict.fromkeys([state["query"], state["search_text"]]))
    queries = index.config.clip_embedder().embed_queries(texts)
    found = {"clips": search_clips(index, texts, k, queries),
             "transcript": search_transcript(index, state["search_text"], k),
             "events": search_events(index, state["search_text"], k)}
    targets = list(state["intent"].target_emotions)
    # a question about a feeling scores every clip: each keeps its clip-search cosine, in the top k or not
    cosine = search_clips(index, texts, len(index.clips), queries) if targets else {}
    affect = affect_scores(index, targets, persons, ctx.settings.own_baseline) if targets else {}
    ranked = []
    for clip in index.clips:
        hits = {name: scores[clip.id] for name, scores in found.items() if clip.id in scores}
        if clip.id in seen or not (hits or clip.id in affect or clip.id in cosine):
            continue
        parts = [*hits.values(), *([cosine[clip.id]] if clip.id in cosine else [])]
        score = (max(parts) + BOTH_BONUS * max(len(hits) - 1, 0) if parts else 0.0) \
            + ctx.settings.affect_weight * affect.get(clip.id, 0.0)
        source = "+".join([*hits, *(["affect"] if clip.id in affect else [])]) or "clips"
        ranked.append(Proposal(clip_id=clip.id, start_s=clip.start_s, end_s=clip.end_s,
                                retrieval_score=round(score, 4), source=source, round=state.get("round", 0)))
    ranked.sort(key=lambda c: -c.retrieval_score)
    # the clip searches (once more over every clip for a feeling), the transcript's and the social events'
    ctx.count("faiss_search", len(texts) * (2 if targets else 1) + 1 + (len(index.event_index) > 0))
    return {"candidates": ranked[:n]}


def describe(update: dict) -> str:
    """The trace line of this node: the proposed clips with their scores and sources."""
    cands = update.get("candidates", [])
    return f"{len(cands)} candidates: " + ", ".join(
        f"{c.clip_id} {c.start_s:.1f}-{c.end_s:.1f}s ({c.source} {c.retrieval_score:.2f})" for c in cands)
