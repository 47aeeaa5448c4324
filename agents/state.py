"""The graph's typed state and the run context every node receives.

State keys that several rounds append to carry an ``operator.add`` reducer. Heavy objects (the
video index, the LLM) travel in ``RunContext``, the graph's ``context_schema``: LangGraph hands it to
each node as ``runtime.context`` (``langgraph.runtime.Runtime``), never through state.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.fusion import read_fusion
from agents.llm import LLM
from agents.schema import Intent, Moment, MomentDraft, OptionChoice, PersonGrounding, Proposal, VerifiedCandidate
from agents.taxonomy import resolve_labels
from memory.store import VideoIndex

#: Field metadata (``json_schema_extra``) read by ``graphs.flags``: the ``--help`` group of a setting's flag.
_VERIFICATION = {"group": "verification"}
_SEARCH = {"group": "search"}


class RunSettings(BaseModel):
    """Search and verification knobs, each declared here once: ``graphs.settings.Settings`` takes these fields as
    they are, so each is also an ``AFFECTSEEK_<FIELD>`` variable, a config-file key and a flag (``graphs.flags``)."""

    model_config = ConfigDict(frozen=True)

    top_k: int = Field(5, ge=1, le=100, description="moments to return at most")
    candidates_per_round: int = Field(8, ge=1, le=100, json_schema_extra=_SEARCH,
                                      description="clips the localizer proposes per round")
    verify_fps: float = Field(4.0, gt=0, le=30, json_schema_extra=_VERIFICATION,
                              description="frame rate of the verifier on candidates")
    dense_per_round: int = Field(3, ge=1, le=100, json_schema_extra=_VERIFICATION, description=(
        "candidates per round read at --verify-fps (every question but one whose support is a gesture): the round's candidates are first "
        "read on the index's own frames (1 fps, nothing observed); the best supported ones, and any that reach "
        "--min-support there (up to --top-k in all), are read again densely; "
        "the others keep the index's reading, which rejects those below --min-support (agents.verifier.triage)"))
    min_support: float = Field(0.3, ge=0, le=1, json_schema_extra=_VERIFICATION,
                               description="reject candidates scoring below this (0-1)")
    min_accepted: int = Field(1, ge=0, le=100, json_schema_extra=_VERIFICATION,
                              description="fewer surviving candidates than this trigger a re-query round")
    max_requery: int = Field(2, ge=0, le=10, json_schema_extra=_VERIFICATION,
                             description="re-query rounds when too few candidates survive")
    affect_weight: float = Field(1.0, ge=0, le=100, json_schema_extra=_SEARCH, description=(
        "weight of perceived affect (faces, voice) against text retrieval in the localizer's ranking "
        "(agents.localizer.affect_scores; 0: retrieval only)"))
    own_baseline: bool = Field(True, json_schema_extra={**_SEARCH, "flag": "--no-own-baseline", "off": True},
                               description=(
        "score and name a face by how far it departs from its person's own usual reading where that person was seen "
        "long enough for one (20 index frames for the score, tools.signals.timeline.baseline_shifts; 12 to name it, "
        "departure_reading); --no-own-baseline: by the reading as it is"))
    abstain_below: float = Field(0.0, ge=0, le=1, json_schema_extra=_VERIFICATION, description=(
        "return no moment whose support is below this (0-1; 0: when no candidate reaches --min-support the best "
        "ones are returned and the answer says support is weak)"))
    fusion: str = Field("fitted", json_schema_extra={**_VERIFICATION, "metavar": "fitted|hand|FILE"}, description=(
        "the offline judge's fusion (agents.fusion.resolve_fusion): fitted (agents/fusion.json, fitted on the dev "
        "split), hand (the earlier hand-set weights, uncalibrated) or a fusion JSON file"))
    labels: str = Field("AffectNet-8", json_schema_extra={**_VERIFICATION, "metavar": "NAME|FILE"}, description=(
        "label set of the answer's emotions: AffectNet-8, VQAU-13, Ekman-6, MER-6, or a taxonomy .json (format: "
        "agents/taxonomies/). Faces and voices are read in AffectNet-8 and named in this set; the query's words "
        "choose among labels a face cannot tell apart (e.g. Joy, Love, Pride)"))
    llm_images: int = Field(0, ge=0, le=8, json_schema_extra={"metavar": "N"}, description=(
        "with a vision --llm (e.g. openai/gpt-4o-mini, ollama/llava): show it N images per judged moment, the middle "
        "frame then face crops (longer side <= 512 / 224 px), and one face per person (N people at most) to ground "
        "people named by appearance ('the woman in red'); 0: none; the answer's llm_usage counts images and cost"))

    @field_validator("labels")
    @classmethod
    def _known_labels(cls, v: str) -> str:
        return resolve_labels(v)  # a TaxonomyError is a ValueError

    @field_validator("fusion")
    @classmethod
    def _known_fusion(cls, v: str) -> str:
        if v in ("fitted", "hand"):
            return v
        if not Path(v).is_file():
            raise ValueError(f"{v!r}: use fitted, hand or a fusion JSON file")
        read_fusion(v)  # its ValueError says what is wrong with the file in one line
        return v


@dataclass
class RunContext:
    """What nodes need besides state: the loaded index, the LLM, settings, and tool-call counters."""

    index: VideoIndex
    llm: LLM
    settings: RunSettings = field(default_factory=RunSettings)
    tool_calls: dict[str, int] = field(default_factory=dict)

    def count(self, tool: str, n: int = 1) -> None:
        """Add ``n`` calls of ``tool`` to the run's cost counters."""
        self.tool_calls[tool] = self.tool_calls.get(tool, 0) + n


class AffectState(TypedDict, total=False):
    """State of one query through the roles."""

    query: str
    intent: Intent
    window: tuple[float, float] | None  # the part of the video the question names, seconds (tools.signals.time_words)
    people: list[PersonGrounding]
    search_text: str
    round: int
    candidates: Annotated[list[Proposal], operator.add]
    verified: Annotated[list[VerifiedCandidate], operator.add]
    requery: bool
    drafts: list[MomentDraft]
    weak: bool
    moments: list[Moment]
    options: list[str]
    choice: OptionChoice
