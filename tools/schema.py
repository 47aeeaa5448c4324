"""Typed records that the perception tools return.

Every layer above (memory, agents, graphs) imports these; this module imports nothing of the project.
Times are seconds from the start of the video; boxes are normalized image coordinates in [0, 1]
(x0, y0 at the top-left corner).
"""

from __future__ import annotations

from typing import Literal

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
    track_id: int | None = Field(None, description="person track this face belongs to (tools.tracks)")

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
    """A recognised segment that failed the hallucination guards (``tools.transcript.screen_segments``): kept for
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
