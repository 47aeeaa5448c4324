"""The verifier's typed observations of one candidate, by modality (``Observations``): what the emotion reasoner
reads (``agents.emotion``) and a hosted model gets as JSON (``Observations.judge_view``). Times are seconds, image
positions normalized coordinates; expression and voice distributions are over AffectNet-8.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agents.change_schema import ChangeObservations


class FaceReading(BaseModel):
    """One face the verifier read: time (s), its most probable AffectNet-8 label and that probability, and whose face
    it is (a person id across shots, ``VideoIndex.face_person``; None when no track matches it). Where the person has
    a usual reading the label and probability are those of the face read against it (``agents.evidence.named_faces``,
    ``VisualObservations.departure_mean``)."""

    t: float
    top: str
    p: float
    person: int | None = None


class VisualObservations(BaseModel):
    """What the verifier's faces showed in a candidate: the mean AffectNet-8 distribution over its faces
    (of the grounded people when the question names some), the same against each person's usual reading where a face's
    person has one (``departure_mean``), the most faces in one frame, the frame interval (s), each face's top label,
    and where each label shows (``shown_s``). Empty when no face was read."""

    expression_mean: dict[str, float] = Field(default_factory=dict)
    departure_mean: dict[str, float] = Field(default_factory=dict, description=(
        "AffectNet-8 mean over the same faces read against each one's person's usual reading "
        "(memory.store.VideoIndex.departure; a face whose person has none as read); empty when no face's person has "
        "one. The judge names the faces by it; frames and shown_s are then its too"))
    n_faces: int = 0
    frame_step_s: float | None = None
    frames: list[FaceReading] = Field(default_factory=list)
    shown_s: dict[str, list[float]] = Field(default_factory=dict, description=(
        "per label, [start, end] s: its onset to offset, the frames at half its peak or more (stretches.onset_offset)"))


class VerbalObservations(BaseModel):
    """The candidate's words: the sentences said in it (whole transcript segments), the span (s) of its own words, the
    emotion those words read as
    (``tools.perception.text_emotion``) and the match to the question; or, when only people other than the
    question's speak there, who they are (``speakers``) and nothing else."""

    text: str | None = None
    span: list[float] | None = None
    emotion_distribution: dict[str, float] | None = None
    query_similarity: float | None = None
    speakers: str | None = None


class VocalObservations(BaseModel):
    """The candidate's voice: the AffectNet-8 distribution the voice model read over its speech, its
    arousal and valence (Russell's circumplex), the prosody of each overlapping utterance by id; or, as
    for ``VerbalObservations``, only ``speakers``."""

    voice_distribution: dict[str, float] | None = None
    arousal: float | None = None
    valence: float | None = None
    prosody: dict[str, dict] | None = None
    speakers: str | None = None


class BehaviourObservations(BaseModel):
    """The gesture or gaze evidence that best matches a behaviour question: its span (s), id and match, and the mean
    expression of the faces around it (``agents.behaviour_evidence.behaviour_expression``)."""

    span: list[float] | None = None
    evidence_id: str | None = None
    match: float | None = None
    expression_mean: dict[str, float] = Field(default_factory=dict, description=(
        "AffectNet-8 mean over the faces of whoever makes the gesture or look, within a second of it"))


class Observations(BaseModel):
    """The verifier's measurements of one candidate, by modality: what the emotion reasoner reads."""

    visual: VisualObservations = Field(default_factory=VisualObservations)
    verbal: VerbalObservations = Field(default_factory=VerbalObservations)
    vocal: VocalObservations = Field(default_factory=VocalObservations)
    behaviour: BehaviourObservations = Field(default_factory=BehaviourObservations)
    change: ChangeObservations = Field(default_factory=ChangeObservations)

    def about_behaviour(self, targets: list[str]) -> bool:
        """Whether a gesture or look sets the moment of a question that names no feeling (``targets`` empty): the
        one that matches the question best matches it better than the words said (``agents.emotion.offline_judge``
        then reads the span and the faces around it)."""
        b = self.behaviour
        return bool(not targets and b.span and (b.match or 0.0) > (self.verbal.query_similarity or 0.0))

    def judge_view(self) -> dict[str, dict]:
        """The JSON the emotion judge gets (``agents.emotion.judge_inputs``): each modality's fields that the
        verifier set, so a modality it found nothing for is ``{}``."""
        return {name: getattr(self, name).model_dump(exclude_unset=True)
                for name in type(self).model_fields}
