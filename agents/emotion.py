"""Emotion reasoner: one AffectNet-8 label, a confidence and a tightened span per accepted candidate.

The LLM (offline reasoner by default) judges each accepted candidate from the verifier's
observations. When the verifier accepted none, the best-supported candidates are judged instead and
the answer says that support is weak (``weak``): an answer is empty only when nothing was checked or
the user set ``RunSettings.abstain_below``. Span edges within ``SNAP_S`` of a shot cut move onto it.
Judged spans of the same emotion that overlap are merged into one moment (union of the spans, the
higher confidence). Moments judged to show a target emotion of the intent rank before the others;
within each group by support x confidence, best first.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from agents.schema import Candidate, EmotionJudgement
from agents.state import AffectState, get_ctx
from tools.schema import AFFECTNET8

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
    verified = state.get("verified", [])
    chosen = [c for c in verified if c.accepted]
    weak = not chosen
    if weak:  # nothing passed: the best-supported candidates, said plainly to be weak
        chosen = sorted(verified, key=lambda c: -(c.support or 0.0))[: ctx.settings.top_k]
    chosen = [c for c in chosen if (c.support or 0.0) >= ctx.settings.abstain_below]
    drafts: list[dict] = []
    for cand in sorted(chosen, key=lambda c: c.start_s):
        j = judge(ctx, cand, targets)
        span = snap_to_cuts(j.start_s, j.end_s, ctx.index.cuts, cand.start_s - SNAP_S, cand.end_s + SNAP_S)
        j = j.model_copy(update={"start_s": round(span[0], 3), "end_s": round(span[1], 3)})
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
    drafts.sort(key=lambda d: (targets and d["emotion"] not in targets, -d["score"]))
    return {"drafts": drafts[: ctx.settings.top_k], "weak": weak and bool(drafts)}
