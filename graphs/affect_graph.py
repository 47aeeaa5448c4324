"""The AffectSeek agent graph (AffectSeek/VQAU: intent interpretation -> candidate localization ->
clip verification -> emotion reasoning -> rationale generation, with verification looping back).

    START -> intent_interpreter -> person_grounder -> candidate_localizer -> verifier
    verifier --(too few survive, rounds left)--> query_refiner -> candidate_localizer
    verifier --(otherwise)--> emotion_reasoner -> rationale_writer
    rationale_writer --(answer options given)--> option_chooser -> END
    rationale_writer --(otherwise)--> END

The graph is compiled once per process (``compiled_graph``; ``graph`` is that graph, the one
``langgraph.json`` names for LangGraph Studio / ``langgraph dev``). Run dependencies (the video index, the
LLM, settings) reach each node as ``runtime.context``, a ``agents.state.RunContext``: a program passes one
(``compiled_graph().invoke({"query": ...}, context=RunContext(...))``); Studio, which can only send JSON,
passes ``GraphContext``'s plain values (``{"video": "/path/to/video.mp4", "llm": "offline", "cache_dir":
null}``), which ``resolve_context`` turns into a ``RunContext`` over the video's cached index, kept per
(video, llm, cache_dir) for the next run.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Literal, NamedTuple

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents import choice, emotion, grounding, intent, localizer, rationale, verifier
from agents.llm import LLMTask, load_llm
from agents.state import AffectState, RunContext
from graphs.settings import Settings, load_settings
from indexing.build import open_index


class Node(NamedTuple):
    """One role of the graph: its name, the function LangGraph runs, how its trace step reads, and the LLM
    tasks it asks (``agents.llm.LLMTask``)."""

    name: str
    run: Callable
    describe: Callable[[dict], str]
    tasks: tuple[LLMTask, ...] = ()


NODES: tuple[Node, ...] = (
    Node("intent_interpreter", intent.interpret_intent, intent.describe, (intent.INTERPRET_INTENT,)),
    Node("person_grounder", grounding.ground_persons, grounding.describe, (grounding.GROUND_PERSON,)),
    Node("candidate_localizer", localizer.localize_candidates, localizer.describe),
    Node("verifier", verifier.verify_candidates, verifier.describe),
    Node("query_refiner", verifier.refine_query, verifier.describe_refinement, (verifier.REFINE_QUERY,)),
    Node("emotion_reasoner", emotion.reason_emotions, emotion.describe, (emotion.JUDGE_EMOTION,)),
    Node("rationale_writer", rationale.write_rationales, rationale.describe, (rationale.WRITE_RATIONALE,)),
    Node("option_chooser", choice.choose_option, choice.describe, (choice.CHOOSE_OPTION,)),
)
NODE_NAMES = tuple(n.name for n in NODES)
#: Every structured-output task the roles ask an LLM, by name: the nodes' tasks.
TASKS: dict[str, LLMTask] = {t.name: t for n in NODES for t in n.tasks}


@dataclasses.dataclass(frozen=True)
class GraphContext:
    """A run's context as plain values, as LangGraph Studio sends it: the video's path, ``offline`` or a
    litellm model id, and the cache root (None: what the settings say, ``graphs.settings``)."""

    video: str
    llm: str | None = None
    cache_dir: str | None = None


@functools.lru_cache(maxsize=8)
def _opened(video: str, settings: Settings) -> RunContext:
    return RunContext(index=open_index(video, settings.index_config(), settings.cache_dir),
                      llm=load_llm(settings.llm), settings=settings.run_settings())


def resolve_context(context: RunContext | GraphContext) -> RunContext:
    """The ``RunContext`` a node works with: ``context`` itself, or for plain values the video's index (opened,
    or built on first use) with the settings ``ask`` would read (``AFFECTSEEK_*`` variables, the config file named
    by ``$AFFECTSEEK_CONFIG``, the defaults; the context's values first), the same object for the same values and
    settings.

    Raises:
        tools.core.media.VideoError: the video cannot be read (plain values only).
        graphs.settings.SettingsError: a variable or the config file holds an invalid setting.
    """
    if isinstance(context, RunContext):
        return context
    given = {k: v for k, v in (("llm", context.llm), ("cache_dir", context.cache_dir)) if v is not None}
    return _opened(context.video, load_settings(given))


def _with_context(run: Callable) -> Callable:
    """``run`` as a node that gets its runtime context resolved (``resolve_context``)."""
    @functools.wraps(run)
    def node(state: AffectState, runtime: Runtime) -> dict:
        return run(state, dataclasses.replace(runtime, context=resolve_context(runtime.context)))
    return node


def after_verifier(state: AffectState) -> Literal["query_refiner", "emotion_reasoner"]:
    """Conditional edge: to the query refiner (and back to the localizer) when the verifier asked for another
    round."""
    return "query_refiner" if state.get("requery") else "emotion_reasoner"


def after_rationale(state: AffectState) -> Literal["option_chooser", "__end__"]:
    """Conditional edge: a multiple-choice question goes on to the option chooser."""
    return "option_chooser" if state.get("options") else END


def describe_step(node: str, update: dict) -> str:
    """One line on what ``node`` decided, from the state update it returned (the node's own ``describe``)."""
    spec = next((n for n in NODES if n.name == node), None)
    return spec.describe(update) if spec is not None else ", ".join(sorted(update))


def build_graph():
    """Build and compile the graph (``compiled_graph`` keeps one per process)."""
    g = StateGraph(AffectState, context_schema=GraphContext)
    for node in NODES:
        g.add_node(node.name, _with_context(node.run))
    g.add_edge(START, "intent_interpreter")
    g.add_edge("intent_interpreter", "person_grounder")
    g.add_edge("person_grounder", "candidate_localizer")
    g.add_edge("candidate_localizer", "verifier")
    g.add_conditional_edges("verifier", after_verifier, ["query_refiner", "emotion_reasoner"])
    g.add_edge("query_refiner", "candidate_localizer")
    g.add_edge("emotion_reasoner", "rationale_writer")
    g.add_conditional_edges("rationale_writer", after_rationale, ["option_chooser", END])
    g.add_edge("option_chooser", END)
    return g.compile()


@functools.cache
def compiled_graph():
    """The process's compiled graph (built on first use)."""
    return build_graph()


#: The compiled graph, for LangGraph Studio / ``langgraph dev`` (``langgraph.json``): the same object the
#: command line and the Python API run.
graph = compiled_graph()
