"""From a video and a question to an ``Answer``: open (or build) the index once, then ask it questions.

The Python API (encode once, ask many)::

    from graphs.pipeline import ask, open_index
    index = open_index("meeting.mp4")                 # built on first use, then read from the cache
    answer = ask(index, "when does she feel left out?")
    other = ask(index, "when does he point at someone?")   # the same index, not read again

``run_query`` does both for one question (what ``affectseek ask`` runs).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from agents.change import change_warnings
from agents.denied import denied_feelings
from agents.llm import LLM, FallbackLLM, load_llm
from agents.schema import Answer, Choice, Intent, Moment, TraceStep
from agents.state import RunContext, RunSettings
from agents.taxonomy import load_taxonomy
from graphs.affect_graph import compiled_graph, describe_step
from indexing.build import open_index as _open_index
from memory.index_config import IndexConfig
from memory.store import VideoIndex
from tools.core.media import video_warnings
from tools.perception.engine import device_notes
from tools.perception.language import language_notes
from tools.signals.emoji import spelled_out
from tools.signals.time_words import window_warnings
from tools.signals.transcript import transcript_warnings

MAX_QUERY_CHARS = 2000
"""Longest question accepted (characters); the text encoder reads only its first 256 tokens anyway."""
#: Answer options of a multiple-choice question at most (Social-IQ 2.0 has 4, HumanSense up to 5).
MAX_OPTIONS = 10


class QueryError(ValueError):
    """The query is unusable (empty, only whitespace or punctuation, or longer than ``MAX_QUERY_CHARS``)."""


@dataclass
class QueryResult:
    """An answer and the index it was read from (what a report or a later query needs)."""

    answer: Answer
    index: VideoIndex


def check_query(query: str) -> str:
    """The query stripped of surrounding whitespace.

    Raises:
        QueryError: empty query, one of punctuation alone ("?", "!!!", "……": no letter, digit or emoji, which the
            question reader would read as some feeling), or one longer than ``MAX_QUERY_CHARS``.
    """
    if not query or not query.strip():
        raise QueryError("the query is empty: ask a question, e.g. \"when does she feel left out?\"")
    if len(query.strip()) > MAX_QUERY_CHARS:
        raise QueryError(f"the query is {len(query.strip())} characters long; ask in at most {MAX_QUERY_CHARS} "
                         "(one question, e.g. \"when does she feel left out?\")")
    if not re.search(r"[^\W_]", spelled_out(query)):
        raise QueryError("the query has no words: ask a question, e.g. \"when does she feel left out?\"")
    return query.strip()


def check_options(options: list[str] | None) -> list[str]:
    """Answer options stripped of surrounding whitespace (empty: not a multiple-choice question).

    Raises:
        QueryError: fewer than 2 or more than ``MAX_OPTIONS`` options, an empty one, one longer than
            ``MAX_QUERY_CHARS``, or two that read the same (case and spacing aside: the choice between them
            would be a coin toss, and the answer could name either).
    """
    options = [o.strip() for o in options or []]
    if not options:
        return []
    if not 2 <= len(options) <= MAX_OPTIONS:
        raise QueryError(f"--options needs 2 to {MAX_OPTIONS} answer options; got {len(options)}")
    for i, o in enumerate(options):
        if not o or len(o) > MAX_QUERY_CHARS:
            raise QueryError(f"answer option {i + 1} is {'empty' if not o else f'{len(o)} characters long'}; "
                             f"give each option as 1 to {MAX_QUERY_CHARS} characters")
    seen: dict[str, int] = {}
    for i, o in enumerate(options):
        key = " ".join(o.casefold().split())
        if key in seen:
            raise QueryError(f"answer options {seen[key] + 1} and {i + 1} say the same (case and spacing aside); "
                             "give distinct options")
        seen[key] = i
    return options


def run_graph(query: str, ctx: RunContext, on_step: Callable[[TraceStep], None] | None = None,
              options: list[str] | None = None) -> tuple[dict, list[TraceStep]]:
    """Stream the compiled graph on ``query`` (and answer ``options``, for a multiple-choice question) with
    ``ctx``; returns (final state, one trace step per node run)."""
    t0 = time.perf_counter()
    trace: list[TraceStep] = []
    state: dict = {}
    start = {"query": query, **({"options": list(options)} if options else {})}
    for mode, chunk in compiled_graph().stream(start, context=ctx, stream_mode=["updates", "values"]):
        if mode == "values":
            state = chunk
            continue
        for node, update in chunk.items():
            step = TraceStep(node=node, elapsed_s=round(time.perf_counter() - t0, 3), decision=describe_step(node, update))
            trace.append(step)
            if on_step is not None:
                on_step(step)
    return state, trace


def status_message(state: dict, settings: RunSettings) -> str:
    """The answer's plain-language status: how many moments, weak support, abstention or no match; and, where the
    question asks about feelings and no moment is read as one of them, that none is (``unread_feelings``)."""
    verified = state.get("verified", [])
    moments = state.get("moments", [])
    n_rejected = sum(1 for c in verified if not c.accepted)
    if moments and state.get("weak"):
        return (f"weak support: no candidate reached --min-support {settings.min_support} "
                f"({n_rejected} checked); the {len(moments)} best-supported moment(s) are shown"
                + unread_feelings(state["intent"], moments, state["query"]))
    if moments:
        return f"{len(moments)} moment(s) found" + unread_feelings(state["intent"], moments, state["query"])
    if verified and settings.abstain_below > 0:
        return (f"no moment returned: every candidate's support was below --abstain-below "
                f"{settings.abstain_below} ({n_rejected} rejected)")
    intent = state["intent"]
    shown = (f"faces showing {', '.join(intent.target_emotions)}" if intent.target_emotions
             else "faces showing any feeling" if intent.asks_feeling else "a look or gesture")
    return (f"no matching moment: {n_rejected} candidate clip(s) checked, none had enough support "
            f"({shown} or speech matching the query)")


def unread_feelings(intent: Intent, moments: list[Moment], question: str) -> str:
    """``", none read as anger (read as neutral, happiness)"`` when ``question`` (read as ``intent``) asks about
    feelings and no moment of ``moments`` is shown as one of them, else "". The feelings are named in the answer's label
    set: ``Intent.target_labels`` against each ``Moment.emotion`` where the graph set the labels, else
    ``Intent.target_emotions`` against ``Moment.affectnet8``. No clause for a change question (its moments name the
    feelings before and after), an open question ("how does she feel?": its targets are a reader's guess, not what was
    asked) or a question that denies a feeling ("when is nobody happy?": the interpreter's targets are the guessed
    rest; ``agents.denied.denied_feelings``); for the latter, when every moment is read as a feeling it denies,
    ``", but every moment found is read as happiness, which the question asks to be absent"``. Such a moment stands
    where the asked feeling was looked for (a question's words, a voice or a face that supported it) but is shown
    otherwise: on five development benches, answers with no moment named as the bench labels the question put the right
    place first 12 times in 49, against 142 in 202 with one (``evals.summary``'s ``by_label_read``; a proxy, since the
    bench's label stands for the interpreter's reading; ``evals/RESULTS.md`` section 198)."""
    asked = intent.target_labels or intent.target_emotions
    if not asked or intent.change is not None or intent.asks_feeling or not moments:
        return ""
    shown = list(dict.fromkeys(m.emotion if intent.target_labels else m.affectnet8 for m in moments))
    if denied := denied_feelings(question):  # its moments rank last (agents.moments.ranked): say when all are such
        every = all(m.affectnet8 in denied for m in moments)
        return f", but every moment found is read as {' or '.join(shown)}, which the question asks to be absent" \
            if every else ""
    if {a.lower() for a in asked} & {s.lower() for s in shown}:
        return ""
    return f", none read as {' or '.join(asked)} (read as {', '.join(shown)})"


def open_index(video: str | os.PathLike, config: IndexConfig | None = None, cache_dir: str | os.PathLike | None = None,
               progress=None) -> VideoIndex:
    """The index of ``video`` for ``config`` (default ``IndexConfig()``: the offline defaults), built and
    cached on first use, read from the cache after (``indexing.build.open_index``); ask it any number of
    questions with ``ask``.

    Args:
        video: path of a video file (one without an audio track is read from its pictures alone).
        config: how to index (clip length/stride, frame rate, models).
        cache_dir: cache root; default ``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek``.
        progress: a ``rich.progress.Progress`` for indexing stages, or None.

    Raises:
        tools.core.media.VideoError: unusable video.
    """
    return _open_index(video, config or IndexConfig(), cache_dir, progress)


def ask(index: VideoIndex, query: str, settings: RunSettings | None = None, llm: str | LLM = "offline",
        llm_kwargs: dict | None = None, on_step: Callable[[TraceStep], None] | None = None,
        options: list[str] | None = None) -> Answer:
    """Answer ``query`` from an open ``index`` (``open_index``); the index is not read again.

    Args:
        index: the video's index.
        query: the question, in any wording.
        settings: search and verification knobs (default ``RunSettings()``).
        llm: ``offline``, a litellm model id (falls back to offline per role on failure), or an ``LLM``
            already loaded (``agents.llm.load_llm``) to share between questions.
        llm_kwargs: extra arguments for ``litellm.completion`` (when ``llm`` is a model id).
        on_step: called with each graph step as it finishes (LangGraph streaming); all steps are
            also returned in ``Answer.trace``.
        options: answer options of a multiple-choice question: the answer then also holds the chosen
            option and its reasoning trace (``Answer.choice``, ``agents.choice``).

    Raises:
        QueryError: empty query, or one longer than ``MAX_QUERY_CHARS``; options as ``check_options``.
    """
    query = check_query(query)
    options = check_options(options)
    reasoner = load_llm(llm, **(llm_kwargs or {})) if isinstance(llm, str) else llm
    ctx = RunContext(index=index, llm=reasoner, settings=settings or RunSettings())
    t0 = time.perf_counter()
    state, trace = run_graph(query, ctx, on_step, options)
    timings = {**{f"index_{k}": round(v, 3) for k, v in index.timings_s.items()},
               "graph": round(time.perf_counter() - t0, 3)}
    return _answer(index.info.path, query, state, trace, ctx, reasoner, timings)


def run_query(video: str | os.PathLike, query: str, index_config: IndexConfig | None = None,
              settings: RunSettings | None = None, llm: str = "offline", cache_dir: str | None = None,
              progress=None, llm_kwargs: dict | None = None,
              on_step: Callable[[TraceStep], None] | None = None, options: list[str] | None = None) -> QueryResult:
    """Answer one ``query`` about ``video`` (``open_index`` then ``ask``); the answer with the index it
    came from. Arguments as those two take them.

    Raises:
        QueryError: empty query, or one longer than ``MAX_QUERY_CHARS``; options as ``check_options``.
        tools.core.media.VideoError: unusable video.
    """
    query = check_query(query)
    options = check_options(options)
    t0 = time.perf_counter()
    index = open_index(video, index_config, cache_dir, progress)
    t_index = time.perf_counter() - t0
    answer = ask(index, query, settings, llm, llm_kwargs, on_step, options)
    answer.video = str(video)
    graph_s = answer.timings_s.pop("graph")
    answer.timings_s = {**answer.timings_s, "index_total": round(t_index, 3), "graph": graph_s,
                        "total": round(time.perf_counter() - t0, 3)}
    return QueryResult(answer, index)


def _answer(video, query: str, state: dict, trace: list[TraceStep], ctx: RunContext, reasoner: LLM,
            timings: dict[str, float]) -> Answer:
    index = ctx.index
    verified = state.get("verified", [])
    return Answer(
        video=str(video), query=query, duration_s=round(index.info.duration_s, 3), intent=state["intent"],
        people=state.get("people", []),
        labels=load_taxonomy(ctx.settings.labels).name,
        options=state.get("options", []),
        choice=(Choice(**state["choice"].model_dump(), text=state["options"][state["choice"].option])
                if state.get("choice") else None),
        window=state.get("window"), moments=state.get("moments", []), message=status_message(state, ctx.settings),
        warnings=video_warnings(index.info) + transcript_warnings(index.transcript)
        + device_notes(index.config.perception())
        + change_warnings(state["intent"].change, state.get("moments", []), index.events)
        + window_warnings(query, state.get("window"), index.info.duration_s)
        + (language_notes(query) if reasoner.name == "offline" else []),
        rounds=state.get("round", 0) + 1, candidates_considered=len(verified),
        candidates_rejected=sum(1 for c in verified if not c.accepted), llm=reasoner.name,
        llm_fallbacks=list(reasoner.fallbacks) if isinstance(reasoner, FallbackLLM) else [],
        llm_usage=reasoner.usage if isinstance(reasoner, FallbackLLM) else {},
        embedder=index.manifest["models"]["clip_embedder"],
        models={**index.manifest["models"], "reasoner": reasoner.name},
        index={"dir": str(index.dir), "built_now": index.built_now, "config_key": index.config.key(),
               "tool_calls": dict(ctx.tool_calls)},
        timings_s=timings,
        trace=trace,
    )


def answer_query(video: str | os.PathLike, query: str, index_config: IndexConfig | None = None,
                 settings: RunSettings | None = None, llm: str = "offline", cache_dir: str | None = None,
                 progress=None, llm_kwargs: dict | None = None,
                 on_step: Callable[[TraceStep], None] | None = None, options: list[str] | None = None) -> Answer:
    """``run_query(...).answer``: the ``Answer`` alone (same arguments and errors)."""
    return run_query(video, query, index_config, settings, llm, cache_dir, progress, llm_kwargs, on_step,
                     options).answer
