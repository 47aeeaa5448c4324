"""The AffectSeek agent graph (AffectSeek/VQAU: intent interpretation -> candidate localization ->
clip verification -> emotion reasoning -> rationale generation, with verification looping back).

    START -> intent_interpreter -> candidate_localizer -> verifier
    verifier --(too few survive, rounds left)--> candidate_localizer
    verifier --(otherwise)--> emotion_reasoner -> rationale_writer
    rationale_writer --(answer options given)--> option_chooser -> END
    rationale_writer --(otherwise)--> END

The graph is compiled once per process (``compiled_graph``). Run dependencies (the video index, the
LLM, settings) are its ``context_schema``, ``agents.state.RunContext``, passed per run:
``compiled_graph().invoke({"query": ...}, context=RunContext(...))``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Literal, NamedTuple

from langgraph.graph import END, START, StateGraph

from agents import choice, emotion, intent, localizer, rationale, verifier
from agents.state import AffectState, RunContext


class Node(NamedTuple):
    """One role of the graph: its name, the function LangGraph runs, and how its trace step reads."""

    name: str
    run: Callable
    describe: Callable[[dict], str]


NODES: tuple[Node, ...] = (
    Node("intent_interpreter", intent.interpret_intent, intent.describe),
    Node("candidate_localizer", localizer.localize_candidates, localizer.describe),
    Node("verifier", verifier.verify_candidates, verifier.describe),
    Node("emotion_reasoner", emotion.reason_emotions, emotion.describe),
    Node("rationale_writer", rationale.write_rationales, rationale.describe),
    Node("option_chooser", choice.choose_option, choice.describe),
)
NODE_NAMES = tuple(n.name for n in NODES)


def after_verifier(state: AffectState) -> Literal["candidate_localizer", "emotion_reasoner"]:
    """Conditional edge: back to the localizer when the verifier asked for another round."""
    return "candidate_localizer" if state.get("requery") else "emotion_reasoner"


def after_rationale(state: AffectState) -> Literal["option_chooser", "__end__"]:
    """Conditional edge: a multiple-choice question goes on to the option chooser."""
    return "option_chooser" if state.get("options") else END


def describe_step(node: str, update: dict) -> str:
    """One line on what ``node`` decided, from the state update it returned (the node's own ``describe``)."""
    spec = next((n for n in NODES if n.name == node), None)
    return spec.describe(update) if spec is not None else ", ".join(sorted(update))


def build_graph():
    """Build and compile the graph (``compiled_graph`` keeps one per process)."""
    g = StateGraph(AffectState, context_schema=RunContext)
    for node in NODES:
        g.add_node(node.name, node.run)
    g.add_edge(START, "intent_interpreter")
    g.add_edge("intent_interpreter", "candidate_localizer")
    g.add_edge("candidate_localizer", "verifier")
    g.add_conditional_edges("verifier", after_verifier, ["candidate_localizer", "emotion_reasoner"])
    g.add_edge("emotion_reasoner", "rationale_writer")
    g.add_conditional_edges("rationale_writer", after_rationale, ["option_chooser", END])
    g.add_edge("option_chooser", END)
    return g.compile()


@functools.cache
def compiled_graph():
    """The process's compiled graph (built on first use)."""
    return build_graph()
