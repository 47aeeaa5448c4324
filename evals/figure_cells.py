"""The cells of the README's table of measured figures (``evals.figures``): a row's ``Figure`` and the functions that
read each kind of cell from its committed result file, with a bootstrap interval where the cell is a share of items.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.metrics import bootstrap_interval


@dataclass(frozen=True)
class Figure:
    """One row: what was measured (``what``), on which data (``data``), from which result file (``file``, in
    ``evals.figures.RESULTS``), and how its cell is read from the file's JSON (``cell``)."""

    what: str
    data: str
    file: str
    cell: Callable[[dict], str]


def share(rate: float, n: int) -> str:
    """``rate`` of ``n`` items as "0.604 [0.510, 0.698]": the 95 % bootstrap interval over the items (the
    file gives the rate; right = rate x n, rounded)."""
    right = round(rate * n)
    low, high = bootstrap_interval([1.0] * right + [0.0] * (n - right))
    return f"{right / n:.3f} [{low:.3f}, {high:.3f}]"


def negation_share(d: dict, reading: str, right: str, of: str, interval: bool = True) -> str:
    """``right`` of ``of`` of one reading of a ``studies.negation`` result file, as a share (with its interval)."""
    row = d["rows"][reading]
    return share(row[right] / row[of], row[of]) if interval else f"{row[right] / row[of]:.3f}"


def heldout_row(data: str, file: str, now: str, before: str, form: str = "idiom", within: str | None = None) -> Figure:
    """A row of a held-out question file's read: top-1 of the ``form`` questions ("idiom" or "memory"; their count as
    the file gives it) with the shipped reading ``now`` (with its interval), then with the reading ``before`` (in
    ``within`` of the file's JSON)."""
    def cell(d: dict) -> str:
        d = d[within] if within else d
        return f"{share(d[now][form]['top1'], d[now][form]['n'])} ({d[before][form]['top1']:.3f})"
    return Figure("", data, file, cell)


def stored(point_low_high: list[float]) -> str:
    """A figure whose file stores [value, low, high]."""
    value, low, high = point_low_high
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def calibration_cell(name: str, after: str, before: str, nested: str | None = None) -> Callable[[dict], str]:
    """The cell of a ``studies.label_calibration`` result file: set ``name``'s ECE of the confidence ``after`` with its
    interval over videos and, in brackets, the ECE of ``nested`` (where given) and of ``before``; then the same for
    the Brier score."""
    def cell(d: dict) -> str:
        runs = d["sets"][name]

        def others(key: str) -> str:
            inner = f"nested {runs[nested][key]:.3f}; " if nested else ""
            return f"({inner}before {runs[before][key]:.3f})"

        low, high = runs[after]["ECE_95"]
        return (f"{runs[after]['ECE']:.3f} [{low:.3f}, {high:.3f}] {others('ECE')}; Brier {runs[after]['Brier']:.3f} "
                f"{others('Brier')}")
    return cell


def recorded(d: dict) -> str:
    """The cell of ``recorded_faces_dev.json``: the default reader's clips right with its interval by person, then
    the previous weights', face8's and fer's."""
    new, face8, fer = (d["methods"][f"{b}/mean"] for b in ("faceres+face8", "face8", "fer"))
    low, high = new["ci95"]
    return (f"{new['right']} of {new['n']}: {new['accuracy']:.3f} [{low:.3f}, {high:.3f}] by person "
            f"(previous faceres {d['previous_weights']['faceres+face8']['mean']}; face8 {face8['right']}, "
            f"fer {fer['right']} of {fer['n']})")


def cremad_cv(d: dict) -> str:
    """The cell of ``recorded_net_dev.json``: the default reader's CREMA-D clips right by cross-validation with its
    interval by actor, then the second training seed's and the previous weights'."""
    now, seed2, prev = (d["runs"][r]["faceres+face8"]["cremad"] for r in ("cremad4", "cremad4_1", "previous"))
    low, high = now["ci95"]
    return (f"{now['right']} of {now['n']}: {now['accuracy']:.3f} [{low:.3f}, {high:.3f}] by actor "
            f"(second seed {seed2['right']}; previous faceres {prev['right']})")


def per_clip(unit: str, others: tuple[str, ...]) -> Callable[[dict], str]:
    """The per-clip cell of a set read by ``studies.recorded_faces``: the default reader with its interval over
    ``unit`` (actor, person), then the clips right of each reader of ``others``."""
    def cell(d: dict) -> str:
        new = d["methods"]["faceres+face8/mean"]
        low, high = new["ci95"]
        rest = ", ".join(f"{b} {d['methods'][f'{b}/mean']['right']}" for b in others)
        return f"{new['right']} of {new['n']}: {new['accuracy']:.3f} [{low:.3f}, {high:.3f}] by {unit} ({rest})"
    return cell


def runs_cell(name: str, measure: str, other: str) -> Callable[[dict], str]:
    """A cell of a ``python -m evals.summary`` file: run ``name``'s ``measure``, then run ``other``'s."""
    return lambda d: f"{stored(d['runs'][name][measure])} ({d['runs'][other][measure][0]:.3f})"


def long_cell(minutes: str) -> Callable[[dict], str]:
    """A length's cell of ``long_test.json``: now, then the previous code and the reading alone."""
    return lambda d: (f"{stored(d[minutes]['runs']['now']['R1@0.5'])} / {d[minutes]['runs']['now']['Joint'][0]:.3f} "
                      f"({d[minutes]['runs']['previous code']['R1@0.5'][0]:.3f}; "
                      f"{d[minutes]['runs']['reading alone']['R1@0.5'][0]:.3f})")


def baselines(summary: dict, compared: tuple[str, ...] = ("retrieval alone", "reading alone")) -> str:
    """A cell of an ``evals.summary`` file of ``now`` and the runs ``compared`` (default the two baselines): now's
    R1@0.5 (interval) / Joint, then the R1@0.5 of each compared run."""
    runs = summary["runs"]
    others = "; ".join(f"{runs[name]['R1@0.5'][0]:.3f}" for name in compared)
    return f"{stored(runs['now']['R1@0.5'])} / {runs['now']['Joint'][0]:.3f} ({others})"


#: The runs a cell compares with ``now`` where the previous code was read beside the baselines (section 157).
WITH_PREVIOUS = ("previous code", "retrieval alone", "reading alone")


def change_cell(m: dict) -> str:
    """The cell of a change bench's ``methods`` (``evals.transitions score``): within 2 s / both emotions named,
    then the previous code's and the reading alone's."""
    return (f"{stored(m['graph']['within_2s'])} / {m['graph']['both'][0]:.3f} "
            f"({m['previous']['within_2s'][0]:.3f} / {m['previous']['both'][0]:.3f}; "
            f"{m['reading alone']['within_2s'][0]:.3f} / {m['reading alone']['both'][0]:.3f})")


def change(length: str) -> Callable[[dict], str]:
    """A length's cell of ``continuity_test.json`` (``change_cell``)."""
    return lambda d: change_cell(d[length]["methods"])


def salience(length: str) -> Callable[[dict], str]:
    """A length's cell of ``salience_test.json``: right place and emotion, then the previous code's, the reading
    alone's and the reading against the own baseline alone."""
    def cell(d: dict) -> str:
        m = d[length]["methods"]
        return (f"{stored(m['this change']['both'])} ({m['previous code']['both'][0]:.3f}; "
                f"{m['reading alone']['both'][0]:.3f}; {m['reading alone, own baseline']['both'][0]:.3f})")
    return cell


def faces(name: str) -> Callable[[dict], str]:
    """The per-image cell of set ``name``: the default reader, then face8 and fer."""
    return lambda d: (f"{share(d['faceres+face8'][name]['accuracy'], d['faceres+face8'][name]['n'])} "
                      f"({d['face8'][name]['accuracy']:.3f}; {d['fer'][name]['accuracy']:.3f})")


def answered_cell(d: dict, bench: str) -> str:
    """``calibration_cell`` of a ``studies.departed_calibration answers`` result: every answered moment of ``bench``
    with the held-out calibration, the calibration before in brackets."""
    runs = d["answers"][bench]
    return calibration_cell("all", "held out", "before")({"sets": {"all": {k: v["all"] for k, v in runs.items()}}})


def paired_share(d: dict) -> str:
    """A question study's result read against the code before (``studies.context_clauses``, ``studies.cessation``
    with ``--before``): right / n with its stored interval, the share before in brackets."""
    return f"{stored([d['right'] / d['n'], *d['interval']])} ({d['before_right'] / d['n']:.3f})"
