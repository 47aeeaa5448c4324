"""Does a clip's localizer score depend on how many candidates are asked?

    python -m studies.candidate_reach VIDEO [VIDEO ...] [--cache-dir DIR] [--max-n N] [--query Q ...]
        [--json evals/results/candidate_reach.json]

For each video's index (built first when the cache lacks it) and each question (``QUESTIONS``, or those given with
``--query``), the localizer (``agents.localizer.localize_candidates``) is asked for 1, 2, ..., N candidates (N: every
clip or ``--max-n``, at most ``_most()``, the most ``RunSettings.candidates_per_round`` takes) in a first round (nothing
verified yet) and in a second one (the clips a first round asked for two proposes taken as verified). Reported per
video: the cases (question x round) in which some clip was proposed with two different scores, and the largest such
difference; and the cases in which asking for fewer candidates did not give the first of more (``prefix_broken``),
with the part of them about a feeling apart (``prefix_broken_feeling``: a question that names no feeling may rightly
see further down each search when asked for more). Run in two source trees to compare code.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from studies.command import report

#: The sample's questions about a feeling (``tests/test_localizer.py``) and about behaviour and speech.
QUESTIONS = ("when does someone look happy?", "when is someone angry?", "when is somebody surprised?",
             "when does someone look sad?", "when does the audience laugh?", "when does he point at the crowd?",
             "when does he talk about the revolution?", "when does she talk about her family?")

def _most() -> int:
    """The most candidates a round may be asked for (the bound of ``agents.state.RunSettings.candidates_per_round``)."""
    from agents.state import RunSettings

    return next(m.le for m in RunSettings.model_fields["candidates_per_round"].metadata if hasattr(m, "le"))


def _case(index, query: str, seen: int, max_n: int) -> dict:
    from langgraph.runtime import Runtime

    from agents.intent import offline_intent
    from agents.llm import load_llm
    from agents.localizer import localize_candidates
    from agents.state import RunContext, RunSettings

    intent = offline_intent({"query": query})
    state = {"query": query, "intent": intent, "search_text": intent.search_text, "round": 0, "candidates": []}

    def proposed(n: int) -> list:
        ctx = RunContext(index=index, llm=load_llm("offline"), settings=RunSettings(candidates_per_round=n))
        return localize_candidates(state, Runtime(context=ctx))["candidates"]

    if seen:
        state["candidates"] = proposed(seen)
    runs = [proposed(n) for n in range(1, max_n + 1)]
    scores: dict[str, set[float]] = {}
    for run in runs:
        for c in run:
            scores.setdefault(c.clip_id, set()).add(c.retrieval_score)
    ids = [[c.clip_id for c in run] for run in runs]
    return {"feeling": bool(intent.target_emotions),
            "clips_varying": sum(len(s) > 1 for s in scores.values()),
            "largest_difference": round(max((max(s) - min(s) for s in scores.values()), default=0.0), 4),
            "prefix_broken": any(ids[i] != ids[-1][:len(ids[i])] for i in range(len(ids)))}


def measure(videos: list[str], cache_dir: str | None, max_n: int | None, queries: tuple[str, ...]) -> dict:
    """Per video: the cases (question x first/second round) whose clip scores or proposals vary with the candidates
    asked (module doc)."""
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    out = {"questions": list(queries)}
    for video in videos:
        index = open_index(Path(video), IndexConfig(), cache_dir)
        n = min(max_n or len(index.clips), len(index.clips), _most())
        if n < 3:
            raise ValueError(f"{video}: {len(index.clips)} clips; the study needs at least 3")
        cases = {f"{q} | {'first' if seen == 0 else 'second'} round": _case(index, q, seen, n - seen)
                 for q in queries for seen in (0, 2)}
        out[Path(video).name] = {
            "clips": len(index.clips), "asked": f"1..{n} candidates (first round), 1..{n - 2} (second)",
            "cases": len(cases), "scores_vary": sum(c["clips_varying"] > 0 for c in cases.values()),
            "largest_difference": max(c["largest_difference"] for c in cases.values()),
            "prefix_broken_feeling": sum(c["prefix_broken"] and c["feeling"] for c in cases.values()),
            "prefix_broken": sum(c["prefix_broken"] for c in cases.values()),
            "per_case": cases}
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line (module doc)."""
    ap = argparse.ArgumentParser(prog="python -m studies.candidate_reach", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", metavar="VIDEO", help="videos whose indexes to ask")
    ap.add_argument("--cache-dir", help="index cache (default $AFFECTSEEK_CACHE)")
    ap.add_argument("--max-n", type=int, default=None,
                    help="ask for at most this many candidates (default: every clip)")
    ap.add_argument("--query", action="append", default=None, metavar="Q",
                    help="a question (repeat; default QUESTIONS)")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args(argv)
    if args.max_n is not None and args.max_n < 3:
        ap.error("--max-n must be at least 3 (the second round takes two clips as verified)")
    return report(lambda: measure(args.paths, args.cache_dir, args.max_n, tuple(args.query or QUESTIONS)), args.json,
                  errors=(FileNotFoundError, ValueError))


if __name__ == "__main__":
    raise SystemExit(main())
