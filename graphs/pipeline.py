"""One call from a video and a query to an ``Answer``: open (or build) the index, run the graph."""

from __future__ import annotations

import os
import time

from agents.llm import FallbackLLM, load_llm
from agents.schema import Answer
from agents.state import RunContext, RunSettings
from graphs.affect_graph import build_graph
from memory.indexer import IndexConfig, open_index


class QueryError(ValueError):
    """The query is unusable (empty or only whitespace)."""


def answer_query(video: str | os.PathLike, query: str, index_config: IndexConfig | None = None,
                 settings: RunSettings | None = None, llm: str = "offline", cache_dir: str | None = None,
                 progress=None, llm_kwargs: dict | None = None) -> Answer:
    """Answer ``query`` about ``video``.

    Args:
        video: path of a video file with an audio track (or ``index_config.use_audio=False``).
        query: the question, in any wording.
        index_config: how to index (clip length/stride, frame rate, models); defaults offline.
        settings: search and verification knobs.
        llm: ``offline`` or a litellm model id (falls back to offline per role on failure).
        cache_dir: cache root; default ``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``.
        progress: a ``rich.progress.Progress`` for indexing stages, or None.
        llm_kwargs: extra arguments for ``litellm.completion``.

    Raises:
        QueryError: empty query.
        memory.video.VideoError: unusable video.
    """
    if not query or not query.strip():
        raise QueryError("the query is empty: ask a question, e.g. \"when does she feel left out?\"")
    cfg = index_config or IndexConfig()
    settings = settings or RunSettings()
    t0 = time.perf_counter()
    index = open_index(video, cfg, cache_dir, progress)
    t_index = time.perf_counter() - t0
    reasoner = load_llm(llm, **(llm_kwargs or {}))
    ctx = RunContext(index=index, llm=reasoner, settings=settings)
    t1 = time.perf_counter()
    state = build_graph().invoke({"query": query.strip()}, config={"configurable": {"ctx": ctx}})
    t_graph = time.perf_counter() - t1
    verified = state.get("verified", [])
    moments = state.get("moments", [])
    n_rejected = sum(1 for c in verified if not c.accepted)
    if moments:
        message = f"{len(moments)} moment(s) found"
    else:
        message = (f"no matching moment: {n_rejected} candidate clip(s) checked, none had enough support "
                   f"(faces showing {', '.join(state['intent'].target_emotions) or 'the asked emotion'} "
                   "or speech matching the query)")
    timings = {**{f"index_{k}": round(v, 3) for k, v in index.timings_s.items()},
               "index_total": round(t_index, 3), "graph": round(t_graph, 3),
               "total": round(time.perf_counter() - t0, 3)}
    return Answer(
        video=str(video), query=query.strip(), duration_s=round(index.info.duration_s, 3), intent=state["intent"],
        moments=moments, message=message, rounds=state.get("round", 0) + 1, candidates_considered=len(verified),
        candidates_rejected=n_rejected, llm=reasoner.name,
        llm_fallbacks=list(reasoner.fallbacks) if isinstance(reasoner, FallbackLLM) else [],
        embedder=index.manifest["models"]["clip_embedder"],
        models={**index.manifest["models"], "reasoner": reasoner.name},
        index={"dir": str(index.dir), "built_now": index.built_now, "config_key": cfg.key(),
               "tool_calls": dict(ctx.tool_calls)},
        timings_s=timings,
    )
