"""Person grounding: the people a question names ("the speaker", "the audience", "she") resolved to person
ids of the index (``TrackSummary.person``: one id for the tracks of one person across shots), each with
the rule that chose them and a confidence in [0, 1].

The offline rules (**speaking**, **group**, **appearance**, **only person**, **position**) and their
thresholds are ``agents.grounding_rules``'s (its module doc lists them).

Words for nobody in particular ("someone", "anyone") are not grounded. The verifier then reads faces of
the grounded people only when the grounding's confidence reaches ``GROUNDED_MIN_CONFIDENCE``.

With a vision LLM (``--llm`` and ``--llm-images N``), a phrase these rules leave unresolved, or one they
have no rule for (a hosted intent model may name "the woman in red", "the older man"), is shown to the
model with one face thumbnail per person (the N people with most screen time; ``GROUND_PERSON``); its
choice, validated against the people shown, is rule **vision** with the model's confidence.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.grounding_rules import face_observations, ground_phrase, person_thumbnails, speaking_time
from agents.llm import LLM, LLMTask
from agents.schema import PersonGrounding, persons_text
from agents.state import AffectState, RunContext
from agents.vision import MAX_IMAGES, reads_images, thumbnail_url
from memory.store import VideoIndex
from tools.signals.lexicon import AGE_ADJECTIVES, PERSON_WORDS, POSITIONED_NOUNS, POSITIONS, person_phrases

#: Groundings at least this confident steer the verifier to those people's faces (more likely than not).
GROUNDED_MIN_CONFIDENCE = 0.5
#: Phrases for nobody in particular: never grounded.
NOBODY = ("anyone", "the camera wearer")


class VisionGrounding(BaseModel):
    """A vision model's choice of the people a phrase names, among those shown."""

    persons: list[int] = Field(description="person ids from `people` that the phrase names; empty: none of them")
    confidence: float = Field(ge=0, le=1, description="probability that the choice is right")
    reason: str = Field("", description="what in the images decided it, in a few words")


def _offline_vision(_inputs: dict[str, Any]) -> VisionGrounding:
    return VisionGrounding(persons=[], confidence=0.0, reason="no vision model")


GROUND_PERSON = LLMTask(
    name="ground_person",
    prompt=("Decide which of the people of a video a phrase from a question names (e.g. 'a woman', 'the man in "
            "red', 'the older one'). `people` lists them with their screen time and speaking time; the images "
            "are one face per person, in the same order. Answer with the person ids the phrase names (empty "
            "when none fits) and your confidence."),
    schema=VisionGrounding,
    offline=_offline_vision,
)


def ground_by_vision(phrase: str, index: VideoIndex, llm: LLM, images: int) -> PersonGrounding | None:
    """``GROUND_PERSON`` asked of ``llm`` with one face thumbnail of each of the (at most ``images``) people
    with the most screen time; None when there is nobody to show or the model chooses no one."""
    seen, _ = face_observations(index)
    spoken, _ = speaking_time(index)
    shown, urls = [], []
    for p, _n in seen.most_common():
        thumbs = person_thumbnails(index, [p])
        url = thumbnail_url(index, thumbs[0]) if thumbs else None
        if url is not None:
            shown.append(p)
            urls.append(url)
        if len(shown) == min(images, MAX_IMAGES):
            break
    if not shown:
        return None
    total = sum(seen.values())
    people = [{"person": p, "screen_share": round(seen[p] / total, 3), "speaking_s": round(spoken[p], 1)}
              for p in shown]

    def among_shown(v: VisionGrounding) -> None:
        if not set(v.persons) <= set(shown):
            raise ValueError(f"persons must be among {shown}")

    v = llm.structured(GROUND_PERSON, {"phrase": phrase, "people": people}, validate=among_shown, images=urls)
    if not v.persons:
        return None
    return PersonGrounding(phrase=phrase, persons=sorted(set(v.persons)), rule="vision",
                           confidence=round(v.confidence, 3),
                           detail=f"{getattr(llm, 'name', 'llm')} chose among {len(shown)} face thumbnails"
                                  + (f": {v.reason}" if v.reason else ""),
                           thumbnails=person_thumbnails(index, sorted(set(v.persons))))


#: Words a people phrase may hold and still be read by the offline rules ("the older man", "she").
_PHRASE_WORDS = frozenset({"the", "a", "an", "on", "in", *PERSON_WORDS, *AGE_ADJECTIVES, *POSITIONED_NOUNS, *POSITIONS})


def canonical_phrase(phrase: str) -> str:
    """A people phrase in the offline rules' words: itself when it is one already, else the single phrase
    ``tools.signals.lexicon.person_phrases`` reads from it when every word of it is a person, age or place word (a
    hosted intent model's "the older man" -> "an older man", "She" -> "a woman"); a phrase with other
    words ("the man in red") is returned as it is."""
    words = phrase.lower().split()
    if phrase in PERSON_WORDS.values() or not words or not set(words) <= _PHRASE_WORDS:
        return phrase
    found = person_phrases(phrase)
    return found[0] if len(found) == 1 else phrase


def ground_people(phrases: list[str], index: VideoIndex, llm: LLM | None = None,
                  images: int = 0) -> list[PersonGrounding]:
    """Groundings of the intent's people phrases that name somebody in particular (see the module doc;
    phrases in other words are first put in the rules' words, ``canonical_phrase``); with ``llm`` and
    ``images`` > 0, phrases the rules leave unresolved or have no rule for are asked of the vision model
    (``ground_by_vision``)."""
    out = []
    for phrase in dict.fromkeys(canonical_phrase(p) for p in phrases):
        g = ground_phrase(phrase, index)
        if llm is not None and images > 0 and phrase not in NOBODY and (g is None or g.rule == "unresolved"):
            g = ground_by_vision(phrase, index, llm, images) or g
        if g is not None:
            out.append(g)
    return out


def speech_of_others(index: VideoIndex, start_s: float, end_s: float, persons: set[int]) -> str:
    """With grounded ``persons``: "person N, ..." when every utterance overlapping [start_s, end_s) has a
    known speaker and none of them is a grounded person (so the span's words and voice say nothing about
    those people); "" otherwise (no grounding, no speech, a grounded or an unknown speaker)."""
    if not persons:
        return ""
    speakers = {u.speaker for u in index.utterances if u.start_s < end_s and start_s < u.end_s}
    if not speakers or None in speakers or speakers & persons:
        return ""
    return persons_text(speakers)


def grounded_persons(groundings: list[PersonGrounding], only: Collection[str] = ()) -> set[int]:
    """The people the verifier should read: those of groundings at least ``GROUNDED_MIN_CONFIDENCE``; with ``only``
    (phrases: whose feeling a question asks about, ``agents.schema.Intent.feeling_of``), those of its phrases ("how
    does the crowd react to him?": the audience, not "him"), and nobody in particular (every face) when none of them
    is grounded so: the other phrases name other people ("he" in "how does she feel when he yells at her?")."""
    sure = [g for g in groundings if g.confidence >= GROUNDED_MIN_CONFIDENCE]
    if only:
        wanted = {canonical_phrase(p) for p in only}
        sure = [g for g in sure if g.phrase in wanted]
    return {p for g in sure for p in g.persons}


def ground_persons(state: AffectState, runtime: Runtime[RunContext]) -> dict:
    """The person grounder's node: ``people``, the intent's people phrases grounded in the video
    (``ground_people``; a vision LLM for the rest when ``RunSettings.llm_images`` > 0)."""
    ctx = runtime.context
    return {"people": ground_people(state["intent"].people, ctx.index, ctx.llm,
                                    ctx.settings.llm_images if reads_images(ctx) else 0)}


def describe(update: dict) -> str:
    """The trace line of this node: each phrase, who it names, by which rule and how confidently."""
    return "; ".join(f"{g.phrase} -> {g.who} ({g.rule}, {g.confidence:.2f})" for g in update.get("people", [])) \
        or "no particular person named"
