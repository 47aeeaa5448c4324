"""Verifier: runs perception tools on candidate clips only, scores support, rejects weak candidates.

For each candidate clip it runs face detection + expression, gaze and gestures at ``verify_fps``
(the perception engine through ``indexing.observe``: stored per chunk in the video's cache, so a
later query reuses it; for a question whose support is not a gesture (``asks_gestures``), hands are those of the
index's own frames, 1 fps: a gesture there is evidence, and weighs in a behaviour support only as 1 fps sees it), links
faces to person tracks, builds the social events between them, reads the clip's utterances (with
speakers), vocal cues and sound from the index, and turns all of it into ``Evidence`` that cites the stored
records: one reader per modality (``agents.readers``, over the builders of ``agents.evidence``), each giving
evidence, a support in [0, 1] and typed observations. Support of a candidate: the largest weighted support,

- visual: the target emotions' probability over the candidate's best-showing ``SUPPORT_STRETCH_S``, per frame the face
  that shows them most, read against its person's own baseline where the person has one
  (``agents.evidence.face_evidence``);
- verbal: ``speech_match`` of the query and the clip's speech (sentence-embedding cosine with the
  index's transcript encoder, all-MiniLM-L6-v2 for English, raised by literal content-word overlap),
  weighted 1.0 when the intent asks for speech and 0.6 otherwise;
- vocal: the target emotions' probability in the clip's voice (``Clip.voice_emotion``, ``tools.perception.voice_emotion``);
- behaviour, for a question that names no emotion: ``speech_match`` of the query and the clip's gesture
  and social-event evidence texts ("person 4 points (point)", "person 1 and person 2 look at each
  other"), weighted 1.0 when the intent asks for gestures or gaze and 0.6 otherwise (for a question
  about a feeling, gestures are evidence but not support);
- sound, for a question that names no emotion: ``speech_match`` of the query and the clip's music or noise in
  words ("music playing, getting louder"), weighted 0.6;
- for a change-point candidate of a question about a change (``agents.change``): the distance between the
  person's mean face readings before and after the change point, times how well they show the emotions the
  question names (``agents.change.change_evidence``), instead.

Coarse to fine (``triage``), for every question but one whose support is a gesture (``asks_gestures``): each round's
candidates are first read on the index's own frames (1 fps by default, read back, nothing observed:
``indexing.observe.index_span``), with the same readers; the ``dense_per_round`` best supported of them, and any
other that reaches ``min_support`` there, are read again at ``verify_fps``; the others keep that reading (their
visual observations say so: ``frame_step_s`` is the index's frame interval; ``VerifiedCandidate.coarse``), which
rejects them. The dense reading, in that order, stops once ``top_k`` candidates (the most moments an answer shows)
are accepted at ``verify_fps``: where more reach ``min_support`` on the index's frames (a question about what is said,
whose words are said in many places; a feeling that many shots show), those ranked below are accepted on the index's
reading, and their moments rank after those read at ``verify_fps`` (``agents.moments``). So what an answer asserts
first was read at ``verify_fps``, unless no candidate was accepted and the answer says its support is weak; a moment
read at 1 fps only fills an answer that fewer densely read candidates support. A change-point candidate is always
read densely (its support compares the frames either side of the change), and so is every candidate of a
question whose support is a gesture (a pointing lasts less than a second: 1 fps misses it). So a round of a question
that few clips support observes ``dense_per_round`` candidates (and any clip too short to hold an index frame), whatever the video's
length, and any other at most ``top_k`` (``evals/RESULTS.md`` sections 61, 67 and 85).

When fewer than ``min_accepted`` candidates have survived, the verifier asks for a re-query: the graph
(``graphs.affect_graph``) goes to the query refiner (``refine_query``), which asks the LLM for a refined
search text, and back to the localizer, at most ``max_requery`` times. Offline (``offline_refine``), the
refined search text adds the next alternative descriptions of the target emotions and cues
(``tools.signals.lexicon``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from agents.change import change_evidence
from agents.grounding import grounded_persons, speech_of_others
from agents.llm import LLMTask
from agents.readers import CandidateReading, CandidateView, any_feeling, read_candidate
from agents.schema import Intent, Proposal, RefinedQuery, VerifiedCandidate, persons_text
from agents.state import AffectState, RunContext
from indexing.observe import index_span, observe_span, span_tool_names
from tools.signals.lexicon import CUE_DESCRIPTIONS, EMOTION_DESCRIPTIONS, names_behaviour
from tools.signals.social import social_frames


def verify_candidates(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Score this round's candidates (returned under ``verified``); request a re-query when too few pass."""
    ctx = runtime.context
    s = ctx.settings
    intent = state["intent"]
    texts = list(dict.fromkeys([state["query"], state["search_text"]]))
    seen = {c.clip_id for c in state.get("verified", [])}
    persons = grounded_persons(state.get("people", []), intent.feeling_of)
    # unless a gesture is the question's support, hands on the index's frames suffice and the coarse step may reject
    gesture_support = asks_gestures(intent, state["query"])
    todo = [c for c in state.get("candidates", []) if c.clip_id not in seen and c.round == state.get("round", 0)]

    def view_of(cand: Proposal, stored: list, tools: dict[str, str], step: float) -> CandidateView:
        return CandidateView(ctx=ctx, cand=cand, intent=intent, texts=texts, stored=stored, tools=tools,
                             frames=social_frames([fr for fr, _ in stored], ctx.index.face_person),
                             step=step, persons=persons, options=tuple(state.get("options", [])),
                             others=speech_of_others(ctx.index, cand.start_s, cand.end_s, persons))

    def dense(cand: Proposal) -> VerifiedCandidate:
        stored, tools = observe_span(ctx.index, s.verify_fps, cand.start_s, cand.end_s, ctx.count,
                                     hands_between=gesture_support)
        view = view_of(cand, stored, tools, 1.0 / s.verify_fps)
        return _verdict(ctx, intent, cand, view, read_candidate(view), coarse=False)

    at_index, ranked = ({}, []) if gesture_support else triage(ctx, todo, view_of)
    done = {c.clip_id: dense(c) for c in todo if c.clip_id not in at_index}  # change points, short clips
    n_dense = sum(v.accepted for v in done.values())
    for n, cand in enumerate(ranked):  # the best on the index's frames first, until an answer's worth is accepted
        view, read = at_index[cand.clip_id]
        if n < s.dense_per_round or (read.support >= s.min_support and n_dense < s.top_k):
            done[cand.clip_id] = dense(cand)
            n_dense += done[cand.clip_id].accepted
        else:
            done[cand.clip_id] = _verdict(ctx, intent, cand, view, read, coarse=True)
            ctx.count("index_read_candidates", 1)
    out = [done[c.clip_id] for c in todo]
    verified = [*state.get("verified", []), *out]
    requery = sum(1 for c in verified if c.accepted) < s.min_accepted and state.get("round", 0) < s.max_requery
    return {"verified": out, "requery": requery}


def asks_gestures(intent: Intent, query: str) -> bool:
    """Whether a gesture is support for the question (so every candidate is read at ``verify_fps``: a pointing or a
    thumbs up lasts less than the index's frame interval): its intent asks for gestures, or it names no feeling and
    names a behaviour, a gesture or a gaze (``tools.signals.lexicon.names_behaviour``: "when does someone give a
    thumbs up?", "when does he look at her?")."""
    return "gesture" in intent.cues or (not intent.target_emotions and names_behaviour(query))


def triage(ctx: RunContext, todo: list[Proposal],
           view_of: Callable[[Proposal, list, dict[str, str], float], CandidateView]
           ) -> tuple[dict[str, tuple[CandidateView, CandidateReading]], list[Proposal]]:
    """The coarse step of the verifier (see the module doc): ``({clip id: (view, reading)}, ranked)``, every candidate
    of ``todo`` that holds an index frame and is no change point read on the index's own frames, and those candidates
    best supported there first (ties in the localizer's order); ``verify_candidates`` reads them at ``verify_fps`` in
    that order as far as its budget goes. Empty when there are no more of them than ``dense_per_round``."""
    s, index = ctx.settings, ctx.index
    if len(todo) <= s.dense_per_round:
        return {}, []
    stored = {c.clip_id: index_span(index, c.start_s, c.end_s) for c in todo if c.change_s is None}
    spans = [c for c in todo if stored.get(c.clip_id)]
    if len(spans) <= s.dense_per_round:
        return {}, []
    step = 1.0 / index.config.sample_fps
    tools = span_tool_names(index, s.verify_fps)  # the index's frames were read by the same models
    read = {}
    for c in spans:
        view = view_of(c, stored[c.clip_id], tools, step)
        read[c.clip_id] = (view, read_candidate(view))
    return read, sorted(spans, key=lambda c: -read[c.clip_id][1].support)  # stable: ties keep the localizer's order


def _verdict(ctx: RunContext, intent: Intent, cand: Proposal, view: CandidateView, read: CandidateReading,
             coarse: bool) -> VerifiedCandidate:
    """The verified candidate from its reading (``coarse``: on the index's frames only): accepted when its support
    reaches ``min_support``; a change-point candidate of a change question is supported by the change instead
    (``agents.change.change_evidence``)."""
    s = ctx.settings
    evidence, support, obs = read.evidence, read.support, read.observations
    why = _why(read.supports, obs.visual.n_faces, view) + (
        f" (read on the index's own frames, {1 / view.step:g} fps)" if coarse else "")
    if cand.change_s is not None and intent.change is not None:  # a change point: the change is the support
        c_ev, support, c_obs = change_evidence(ctx.index, cand, intent.change, view.stored, view.tools["face"],
                                               view.step)
        evidence = c_ev + evidence
        obs = obs.model_copy(update={"change": c_obs})
        why = f"change {c_obs.magnitude or 0:.2f} ({c_obs.n_before} faces before, {c_obs.n_after} after)"
    accepted = support >= s.min_support
    reason = None if accepted else f"support {support:.2f} < {s.min_support}: {why}"
    return VerifiedCandidate(**cand.model_dump(), support=round(support, 4), accepted=accepted, reject_reason=reason,
                             evidence=evidence, observations=obs, coarse=coarse)


def _why(supports: dict[str, float], n_faces: int, view: CandidateView) -> str:
    """The readers' supports in words, for a rejected candidate's reason (``n_faces``: the most faces of the
    question's people in one frame)."""
    seen_faces = any(fr.faces for fr, _ in view.stored)
    face = "any-feeling" if any_feeling(view) else "target-emotion"
    return (f"{face} face score {supports['FaceReader']:.2f}, speech match {supports['WordsReader']:.2f}, "
            f"target-emotion voice score {supports['VoiceReader']:.2f}"
            + ("" if view.targets else f", gesture/gaze match {supports['BehaviourReader']:.2f}, "
                                       f"sound match {supports['SoundReader']:.2f}")
            + (f", speech by {view.others} only" if view.others else "") + ("" if seen_faces else ", no face seen")
            + (f", no face of {persons_text(view.persons)} seen" if view.persons and seen_faces and not n_faces else ""))


def offline_refine(inputs: dict[str, Any]) -> RefinedQuery:
    """The offline reasoner's refined search (see the module doc)."""
    intent = Intent.model_validate(inputs["intent"])
    n = int(inputs.get("round", 1))
    phrases = [EMOTION_DESCRIPTIONS[e][n % 3] for e in intent.target_emotions]
    phrases += [CUE_DESCRIPTIONS[c][n % 2] for c in intent.cues if c in CUE_DESCRIPTIONS]
    rejected = len(inputs.get("rejected", []))
    return RefinedQuery(search_text="; ".join([inputs["query"], *phrases]),
                        reason=f"{rejected} candidates rejected; searching with alternative descriptions")


REFINE_QUERY = LLMTask(
    name="refine_query",
    prompt=(
        "Too few candidate moments survived verification. Given the question, the interpreted intent "
        "and why candidates were rejected, write a different search text that could find the moment."
    ),
    schema=RefinedQuery,
    offline=offline_refine,
)


def refine_query(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """The query refiner's node, after a verifier round with too few survivors: ``search_text``, a new search
    text from the LLM given why candidates were rejected (``REFINE_QUERY``), and the next ``round``."""
    rejected = [{"span": [c.start_s, c.end_s], "reason": c.reject_reason} for c in state.get("verified", [])
                if not c.accepted]
    nxt = state.get("round", 0) + 1
    refined = runtime.context.llm.structured(
        REFINE_QUERY,
        {"query": state["query"], "intent": state["intent"].model_dump(), "round": nxt, "rejected": rejected})
    return {"search_text": refined.search_text, "round": nxt}


def describe_refinement(update: dict) -> str:
    """The trace line of the query refiner: the round and its search text."""
    return f"re-query round {update['round']}: {update['search_text']!r}"


def describe(update: dict) -> str:
    """The trace line of this node: accepted and rejected clips, and whether a re-query follows."""
    ver = update.get("verified", [])
    kept = [c.clip_id for c in ver if c.accepted]
    rejected = [f"{c.clip_id}: {c.reject_reason}" for c in ver if not c.accepted]
    text = f"accepted {kept or 'none'}; rejected {len(rejected)}" + (f" ({'; '.join(rejected)})" if rejected else "")
    return text + ("; too few survive: re-query" if update.get("requery") else "")
