"""Emotion reasoner: one AffectNet-8 label, a confidence and a tightened span per accepted candidate.

The LLM (offline reasoner by default) judges each accepted candidate from the verifier's
observations. When the verifier accepted none, the best-supported candidates are judged instead and
the answer says that support is weak (``weak``): an answer is empty only when nothing was checked or
the user set ``RunSettings.abstain_below``. Span edges within ``SNAP_S`` of a shot cut move onto it.
Judged spans of the same emotion that overlap are merged into one moment (union of the spans, the
higher confidence). Moments judged to show a target emotion of the intent rank before the others;
within each group by support x confidence, best first.

Offline (``offline_judge``): a weighted fusion of the facial-expression distribution (visual), the
voice's emotion distribution (vocal), the speech's similarity to the emotion descriptions (verbal)
and the intent prior; the span is where the chosen label shows on faces, or where the words are.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agents.llm import LLMTask
from agents.schema import EmotionJudgement, MomentDraft, VerifiedCandidate
from agents.state import AffectState, RunContext
from tools.schema import AFFECTNET8

#: Fusion weights of the offline judge: facial expression, voice, speech content, intent prior; set by
#: hand and checked on the composed dev bench (evals/RESULTS.md section 6), never on the test split.
W_VISUAL, W_VOCAL, W_VERBAL, W_PRIOR = 0.5, 0.2, 0.15, 0.15
#: A span edge this close to a shot cut (seconds) is moved onto the cut (a shot change bounds a moment).
SNAP_S = 0.6


def snap_to_cuts(start_s: float, end_s: float, cuts: list[float], lo: float, hi: float) -> tuple[float, float]:
    """Move each edge of [start_s, end_s) onto the nearest cut within ``SNAP_S``, kept inside [lo, hi]
    and non-empty; cuts are times in seconds."""
    def near(t: float) -> float:
        best = min(cuts, key=lambda c: abs(c - t), default=None)
        return best if best is not None and abs(best - t) <= SNAP_S and lo <= best <= hi else t

    s, e = near(start_s), near(end_s)
    return (s, e) if e > s else (start_s, end_s)


def offline_judge(inputs: dict[str, Any]) -> EmotionJudgement:
    """The offline reasoner's judgement (see the module doc)."""
    targets = inputs.get("target_emotions") or []
    visual = inputs.get("visual") or {}
    verbal = inputs.get("verbal") or {}
    vocal = (inputs.get("vocal") or {}).get("voice_distribution") or {}
    v = np.array([visual.get("expression_mean", {}).get(k, 0.0) for k in AFFECTNET8])
    a = np.array([vocal.get(k, 0.0) for k in AFFECTNET8])
    t = np.array([verbal.get("emotion_distribution", {}).get(k, 0.0) for k in AFFECTNET8])
    prior = np.array([1.0 if k in targets else 0.0 for k in AFFECTNET8])
    parts = [(W_VISUAL, v), (W_VOCAL, a), (W_VERBAL, t), (W_PRIOR, prior)]
    total = sum(w for w, x in parts if x.sum() > 0) or 1.0
    fused = sum(w * x / x.sum() for w, x in parts if x.sum() > 0) / total
    if fused.sum() == 0:
        fused = np.eye(len(AFFECTNET8))[0]
    label = AFFECTNET8[int(fused.argmax())]
    start, end = inputs["span"]
    shown = [f["t"] for f in visual.get("frames", []) if f.get("top") == label]
    step = float(visual.get("frame_step_s", 0.0))
    if not targets and verbal.get("span"):  # a question about speech: the words set the span
        start, end = max(start, verbal["span"][0]), min(end, verbal["span"][1])
    elif shown and step > 0:
        start, end = max(start, min(shown) - step / 2), min(end, max(shown) + step / 2)
    elif verbal.get("span") and not shown:
        start, end = max(start, verbal["span"][0]), min(end, verbal["span"][1])
    lo, hi = inputs["span"]
    start, end = max(lo, round(start, 2)), min(hi, round(end, 2))  # rounding must not leave the span
    if end <= start:
        start, end = lo, hi
    return EmotionJudgement(emotion=label, confidence=round(float(fused.max()), 3), start_s=start, end_s=end)


JUDGE_EMOTION = LLMTask(
    name="judge_emotion",
    prompt=(
        "Decide the AffectNet-8 emotion shown in one moment of a video from the tool observations given "
        "(facial expression probabilities, what was said, vocal cues), with a confidence in [0, 1], and "
        "the start/end seconds of the span where it shows (inside the candidate span)."
    ),
    schema=EmotionJudgement,
    offline=offline_judge,
)


def judge(ctx: RunContext, cand: VerifiedCandidate, targets: list[str]) -> EmotionJudgement:
    """Ask the LLM for the emotion of ``cand``; the span is clamped to the candidate's clip."""
    def inside(j: EmotionJudgement) -> None:
        if not (cand.start_s - 1e-6 <= j.start_s < j.end_s <= cand.end_s + 1e-6):
            raise ValueError(f"span must lie inside [{cand.start_s}, {cand.end_s}] with start < end")

    obs = cand.observations
    return ctx.llm.structured(
        JUDGE_EMOTION,
        {"labels": list(AFFECTNET8), "target_emotions": targets, "span": [cand.start_s, cand.end_s],
         "visual": obs.get("visual") or {}, "verbal": obs.get("verbal") or {}, "vocal": obs.get("vocal") or {}},
        validate=inside,
    )


def reason_emotions(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Judge accepted candidates and merge them into ranked moment drafts (``moments`` = [])."""
    ctx = runtime.context
    targets = list(state["intent"].target_emotions)
    verified = state.get("verified", [])
    chosen = [c for c in verified if c.accepted]
    weak = not chosen
    if weak:  # nothing passed: the best-supported candidates, said plainly to be weak
        chosen = sorted(verified, key=lambda c: -c.support)[: ctx.settings.top_k]
    chosen = [c for c in chosen if c.support >= ctx.settings.abstain_below]
    drafts: list[MomentDraft] = []
    for cand in sorted(chosen, key=lambda c: c.start_s):
        j = judge(ctx, cand, targets)
        span = snap_to_cuts(j.start_s, j.end_s, ctx.index.cuts, cand.start_s - SNAP_S, cand.end_s + SNAP_S)
        j = j.model_copy(update={"start_s": round(span[0], 3), "end_s": round(span[1], 3)})
        score = cand.support * j.confidence
        prev = drafts[-1] if drafts else None
        if prev and prev.emotion == j.emotion and j.start_s <= prev.end_s:
            prev.end_s = max(prev.end_s, j.end_s)
            prev.confidence = max(prev.confidence, j.confidence)
            prev.score = max(prev.score, score)
            prev.evidence += [e for e in cand.evidence if e.id not in {x.id for x in prev.evidence}]
        else:
            drafts.append(MomentDraft(start_s=j.start_s, end_s=j.end_s, emotion=j.emotion, confidence=j.confidence,
                                      score=score, evidence=list(cand.evidence)))
    drafts.sort(key=lambda d: (targets and d.emotion not in targets, -d.score))
    return {"drafts": drafts[: ctx.settings.top_k], "weak": weak and bool(drafts)}


def describe(update: dict) -> str:
    """The trace line of this node: each draft's emotion, confidence and span."""
    return "; ".join(f"{d.emotion} {d.confidence:.2f} {d.start_s:.1f}-{d.end_s:.1f}s"
                     for d in update.get("drafts", [])) or "no accepted candidate"
