"""One call from a video and a query to an ``Answer``: open (or build) the index, run the graph."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from agents.llm import FallbackLLM, load_llm
from agents.schema import Answer, TraceStep
from agents.state import RunContext, RunSettings
from graphs.affect_graph import build_graph
from memory.indexer import IndexConfig, open_index
from memory.video import video_warnings
from tools.asr import transcript_warnings

MAX_QUERY_CHARS = 2000
"""Longest question accepted (characters); the text encoder reads only its first 256 tokens anyway."""


class QueryError(ValueError):
    """The query is unusable (empty, only whitespace, or longer than ``MAX_QUERY_CHARS``)."""


def answer_query(video: str | os.PathLike, query: str, index_config: IndexConfig | None = None,
                 settings: RunSettings | None = None, llm: str = "offline", cache_dir: str | None = None,
                 progress=None, llm_kwargs: dict | None = None,
                 on_step: Callable[[TraceStep], None] | None = None,
                 report: str | os.PathLike | None = None) -> Answer:
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
        on_step: called with each graph step as it finishes (LangGraph streaming); all steps are
            also returned in ``Answer.trace``.
        report: write the self-contained HTML report (``graphs.report``) here.

    Raises:
        QueryError: empty query, or one longer than ``MAX_QUERY_CHARS``.
        memory.video.VideoError: unusable video.
    """
    if not query or not query.strip():
        raise QueryError("the query is empty: ask a question, e.g. \"when does she feel left out?\"")
    if len(query.strip()) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is {len(query.strip())} characters long; ask in at most {MAX_QUERY_CHARS} "
                         "(one question, e.g. \"when does she feel left out?\")")
    cfg = index_config or IndexConfig()
    settings = settings or RunSettings()
    t0 = time.perf_counter()
    index = open_index(video, cfg, cache_dir, progress)
    t_index = time.perf_counter() - t0
    reasoner = load_llm(llm, **(llm_kwargs or {}))
    ctx = RunContext(index=index, llm=reasoner, settings=settings)
    t1 = time.perf_counter()
    trace: list[TraceStep] = []
    state: dict = {}
    for mode, chunk in build_graph().stream({"query": query.strip()}, config={"configurable": {"ctx": ctx}},
                                            stream_mode=["updates", "values"]):
        if mode == "values":
            state = chunk
            continue
        for node, update in chunk.items():
            step = TraceStep(node=node, elapsed_s=round(time.perf_counter() - t1, 3), decision=describe_step(node, update))
            trace.append(step)
            if on_step is not None:
                on_step(step)
    t_graph = time.perf_counter() - t1
    verified = state.get("verified", [])
    moments = state.get("moments", [])
    n_rejected = sum(1 for c in verified if not c.accepted)
    if moments and state.get("weak"):
        message = (f"weak support: no candidate reached --min-support {settings.min_support} "
                   f"({n_rejected} checked); the {len(moments)} best-supported moment(s) are shown")
    elif moments:
        message = f"{len(moments)} moment(s) found"
    elif verified and settings.abstain_below > 0:
        message = (f"no moment returned: every candidate's support was below --abstain-below "
                   f"{settings.abstain_below} ({n_rejected} rejected)")
    else:
        message = (f"no matching moment: {n_rejected} candidate clip(s) checked, none had enough support "
                   f"(faces showing {', '.join(state['intent'].target_emotions) or 'the asked emotion'} "
                   "or speech matching the query)")
    timings = {**{f"index_{k}": round(v, 3) for k, v in index.timings_s.items()},
               "index_total": round(t_index, 3), "graph": round(t_graph, 3),
               "total": round(time.perf_counter() - t0, 3)}
    answer = Answer(
        video=str(video), query=query.strip(), duration_s=round(index.info.duration_s, 3), intent=state["intent"],
        moments=moments, message=message, warnings=video_warnings(index.info) + transcript_warnings(index.transcript),
        rounds=state.get("round", 0) + 1, candidates_considered=len(verified),
        candidates_rejected=n_rejected, llm=reasoner.name,
        llm_fallbacks=list(reasoner.fallbacks) if isinstance(reasoner, FallbackLLM) else [],
        embedder=index.manifest["models"]["clip_embedder"],
        models={**index.manifest["models"], "reasoner": reasoner.name},
        index={"dir": str(index.dir), "built_now": index.built_now, "config_key": cfg.key(),
               "tool_calls": dict(ctx.tool_calls)},
        timings_s=timings,
        trace=trace,
    )
    if report is not None:
        from graphs.report import render_report

        render_report(answer, index, report)
    return answer


def describe_step(node: str, update: dict) -> str:
    """One line on what a node decided, from the state keys it returned."""
    if node == "intent_interpreter":
        i = update["intent"]
        return f"emotions={i.target_emotions or ['any']} people={i.people} cues={i.cues}"
    if node == "candidate_localizer":
        cands = update.get("candidates", [])
        return f"{len(cands)} candidates: " + ", ".join(
            f"{c.clip_id} {c.start_s:.1f}-{c.end_s:.1f}s ({c.source} {c.retrieval_score:.2f})" for c in cands)
    if node == "verifier":
        ver = update.get("verified", [])
        kept = [c.clip_id for c in ver if c.accepted]
        rejected = [f"{c.clip_id}: {c.reject_reason}" for c in ver if not c.accepted]
        text = f"accepted {kept or 'none'}; rejected {len(rejected)}" + (f" ({'; '.join(rejected)})" if rejected else "")
        if update.get("requery"):
            text += f"; re-query round {update['round']}: {update['search_text']!r}"
        return text
    if node == "emotion_reasoner":
        return "; ".join(f"{d['emotion']} {d['confidence']:.2f} {d['start_s']:.1f}-{d['end_s']:.1f}s"
                         for d in update.get("drafts", [])) or "no accepted candidate"
    if node == "rationale_writer":
        return f"{len(update.get('moments', []))} rationale(s) written"
    return ", ".join(sorted(update))
