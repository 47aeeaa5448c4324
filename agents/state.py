"""The graph's typed state and the run context every node receives.

State keys that several rounds append to carry an ``operator.add`` reducer. Heavy objects (the
video index, the LLM) travel in ``RunContext``, the graph's ``context_schema``: LangGraph hands it to
each node as ``runtime.context`` (``langgraph.runtime.Runtime``), never through state.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, TypedDict

from agents.llm import LLM
from agents.schema import Intent, Moment, MomentDraft, OptionChoice, PersonGrounding, Proposal, VerifiedCandidate
from memory.store import VideoIndex


@dataclass(frozen=True)
class RunSettings:
    """Search and verification knobs.

    - ``top_k``: moments returned at most.
    - ``candidates_per_round``: clips the localizer proposes per round.
    - ``verify_fps``: frame rate of the verifier's face/expression pass on candidate clips.
    - ``min_support``: verifier score in [0, 1] below which a candidate is rejected.
    - ``min_accepted``: fewer surviving candidates than this trigger a re-query ...
    - ``max_requery``: ... at most this many times.
    - ``affect_weight``: weight of perceived affect (faces, voice) against text retrieval in the
      localizer's ranking (``agents.localizer.affect_scores``; 0 = retrieval only).
    - ``abstain_below``: moments whose verifier support is below this are not returned (0: never
      abstain; when no candidate reaches ``min_support`` the best ones are returned as weak).
    - ``fusion``: the offline judge's fusion (``agents.emotion.resolve_fusion``): ``fitted`` (the
      weights and calibration fitted on the dev split, ``agents/fusion.json``), ``hand`` (the earlier
      hand-set weights, uncalibrated) or the path of a fusion JSON.
    - ``llm_images``: images (a keyframe, face crops; ``agents.vision``) the emotion reasoner shows a
      vision LLM per candidate; 0 = none. The offline reasoner reads no images.
    - ``labels``: the answer's label set (``agents.taxonomy.load_taxonomy``): ``AffectNet-8``,
      ``VQAU-13``, ``Ekman-6``, ``MER-6`` or a taxonomy JSON file.
    """

    top_k: int = 5
    candidates_per_round: int = 8
    verify_fps: float = 4.0
    min_support: float = 0.3
    min_accepted: int = 1
    max_requery: int = 2
    affect_weight: float = 1.0
    abstain_below: float = 0.0
    fusion: str = "fitted"
    labels: str = "AffectNet-8"
    llm_images: int = 0


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
