"""Verifier: runs perception tools on candidate clips only, scores support, rejects weak candidates.

For each candidate clip it runs face detection + expression, gaze and gestures at ``verify_fps``
(the perception engine through ``indexing.observe``: stored per chunk in the video's cache, so a
later query reuses it), links
faces to person tracks, builds the social events between them, reads the clip's utterances (with
speakers) and vocal cues from the index, and turns all of it into ``Evidence`` that cites the stored
records. Support in [0, 1]:

- visual: mean over frames with faces of the highest probability any face gives the target emotions;
- verbal: ``speech_match`` of the query and the clip's speech (sentence-embedding cosine with the
  index's transcript encoder, all-MiniLM-L6-v2 for English, raised by literal content-word overlap),
  weighted 1.0 when the intent asks for speech and 0.6 otherwise;
- vocal: the target emotions' probability in the clip's voice (``Clip.voice``, ``tools.voice_emotion``);
- behaviour, for a question that names no emotion: ``speech_match`` of the query and the clip's gesture
  and social-event evidence texts ("person 4 points (point)", "person 1 and person 2 look at each
  other"), weighted 1.0 when the intent asks for gestures or gaze and 0.6 otherwise (for a question
  about a feeling, gestures are evidence but not support);
- support = max(visual, weighted verbal, vocal, weighted behaviour).

When fewer than ``min_accepted`` candidates have survived, the verifier asks the LLM for a refined
search text and the graph (``graphs.affect_graph``) sends the search back to the localizer, at most
``max_requery`` times. Offline (``offline_refine``), the refined search text adds the next
alternative descriptions of the target emotions and cues (``tools.lexicon``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agents.grounding import grounded_persons, speech_of_others
from agents.llm import LLMTask
from agents.schema import (
    BehaviourObservations,
    Evidence,
    FaceReading,
    Intent,
    Observations,
    Proposal,
    RefinedQuery,
    VerbalObservations,
    VerifiedCandidate,
    VisualObservations,
    VocalObservations,
    persons_text,
)
from agents.state import AffectState, RunContext
from indexing.observe import observe_span
from memory.store import VideoIndex
from tools.engine import FrameObservation
from tools.events import social_timeline
from tools.lexicon import CUE_DESCRIPTIONS, EMOTION_DESCRIPTIONS, keyword_overlap, speech_match
from tools.social import GESTURE_EVENT_TYPES, SocialFrame, hand_owner, social_frames, speaker_of
from tools.text import load_text_encoder
from tools.text_emotion import load_text_emotion
from tools.voice_emotion import valence_arousal

#: Weight of the verbal score when the intent does not ask for speech.
VERBAL_WEIGHT_OTHER = 0.6
#: Visual evidence items cited per candidate at most.
MAX_FACE_EVIDENCE = 3


#: Gestures cited as evidence (a fist around a microphone says little).
SALIENT_GESTURES = {"point": "points with the index finger", "palm": "shows an open palm",
                    "like": "gives a thumbs up", "dislike": "gives a thumbs down",
                    "hand_over_mouth": "puts a hand over the mouth", "hand_over_face": "puts a hand over the face",
                    "crossed_arms": "crosses the arms"}
MAX_GESTURE_EVIDENCE = 2
MAX_SOCIAL_EVIDENCE = 3


def _gesture_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]], tool: str,
                      step: float) -> list[Evidence]:
    """Up to ``MAX_GESTURE_EVIDENCE`` salient gestures (pointing first) with who made them and at whom.

    ``tool`` is ``"<gesture tool>|<gaze tool>"`` as ``observe_span`` names them; ``step`` the frame interval (s).
    """
    seen = [(h, fr, path) for fr, path in stored for h in fr.hands if h.gesture in SALIENT_GESTURES]
    seen.sort(key=lambda x: (x[0].gesture != "point", x[0].t))
    evidence, kinds = [], set()
    for h, fr, path in seen:
        if h.gesture in kinds or len(evidence) >= MAX_GESTURE_EVIDENCE:
            continue
        kinds.add(h.gesture)
        owner = hand_owner(fr, h, index.face_person)
        who = f"person {owner}" if owner is not None else "someone"
        at = ""
        if h.target_box is not None and h.target_box < len(fr.faces):
            target = fr.faces[h.target_box]
            tt = index.face_person(target)
            at = f" at person {tt}" if tt is not None else " at another face"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.g{len(evidence)}", modality="visual", tool=tool.split("|")[0], start_s=h.t,
            end_s=round(min(cand.end_s, h.t + step), 3), person=owner,
            detail=f"{who} {SALIENT_GESTURES[h.gesture]}{at} ({h.gesture})", ref=index.cache.ref(path, h.id)))
    return evidence


def _social_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]],
                     frames: list[SocialFrame], tool: str, step: float) -> list[Evidence]:
    """Social events between tracks (GRASP-style gaze, pointing, addressing, exclusion) and
    looking-at-camera, as visual evidence citing the stored gaze or hand records."""
    where = {rec.id: path for fr, path in stored for rec in [*fr.gaze, *fr.hands]}
    events = [e for e in social_timeline(frames, index.transcript.segments, cand.start_s, cand.end_s, max_gap_s=1.5 * step,
                                         known_speakers=index.segment_speakers)
              if e.type not in GESTURE_EVENT_TYPES]  # gestures are cited by _gesture_evidence
    camera: dict[int, list] = {}
    for fr in frames:
        for tr, g in zip(fr.tracks, fr.gaze, strict=False):
            if tr is not None and g.looking_at_camera is not None:
                camera.setdefault(tr, []).append(g)
    gaze_tool = tool.split("|")[-1]
    evidence = []
    for e in events[:MAX_SOCIAL_EVIDENCE]:
        rid = e.observation_ids[0]
        evidence.append(Evidence(
            id=f"{cand.clip_id}.s{len(evidence)}", modality="visual",
            tool=tool.split("|")[0] if e.type == "pointing_at" else gaze_tool, start_s=e.start_s, end_s=round(min(cand.end_s, e.end_s + step), 3),
            person=e.participants[0], detail=f"{e.detail} ({e.type}, {e.confidence:.0%} of frames)",
            ref=index.cache.ref(where[rid], rid)))
    for tr, gs in sorted(camera.items()):
        at = [g for g in gs if g.looking_at_camera]
        if len(at) * 2 > len(gs):
            evidence.append(Evidence(
                id=f"{cand.clip_id}.c{tr}", modality="visual", tool=gaze_tool, start_s=cand.start_s, end_s=cand.end_s,
                person=tr, detail=f"person {tr} looks at the camera in {len(at)} of {len(gs)} frames",
                ref=index.cache.ref(where[at[0].id], at[0].id)))
    return evidence


def _face_evidence(index: VideoIndex, cand: Proposal, stored: list[tuple[FrameObservation, Path]], tool: str,
                   targets: list[str], step: float, persons: set[int] | None = None
                   ) -> tuple[list[Evidence], float, VisualObservations]:
    """Up to ``MAX_FACE_EVIDENCE`` face observations as visual evidence (those showing the target emotions
    most and, when the clip's faces mostly show another emotion, the one showing it most), the visual
    support, and a summary.

    ``step`` is the frame interval in seconds (1 / verify fps); an observation's evidence spans one step.
    With ``persons`` (the question's grounded people, ``agents.grounding``) only their faces count.
    """
    frames = [fr for fr, _ in stored]
    if persons:
        frames = [fr.model_copy(update={"faces": [f for f in fr.faces if index.face_person(f) in persons]})
                  for fr in frames]
    where = {f.id: path for fr, path in stored for f in fr.faces}
    faces = [f for fr in frames for f in fr.faces]
    if not faces:
        return [], 0.0, VisualObservations(expression_mean={}, frames=[], n_faces=0)

    def target_p(f) -> float:
        return sum(f.expression[e] for e in targets)

    with_faces = [fr for fr in frames if fr.faces]
    visual = float(np.mean([max(target_p(f) for f in fr.faces) for fr in with_faces])) if targets else 0.0
    key = target_p if targets else (lambda f: f.top()[1])
    chosen = sorted(faces, key=key, reverse=True)[:MAX_FACE_EVIDENCE]
    mean = {k: round(float(np.mean([f.expression[k] for f in faces])), 4) for k in faces[0].expression}
    shown = max(mean, key=mean.__getitem__)  # what the faces show most over the clip
    if targets and shown not in targets:  # cite it too: the emotion reasoner may label the clip with it
        typical = max(faces, key=lambda f: f.expression[shown])
        if typical not in chosen:
            chosen = [*chosen[: MAX_FACE_EVIDENCE - 1], typical]
    evidence = []
    for n, f in enumerate(sorted(chosen, key=lambda f: f.t)):
        label, p = f.top()
        cx, cy = (f.box.x0 + f.box.x1) / 2, (f.box.y0 + f.box.y1) / 2
        extra = f"; {'+'.join(targets)} {target_p(f):.2f}" if targets and label not in targets else ""
        person = index.face_person(f)
        who = f"person {person}'s face" if person is not None else "a face"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.v{n}", modality="visual", tool=tool, start_s=f.t,
            end_s=round(min(cand.end_s, f.t + step), 3), person=person,
            detail=f"{who} at x={cx:.2f}, y={cy:.2f} shows {label} (p={p:.2f}{extra})",
            ref=index.cache.ref(where[f.id], f.id),
        ))
    obs = VisualObservations(expression_mean=mean, n_faces=max(len(fr.faces) for fr in frames),
                             frame_step_s=round(step, 3),
                             frames=[FaceReading(t=f.t, top=f.top()[0], p=round(f.top()[1], 3)) for f in faces])
    return evidence, visual, obs


def _speech_evidence(ctx: RunContext, cand: Proposal, texts: list[str],
                     frames: list[SocialFrame]) -> tuple[list[Evidence], float, VerbalObservations]:
    """One verbal evidence item per transcript segment with words in the clip, each with the emotion its
    words read as (``tools.text_emotion``: words8 over the index's transcript encoder), and the speech
    match. Its speaker is the person whose lips move with the words in the clip's frames, else the
    utterance's index-time speaker (lips in the 1 fps pass, or its voice; ``memory.store.Utterance.speaker_by``)."""
    index = ctx.index
    per_segment = [(seg, [w for w in seg.words if cand.start_s <= (w.start_s + w.end_s) / 2 < cand.end_s])
                   for seg in index.transcript.segments]
    per_segment = [(seg, ws) for seg, ws in per_segment if ws]
    if not per_segment:
        return [], 0.0, VerbalObservations()
    spoken = [" ".join(w.text for w in ws) for _, ws in per_segment]
    said = " ".join(spoken)
    words_emotion = load_text_emotion(index.config.device, index.transcript_encoder)
    vecs = words_emotion.encoder.encode([*texts, said, *spoken])  # one encoding pass for match and emotion
    sim = speech_match(float((vecs[: len(texts)] @ vecs[len(texts)]).max()), keyword_overlap(texts[0], said))
    said_read, *reads = words_emotion.read(vecs[len(texts):])
    evidence = []
    by_voice = {u.segment_id for u in index.utterances if u.speaker_by == "voice"}
    for n, ((seg, ws), text, read) in enumerate(zip(per_segment, spoken, reads, strict=True)):
        label = max(read, key=read.__getitem__)
        who = speaker_of(frames, ws[0].start_s, ws[-1].end_s + 1e-3)
        how = ""
        if who is None and seg.id in index.segment_speakers:
            who, how = index.segment_speakers[seg.id], " (by voice)" if seg.id in by_voice else ""
        speaker = f"person {who}{how}" if who is not None else "the speaker"
        says = f"says (spoken in {seg.translated_from}; Whisper's English translation)" if seg.translated_from else "says"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.t{n}", modality="verbal", tool=index.transcript.model, start_s=ws[0].start_s,
            end_s=ws[-1].end_s, person=who, detail=f'{speaker} {says} "{text}" (words read as {label}, p={read[label]:.2f})',
            ref=index.ref("transcript.json", seg.id)))
    obs = VerbalObservations(text=said, span=[evidence[0].start_s, evidence[-1].end_s],
                             emotion_distribution=said_read, query_similarity=round(sim, 3))
    return evidence, sim, obs


def _voice_emotion_evidence(index: VideoIndex, cand: Proposal, targets: list[str]
                            ) -> tuple[list[Evidence], float, VocalObservations]:
    """The clip's vocal emotion (``Clip.voice``) as vocal evidence citing clips.json, the vocal support
    (target emotions' probability) and the distribution for the emotion reasoner."""
    clip = next((c for c in index.clips if c.id == cand.clip_id), None)
    if clip is None or not clip.voice:
        return [], 0.0, VocalObservations()
    label = max(clip.voice, key=clip.voice.__getitem__)
    valence, arousal = valence_arousal(clip.voice)
    extra = f"; {'+'.join(targets)} {sum(clip.voice[t] for t in targets):.2f}" if targets and label not in targets else ""
    ev = Evidence(id=f"{cand.clip_id}.ve", modality="vocal", tool=index.manifest["models"]["voice"],
                  start_s=clip.start_s, end_s=clip.end_s,
                  detail=f"the voice sounds {label} (p={clip.voice[label]:.2f}{extra}; arousal {arousal:+.2f})",
                  ref=index.ref("clips.json", clip.id))
    support = sum(clip.voice[t] for t in targets) if targets else 0.0
    return [ev], support, VocalObservations(voice_distribution=clip.voice, arousal=arousal, valence=valence)


def _vocal_evidence(index: VideoIndex, cand: Proposal) -> tuple[list[Evidence], dict]:
    """Vocal cues of each utterance overlapping the clip (loudness, speech rate, pitch), citing utterances.json."""
    evidence, obs = [], {}
    for u in index.utterances:
        p = u.prosody
        if not (u.start_s < cand.end_s and cand.start_s < u.end_s) or p.rms_dbfs < -60 or p.speech_rate_wps == 0:
            continue
        who = f"person {u.speaker}'s" if u.speaker is not None else "the"
        evidence.append(Evidence(
            id=f"{cand.clip_id}.a{len(evidence)}", modality="vocal", tool="prosody", start_s=p.start_s, end_s=p.end_s,
            person=u.speaker,
            detail=f"voice level {p.rms_dbfs:.1f} dBFS RMS (peak {p.peak_dbfs:.1f}), {p.speech_rate_wps:.1f} words/s"
                   + (f", pitch {p.pitch_median_hz:.0f} Hz over {p.pitch_range_st:.1f} semitones"
                      if p.pitch_median_hz is not None else "") + f" ({who} voice in this turn)",
            ref=index.ref("utterances.json", p.id)))
        obs[u.id] = p.model_dump()
    return evidence, obs


def _behaviour_match(index: VideoIndex, texts: list[str], evidence: list[Evidence]
                     ) -> tuple[float, BehaviourObservations]:
    """(best ``speech_match`` of the query texts against gesture / social evidence texts, the observation
    the emotion reasoner reads: that evidence's span (s), id and match); (0, nothing set) without any."""
    if not evidence:
        return 0.0, BehaviourObservations()
    enc = load_text_encoder(model=None, device=index.config.device)
    q, d = enc.encode(texts), enc.encode([e.detail for e in evidence])
    sims = (q @ d.T).max(axis=0)
    scores = [speech_match(float(s), keyword_overlap(texts[0], e.detail)) for s, e in zip(sims, evidence, strict=True)]
    best = int(np.argmax(scores))
    e = evidence[best]
    return scores[best], BehaviourObservations(span=[e.start_s, e.end_s], evidence_id=e.id, match=round(scores[best], 4))


def verify_candidates(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Score this round's candidates (returned under ``verified``); request a re-query when too few pass."""
    ctx = runtime.context
    s = ctx.settings
    intent = state["intent"]
    targets = list(intent.target_emotions)
    texts = list(dict.fromkeys([state["query"], state["search_text"]]))
    w_verbal = 1.0 if "speech" in intent.cues else VERBAL_WEIGHT_OTHER
    w_behaviour = 1.0 if {"gesture", "gaze"} & set(intent.cues) else VERBAL_WEIGHT_OTHER
    done = {c.clip_id for c in state.get("verified", [])}
    persons = grounded_persons(state.get("people", []))
    out = []
    for cand in state.get("candidates", []):
        if cand.clip_id in done or cand.round != state.get("round", 0):
            continue
        stored, tools = observe_span(ctx.index, s.verify_fps, cand.start_s, cand.end_s, ctx.count)
        frames = social_frames([fr for fr, _ in stored], ctx.index.face_person)
        step = 1.0 / s.verify_fps
        v_ev, visual, v_obs = _face_evidence(ctx.index, cand, stored, tools["face"], targets, step, persons)
        b_ev = _gesture_evidence(ctx.index, cand, stored, tools["social"], step)
        b_ev += _social_evidence(ctx.index, cand, stored, frames, tools["social"], step)
        v_ev += b_ev
        behaviour, b_obs = _behaviour_match(ctx.index, texts, b_ev) if not targets else (0.0, BehaviourObservations())
        t_ev, verbal, t_obs = _speech_evidence(ctx, cand, texts, frames)
        a_ev, prosody = _vocal_evidence(ctx.index, cand)
        ve_ev, vocal, a_obs = _voice_emotion_evidence(ctx.index, cand, targets)
        a_obs.prosody = prosody
        others = speech_of_others(ctx.index, cand.start_s, cand.end_s, persons)
        if others:  # the question's people do not speak here: the clip's words and voice are someone else's
            verbal, vocal, t_ev, ve_ev, a_ev = 0.0, 0.0, [], [], []
            t_obs, a_obs = VerbalObservations(speakers=others), VocalObservations(speakers=others)
        support = max(visual, w_verbal * verbal, vocal, w_behaviour * behaviour)
        accepted = support >= s.min_support
        seen_faces = any(fr.faces for fr, _ in stored)
        reason = None if accepted else (
            f"support {support:.2f} < {s.min_support}: target-emotion face score {visual:.2f}, "
            f"speech match {verbal:.2f}, target-emotion voice score {vocal:.2f}"
            + ("" if targets else f", gesture/gaze match {behaviour:.2f}")
            + (f", speech by {others} only" if others else "")
            + ("" if seen_faces else ", no face seen")
            + (f", no face of {persons_text(persons)} seen" if persons and seen_faces and not v_obs.n_faces else ""))
        out.append(VerifiedCandidate(
            **cand.model_dump(), support=round(support, 4), accepted=accepted, reject_reason=reason,
            evidence=v_ev + t_ev + ve_ev + a_ev,
            observations=Observations(visual=v_obs, verbal=t_obs, vocal=a_obs, behaviour=b_obs)))
    verified = [*state.get("verified", []), *out]
    if sum(1 for c in verified if c.accepted) < s.min_accepted and state.get("round", 0) < s.max_requery:
        return {"verified": out, "requery": True, **_refine(ctx, state, verified)}
    return {"verified": out, "requery": False}


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


def _refine(ctx: RunContext, state: AffectState, verified: list[VerifiedCandidate]) -> dict:
    rejected = [{"span": [c.start_s, c.end_s], "reason": c.reject_reason} for c in verified if not c.accepted]
    nxt = state.get("round", 0) + 1
    refined = ctx.llm.structured(
        REFINE_QUERY,
        {"query": state["query"], "intent": state["intent"].model_dump(), "round": nxt, "rejected": rejected})
    return {"search_text": refined.search_text, "round": nxt}


def describe(update: dict) -> str:
    """The trace line of this node: accepted and rejected clips, and the re-query when there is one."""
    ver = update.get("verified", [])
    kept = [c.clip_id for c in ver if c.accepted]
    rejected = [f"{c.clip_id}: {c.reject_reason}" for c in ver if not c.accepted]
    text = f"accepted {kept or 'none'}; rejected {len(rejected)}" + (f" ({'; '.join(rejected)})" if rejected else "")
    if update.get("requery"):
        text += f"; re-query round {update['round']}: {update['search_text']!r}"
    return text
