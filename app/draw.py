"""Draw the agent graph: ``affectseek draw [--mermaid] [--png out.png]``.

Mermaid text comes from LangGraph (``get_graph().draw_mermaid()``, offline). The PNG is drawn locally
with matplotlib (LangGraph's ``draw_mermaid_png`` calls a web service, so it is not used).
"""

from __future__ import annotations

import sys

from tools.core.argtypes import CommandParser


def graph_structure():
    """The compiled graph's drawable structure (``langchain_core.runnables.graph.Graph``)."""
    from graphs.affect_graph import compiled_graph

    return compiled_graph().get_graph()


def draw_png(path: str) -> None:
    """Render the graph top to bottom as a PNG at ``path``; conditional edges are dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from graphs.affect_graph import NODE_NAMES

    g = graph_structure()
    order = ["__start__", *NODE_NAMES, "__end__"]
    names = [n for n in order if n in g.nodes] + [n for n in g.nodes if n not in order]
    pos = {n: (0.0, -i) for i, n in enumerate(names)}
    fig, ax = plt.subplots(figsize=(6, 1.1 * len(names)))
    for e in g.edges:
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        back = y1 > y0
        start, end = ((x0 + 0.3, y0), (x1 + 0.42, y1)) if back else ((x0, y0 - 0.22), (x1, y1 + 0.22))
        ax.add_patch(FancyArrowPatch(start, end, connectionstyle="arc3,rad=0.5" if back else "arc3",
                                     arrowstyle="-|>", mutation_scale=14, lw=1.2,
                                     linestyle="--" if e.conditional else "-", color="#444"))
        if back:
            ax.text(0.85, (y0 + y1) / 2, "too few candidates\nsurvive: re-query", fontsize=8, va="center")
    for n, (x, y) in pos.items():
        label = n.strip("_")
        ax.text(x, y, label, ha="center", va="center", fontsize=10,
                bbox={"boxstyle": "round,pad=0.4", "fc": "#f2f2f2" if label in ("start", "end") else "#dbe9f6",
                      "ec": "#333"})
    ax.set_xlim(-1.2, 1.6)
    ax.set_ylim(-len(names) + 0.4, 0.6)
    ax.axis("off")
    ax.set_title("affectseek agent graph", fontsize=11)
    fig.savefig(path, dpi=120, bbox_inches="tight", format="png")  # the path as given, whatever its suffix
    plt.close(fig)


def main(argv: list[str] | None = None, prog: str = "affectseek draw") -> int:
    """Run the ``draw`` command; returns 0, or 2 when the PNG cannot be written (one line)."""
    p = CommandParser(prog=prog, description="Write the agent graph picture.")
    p.add_argument("--png", metavar="OUT", help="write a PNG here")
    p.add_argument("--mermaid", action="store_true", help="print the Mermaid source (default when no --png)")
    args = p.parse_args(argv)
    if args.png:
        from app.outputs import outputs_problem

        if (problem := outputs_problem([("--png", args.png)])) is not None:
            print(problem, file=sys.stderr)
            return 2
        try:
            draw_png(args.png)
        except OSError as exc:
            print(f"error: cannot write {args.png}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.png}", file=sys.stderr)
    if args.mermaid or not args.png:
        print(graph_structure().draw_mermaid())
    return 0


if __name__ == "__main__":
    sys.exit(main())
