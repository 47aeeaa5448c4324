"""Typed records that the perception tools return.

Every layer above (memory, agents, graphs) imports these; this module imports nothing of the project.
Times are seconds from the start of the video; boxes are normalized image coordinates in [0, 1]
(x0, y0 at the top-left corner).
"""

from __future__ import annotations

import bisect
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError, model_validator

#: AffectNet-8 expression labels in the order of the AffectNet paper (Mollahosseini et al., 2017,
#: "AffectNet: A Database for Facial Expression, Valence, and Arousal Computing in the Wild").
AFFECTNET8: tuple[str, ...] = (
    "neutral",
    "happiness",
    "sadness",
    "surprise",
    "fear",
    "disgust",
    "anger",
    "contempt",
)

Emotion = Literal["neutral", "happiness", "sadness", "surprise", "fear", "disgust", "anger", "contempt"]
Modality = Literal["visual", "verbal", "vocal"]


def first_error(exc: ValidationError, whole: str) -> tuple[str, str]:
    """(where, message) of a pydantic error's first problem: the dotted field path (``whole`` when the
    problem is the object itself, e.g. a model validator) and pydantic's message."""
    err = exc.errors()[0]
    return ".".join(str(x) for x in err["loc"]) or whole, err["msg"]


class TimeSpan(BaseModel):
    """A non-empty span of the video in seconds: 0 <= start_s < end_s."""

    start_s: float = Field(ge=0.0)
    end_s: float

    @model_validator(mode="after")
    def _ordered(self):
        if not self.end_s > self.start_s:
            raise ValueError("end_s must be greater than start_s")
        return self


def temporal_iou(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Temporal IoU (tIoU) of spans ``a`` and ``b`` given as (start_s, end_s); 0 for disjoint or empty spans."""
    inter = max(0.0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 and inter > 0 else 0.0


class Box(BaseModel):
    """Axis-aligned box in normalized image coordinates: x0 <= x1, y0 <= y1, all in [0, 1]."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def area(self) -> float:
        """Area as a fraction of the image (0..1)."""
        return max(0.0, self.x1 - self.x0) * max(0.0, self.y1 - self.y0)


class FaceObservation(BaseModel):
    """One face in one sampled frame with its expression distribution.

    ``id`` is unique within the tool output file that stores it, so evidence can cite it as
    ``<file>#<id>``. ``expression`` maps every AffectNet-8 label to a probability (sums to 1).
    """

    id: str
    t: float = Field(description="frame time in seconds")
    box: Box
    det_score: float = Field(ge=0.0, le=1.0)
    expression: dict[str, float]
    track_id: int | None = Field(None, description="person track this face belongs to (tools.signals.tracks)")

    def top(self) -> tuple[str, float]:
        """The most probable AffectNet-8 label and its probability."""
        label = max(self.expression, key=self.expression.__getitem__)
        return label, self.expression[label]


class FrameFaces(BaseModel):
    """All faces found in one sampled frame (possibly none)."""

    t: float
    faces: list[FaceObservation] = Field(default_factory=list)


class Word(BaseModel):
    """One recognised word with its timestamps (seconds) and recogniser confidence."""

    id: str
    text: str
    start_s: float
    end_s: float
    probability: float = Field(ge=0.0, le=1.0)


class TranscriptSegment(BaseModel):
    """One ASR segment: a span of speech with its words."""

    id: str
    start_s: float
    end_s: float
    text: str
    words: list[Word] = Field(default_factory=list)
    translated_from: str | None = Field(None, description="language code of the speech when the text is "
                                        "Whisper's English translation of it (--asr-task translate), not the words spoken")


class RejectedSegment(BaseModel):
    """A recognised segment that failed the hallucination guards (``tools.signals.transcript.screen_segments``): kept for
    inspection only, never used as evidence."""

    start_s: float
    end_s: float
    text: str
    reason: str = Field(description="which guard rejected it, e.g. 'mean word probability 0.41 < 0.55'")


class Transcript(BaseModel):
    """Output of an ASR backend for a whole audio track.

    ``speech_s`` is the speech found by voice activity detection (seconds); ``untranscribed_s`` the part
    of it that no kept segment covers (speech in another language, singing, unreadable speech).
    """

    language: str | None = None
    duration_s: float
    model: str
    segments: list[TranscriptSegment] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what the recogniser could not do, in words")
    speech_s: float = Field(0.0, ge=0.0, description="seconds of detected speech (Silero VAD)")
    speech_regions: list[tuple[float, float]] = Field(
        default_factory=list, description="the speech regions (start, end) in seconds that speech_s sums (Silero VAD)")
    untranscribed_s: float = Field(0.0, ge=0.0, description="seconds of detected speech without a kept segment")
    rejected: list[RejectedSegment] = Field(default_factory=list, description="segments the guards dropped")
    english_only: bool = Field(False, description="the recogniser reads English only")

    def words_between(self, start_s: float, end_s: float) -> list[Word]:
        """Words whose midpoint lies in [start_s, end_s)."""
        return [
            w
            for seg in self.segments
            for w in seg.words
            if start_s <= (w.start_s + w.end_s) / 2 < end_s
        ]


class WordTimes:
    """A transcript's words looked up by time, for a caller that asks of many spans: ``words_between(start_s, end_s)``
    answers as ``Transcript.words_between`` (the words whose midpoint lies in [start_s, end_s), in transcript order),
    found by binary search over the midpoints, sorted once, instead of a pass over every word per span (the index's
    clips of an hour of dialogue: 1,518 spans over 6,082 words, 2.3 s of scanning)."""

    def __init__(self, transcript: Transcript) -> None:
        self._words = [w for seg in transcript.segments for w in seg.words]
        mids = [(w.start_s + w.end_s) / 2 for w in self._words]
        self._order = sorted(range(len(mids)), key=mids.__getitem__)
        self._mids = [mids[i] for i in self._order]

    def words_between(self, start_s: float, end_s: float) -> list[Word]:
        """The words whose midpoint lies in [start_s, end_s) (seconds), in transcript order."""
        lo, hi = bisect.bisect_left(self._mids, start_s), bisect.bisect_left(self._mids, end_s)
        return [self._words[i] for i in sorted(self._order[lo:hi])]


class ProsodyStats(BaseModel):
    """Vocal cues over one span: loudness (dBFS RMS) and speech rate from word timestamps."""

    id: str
    start_s: float
    end_s: float
    rms_dbfs: float = Field(description="RMS level of the span in dB relative to full scale")
    peak_dbfs: float
    speech_rate_wps: float = Field(description="recognised words per second of the span")
    pitch_median_hz: float | None = Field(None, description="median F0 of voiced 40 ms frames (None: unvoiced)")
    pitch_range_st: float | None = Field(None, description="10th-90th percentile F0 range in semitones")


class Gaze(BaseModel):
    """Gaze of one face in one frame (None fields: no face mesh fitted, e.g. a profile face)."""

    id: str = Field("", description="record id, set where the gaze is stored")
    direction: tuple[float, float] | None = Field(None, description="image-plane gaze (x right, y down)")
    looking_at_camera: bool | None = None
    looking_at: int | None = Field(None, description="index of the looked-at face in the frame's list")
    mouth_open: float | None = Field(None, description="inner-lip gap / inter-ocular distance (lip activity)")


class HandObservation(BaseModel):
    """One hand in one frame: gesture class, landmarks of interest (normalized image coordinates)."""

    id: str
    t: float
    handedness: str = Field(description="Left or Right as MediaPipe reports it (mirrored for selfie views)")
    score: float
    gesture: str = Field(description="point, palm, like, dislike, fist, hand_over_mouth, hand_over_face, "
                               "crossed_arms or other")
    extended: list[str]
    wrist: tuple[float, float]
    index_tip: tuple[float, float]
    direction: tuple[float, float] | None = Field(None, description="unit pointing direction (x, y) for point")
    target_box: int | None = Field(None, description="index of the pointed-at face box in the frame's list")


class FrameHands(BaseModel):
    """All hands found in one sampled frame."""

    t: float
    hands: list[HandObservation] = Field(default_factory=list)


#: Classes of the gender head (UTKFace gender 1 = female -> "woman", 0 = male -> "man").
GENDERS = ("woman", "man")
#: Classes of the age head: ages [0, 13), [13, 20), [20, 40), [40, 60), 60 and over (years).
AGE_GROUPS = ("child", "teenager", "young adult", "middle-aged", "older adult")
#: Age groups each age word of a question covers ("the older man": middle-aged or older adult).
AGE_WORDS: dict[str, tuple[str, ...]] = {
    "older": ("middle-aged", "older adult"),
    "young": ("child", "teenager", "young adult"),
    "child": ("child", "teenager"),
}


class Appearance(BaseModel):
    """A person's (or track's) appearance as the heads read it, averaged over their read faces."""

    woman: float = Field(ge=0, le=1, description="probability that annotators would call the face a woman's")
    age: dict[str, float] = Field(description="probability of each of AGE_GROUPS")
    faces: int = Field(ge=1, description="face descriptors read")

    def p_gender(self, gender: str) -> float:
        """Probability of ``gender`` ("woman" or "man")."""
        return self.woman if gender == "woman" else 1.0 - self.woman

    def p_age(self, word: str) -> float:
        """Probability of an ``AGE_WORDS`` word ("older", "young", "child")."""
        return sum(self.age[g] for g in AGE_WORDS[word])

    @property
    def text(self) -> str:
        """In words: "read as a woman (0.93), young adult (0.61)"."""
        gender = "a woman" if self.woman >= 0.5 else "a man"
        group = max(self.age, key=self.age.get)
        return f"read as {gender} ({max(self.woman, 1 - self.woman):.2f}), {group} ({self.age[group]:.2f})"

    @classmethod
    def combine(cls, readings: list[Appearance]) -> Appearance | None:
        """One reading from several (e.g. a person's tracks), weighted by faces read; None for none."""
        if not readings:
            return None
        w = np.asarray([r.faces for r in readings], float)
        return cls(woman=round(float(np.average([r.woman for r in readings], weights=w)), 4),
                   age={g: round(float(np.average([r.age[g] for r in readings], weights=w)), 4) for g in AGE_GROUPS},
                   faces=int(w.sum()))
