"""Schemas of the agent layer: what each role produces and the answer the CLI writes.

``Answer`` is the public JSON output (``affectseek ask --schema`` prints its JSON Schema).
Times are seconds from the start of the video.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from agents.change_schema import ChangeAsk, MomentChange
from agents.observations import Observations
from tools.core.schema import Emotion, Modality, TimeSpan


class Intent(BaseModel):
    """What a vague query asks for (intent interpreter output)."""

    target_emotions: list[Emotion] = Field(description="AffectNet-8 labels the query is about, most likely first")
    people: list[str] = Field(default_factory=list, description="people the query names, as role words")
    cues: list[str] = Field(default_factory=list, description="kinds of evidence to look for: speech, "
                            "facial_expression, gaze, gesture, voice, group")
    search_text: str = Field(description="a plain-language description of the moment to search for")
    target_labels: list[str] = Field(default_factory=list, description="labels of the answer's label set the query "
                                     "asks for (set by the graph from target_emotions and the label set's words; "
                                     "agents.taxonomy)")
    change: ChangeAsk | None = Field(None, description="set when the query asks when a feeling changes")
    asks_feeling: bool = Field(False, description="the query asks which feeling someone shows without naming one "
                               "('how does she feel when he yells at her?'); the graph then asks for no target "
                               "emotion unless answer labels were chosen, and drops it for a change question")
    feeling_of: list[str] = Field(default_factory=list, description="of people, those whose feeling the query asks "
                                  "about: an open question's subject ('she' there, not 'he'), or the owner of a "
                                  "feeling it names ('when does he upset her?': 'a woman'); empty: all of them")
    order: Literal["first", "last"] | None = Field(None, description="set when the query asks for the earliest or the "
                                                   "latest moment of what it describes ('when does she smile for the "
                                                   "first time?'): the moments then go in that order of time")


class RefinedQuery(BaseModel):
    """A new search text for another localization round (verifier -> localizer)."""

    search_text: str
    reason: str


class Evidence(BaseModel):
    """One observation a tool really made, tagged with its Social Genome modality.

    ``ref`` names the stored tool output (``<file in the video's cache>#<record id>``).
    """

    id: str
    modality: Modality
    tool: str
    start_s: float
    end_s: float
    detail: str
    person: int | None = Field(None, description="the person the evidence is about (a person id across shots, "
                               "tools.signals.tracks.reidentify); None: nobody in particular")
    ref: str
    quote: str | None = Field(None, description="a verbal item's words as the recogniser heard them (its detail adds "
                              "who said them and how they read)")
    look: Literal["toward", "away"] | None = Field(None, description="a visual item that is a look: toward or away "
                                                   "from look_target (tools.signals.gaze_words.asked_look reads which "
                                                   "a question asks)")
    look_target: Literal["camera", "person"] | None = Field(None, description="what a look is toward or away from")

    @model_validator(mode="after")
    def _ordered(self) -> Evidence:
        if self.end_s < self.start_s:
            raise ValueError("evidence end_s < start_s")
        return self

    @property
    def key(self) -> tuple[str, str]:
        """What the item says of which record (``ref``, ``detail``): two items of one key say the same thing (two
        readers, or two overlapping clips, citing one face)."""
        return self.ref, self.detail


def new_items(have: list[Evidence], more: list[Evidence]) -> list[Evidence]:
    """The items of ``more`` that say something no item of ``have`` says (``Evidence.key``), in order."""
    said = {e.key for e in have}
    return [e for e in more if e.key not in said]


class Proposal(BaseModel):
    """A clip the localizer proposes for verification."""

    clip_id: str
    start_s: float
    end_s: float
    retrieval_score: float
    source: str = Field(description="which searches found it, '+'-joined: clips, transcript, events, affect, change")
    round: int = 0
    change_s: float | None = Field(None, description="a change-point candidate's change point, seconds")
    person: int | None = Field(None, description="whose change it is (agents.change)")
    left: int | None = Field(None, description="who left at change_s, for a feeling after someone leaves")


class VerifiedCandidate(Proposal):
    """A proposal after the verifier ran the perception tools on it."""

    support: float = Field(description="verifier score in [0, 1]")
    accepted: bool
    reject_reason: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    observations: Observations = Field(default_factory=Observations,
                                       description="verifier measurements the emotion reasoner reads")
    coarse: bool = Field(False, description="read on the index's frames only, not at verify_fps (agents.verifier)")


class MomentDraft(BaseModel):
    """A moment the emotion reasoner judged, before the rationale writer explains it: ``score`` (support x the
    probability of the asked emotions; support alone for a question that names no feeling, x confidence for its change
    points) ranks drafts, after ``coarse`` (``agents.moments``); ``evidence`` is everything the verifier cited for the
    candidates merged into it."""

    start_s: float
    end_s: float
    emotion: Emotion
    confidence: float = Field(ge=0.0, le=1.0)
    score: float
    evidence: list[Evidence]
    change: MomentChange | None = None
    coarse: bool = False  # every candidate merged into it was read on the index's frames only
    anchor: str | None = Field(None, description=(
        "the record (Evidence.ref) of the gesture or look that set the span of a question about behaviour: two drafts "
        "on one record are one moment"))


class EmotionJudgement(BaseModel):
    """Emotion reasoner output for one moment: the emotion it shows, the confidence that this label is
    right, the span, and (when the query asks for emotions) the probability that it shows one of them."""

    emotion: Emotion
    confidence: float = Field(ge=0.0, le=1.0)
    start_s: float
    end_s: float
    target_probability: float | None = Field(default=None, ge=0.0, le=1.0)
    before: Emotion | None = Field(None, description="for a change candidate: the emotion before change.t_s")


class RationaleStep(BaseModel):
    """One reasoning step, tagged like Social Genome traces (modality + cited evidence ids)."""

    modality: Modality
    text: str
    evidence_ids: list[str] = Field(default_factory=list)


class RationaleDraft(BaseModel):
    """Rationale writer output for one moment."""

    summary: str = Field(description="one sentence")
    steps: list[RationaleStep]


class Moment(TimeSpan):
    """One answer: a span of the video, its emotion in the answer's label set (``Answer.labels``), the
    AffectNet-8 reading behind it, and why."""

    emotion: str = Field(description="label in the answer's label set (Answer.labels)")
    affectnet8: Emotion = Field(description="what the perception tools read, in AffectNet-8 (agents.taxonomy maps it)")
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    steps: list[RationaleStep] = Field(default_factory=list)
    evidence: list[Evidence]
    change: MomentChange | None = Field(None, description="for a question about a change: the change point and the "
                                        "emotions before and after it")


#: Social Genome's modality tags of a reasoning step; ``n/a`` for a step that reads no cue of the video.
TraceModality = Literal["visual", "verbal", "vocal", "n/a"]


class ReasoningStep(BaseModel):
    """One step of a multiple-choice reasoning trace, in Social Genome's format: the cue's modality, the
    text, whether it uses external knowledge (what a cue usually means, not something seen or heard), and
    the evidence ids it cites (none for ``n/a`` steps)."""

    modality: TraceModality
    text: str = Field(min_length=1)
    external_knowledge: bool = False
    evidence_ids: list[str] = Field(default_factory=list)


class OptionChoice(BaseModel):
    """The option chooser's output: the chosen option's 0-based index and the reasoning trace."""

    option: int = Field(ge=0)
    steps: list[ReasoningStep] = Field(min_length=1)


class Choice(OptionChoice):
    """A multiple-choice answer (``Answer.choice``): the chosen option's index and text, and the trace."""

    text: str


class TraceStep(BaseModel):
    """One graph step as it ran: the node, when it finished (s since the graph started) and what it decided."""

    node: str
    elapsed_s: float
    decision: str


def persons_text(persons) -> str:
    """Person ids in words, in order: "person 3, person 4" ("" for none)."""
    return ", ".join(f"person {p}" for p in sorted(persons))


class PersonGrounding(BaseModel):
    """One phrase of the question resolved to people of the video."""

    phrase: str = Field(description="the question's words for them, as the intent names them (tools.signals.lexicon)")
    persons: list[int] = Field(description="person ids (TrackSummary.person); empty: unresolved")
    rule: str = Field(description="speaking | group | appearance | only_person | position | vision | unresolved")
    confidence: float = Field(ge=0, le=1)
    detail: str = Field(description="what the rule saw, in words")
    thumbnails: list[str] = Field(default_factory=list, description="a face crop per person (path relative to the "
                                  "index directory)")

    @property
    def who(self) -> str:
        """The people it resolved to in words ("person 3, person 4"), or "unresolved"."""
        return persons_text(self.persons) or "unresolved"


class Answer(BaseModel):
    """The full answer to one query on one video (the ``--json`` output)."""

    video: str
    query: str
    duration_s: float
    intent: Intent
    people: list[PersonGrounding] = Field(default_factory=list, description="the people the question names, "
                                          "grounded in the video (agents.grounding)")
    labels: str = Field("AffectNet-8", description="the label set of the moments' emotion (--labels)")
    window: tuple[float, float] | None = Field(None, description="the part of the video the question names ('in the "
                                               "last ten minutes'), start and end in seconds: only clips whose middle "
                                               "lies in it are searched, and each moment is cut to it (at least "
                                               "1 s kept); None: the whole video (tools.signals.time_words)")
    moments: list[Moment]
    options: list[str] = Field(default_factory=list, description="answer options of a multiple-choice question "
                               "(--options); empty for a moment query")
    choice: Choice | None = Field(None, description="the chosen option and its reasoning trace (with --options)")
    message: str = Field(description="plain-language status, e.g. 'no matching moment'")
    warnings: list[str] = Field(default_factory=list, description="what the tools could not do on this video")
    rounds: int = Field(description="localization rounds run (1 + re-queries)")
    candidates_considered: int
    candidates_rejected: int
    llm: str
    llm_fallbacks: list[str] = Field(default_factory=list, description="roles that fell back to the offline reasoner")
    llm_usage: dict[str, float] = Field(default_factory=dict, description="with --llm: completions, image parts "
                                        "sent and litellm's cost estimate in USD (calls, images, cost_usd)")
    embedder: str
    models: dict[str, str]
    index: dict[str, object] = Field(description="cache dir, whether it was built now, config key")
    timings_s: dict[str, float]
    trace: list[TraceStep] = Field(default_factory=list, description="the graph's steps, in order")
