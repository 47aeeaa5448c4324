"""The graph's typed state and the run context every node receives.

State keys that several rounds append to carry an ``operator.add`` reducer. Heavy objects (the
video index, the LLM) travel in ``RunContext`` under ``config["configurable"]["ctx"]``, not in state.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableConfig

from agents.llm import LLM
from agents.schema import Candidate, Intent, Moment
from memory.indexer import VideoIndex


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
    """

    top_k: int = 5
    candidates_per_round: int = 8
    verify_fps: float = 4.0
    min_support: float = 0.3
    min_accepted: int = 1
    max_requery: int = 2
    affect_weight: float = 1.0
    abstain_below: float = 0.0


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


def get_ctx(config: RunnableConfig) -> RunContext:
    """The run's ``RunContext``.

    Programs pass one in ``config["configurable"]["ctx"]``. Tools that can only send plain values
    (LangGraph Studio / ``langgraph dev``) pass ``{"video": PATH, "llm": "offline", "cache_dir": DIR}``
    instead; the context is then built from them once per (video, llm, cache_dir) and reused.

    Raises:
        KeyError: neither ``ctx`` nor ``video`` is configured.
    """
    conf = config.get("configurable", {})
    if "ctx" in conf:
        return conf["ctx"]
    if "video" not in conf:
        raise KeyError('configure "ctx" (a RunContext) or "video" (a path) under config["configurable"]')
    return _ctx_from_values(str(conf["video"]), str(conf.get("llm", "offline")), conf.get("cache_dir"))


@functools.lru_cache(maxsize=8)
def _ctx_from_values(video: str, llm: str, cache_dir: str | None) -> RunContext:
    from agents.llm import load_llm
    from memory.indexer import IndexConfig, open_index

    return RunContext(index=open_index(video, IndexConfig(), cache_dir), llm=load_llm(llm))


class AffectState(TypedDict, total=False):
    """State of one query through the five roles."""

    query: str
    intent: Intent
    search_text: str
    round: int
    candidates: Annotated[list[Candidate], operator.add]
    verified: Annotated[list[Candidate], operator.add]
    requery: bool
    drafts: list[dict]
    weak: bool
    moments: list[Moment]
