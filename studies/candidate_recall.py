"""Whether the localizer's first round proposes the annotated moment: the search alone, before any verification.

    python -m studies.candidate_recall BENCH.jsonl --cache-dir DIR [--json FILE]

For each question of a bench, the graph's first three nodes run as in an answer (offline intent, person grounding,
``agents.localizer.localize_candidates``; index and search settings from the environment and config file as in
``python -m evals.run``, by default 8 candidates a round), and the round's
candidates are compared with the question's annotated moments: ``rank`` is the place (0 = first) of the first
candidate whose clip matches a moment at tIoU >= 0.5, None when none of the round's does. Prints one line per question
and the counts of questions whose moment is proposed first and proposed at all. Copied into a tree of an earlier commit,
the same command gives that code's candidates (it uses only the nodes' public functions).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from langgraph.runtime import Runtime

from agents.grounding import ground_persons
from agents.intent import interpret_intent
from agents.llm import load_llm
from agents.localizer import localize_candidates
from agents.state import RunContext
from evals.bench import load_bench
from evals.metrics import recall_at_1
from graphs.settings import Settings, load_settings
from indexing.build import open_index
from tools.core.runtime import configure_runtime


def first_round_ranks(bench: str, cache_dir: str, settings: Settings) -> dict[str, int | None]:
    """Per item id, the place in the localizer's first round of the first candidate matching an annotated moment at
    tIoU >= 0.5, or None.

    Raises:
        BenchError: the bench does not load in ``settings``' label set.
    """
    llm, run, config = load_llm("offline"), settings.run_settings(), settings.index_config()
    ranks: dict[str, int | None] = {}
    opened: tuple[Path, object] | None = None
    for item in load_bench(bench, run.labels):
        video = item.video_path(bench)
        if opened is None or opened[0] != video:
            opened = (video, open_index(video, config, cache_dir))
        runtime = Runtime(context=RunContext(index=opened[1], llm=llm, settings=run))
        state: dict = {"query": item.query, "candidates": []}
        for node in (interpret_intent, ground_persons, localize_candidates):
            state.update(node(state, runtime))
        truth = [(m.start_s, m.end_s) for m in item.moments]
        ranks[item.id] = next((i for i, c in enumerate(state["candidates"])
                               if recall_at_1((c.start_s, c.end_s), truth, 0.5)), None)
    return ranks


def main(argv: list[str] | None = None) -> int:
    """Command line entry (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m studies.candidate_recall", description=__doc__.split("\n\n")[0])
    ap.add_argument("bench")
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--json", help="write {item id: rank or null} here")
    args = ap.parse_args(argv)
    configure_runtime(args.cache_dir)
    ranks = first_round_ranks(args.bench, args.cache_dir, load_settings({}))
    for item_id, rank in ranks.items():
        print(f"{item_id}\t{rank}")
    first = sum(r == 0 for r in ranks.values())
    proposed = sum(r is not None for r in ranks.values())
    print(f"moment proposed first {first} / {len(ranks)}, in the first round {proposed} / {len(ranks)}")
    if args.json:
        Path(args.json).write_text(json.dumps(ranks, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
