"""Evidence readers: one per modality, one protocol, run by the verifier on each candidate.

A reader looks at one candidate (``CandidateView``: the frames the verifier observed there, the index, the
question) and returns a ``Reading``: the ``Evidence`` the rationale may cite, the support it gives the question in
[0, 1], and its typed observations, a section of ``agents.observations.Observations`` (``Reader.section``; readers that
share a section each set their own fields of it). The verifier (``agents.verifier``) runs ``READERS`` in order; a
candidate's support is the largest weighted support, ``max_r weight_r(intent) * support_r``.

Adding a modality is one reader here, built on its evidence builder (``agents.evidence``), and its weight:
``SoundReader`` is the smallest, citing the clip's music or noise (``tools.perception.sound``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from pydantic import BaseModel

from agents.behaviour_evidence import asks_for, behaviour_expression, behaviour_match, gesture_evidence, social_evidence
from agents.evidence import face_evidence, speech_evidence, text_matches, vocal_evidence, voice_emotion_evidence
from agents.observations import BehaviourObservations, Observations, VerbalObservations, VocalObservations
from agents.schema import Evidence, Intent, Proposal, new_items
from agents.state import RunContext
from tools.perception.engine import FrameObservation
from tools.perception.sound import describe_sound
from tools.signals.gaze_words import asked_look, says_throughout
from tools.signals.lexicon import names_behaviour
from tools.signals.open_feeling import placed_by_nothing
from tools.signals.social import SocialFrame

#: Weight of a reader's support when the intent does not ask for its kind of evidence (words, gestures or gaze).
WEIGHT_NOT_ASKED = 0.6


@dataclass(frozen=True)
class CandidateView:
    """What every reader sees of one candidate.

    ``stored``: the verifier's frame observations with the cache file each is stored in; ``frames``: the same as
    social records (tracks, gaze, pointing); ``tools``: the tool names ``indexing.observe.observe_span`` gives
    (``face``, ``social``); ``step``: the frame interval (s, 1 / verify fps); ``texts``: the question and the
    search text; ``persons``: the question's grounded people (``agents.grounding``); ``others``: set when only
    people other than them speak in the candidate (their names), so its words and voice are not theirs; ``options``: a
    multiple-choice question's answer options (``agents.choice``).
    """

    ctx: RunContext
    cand: Proposal
    intent: Intent
    texts: list[str]
    stored: list[tuple[FrameObservation, Path]]
    frames: list[SocialFrame]
    tools: dict[str, str]
    step: float
    persons: set[int]
    others: str | None = None
    options: tuple[str, ...] = ()

    @property
    def question(self) -> str:
        """The question asked (the first of ``texts``; "" for a view without texts)."""
        return self.texts[0] if self.texts else ""

    @property
    def targets(self) -> list[str]:
        """The asked AffectNet-8 emotions (empty for a question that names none)."""
        return list(self.intent.target_emotions)


class Reading(NamedTuple):
    """One reader's result on one candidate: cited evidence, support in [0, 1], observations (or None)."""

    evidence: list[Evidence]
    support: float
    observations: BaseModel | None


class Reader(Protocol):
    """A modality's reader: ``read`` a candidate; ``weight`` of its support for an intent (0: evidence only)."""

    section: str  #: the ``Observations`` field its observations set

    def read(self, view: CandidateView) -> Reading: ...

    def weight(self, intent: Intent) -> float: ...


class FaceReader:
    """Facial expression (visual): the target emotions' probability over the faces, or any feeling's for a question
    asking which one someone shows (``face_evidence``) that places it by no gesture and no words (``any_feeling``)."""

    section = "visual"

    def read(self, view: CandidateView) -> Reading:
        return Reading(*face_evidence(view.ctx.index, view.cand, view.stored, view.tools["face"], view.targets,
                                      view.step, view.persons, view.ctx.settings.own_baseline, any_feeling(view)))

    def weight(self, intent: Intent) -> float:
        return 1.0


def feeling_only(intent: Intent, question: str) -> bool:
    """Whether ``question`` (read as ``intent``) asks which feeling someone shows (``Intent.asks_feeling``: "how is the
    audience feeling?"), names none and says no gesture, look or speech to place it by
    (``tools.signals.open_feeling.placed_by_nothing``): then the faces support a candidate by any feeling they show
    (``any_feeling``) and the judge spans it from the feeling's onset to its offset (``agents.emotion``). Where it
    says one ("what emotion does he show when he points?") that sets the moment, as for any question that names no
    feeling; the feeling shown is the answer, not where to look."""
    return intent.asks_feeling and not intent.target_emotions and placed_by_nothing(question)


def any_feeling(view: CandidateView) -> bool:
    """``feeling_only`` of the view's question: whether the faces support the candidate by any feeling they show."""
    return feeling_only(view.intent, view.question)


def bears_on_look_away(option: str) -> bool:
    """Whether a look away from the camera bears on answer ``option``: it asks for one, or says a look at the camera
    holds all along (``tools.signals.gaze_words.says_throughout``), which one rules out (``agents.choice``)."""
    asked = asked_look(option)
    return asks_for(asked, "away", "camera") or asks_for(asked, "toward", "camera") and says_throughout(option)


class BehaviourReader:
    """Gestures and social events (visual); support only for a question that names no emotion and asks for no
    feeling without naming a gesture or look ("how does she feel?": ``Intent.asks_feeling``): how well their texts
    match it (``behaviour_match``), for a feeling gestures are evidence but not support."""

    section = "behaviour"

    def read(self, view: CandidateView) -> Reading:
        index, tool = view.ctx.index, view.tools["social"]
        evidence = gesture_evidence(index, view.cand, view.stored, tool, view.step)
        asked_away = asks_for(asked_look(view.question), "away", "camera")
        evidence += social_evidence(index, view.cand, view.stored, view.frames, tool, view.step,
                                    away_from_camera=asked_away or any(map(bears_on_look_away, view.options)))
        if view.targets or view.intent.asks_feeling and not names_behaviour(view.question):
            return Reading(evidence, 0.0, None)
        # a look away cited for the options alone is no support for the question (section 173's crowd shots)
        support, obs = behaviour_match(index, view.texts, evidence if asked_away else [
            e for e in evidence if not (e.look == "away" and e.look_target == "camera")])
        if obs.evidence_id is not None:  # the faces around what matches best: what the moment's label is read from
            event = next(e for e in evidence if e.id == obs.evidence_id)
            faces, shown = behaviour_expression(index, view.cand, view.stored, event, view.persons,
                                                view.tools["face"], view.step)
            evidence += faces
            obs = BehaviourObservations(**obs.model_dump(exclude_unset=True),
                                        **({"expression_mean": shown} if shown else {}))
        return Reading(evidence, support, obs)

    def weight(self, intent: Intent) -> float:
        return 1.0 if {"gesture", "gaze"} & set(intent.cues) else WEIGHT_NOT_ASKED


class WordsReader:
    """What was said (verbal): the words' match to the question and their emotion (``speech_evidence``)."""

    section = "verbal"

    def read(self, view: CandidateView) -> Reading:
        if view.others:
            return Reading([], 0.0, VerbalObservations(speakers=view.others))
        return Reading(*speech_evidence(view.ctx, view.cand, view.texts, view.frames))

    def weight(self, intent: Intent) -> float:
        return 1.0 if "speech" in intent.cues else WEIGHT_NOT_ASKED


class VoiceReader:
    """The voice's emotion (vocal): the target emotions' probability in the clip's voice."""

    section = "vocal"

    def read(self, view: CandidateView) -> Reading:
        if view.others:
            return Reading([], 0.0, VocalObservations(speakers=view.others))
        return Reading(*voice_emotion_evidence(view.ctx.index, view.cand, view.targets))

    def weight(self, intent: Intent) -> float:
        return 1.0


class ProsodyReader:
    """Loudness, speech rate and pitch of each utterance (vocal): evidence and observations, no support."""

    section = "vocal"

    def read(self, view: CandidateView) -> Reading:
        if view.others:
            return Reading([], 0.0, None)
        evidence, prosody = vocal_evidence(view.ctx.index, view.cand)
        return Reading(evidence, 0.0, VocalObservations(prosody=prosody))

    def weight(self, intent: Intent) -> float:
        return 0.0


class SoundReader:
    """The clip's sound beyond words (vocal): music or noise (applause, a crowd) and whether it swells or fades,
    cited from the index (``Clip.sound``); for a question that names no emotion ("right before the music
    swells"), its support is how well those words match the question (``agents.evidence.text_matches``)."""

    section = ""  # evidence only: the judge reads no observations of it

    def read(self, view: CandidateView) -> Reading:
        index = view.ctx.index
        clip = index.clip_by_id.get(view.cand.clip_id)
        heard = describe_sound(clip.sound) if clip is not None else None
        if heard is None:
            return Reading([], 0.0, None)
        ev = Evidence(id=f"{view.cand.clip_id}.n", modality="vocal", tool="sound", start_s=clip.start_s,
                      end_s=clip.end_s, detail=f"{heard} ({clip.sound.loudness_dbfs:.0f} dBFS, "
                                               f"{clip.sound.change_db:+.0f} dB over the clip)",
                      ref=index.ref("clips.json", clip.id))
        if view.targets:
            return Reading([ev], 0.0, None)
        return Reading([ev], text_matches(index, view.texts, [heard])[0], None)

    def weight(self, intent: Intent) -> float:
        return WEIGHT_NOT_ASKED


#: The readers the verifier runs, in the order their evidence is cited.
READERS: tuple[Reader, ...] = (FaceReader(), BehaviourReader(), WordsReader(), VoiceReader(), ProsodyReader(),
                               SoundReader())


class CandidateReading(NamedTuple):
    """All readers' result on one candidate: their evidence in order, the support (the largest weighted support),
    each reader's unweighted support by class name, and the observations their readings set."""

    evidence: list[Evidence]
    support: float
    supports: dict[str, float]
    observations: Observations


def read_candidate(view: CandidateView, readers: tuple[Reader, ...] = READERS) -> CandidateReading:
    """Run ``readers`` on one candidate (see the module doc); an item that says what an earlier one says of the same
    record (``agents.schema.new_items``: the face around a gesture that the face reader cites too) is left out."""
    evidence, support, supports, sections = [], 0.0, {}, {}
    for reader in readers:
        reading = reader.read(view)
        evidence += new_items(evidence, reading.evidence)
        supports[type(reader).__name__] = reading.support
        support = max(support, reader.weight(view.intent) * reading.support)
        if reading.observations is not None:
            seen = sections.get(reader.section)
            sections[reader.section] = reading.observations if seen is None else type(seen).model_validate(
                {**seen.model_dump(exclude_unset=True), **reading.observations.model_dump(exclude_unset=True)})
    return CandidateReading(evidence, support, supports, Observations(**sections))
