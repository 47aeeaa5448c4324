"""Emotion reasoner: one AffectNet-8 label, a confidence and a tightened span per accepted candidate.

The LLM (offline reasoner by default) judges each accepted candidate from the verifier's
observations. Judged spans of the same emotion that overlap are merged into one moment (union of the
spans, the higher confidence). Moments are ranked by support x confidence, best first.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from agents.schema import Candidate, EmotionJudgement
from agents.state import AffectState, get_ctx
from tools.schema import AFFECTNET8


def judge(ctx, cand: Candidate, targets: list[str]) -> EmotionJudgement:
    """Ask the LLM for the emotion of ``cand``; the span is clamped to the candidate's clip."""
    def inside(j: EmotionJudgement) -> None:
        if not (cand.start_s - 1e-6 <= j.start_s < j.end_s <= cand.end_s + 1e-6):
            raise ValueError(f"span must lie inside [{cand.start_s}, {cand.end_s}] with start < end")

    obs = cand.observations
    return ctx.llm.structured(
        "judge_emotion",
        {"labels": list(AFFECTNET8), "target_emotions": targets, "span": [cand.start_s, cand.end_s],
         "visual": obs.get("visual") or {}, "verbal": obs.get("verbal") or {}, "vocal": obs.get("vocal") or {}},
        EmotionJudgement, validate=inside,
    )


def reason_emotions(state: AffectState, config: RunnableConfig) -> dict:
    """Judge accepted candidates and merge them into ranked moment drafts (``moments`` = [])."""
    ctx = get_ctx(config)
    targets = list(state["intent"].target_emotions)
    drafts: list[dict] = []
    for cand in sorted((c for c in state.get("verified", []) if c.accepted), key=lambda c: c.start_s):
        j = judge(ctx, cand, targets)
        score = (cand.support or 0.0) * j.confidence
        prev = drafts[-1] if drafts else None
        if prev and prev["emotion"] == j.emotion and j.start_s <= prev["end_s"]:
            prev["end_s"] = max(prev["end_s"], j.end_s)
            prev["confidence"] = max(prev["confidence"], j.confidence)
            prev["score"] = max(prev["score"], score)
            prev["evidence"] += [e for e in cand.evidence if e.id not in {x.id for x in prev["evidence"]}]
        else:
            drafts.append({"start_s": j.start_s, "end_s": j.end_s, "emotion": j.emotion, "confidence": j.confidence,
                           "score": score, "evidence": list(cand.evidence)})
    drafts.sort(key=lambda d: -d["score"])
    return {"drafts": drafts[: ctx.settings.top_k]}
