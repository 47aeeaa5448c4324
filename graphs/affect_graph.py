"""The AffectSeek agent graph (AffectSeek/VQAU: intent interpretation -> candidate localization ->
clip verification -> emotion reasoning -> rationale generation, with verification looping back).

    START -> intent_interpreter -> candidate_localizer -> verifier
    verifier --(too few survive, rounds left)--> candidate_localizer
    verifier --(otherwise)--> emotion_reasoner -> rationale_writer -> END
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.emotion import reason_emotions
from agents.intent import interpret_intent
from agents.localizer import localize_candidates
from agents.rationale import write_rationales
from agents.state import AffectState
from agents.verifier import needs_more_candidates, verify_candidates

NODES = ("intent_interpreter", "candidate_localizer", "verifier", "emotion_reasoner", "rationale_writer")


def build_graph():
    """Compile the graph. Invoke with ``{"query": ...}`` and ``config={"configurable": {"ctx": RunContext}}``."""
    g = StateGraph(AffectState)
    g.add_node("intent_interpreter", interpret_intent)
    g.add_node("candidate_localizer", localize_candidates)
    g.add_node("verifier", verify_candidates)
    g.add_node("emotion_reasoner", reason_emotions)
    g.add_node("rationale_writer", write_rationales)
    g.add_edge(START, "intent_interpreter")
    g.add_edge("intent_interpreter", "candidate_localizer")
    g.add_edge("candidate_localizer", "verifier")
    g.add_conditional_edges("verifier", needs_more_candidates, ["candidate_localizer", "emotion_reasoner"])
    g.add_edge("emotion_reasoner", "rationale_writer")
    g.add_edge("rationale_writer", END)
    return g.compile()
