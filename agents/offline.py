"""The embedded offline reasoner: deterministic, no network, the default ``LLM``.

It answers the same tasks as a hosted model (``agents.llm.TASK_PROMPTS``) from the same JSON inputs:
- ``interpret_intent``: cosine similarity (all-MiniLM-L6-v2) between the query and the AffectNet-8
  and cue descriptions of ``tools.lexicon``, plus person words;
- ``refine_query``: the next alternative descriptions of the target emotions and cues;
- ``judge_emotion``: a weighted fusion of the facial-expression distribution (visual), the voice's
  emotion distribution (vocal), the speech's similarity to the emotion descriptions (verbal) and the
  intent prior;
- ``write_rationale``: sentences built only from the evidence items it is given, citing their ids;
  the summary quotes the utterance sharing most content words with the question (the first on a tie).
Text inside the inputs is only embedded or quoted, never followed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from agents.schema import EmotionJudgement, Intent, RationaleDraft, RationaleStep, RefinedQuery
from tools.lexicon import CUE_DESCRIPTIONS, EMOTION_DESCRIPTIONS, PERSON_WORDS, keyword_overlap
from tools.schema import AFFECTNET8
from tools.text_emotion import load_text_emotion

T = TypeVar("T", bound=BaseModel)

#: Similarity below which a query is taken to name no emotion (MiniLM cosine; unrelated text ~0.0-0.15).
MIN_EMOTION_SIM = 0.25
#: Emotions within this similarity of the best one are kept as targets too (at most two).
EMOTION_MARGIN = 0.04
MIN_CUE_SIM = 0.3
#: Fusion weights of judge_emotion: facial expression, voice, speech content, intent prior; chosen on
#: the composed dev bench (evals/RESULTS.md), never on the test split.
W_VISUAL, W_VOCAL, W_VERBAL, W_PRIOR = 0.5, 0.2, 0.15, 0.15


class OfflineReasoner:
    """Deterministic reasoner over sentence embeddings and the emotion lexicon (see module doc)."""

    name = "offline"

    def __init__(self, device: str = "cpu") -> None:
        self.device = device

    def _scorer(self):
        return load_text_emotion(self.device)

    # -- LLM protocol ----------------------------------------------------------------------
    def structured(self, task: str, inputs: dict[str, Any], schema: type[T],
                   validate: Callable[[T], None] | None = None) -> T:
        handler = {
            "interpret_intent": self._intent,
            "refine_query": self._refine,
            "judge_emotion": self._judge,
            "write_rationale": self._rationale,
        }[task]
        out = schema.model_validate(handler(inputs).model_dump())
        if validate is not None:
            validate(out)
        return out

    def _intent(self, inputs: dict[str, Any]) -> Intent:
        query = inputs["query"]
        emotions, cues = self._scorer().similarities(query)
        ranked = sorted(emotions, key=lambda k: -emotions[k])
        best = emotions[ranked[0]]
        targets = [k for k in ranked[:2] if emotions[k] >= max(MIN_EMOTION_SIM, best - EMOTION_MARGIN)]
        cue_ranked = sorted(cues, key=lambda k: -cues[k])
        chosen_cues = [c for c in cue_ranked if cues[c] >= MIN_CUE_SIM] or cue_ranked[:1]
        if targets and "facial_expression" not in chosen_cues:
            chosen_cues.append("facial_expression")
        words = re.findall(r"[a-z']+", query.lower())
        people = list(dict.fromkeys(PERSON_WORDS[w] for w in words if w in PERSON_WORDS))
        described = [EMOTION_DESCRIPTIONS[e][0] for e in targets]
        return Intent(target_emotions=targets, people=people, cues=chosen_cues,
                      search_text="; ".join([query, *described]))

    def _refine(self, inputs: dict[str, Any]) -> RefinedQuery:
        intent = Intent.model_validate(inputs["intent"])
        n = int(inputs.get("round", 1))
        phrases = [EMOTION_DESCRIPTIONS[e][n % 3] for e in intent.target_emotions]
        phrases += [CUE_DESCRIPTIONS[c][n % 2] for c in intent.cues if c in CUE_DESCRIPTIONS]
        rejected = len(inputs.get("rejected", []))
        return RefinedQuery(search_text="; ".join([inputs["query"], *phrases]),
                            reason=f"{rejected} candidates rejected; searching with alternative descriptions")

    def _judge(self, inputs: dict[str, Any]) -> EmotionJudgement:
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
        if end <= start:
            start, end = inputs["span"]
        return EmotionJudgement(emotion=label, confidence=round(float(fused.max()), 3),
                                start_s=round(start, 2), end_s=round(end, 2))

    def _rationale(self, inputs: dict[str, Any]) -> RationaleDraft:
        m = inputs["moment"]
        steps = []
        lead = None
        for modality in ("visual", "verbal", "vocal"):
            items = [e for e in inputs["evidence"] if e["modality"] == modality]
            if items:
                parts = [f"{e['detail']} ({e['start_s']:.1f}-{e['end_s']:.1f} s)" for e in items]
                if modality == "visual":
                    lead = parts[0]  # whole: a detail may hold "; " itself
                steps.append(RationaleStep(modality=modality, text="; ".join(parts),
                                           evidence_ids=[e["id"] for e in items]))
        said = [e for e in inputs["evidence"] if e["modality"] == "verbal"]
        best = max(said, key=lambda e: keyword_overlap(inputs.get("query", ""), e["detail"]), default=None)
        quote = f"{best['detail']} ({best['start_s']:.1f}-{best['end_s']:.1f} s)" if best else None
        said = " and ".join(x for x in (lead, quote) if x) or "no face or speech was observed"
        summary = f"{m['emotion']} (confidence {m['confidence']:.2f}): {said}."
        return RationaleDraft(summary=summary, steps=steps)
