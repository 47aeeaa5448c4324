"""Emotion reasoner: one AffectNet-8 label, a confidence and a tightened span per accepted candidate.

The LLM (offline reasoner by default) judges each accepted candidate from the verifier's
observations. When the verifier accepted none, the best-supported candidates are judged instead and
the answer says that support is weak (``weak``): an answer is empty only when nothing was checked or
the user set ``RunSettings.abstain_below``. The judged spans become ranked moments in ``agents.moments``
(``draft_moments``: on frame-accurate shot boundaries, at least ``MIN_MOMENT_S`` long, merged, ranked).

Offline (``offline_judge``): a weighted late fusion (``Fusion``) of the facial-expression distribution
(visual), the voice's emotion distribution (vocal), the emotion of the words (verbal: words8,
``tools.perception.text_emotion``) and the intent prior, with weights fitted on composed benches of dev people the
face and voice heads never saw (``studies.fit_fusion``; ``agents/FUSION.md``) and a confidence calibrated per judged
label on those and recorded dev video (``calibrated_label``, ``studies.label_calibration``); the label reads a face
against its person's usual reading where the person was seen long enough for one (``agents.fusion.judged_label``), and
a label so named that the faces as read do not name takes a calibration of its own (``agents.fusion.departed``); the
span is where the chosen label shows on faces (when a face's top label is it: from the first to the last frame where
its probability is at least half its peak, ``VisualObservations.shown_s``; where a face was seen in at least half the
frames read, ``faces_place``), or, for a question that names no emotion,
around the gesture or gaze event that matches it best (``agents.behaviour_evidence.padded``; the faces are then
read there, those of whoever makes it: ``BehaviourObservations.expression_mean``) or where the words are, whichever
matches the question better; a label no face shows is placed by the words when they give it at least what the voice does
(``words_carry``), else it keeps the candidate's span, over which the voice was read. A judgement with no
face, voice or words read in its span gets at most ``NO_OBSERVATION_CONFIDENCE`` (chance). The moment is ranked by
the fused probability of the asked emotions (``target_probability``), a second one the question does not name by a
word counting less (``target_weights``). A change-point
candidate of a question about a change is judged from the person's faces on either side
(``agents.change.judge_change``): the emotion after, the emotion before, the whole span.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from langgraph.runtime import Runtime

from agents.behaviour_evidence import padded
from agents.change import judge_change
from agents.denied import denied_feelings
from agents.fusion import Fusion, departed, judged_label, load_fusion, observed, resolve_fusion, seen_faces, vector
from agents.llm import LLMTask
from agents.moments import draft_moments
from agents.observations import Observations, VisualObservations
from agents.readers import feeling_only
from agents.schema import EmotionJudgement, VerifiedCandidate
from agents.state import AffectState, RunContext
from agents.vision import candidate_images, reads_images
from tools.core.schema import AFFECTNET8
from tools.signals.coordination import affirmed_emotions

#: The confidence of a judgement that rests on no observation (no face, voice or words read as an emotion in
#: the span): chance among the eight AffectNet-8 labels. The fusion's calibration is fitted on judgements
#: with observations; with none, the label is only the asked emotion (or neutral) and is right no more often
#: than a guess, so its confidence is capped here.
NO_OBSERVATION_CONFIDENCE = round(1 / len(AFFECTNET8), 3)
#: How much a target emotion after the first counts when moments are ranked (``target_weights``): the targets come
#: most likely first, and a second one the question does not name by a word is seldom what it asks (of the 228
#: labelled questions of five development benches, 23 read two targets; the annotated emotion was the second for 1,
#: the top moment labelled with the second for 12). Of 0, 0.25, 0.5, 0.75 and 1 tried there, 0.25 and 0.5 put the
#: most right first (``evals/RESULTS.md`` section 151).
SECOND_TARGET_WEIGHT = 0.5
#: The share of a candidate's frames that must show a face for the faces to place its moment (``faces_place``). A
#: detector that finds a face in a few frames of a shot (a face lost to motion, a turn, a small or flat crop) says
#: nothing of when the expression starts or ends: a needle shot whose face was found in 1 of its 14 frames became a
#: 1 s moment at that frame (``evals/RESULTS.md`` section 151; 0.25 and 0.5 changed the same 3 of 977 development
#: moments).
FACE_SPAN_COVERAGE = 0.5


def read_nothing(obs: Observations) -> bool:
    """Whether no face, voice or words were read as an emotion in the candidate (gestures, gaze and prosody
    alone name no emotion; the faces around a gesture are faces)."""
    return not any(vector(d).sum() > 0 for d in (obs.visual.expression_mean, obs.behaviour.expression_mean,
                                                   obs.vocal.voice_distribution, obs.verbal.emotion_distribution))


def calibrated_label(obs: Observations, targets: list[str], label: str, fusion: Fusion) -> str | None:
    """The label whose intercept the confidence of a judgement of ``label`` takes (``Fusion.confidence``), given the
    candidate's observations and the asked ``targets``: the label where the fusion weighs a face and a face was read
    (``agents.fusion.seen_faces``), else None. The intercepts measure how often the face reader's label of each
    emotion is right (``studies.label_calibration``, fitted on judgements nearly all with a face,
    ``evals/RESULTS.md`` section 163); a label from the voice and the question alone takes none."""
    face = vector(seen_faces(obs, targets)).sum() > 0
    return label if face and fusion.visual > 0 else None


def words_carry(obs: Observations, fusion: Fusion, label: str) -> bool:
    """Whether the words' reading gives ``label`` at least as much of the fused distribution as the voice's does
    (each modality's probability of it times its weight, as ``agents.fusion.fuse`` weighs them): then the words, not
    the voice, place a label no face shows. The voice is read over the clip's speech (``indexing.clips``), the words
    over their own span; a label the voice carries keeps the candidate's span."""
    i = AFFECTNET8.index(label)

    def share(weight: float, dist: dict[str, float] | None) -> float:
        x = vector(dist)
        return weight * x[i] / x.sum() if x.sum() > 0 else 0.0

    return share(fusion.verbal, obs.verbal.emotion_distribution) >= share(fusion.vocal, obs.vocal.voice_distribution)


def target_weights(query: str, targets: list[str]) -> list[float]:
    """How much each of ``targets`` (an intent's ``target_emotions``, most likely first) counts when a moment is
    ranked by how likely it shows what was asked (``target_probability``): 1 for the first and for every one that
    words the question affirms name (``tools.signals.coordination.affirmed_emotions``: "when is she scared or
    surprised?"), ``SECOND_TARGET_WEIGHT`` for the others. Same length as ``targets``."""
    if len(targets) < 2:
        return [1.0] * len(targets)
    named = set(affirmed_emotions(query))
    return [1.0 if n == 0 or t in named else SECOND_TARGET_WEIGHT for n, t in enumerate(targets)]


def target_probability(p: dict[str, float], targets: list[str], weights: list[float]) -> float | None:
    """The probability that a reading ``p`` (AffectNet-8 label -> probability; a missing label counts 0) shows what was
    asked: the sum over ``targets`` of each one's probability times its weight (``weights``, one per target,
    ``target_weights``); None when no emotion was asked.

    Raises:
        ValueError: ``weights`` is not as long as ``targets``.
    """
    if not targets:
        return None
    return float(sum(w * p.get(t, 0.0) for t, w in zip(targets, weights, strict=True)))


def faces_place(visual: VisualObservations, span: tuple[float, float], label: str) -> bool:
    """Whether the faces that show ``label`` over ``span`` (start, end seconds) can place a moment's onset and offset:
    the people whose face shows it (``FaceReading.person``; faces of no known person count as one) were seen in at
    least ``FACE_SPAN_COVERAGE`` of the frames read there (one per ``visual.frame_step_s``), so a bystander seen
    throughout does not stand in for them; False when no frame interval is known. A span of no length has no frames
    to miss (True)."""
    step = float(visual.frame_step_s or 0.0)
    if step <= 0:
        return False
    showing = {f.person for f in visual.frames if f.top == label}
    seen = {f.t for f in visual.frames if f.person in showing}
    return len(seen) >= FACE_SPAN_COVERAGE * (span[1] - span[0]) / step


def stated_from(inputs: dict[str, Any], fusion: Fusion, obs: Observations) -> tuple[float, str | None, bool]:
    """What ``offline_judge`` states its confidence from, for one candidate's judge inputs and their observations
    (``agents.fusion.observed``): the probability x that ``Fusion.confidence`` maps, the label whose intercept it takes
    (``calibrated_label``; None: none) and whether the departure named the label (``agents.fusion.departed``). A
    change point states the after side's top probability with neither (``agents.change.judge_change``). For the
    calibration studies (``studies.fit_fusion.replay``), which must fit what the judge states."""
    if obs.change.before and obs.change.after:
        return max(obs.change.after.values()), None, False
    targets = inputs.get("target_emotions") or []
    fused, label, x = judged_label(inputs, fusion, obs)
    return x, calibrated_label(obs, targets, label, fusion), departed(fused, label)


def offline_judge(inputs: dict[str, Any], fusion: Fusion | None = None) -> EmotionJudgement:
    """The offline reasoner's judgement (see the module doc); ``fusion`` defaults to ``load_fusion()``."""
    fusion = fusion or load_fusion()
    targets = inputs.get("target_emotions") or []
    obs = observed(inputs)
    weights = inputs.get("target_weights") or [1.0] * len(targets)
    if obs.change.before and obs.change.after:  # a change point: the emotions on either side
        return judge_change(obs.change, target_probability(obs.change.after, targets, weights), inputs["span"],
                            fusion.confidence)
    verbal, behaviour = obs.verbal, obs.behaviour
    fused, label, label_p = judged_label(inputs, fusion, obs)  # about behaviour: the faces around its gesture or look
    start, end = inputs["span"]
    shown = [f.t for f in obs.visual.frames if f.top == label]
    step = float(obs.visual.frame_step_s or 0.0)
    placed = bool(shown) and faces_place(obs.visual, (start, end), label)  # else a face seen in few frames cuts it
    if obs.about_behaviour(targets):  # the gesture or look that matches the question best sets the span
        lo, hi = padded(behaviour.span)
        start, end = max(start, lo), min(end, hi)
    elif not targets and verbal.span and not inputs.get("feeling_only"):  # about speech: the words set the span
        start, end = max(start, verbal.span[0]), min(end, verbal.span[1])
    elif placed and label in obs.visual.shown_s:  # the faces show it: from its onset to its offset
        start, end = max(start, obs.visual.shown_s[label][0]), min(end, obs.visual.shown_s[label][1])
    elif placed and step > 0:
        start, end = max(start, min(shown) - step / 2), min(end, max(shown) + step / 2)
    elif verbal.span and not shown and words_carry(obs, fusion, label):
        start, end = max(start, verbal.span[0]), min(end, verbal.span[1])
    lo, hi = inputs["span"]
    start, end = max(lo, round(start, 2)), min(hi, round(end, 2))  # rounding must not leave the span
    if end <= start:
        start, end = lo, hi
    target_p = target_probability(dict(zip(AFFECTNET8, fused)), targets, weights)
    named_so = departed(fused, label)  # the departure named it: its own calibration (section 167)
    confidence = round(fusion.confidence(label_p, calibrated_label(obs, targets, label, fusion), named_so), 3)
    if read_nothing(obs):
        confidence = min(confidence, NO_OBSERVATION_CONFIDENCE)  # nothing was read: no more than a guess
    return EmotionJudgement(emotion=label, confidence=confidence, start_s=start, end_s=end,
                            target_probability=None if target_p is None else round(target_p, 3))


JUDGE_EMOTION = LLMTask(
    name="judge_emotion",
    prompt=(
        "Decide the AffectNet-8 emotion shown in one moment of a video from the tool observations given "
        "(facial expression probabilities, what was said, vocal cues), with a confidence in [0, 1] that "
        "this label is right, the start/end seconds of the span where it shows (inside the candidate span; "
        "visual.shown_s gives each label's onset to offset on the faces; visual.departure_mean, when given, is the "
        "faces read against each person's usual reading over the video, which names the emotion a face departs "
        "towards (a face that always reads a little sad is not sad), and visual.frames and visual.shown_s are then "
        "read so too, while visual.expression_mean is the faces as read; for a question about a gesture or look, "
        "behaviour.expression_mean is what the faces of whoever makes it show around it), "
        "and, when target emotions are given, target_probability: the probability in [0, 1] that the "
        "moment shows one of them (each weighed by target_weights when those are given). Images, when attached, are "
        "the moment's middle frame and then crops of "
        "the faces the observations describe."
    ),
    schema=EmotionJudgement,
    offline=offline_judge,
)


def judge_inputs(cand: VerifiedCandidate, targets: list[str], by_feeling: bool = False,
                 weights: list[float] | None = None) -> dict[str, Any]:
    """What the judge sees of one candidate: labels, target emotions, span and the verifier's observations; with
    ``by_feeling`` (``agents.readers.feeling_only``: a question asking which feeling someone shows that names
    nothing to place it by) ``feeling_only: true``, so words said there do not set the span; with ``weights`` (one
    per target, ``target_weights``) that are not all 1, ``target_weights``."""
    return {"labels": list(AFFECTNET8), "target_emotions": targets, "span": [cand.start_s, cand.end_s],
            **({"target_weights": weights} if weights and any(w != 1.0 for w in weights) else {}),
            **({"feeling_only": True} if by_feeling else {}), **cand.observations.judge_view()}


def judge(ctx: RunContext, cand: VerifiedCandidate, targets: list[str], by_feeling: bool = False,
          weights: list[float] | None = None) -> EmotionJudgement:
    """Ask the LLM for the emotion of ``cand``; a judged span outside the candidate's is refused (the LLM gets one
    repair, then the offline judge answers), and a judgement of a candidate where nothing was read (``read_nothing``)
    gets at most ``NO_OBSERVATION_CONFIDENCE``."""
    def inside(j: EmotionJudgement) -> None:
        if not (cand.start_s - 1e-6 <= j.start_s < j.end_s <= cand.end_s + 1e-6):
            raise ValueError(f"span must lie inside [{cand.start_s}, {cand.end_s}] with start < end")

    voice = ctx.index.config.voice_backend if ctx.index is not None else None
    fusion = resolve_fusion(ctx.settings.fusion).for_voice(voice)
    task = dataclasses.replace(JUDGE_EMOTION, offline=functools.partial(offline_judge, fusion=fusion))
    images = candidate_images(ctx.index, cand, ctx.settings.llm_images) if reads_images(ctx) else []
    if images:
        ctx.count("llm_images", len(images))
    judgement = ctx.llm.structured(task, judge_inputs(cand, targets, by_feeling, weights), validate=inside,
                                   images=images)
    if read_nothing(cand.observations) and judgement.confidence > NO_OBSERVATION_CONFIDENCE:  # a hosted model's too
        judgement = judgement.model_copy(update={"confidence": NO_OBSERVATION_CONFIDENCE})
    before = cand.observations.change.before
    if before and judgement.before is None:  # a hosted model that named no emotion before the change
        judgement = judgement.model_copy(update={"before": max(before, key=before.__getitem__)})
    return judgement


def reason_emotions(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Judge accepted candidates and merge them into ranked moment drafts (``moments`` = [])."""
    ctx, intent = runtime.context, state["intent"]
    targets, change = list(intent.target_emotions), intent.change
    by_feeling = feeling_only(intent, state["query"])  # the feeling's onset to offset sets the span, not the words
    weights = target_weights(state["query"], targets)  # a second target the question does not name counts less
    drafts, weak = draft_moments(state.get("verified", []), targets, sorted(ctx.index.cuts), ctx.settings.top_k,
                                 ctx.settings.abstain_below,
                                 lambda cand: judge(ctx, cand, targets, by_feeling, weights),
                                 duration_s=ctx.index.info.duration_s,
                                 utterances=[(u.start_s, u.end_s, u.speaker) for u in ctx.index.utterances],
                                 first_change=change is not None and change.first,  # what comes next: earliest leads
                                 feeling=intent.asks_feeling, order=intent.order, window=state.get("window"),
                                 denied=tuple(denied_feelings(state["query"])))
    return {"drafts": drafts, "weak": weak}


def describe(update: dict) -> str:
    """The trace line of this node: each draft's emotion, confidence and span."""
    return "; ".join(f"{d.emotion} {d.confidence:.2f} {d.start_s:.1f}-{d.end_s:.1f}s"
                     for d in update.get("drafts", [])) or "no accepted candidate"
