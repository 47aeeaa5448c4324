"""Rationale writer: an evidence-grounded explanation per moment with modality-tagged steps.

Steps follow Social Genome's trace format (each step tagged visual / verbal / vocal). Every step must
cite evidence ids that exist in the moment's evidence; an answer that cites anything else is invalid
and goes through the LLM's repair/fallback path.

Offline (``offline_rationale``): sentences built only from the evidence items it is given, citing
their ids (the records of one observation cited once, abutting spans joined: ``_cited_runs``); the
summary leads with the visual observation sharing most content words with the question
(a gesture or gaze it names; "look" as in "she looks nervous" names none: ``without_non_gaze_looks``), else the
first face observation showing the moment's emotion, else the voice's reading when it names that emotion (a label
the voice carries is said to come from the voice, not from a gaze beside it), else the first visual observation
(``led_by``); it then quotes the utterance sharing most content words with the question (on a tie, the one with most
of its time inside the moment: a sentence cited because its last words fall in the moment's clip does not speak for
the moment; then the first). Without any of these it says what was read of the voice, or that nothing was observed
(``nothing_read``). A moment at a change of feeling leads with the face cited on each side of the change.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from agents.llm import LLMTask
from agents.schema import Evidence, Moment, RationaleDraft, RationaleStep
from agents.state import AffectState, RunContext
from agents.taxonomy import load_taxonomy
from tools.signals.lexicon import keyword_overlap


def check_known_ids(cited: list[str], known: set[str]) -> None:
    """Raise ``ValueError`` when ``cited`` names an evidence id that is not in ``known``."""
    missing = [i for i in cited if i not in known]
    if missing:
        raise ValueError(f"step cites unknown evidence ids {missing}; known ids: {sorted(known)}")


def check_citations(draft: RationaleDraft, evidence: list[Evidence]) -> None:
    """Raise ``ValueError`` when a step cites an evidence id not in ``evidence`` or cites nothing."""
    known = {e.id for e in evidence}
    for step in draft.steps:
        check_known_ids(step.evidence_ids, known)
        if not step.evidence_ids:
            raise ValueError("every step must cite at least one evidence id")


#: A form of "look" that names no gaze: not followed by where the eyes go ("she looks tired", "look like", "a withering
#: look"); "looks at her", "looking away" name one.
_NOT_GAZE_LOOK = re.compile(r"\blook(?:s|ed|ing)?\b(?!\s+(?:at|away|around|toward|towards|back)\b)")


def without_non_gaze_looks(text: str) -> str:
    """``text`` lower-cased, without the forms of "look" that name no gaze (a copula or a noun), so that words of a
    question matched against observations (``tools.signals.lexicon.keyword_overlap``) do not take "when does she look
    nervous?" as asking where she looks ("person 1 looks at the camera")."""
    return _NOT_GAZE_LOOK.sub(" ", text.lower())


def _span(start_s: float, end_s: float) -> str:
    """A span as the rationale writes it: "89.0-89.7 s"."""
    return f"{start_s:.1f}-{end_s:.1f} s"


def _cited(e: dict) -> str:
    """An evidence record as the rationale cites it: its detail and its span in seconds."""
    return f"{e['detail']} ({_span(e['start_s'], e['end_s'])})"


#: Seconds by which the span of an observation may start after the previous one ends and still be cited with it: the
#: verifier's frames snap to the video's own (1/25-1/30 s apart), so one step's span can end just before the next
#: frame; a skipped step (0.25 s at 4 fps) is a gap.
ABUT_S = 0.05


def _cited_runs(items: list[dict]) -> list[str]:
    """``items`` (evidence records of one modality, in order) as the rationale cites them (``_cited``), the records
    with the same detail as one citation, where the first of them stands: a still face read alike in successive frames
    (``agents.evidence.face_evidence``: one frame step each) is one observation, not three, also when another face's
    records come between. Its spans, in time order, are joined where they meet or overlap (within ``ABUT_S``: "...
    shows contempt (p=0.54) (89.0-89.7 s)", not "(89.0-89.2 s); ... (89.2-89.5 s); ... (89.5-89.7 s)") and listed
    where a gap parts them ("(6.2-6.5 s, 7.0-7.2 s)")."""
    runs: dict[str, list[tuple[float, float]]] = {}
    for e in items:
        runs.setdefault(e["detail"], []).append((e["start_s"], e["end_s"]))
    cited = []
    for detail, spans in runs.items():
        joined: list[list[float]] = []
        for a, b in sorted(spans):
            if joined and a <= joined[-1][1] + ABUT_S:
                joined[-1][1] = max(joined[-1][1], b)
            else:
                joined.append([a, b])
        cited.append(f"{detail} ({', '.join(_span(a, b) for a, b in joined)})")
    return cited


def _voice_reading(evidence: list[dict], emotion: str = "") -> str | None:
    """The voice's reading among ``evidence`` records (``agents.evidence.voice_emotion_evidence``: "the voice sounds
    <label> (...)") with its span, the first that names ``emotion`` when one is given; None when there is none."""
    said = f"the voice sounds {emotion} (" if emotion else "the voice sounds "
    voice = next((e for e in evidence if e["modality"] == "vocal" and e["detail"].startswith(said)), None)
    return _cited(voice) if voice else None


def led_by(lead: str | None, inputs: dict[str, Any], emotion: str) -> list[str]:
    """What the summary names before the words said: the visual ``lead`` (``offline_rationale``) when it names what the
    question asks or shows ``emotion``; the voice when it reads ``emotion`` and no face shown leads with it, so a label
    the voice carries is said to come from the voice, not from a gaze beside it. A visual lead that names neither
    stays when the voice does not read the emotion either."""
    voice = _voice_reading(inputs["evidence"], emotion)
    shows = lead is not None and f"shows {emotion} " in lead
    names = lead is not None and keyword_overlap(without_non_gaze_looks(inputs.get("query", "")), lead) > 0
    return [x for x in (lead if shows or names or voice is None else None, None if shows else voice) if x is not None]


def nothing_read(evidence: list[dict]) -> str:
    """The summary's account of a moment where no face was cited and no words were said: what was heard, the voice's
    reading first (a question's own emotion can label a moment whose voice reads another), else the first vocal
    observation (its loudness and pace, a sound), else that nothing was observed."""
    heard = _voice_reading(evidence) or next((_cited(e) for e in evidence if e["modality"] == "vocal"), None)
    return f"no face or words were observed; {heard}" if heard else "no face, words or voice were observed"


def offline_rationale(inputs: dict[str, Any]) -> RationaleDraft:
    """The offline reasoner's rationale (see the module doc)."""
    m = inputs["moment"]
    steps = []
    lead = None
    for modality in ("visual", "verbal", "vocal"):
        items = [e for e in inputs["evidence"] if e["modality"] == modality]
        if items:
            parts = _cited_runs(items)
            if modality == "visual":  # whole: a detail may hold "; " itself
                query = without_non_gaze_looks(inputs.get("query", ""))
                # the observation naming what the question asks (a gesture, a gaze; not "look" as in "look nervous")
                # leads; else a face showing the moment's emotion; else the first
                lead = max(parts, key=lambda x, q=query: (keyword_overlap(q, x), f"shows {m['emotion']} " in x))
            steps.append(RationaleStep(modality=modality, text="; ".join(parts),
                                       evidence_ids=[e["id"] for e in items]))
    said = [e for e in inputs["evidence"] if e["modality"] == "verbal"]
    best = max(said, key=lambda e: (keyword_overlap(inputs.get("query", ""), e["detail"]),
                                    min(m["end_s"], e["end_s"]) - max(m["start_s"], e["start_s"])), default=None)
    quote = _cited(best) if best else None
    led = led_by(lead, inputs, m["emotion"])
    said = " and ".join(x for x in (*led, quote) if x) or nothing_read(inputs["evidence"])
    label = m.get("label", m["emotion"])
    read = f"read as {m['emotion']}, " if label != m["emotion"] else ""
    if change := m.get("change"):  # the departure it follows (if any), then both sides of the change lead
        order = {"x2": 0, "x0": 1, "x1": 2}  # agents.change.change_evidence's ids
        sides = sorted((e for e in inputs["evidence"] if e["id"].rsplit(".", 1)[-1] in order),
                       key=lambda e: order[e["id"].rsplit(".", 1)[-1]])
        said = " and ".join(f"{e['detail']} ({e['start_s']:.1f} s)" for e in sides) or said
        label = f"{m.get('before_label', change['before'])} -> {label}"
    summary = f"{label} ({read}confidence {m['confidence']:.2f}): {said}."
    return RationaleDraft(summary=summary, steps=steps)


WRITE_RATIONALE = LLMTask(
    name="write_rationale",
    prompt=(
        "Explain why the moment answers the question, using only the evidence listed. Write a one-"
        "sentence summary and a few steps; each step has a modality tag (visual, verbal or vocal) and "
        "cites the ids of the evidence items it uses. Never state an observation that is not listed. The "
        "moment's label is its emotion in the user's label set; emotion is the AffectNet-8 reading behind it."
    ),
    schema=RationaleDraft,
    offline=offline_rationale,
)


def write_rationales(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """Turn moment drafts into ``Moment``s with rationale and steps; returns ``moments``."""
    ctx = runtime.context
    taxonomy = load_taxonomy(ctx.settings.labels)
    moments = []
    for d in state.get("drafts", []):
        evidence = [e for e in d.evidence if e.start_s < d.end_s and e.end_s > d.start_s] or d.evidence
        label = taxonomy.label_for(d.emotion, state["intent"].target_labels)
        moment = {**d.model_dump(include={"start_s", "end_s", "emotion", "confidence", "change"}), "label": label}
        if d.change is not None:  # the emotion before the change, named in the answer's label set too
            moment["before_label"] = taxonomy.label_for(d.change.before)
        draft = ctx.llm.structured(
            WRITE_RATIONALE,
            {"query": state["query"], "moment": moment,
             "evidence": [e.model_dump(exclude={"ref", "person", *(("look", "look_target") if e.look is None else ())})
                          for e in evidence]},
            validate=lambda r, ev=evidence: check_citations(r, ev),
        )
        moments.append(Moment(start_s=d.start_s, end_s=d.end_s, emotion=label, affectnet8=d.emotion,
                              confidence=d.confidence, rationale=draft.summary, steps=draft.steps,
                              evidence=evidence, change=d.change))
    return {"moments": moments}


def describe(update: dict) -> str:
    """The trace line of this node: how many rationales it wrote."""
    return f"{len(update.get('moments', []))} rationale(s) written"
