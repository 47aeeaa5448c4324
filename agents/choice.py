"""Option chooser: a multiple-choice answer with a Social Genome reasoning trace (``--options``).

Social-IQ 2.0 / Social Genome / HumanSense ask a question about a video with answer options. The graph
first answers the question as a moment query (localize, verify, judge, explain); this role then picks
the option that the observed evidence supports and writes a trace whose steps carry Social Genome's
tags: modality visual / verbal / vocal (a cue that was observed, citing its evidence ids) or n/a (a
step that reads no cue), and an external-knowledge flag (knowledge of what a cue usually means).

Offline (``offline_choice``): each option scores its grounding, the highest cosine similarity
(all-MiniLM-L6-v2) between the option and an evidence item's text (face, gesture, gaze, speech and voice
observations all read as sentences, e.g. "person 4's face ... shows happiness (p=0.79)"; speech by the words said); the trace
quotes the best-matching evidence. The emotion an option names is matched through that text (a face
"shows happiness"); a separate emotion-agreement term is not added, because the interpreter's reading of
emotions in short option texts is loose (it reads "He says work is boring" as happiness). Without any
evidence the option closest to the question is chosen and the trace says so.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agents.llm import LLMTask
from agents.rationale import check_known_ids
from agents.schema import Moment, OptionChoice, ReasoningStep
from agents.state import AffectState, RunContext

#: Evidence items quoted in the offline trace at most (the best-matching ones for the chosen option).
MAX_EVIDENCE_STEPS = 3
#: Evidence less similar than this to the chosen option is not quoted as support (MiniLM cosine).
MIN_STEP_SIM = 0.2


def letter(i: int) -> str:
    """The option letter of 0-based index ``i`` (A, B, ...)."""
    return string.ascii_uppercase[i] if i < 26 else str(i + 1)


def choice_inputs(question: str, options: list[str], moments: list[Moment]) -> dict[str, Any]:
    """What the chooser sees: the question, the options, the moments (span, label, AffectNet-8 reading,
    confidence, rationale) and their evidence (ids, modality, text, span in seconds)."""
    seen, evidence = set(), []
    for m in moments:
        for e in m.evidence:
            if e.id not in seen:
                seen.add(e.id)
                evidence.append(e.model_dump(include={"id", "modality", "detail", "start_s", "end_s", "quote"},
                                             exclude_none=True))
    return {"question": question, "options": list(options),
            "moments": [m.model_dump(include={"start_s", "end_s", "emotion", "affectnet8", "confidence", "rationale"})
                        for m in moments],
            "evidence": evidence}


def option_scores(inputs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(grounding of each option (K,), option x evidence cosine similarity (K, N)); needs evidence (N >= 1). A verbal
    item is matched by the words said (its ``quote``): the reading of their emotion that its text adds is no part of
    what was said."""
    from tools.perception.text import load_text_encoder

    encoder = load_text_encoder(model=None)
    texts = [e.get("quote") or e["detail"] for e in inputs["evidence"]]
    sim = encoder.encode(list(inputs["options"])) @ encoder.encode(texts).T
    return sim.max(axis=1), sim


def offline_choice(inputs: dict[str, Any]) -> OptionChoice:
    """The offline reasoner's choice and trace (module doc)."""
    options, evidence = inputs["options"], inputs["evidence"]
    if not evidence:
        from tools.perception.text import load_text_encoder

        encoder = load_text_encoder(model=None)
        closeness = encoder.encode(list(options)) @ encoder.encode([inputs["question"]])[0]
        k = int(closeness.argmax())
        return OptionChoice(option=k, steps=[ReasoningStep(
            modality="n/a", text=f"No face, gesture or speech was observed for this question; option {letter(k)} "
                                 f"is the one closest in wording to the question ({closeness[k]:.2f}).")])
    scores, sim = option_scores(inputs)
    k = int(scores.argmax())
    steps = []
    for j in np.argsort(-sim[k])[:MAX_EVIDENCE_STEPS]:
        if sim[k, j] < MIN_STEP_SIM and steps:
            break
        e = evidence[int(j)]
        steps.append(ReasoningStep(modality=e["modality"], text=f"{e['detail']} ({e['start_s']:.1f}-{e['end_s']:.1f} s)",
                                   evidence_ids=[e["id"]]))
    ranked = np.argsort(-scores)
    runner = f"; next best {letter(int(ranked[1]))} ({scores[ranked[1]]:.2f})" if len(options) > 1 else ""
    steps.append(ReasoningStep(modality="n/a", text=f"Option {letter(k)} fits the observed evidence best "
                                                    f"(score {scores[k]:.2f}{runner})."))
    return OptionChoice(option=k, steps=steps)


CHOOSE_OPTION = LLMTask(
    name="choose_option",
    prompt=(
        "Answer a multiple-choice question about a video from the evidence the tools observed. Give the "
        "0-based index of the best option and a reasoning trace: each step has a modality tag (visual, "
        "verbal, vocal for an observed cue, citing the ids of the evidence items it uses; n/a for a step "
        "that reads no cue), and external_knowledge true when it uses knowledge of what a cue usually means "
        "rather than something observed. Never state an observation that is not listed."
    ),
    schema=OptionChoice,
    offline=offline_choice,
)


def check_choice(choice: OptionChoice, n_options: int, evidence_ids: set[str]) -> None:
    """Raise ``ValueError`` when the option is out of range, a step cites an unknown evidence id, or an
    observed-cue step (visual / verbal / vocal) cites none."""
    if choice.option >= n_options:
        raise ValueError(f"option must be an index in 0..{n_options - 1}")
    for step in choice.steps:
        check_known_ids(step.evidence_ids, evidence_ids)
        if step.modality != "n/a" and not step.evidence_ids:
            raise ValueError(f"a {step.modality} step must cite the evidence it reads")


def choose_option(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Pick one of ``state["options"]`` from the moments' evidence; returns ``choice`` (an ``OptionChoice``)."""
    options = state["options"]
    inputs = choice_inputs(state["query"], options, state.get("moments", []))
    known = {e["id"] for e in inputs["evidence"]}
    choice = runtime.context.llm.structured(CHOOSE_OPTION, inputs,
                                            validate=lambda c: check_choice(c, len(options), known))
    return {"choice": choice}


def describe(update: dict) -> str:
    """The trace line of this node: the chosen option and how many steps explain it."""
    c = update["choice"]
    return f"option {letter(c.option)} ({len(c.steps)} step(s))"
