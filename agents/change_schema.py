"""Schemas of questions about a change of feeling (EmoTrans's transition questions, seed 003): what the
question asks (``ChangeAsk``), what the verifier measured on either side of a change (``ChangeObservations``)
and the change an answer names (``MomentChange``). The logic is ``agents.change``'s. Times are seconds.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tools.core.schema import Emotion


class ChangeAsk(BaseModel):
    """A question about a change of feeling ("when does her mood change?", "when does he go from calm to
    angry?", "how does she feel after he leaves?"): the emotions it names before and after the change, most likely
    first (empty: any)."""

    before: list[Emotion] = Field(default_factory=list, description="AffectNet-8 emotions before the change")
    after: list[Emotion] = Field(default_factory=list, description="AffectNet-8 emotions after the change")
    first: bool = Field(False, description=(
        "the question asks what the person feels next ('what does he feel next?'): the earliest change of feeling "
        "answers it, not the largest"))
    departure: bool = Field(False, description=(
        "the question asks how someone feels after another person leaves ('how does she feel after he leaves?'): "
        "the point is that departure, not a change of the person's own reading"))


class ChangeObservations(BaseModel):
    """One person's faces on either side of a change point, as the verifier read them at its frame rate:
    the mean AffectNet-8 distribution and the number of faces on each side, and how far the two means are
    apart (total variation, 0..1). Empty for a candidate that is not a change point."""

    t_s: float | None = None
    person: int | None = None
    before: dict[str, float] = Field(default_factory=dict)
    after: dict[str, float] = Field(default_factory=dict)
    n_before: int = 0
    n_after: int = 0
    magnitude: float | None = None
    left: int | None = Field(None, description="for a departure: the person who left the picture at t_s")


class MomentChange(BaseModel):
    """The change an answer's moment names: when, whose, and the emotion before and after it."""

    t_s: float = Field(description="the change point, seconds")
    person: int | None = Field(None, description="whose face changed (TrackSummary.person)")
    before: Emotion
    after: Emotion
    magnitude: float = Field(ge=0.0, le=1.0, description="total variation between the two sides' mean readings")
    left: int | None = Field(None, description="the person whose leaving the picture the change point is, for a "
                                               "question about a feeling after someone leaves")
