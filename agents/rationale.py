"""Rationale writer: an evidence-grounded explanation per moment with modality-tagged steps.

Steps follow Social Genome's trace format (each step tagged visual / verbal / vocal). Every step must
cite evidence ids that exist in the moment's evidence; an answer that cites anything else is invalid
and goes through the LLM's repair/fallback path.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from agents.schema import Evidence, Moment, RationaleDraft
from agents.state import AffectState, get_ctx


def check_citations(draft: RationaleDraft, evidence: list[Evidence]) -> None:
    """Raise ``ValueError`` when a step cites an evidence id not in ``evidence`` or cites nothing."""
    known = {e.id for e in evidence}
    for step in draft.steps:
        missing = [i for i in step.evidence_ids if i not in known]
        if missing:
            raise ValueError(f"step cites unknown evidence ids {missing}; known ids: {sorted(known)}")
        if not step.evidence_ids:
            raise ValueError("every step must cite at least one evidence id")


def write_rationales(state: AffectState, config: RunnableConfig) -> dict:
    """Turn moment drafts into ``Moment``s with rationale and steps; returns ``moments``."""
    ctx = get_ctx(config)
    moments = []
    for d in state.get("drafts", []):
        evidence = [e for e in d["evidence"] if e.start_s < d["end_s"] and e.end_s > d["start_s"]] or d["evidence"]
        draft = ctx.llm.structured(
            "write_rationale",
            {"query": state["query"],
             "moment": {k: d[k] for k in ("start_s", "end_s", "emotion", "confidence")},
             "evidence": [e.model_dump(exclude={"ref", "track_id"}) for e in evidence]},
            RationaleDraft, validate=lambda r, ev=evidence: check_citations(r, ev),
        )
        moments.append(Moment(start_s=d["start_s"], end_s=d["end_s"], emotion=d["emotion"],
                              confidence=d["confidence"], rationale=draft.summary, steps=draft.steps,
                              evidence=evidence))
    return {"moments": moments}
