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
emotions in short option texts is loose (it reads "He says work is boring" as happiness).

An option about a look (``tools.signals.gaze_words.asked_look``: "she looks away from the camera") is grounded only
by looks its way (``agents.behaviour_evidence.asks_for``), and by what is not a look only where it says more than the
look (a gesture, a feeling or speech: "he looks at her and points", "she is sad and looks down"): the encoder puts
"looks away from the camera" close to "looks at the camera", and a look option matched a voice's emotion. One that
says its look holds all along (``says_throughout``: "he keeps looking at the camera", "the whole time") is ruled out
by an observed look the other way of the person it is about (the question's grounded people, else whoever's looks
ground it, else anyone), and the trace cites that look (``evals/RESULTS.md`` section 174). Looks are read from every
candidate checked (``AffectState.verified``), not only the moments: one glance away outside them still rules out "she
looks at the camera the whole time". Where the moments cite no evidence (no moment was found), all the evidence is
what the candidates checked showed; without any the option closest to the question is chosen and the trace says so.
"""

from __future__ import annotations

import re
import string
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from agents.behaviour_evidence import asks_for
from agents.llm import LLMTask
from agents.rationale import check_known_ids
from agents.schema import Evidence, Moment, OptionChoice, ReasoningStep, VerifiedCandidate
from agents.state import AffectState, RunContext
from tools.signals.gaze_words import AskedLook, asked_look, says_throughout, without_look_words
from tools.signals.lexicon import named_emotions, names_behaviour, names_speech

#: Evidence items quoted in the offline trace at most (the best-matching ones for the chosen option).
MAX_EVIDENCE_STEPS = 3
#: Evidence less similar than this to the chosen option is not quoted as support (MiniLM cosine).
MIN_STEP_SIM = 0.2


def letter(i: int) -> str:
    """The option letter of 0-based index ``i`` (A, B, ...)."""
    return string.ascii_uppercase[i] if i < 26 else str(i + 1)


def choice_inputs(question: str, options: list[str], moments: list[Moment],
                  checked: list[VerifiedCandidate] | None = None, people: list[int] | None = None) -> dict[str, Any]:
    """What the chooser sees: the question, the options, the people the question names (``people``: person ids,
    ``agents.grounding``), the moments (span, label, AffectNet-8 reading, confidence, rationale) and their evidence
    (ids, modality, text, span in seconds, person, and a look's direction and target: ``Evidence.look``,
    ``look_target``), with the looks of every candidate ``checked`` (a look held all along is a claim about the whole
    video); where the moments cite none, all the evidence of the candidates checked (``evidence_of`` says which)."""
    seen, evidence = set(), []
    cited: list[Evidence] = [e for m in moments for e in m.evidence]
    observed = [e for c in checked or [] for e in c.evidence]
    items = [*cited, *(e for e in observed if e.look is not None)] if cited else observed
    for e in items:
        if e.id not in seen:
            seen.add(e.id)
            evidence.append(e.model_dump(include={"id", "modality", "detail", "start_s", "end_s", "quote", "person",
                                                  "look", "look_target"}, exclude_none=True))
    return {"question": question, "options": list(options), "people": sorted(set(people or [])),
            "moments": [m.model_dump(include={"start_s", "end_s", "emotion", "affectnet8", "confidence", "rationale"})
                        for m in moments],
            "evidence": evidence, "evidence_of": ("the moments and the looks of the candidates checked" if cited else
                                                  "the candidates checked" if items else "nothing")}


#: The similarity of an option about a look to evidence that cannot ground it (below any cosine).
NO_MATCH = -1.0
#: The grounding of an option an observed look rules out (below ``NO_MATCH``).
RULED_OUT = -2.0


def ruled_out_by(option: str, evidence: list[dict[str, Any]], people: list[int] | None = None) -> int | None:
    """The index of the first evidence item that contradicts ``option``'s look held all along (``says_throughout``): a
    look the other way, at or from the camera or (for an option that names neither) anything, by one of ``people`` (the
    question's), else by someone whose looks ground the option, else by anyone; or None (module doc). An option about a
    look at or from someone else is never ruled out: a look's evidence names the person looked at as "a person"."""
    asked = asked_look(option)
    if asked is None or asked.target == "other" or not says_throughout(option):
        return None  # a look at or from someone: the evidence says a person was looked at, not whom
    whose = set(people or []) or {e.get("person") for e in evidence
                                  if asks_for(asked, e.get("look"), e.get("look_target"))} - {None}
    other = AskedLook("away" if asked.direction == "toward" else "toward", asked.target)
    return next((j for j, e in enumerate(evidence) if asks_for(other, e.get("look"), e.get("look_target"))
                 and (not whose or e.get("person") in whose)), None)


#: Expressions a face's reading shows ("shows happiness") that ``named_emotions`` does not list as feeling words.
_EXPRESSION = re.compile(r"\b(?:smil|frown|grin|laugh|scowl|cry|cries|cried|crying|tear|sob|grimac|pout|beam)")


def says_more_than_its_look(option: str) -> bool:
    """Whether ``option``, without the words of its look, still names a gesture, speech, a feeling or an expression
    (``tools.signals.lexicon``, ``_EXPRESSION``): then what is not a look may ground it too."""
    rest = without_look_words(option)
    return (names_behaviour(rest, looks=False) or names_speech(rest)
            or bool(named_emotions(rest) or _EXPRESSION.search(rest)))


def option_scores(inputs: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(grounding of each option (K,), option x evidence cosine similarity (K, N)); needs evidence (N >= 1). A verbal
    item is matched by the words said (its ``quote``): the reading of their emotion that its text adds is no part of
    what was said. An option about a look matches only looks its way, and what is not a look only where it says more
    than the look (``says_more_than_its_look``; its similarity elsewhere is ``NO_MATCH``); its grounding is
    ``RULED_OUT`` where an observed look contradicts it (``ruled_out_by``)."""
    from tools.perception.text import load_text_encoder

    encoder = load_text_encoder(model=None)
    evidence = inputs["evidence"]
    texts = [e.get("quote") or e["detail"] for e in evidence]
    sim = encoder.encode(list(inputs["options"])) @ encoder.encode(texts).T
    for i, option in enumerate(inputs["options"]):
        asked = asked_look(option)
        if asked is not None:
            also = says_more_than_its_look(option)
            for j, e in enumerate(evidence):
                if not (also if e.get("look") is None else asks_for(asked, e["look"], e.get("look_target"))):
                    sim[i, j] = NO_MATCH
    scores = sim.max(axis=1)
    for i, option in enumerate(inputs["options"]):
        if ruled_out_by(option, evidence, inputs.get("people")) is not None:
            scores[i] = RULED_OUT
    return scores, sim


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
    steps = [] if inputs.get("evidence_of") != "the candidates checked" else [ReasoningStep(
        modality="n/a", text="No moment cites evidence; the evidence below is what the candidates checked showed.")]
    for i, option in enumerate(options):
        j = ruled_out_by(option, evidence, inputs.get("people")) if scores[i] <= RULED_OUT else None
        if j is not None:
            e = evidence[j]
            steps.append(ReasoningStep(modality=e["modality"], evidence_ids=[e["id"]], text=(
                f"Option {letter(i)} says the look holds all along, but {e['detail']} "
                f"({e['start_s']:.1f}-{e['end_s']:.1f} s).")))
    for quoted, j in enumerate(np.argsort(-sim[k], kind="stable")[:MAX_EVIDENCE_STEPS]):
        if sim[k, j] <= NO_MATCH or sim[k, j] < MIN_STEP_SIM and quoted:
            break
        e = evidence[int(j)]
        steps.append(ReasoningStep(modality=e["modality"], text=f"{e['detail']} ({e['start_s']:.1f}-{e['end_s']:.1f} s)",
                                   evidence_ids=[e["id"]]))
    ranked = np.argsort(-scores, kind="stable")
    runner = ""
    if len(options) > 1:
        runner = f"; next best {letter(int(ranked[1]))} ({_shown(scores[ranked[1]])})"
    steps.append(ReasoningStep(modality="n/a", text=_verdict(k, scores, runner)))
    return OptionChoice(option=k, steps=steps)


def _verdict(k: int, scores: np.ndarray, runner: str) -> str:
    """The trace's last step: why option ``k`` (of groundings ``scores``) was chosen."""
    if scores[k] > NO_MATCH:
        return f"Option {letter(k)} fits the observed evidence best (score {scores[k]:.2f}{runner})."
    if scores[k] > RULED_OUT:
        return (f"No observed evidence grounds any option; option {letter(k)} is the first of those no observed look "
                "rules out.")
    return f"Observed looks rule out every option; option {letter(k)} is given as the first."


def _shown(score: float) -> str:
    """An option's grounding as the trace states it."""
    return "ruled out" if score <= RULED_OUT else "no evidence its way" if score <= NO_MATCH else f"{score:.2f}"


CHOOSE_OPTION = LLMTask(
    name="choose_option",
    prompt=(
        "Answer a multiple-choice question about a video from the evidence the tools observed. Give the "
        "0-based index of the best option and a reasoning trace: each step has a modality tag (visual, "
        "verbal, vocal for an observed cue, citing the ids of the evidence items it uses; n/a for a step "
        "that reads no cue), and external_knowledge true when it uses knowledge of what a cue usually means "
        "rather than something observed. Never state an observation that is not listed. The input: the question, "
        "the options, the people (ids) the question names, the moments found (span in seconds, label, reading, "
        "confidence, rationale) and the evidence, which evidence_of says is either the moments' with the looks of "
        "every candidate checked, or all that the candidates checked showed. An evidence item that is a look says "
        "its look (toward or away) and look_target (camera or person: what it is toward or away from). An option "
        "about a look rests only on looks its way; one saying a look holds all along (the whole time, never looks "
        "away) is contradicted by the same person's look the other way in any item."
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
    people = [p for g in state.get("people", []) for p in g.persons]
    inputs = choice_inputs(state["query"], options, state.get("moments", []), state.get("verified", []), people)
    known = {e["id"] for e in inputs["evidence"]}
    choice = runtime.context.llm.structured(CHOOSE_OPTION, inputs,
                                            validate=lambda c: check_choice(c, len(options), known))
    return {"choice": choice}


def describe(update: dict) -> str:
    """The trace line of this node: the chosen option and how many steps explain it."""
    c = update["choice"]
    return f"option {letter(c.option)} ({len(c.steps)} step(s))"
