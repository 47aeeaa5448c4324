"""The README's table of speed and memory figures, rendered from the committed benchmark files in ``benches``.

    python -m evals.speed   # prints the table that README.md carries under "Speed"

Each row of ``SPEED`` names a bench file and reads its cell from it: wall seconds and peak RSS as ranges over the
runs the file holds (``benches/README.md`` says how each was measured). ``tests/test_readme_figures.py`` checks that
README.md shows exactly this table, as it does for ``evals.figures.table``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from evals.figures import Figure, print_table

BENCHES = Path(__file__).parents[1] / "benches"


def _span(values: list[float], unit: str = " s") -> str:
    """``values`` as "a-b" (or "a" when they agree), to two decimals, with ``unit``; with three or more, their median
    too (a run that read files not yet in the page cache stretches the range)."""
    low, high = min(values), max(values)
    shown = f"{low:.2f}{unit}" if low == high else f"{low:.2f}-{high:.2f}{unit}"
    return f"{shown}, median {float(np.median(values)):.2f}{unit}" if len(values) >= 3 else shown


def _mib(values: list[float]) -> str:
    low, high = round(min(values)), round(max(values))
    return f"{low:,} MiB" if low == high else f"{low:,}-{high:,} MiB"


def _hour_index(key: str) -> Callable[[dict], str]:
    """The hour's index build ``d["hour_index"][key]``: wall seconds, real-time factor and peak RSS."""
    def cell(d: dict) -> str:
        run = d["hour_index"][key]
        return f"{run['wall_s']:.1f} s, RTF {run['rtf']:.1f}, {_mib([run['peak_rss_mib']])}"
    return cell


def _session(prefix: str) -> Callable[[dict], str]:
    """The bench's question sessions on the indexed hour whose run names start with ``prefix``: the first question
    (the models load), the new questions after it (the first one's warm repeat left out), the peak RSS."""
    def cell(d: dict) -> str:
        runs = [r for name, r in d["hour_sessions"].items() if name.startswith(prefix)]
        first = [r["queries"][0]["wall_s"] for r in runs]
        others = [q["wall_s"] for r in runs for q in r["queries"][2:]]
        return (f"first {_span(first)}, the others {_span(others)} ({len(runs)} sessions); "
                f"{_mib([r['peak_rss_mib'] for r in runs])}")
    return cell


def _hour_new_process(tree: str) -> Callable[[dict], str]:
    """Each bench question on the indexed hour in a new process, by ``tree``: wall seconds and peak RSS."""
    def cell(d: dict) -> str:
        runs = [q[tree] for q in d["hour_question_in_a_new_process"].values()]
        walls, rss = (list(np.ravel([r[k] for r in runs])) for k in ("wall_s", "peak_rss_mib"))
        return f"{_span(walls)} ({len(runs)} questions, {len(walls)} runs); {_mib(rss)}"
    return cell


def _runs_of(key: str, tree: str) -> Callable[[dict], str]:
    """Repeated runs ``d[key][tree]`` (lists ``wall_s`` and ``peak_rss_mib``)."""
    def cell(d: dict) -> str:
        r = d[key][tree]
        return f"{_span(r['wall_s'])} ({len(r['wall_s'])} runs); {_mib(r['peak_rss_mib'])}"
    return cell


def _bench_index(d: dict) -> str:
    """The hour's index build in a ``make bench`` row file (``benches/bench_index.py``): wall, RTF, peak RSS."""
    row = d["rows"][0]
    return f"{row['index_wall_s']:.1f} s, RTF {row['rtf_index_wall']:.1f}, {_mib([row['peak_rss_mib_index']])}"


def _index_run(beam: int) -> Callable[[dict], str]:
    """The index run at Whisper beam ``beam`` in a file of ``runs`` (``benches/results_beam2_60.json``): wall, RTF."""
    def cell(d: dict) -> str:
        run = next(r for r in d["runs"] if r["asr_beam_size"] == beam)
        return f"{run['index_wall_s']:.1f} s, RTF {run['rtf_index_wall']:.1f} (peak RSS not measured)"
    return cell


def _hour_run(code: str) -> Callable[[dict], str]:
    """The hour's index build by ``code`` in a file of ``index_runs`` (``benches/results_last_stage.json``): wall and
    real-time factor."""
    def cell(d: dict) -> str:
        run = next(r for r in d["index_runs"] if r["video"] == "dialogue60m.mp4" and r["code"] == code)
        return f"{run['index_wall_s']:.1f} s, RTF {run['rtf_index_wall']:.1f} (peak RSS not measured)"
    return cell


def _bench_session(d: dict) -> str:
    """The four questions of a ``make bench`` row file's one session: the first (the models load), the three new
    ones after its warm repeat, the session's peak RSS."""
    row = d["rows"][0]
    others = [row[k] for k in ("query_new_in_session_s", "query_change_in_session_s",
                               "query_feeling_requery_in_session_s")]
    rss = _mib([row["peak_rss_mib_query"]])
    return f"first {row['query_cold_s']:.2f} s, the others {_span(others)} (1 session); {rss}"


#: The CPU models of the 2-core machines the current figures come from (``lscpu``; no GPU).
AVX512_EPYC = "AMD EPYC, CPU family 26, AVX-512"
AVX2_EPYC = "AMD EPYC, CPU family 25, AVX2"
ZEN4_EPYC = "AMD EPYC, CPU family 25 model 17, AVX-512"
XEON = "Intel Xeon, CPU family 6 model 167, AVX-512"

SPEED: tuple[Figure, ...] = (
    Figure("an hour of speech-heavy video indexed (`make bench`'s 60-minute dialogue video): wall, RTF, peak RSS",
           f"{AVX512_EPYC}; section 71's code", "results_onednn_avx2_60.json", _hour_index("with the cap")),
    Figure("", f"{AVX2_EPYC}; section 72's code", "results_imports_60.json", _hour_index("now")),
    Figure("", f"{AVX2_EPYC}; section 82's code", "results_candidates_60.json", _bench_index),
    Figure("", f"{AVX2_EPYC}; section 85's code", "results_dense_budget_60.json", _bench_index),
    Figure("", f"{AVX2_EPYC}; section 88's code, another day", "results_stored_timelines_60.json", _bench_index),
    Figure("", f"{ZEN4_EPYC}; section 91's code", "results_zen4_60.json", _bench_index),
    Figure("", f"{ZEN4_EPYC}; section 94's code", "results_text_unpadded_60.json", _bench_index),
    Figure("", f"{ZEN4_EPYC}; section 93's code, the same sitting", "results_text_padded_60.json", _bench_index),
    Figure("", f"{ZEN4_EPYC}; section 94's code, the same sitting", "results_text_unpadded_60_b.json", _bench_index),
    Figure("", f"{ZEN4_EPYC}; section 95's code (text encoder in float64)", "results_text_f64_60.json", _bench_index),
    Figure("", f"{XEON}; section 113's code", "results_speech_helper_before_60.json", _bench_index),
    Figure("", f"{XEON}; section 114's code, the same sitting", "results_speech_helper_60.json", _bench_index),
    Figure("", f"{XEON}; section 117's code, another day", "results_identity_onnx_60.json", _bench_index),
    Figure("", f"{XEON}; section 119's code, another day", "results_layout_before_60.json", _bench_index),
    Figure("", f"{XEON}; section 120's code, the same sitting", "results_layout_60.json", _bench_index),
    Figure("", f"{XEON}; section 120's code, another day", "results_chunks_before_60.json", _bench_index),
    Figure("", f"{XEON}; section 121's code, the same sitting", "results_chunks_60.json", _bench_index),
    Figure("", f"{XEON}; section 121's code, another day", "results_beam2_60.json", _index_run(5)),
    Figure("", f"{XEON}; the same code with `--asr-beam 2`, the same sitting (section 122)", "results_beam2_60.json",
           _index_run(2)),
    Figure("", f"{XEON}; section 125's code, another day", "results_last_stage.json", _hour_run("old")),
    Figure("", f"{XEON}; section 127's code, the same sitting", "results_last_stage.json", _hour_run("new")),
    Figure("", f"{ZEN4_EPYC}; section 162's code, another day", "results_recheck_162_60.json", _bench_index),
    Figure("the bench's four new questions on the indexed hour, one process: wall each, peak RSS",
           f"{AVX512_EPYC}; section 70's code", "results_gesture_names_60.json", _session("now")),
    Figure("", f"{AVX2_EPYC}; section 72's code", "results_fixed_texts_60.json", _session("before")),
    Figure("", f"{AVX2_EPYC}; section 73's code, the same sitting", "results_fixed_texts_60.json", _session("now")),
    Figure("", f"{AVX2_EPYC}; section 82's code", "results_candidates_60.json", _bench_session),
    Figure("", f"{AVX2_EPYC}; section 85's code", "results_dense_budget_60.json", _bench_session),
    Figure("", f"{AVX2_EPYC}; section 88's code, another day", "results_stored_timelines_60.json", _bench_session),
    Figure("", f"{AVX2_EPYC}; section 87's code, another day", "results_stored_timelines_sessions_60.json",
           _session("before")),
    Figure("", f"{AVX2_EPYC}; section 88's code, the same sitting", "results_stored_timelines_sessions_60.json",
           _session("now")),
    Figure("", f"{ZEN4_EPYC}; section 91's code", "results_zen4_60.json", _bench_session),
    Figure("", f"{ZEN4_EPYC}; section 94's code", "results_text_unpadded_60.json", _bench_session),
    Figure("", f"{ZEN4_EPYC}; section 93's code, the same sitting", "results_text_padded_60.json", _bench_session),
    Figure("", f"{ZEN4_EPYC}; section 94's code, the same sitting", "results_text_unpadded_60_b.json", _bench_session),
    Figure("", f"{ZEN4_EPYC}; section 95's code (text encoder in float64)", "results_text_f64_60.json",
           _bench_session),
    Figure("", f"{XEON}; section 113's code", "results_speech_helper_before_60.json", _bench_session),
    Figure("", f"{XEON}; section 114's code, the same sitting", "results_speech_helper_60.json", _bench_session),
    Figure("", f"{XEON}; section 117's code, another day", "results_identity_onnx_60.json", _bench_session),
    Figure("", f"{XEON}; section 119's code, another day", "results_layout_before_60.json", _bench_session),
    Figure("", f"{XEON}; section 120's code, the same sitting", "results_layout_60.json", _bench_session),
    Figure("", f"{XEON}; section 120's code, another day", "results_chunks_before_60.json", _bench_session),
    Figure("", f"{XEON}; section 121's code, the same sitting", "results_chunks_60.json", _bench_session),
    Figure("", f"{ZEN4_EPYC}; section 162's code, another day", "results_recheck_162_60.json", _bench_session),
    Figure("each of those questions in a new process on the indexed hour: wall, peak RSS",
           f"{AVX512_EPYC}; section 69's code", "results_no_torch_60.json", _hour_new_process("now")),
    Figure("", f"{AVX2_EPYC}; section 72's code", "results_fixed_texts_60.json", _hour_new_process("before")),
    Figure("", f"{AVX2_EPYC}; section 73's code, the same sitting", "results_fixed_texts_60.json",
           _hour_new_process("now")),
    Figure("a question in a new process on the indexed 8 s talking head, its frames read anew: wall, peak RSS",
           f"{AVX512_EPYC}; section 69's code", "results_no_torch_60.json",
           _runs_of("question_in_a_new_process_on_the_indexed_sample", "now")),
    Figure("", f"{AVX2_EPYC}; section 72's code", "results_fixed_texts_60.json",
           _runs_of("question_in_a_new_process_on_the_indexed_sample", "before")),
    Figure("", f"{AVX2_EPYC}; section 73's code, the same sitting", "results_fixed_texts_60.json",
           _runs_of("question_in_a_new_process_on_the_indexed_sample", "now")),
)


def speed_table(figures: tuple[Figure, ...] = SPEED) -> str:
    """The markdown table of the speed ``figures`` (files in ``BENCHES``): measure | machine and code | figure |
    result file."""
    rows = ["| measure | machine (2 cores), code | figure | result file |", "|---|---|---|---|"]
    for f in figures:
        d = json.loads((BENCHES / f.file).read_text())
        rows.append(f"| {f.what} | {f.data} | {f.cell(d)} | `{f.file}` |")
    return "\n".join(rows)


def main() -> int:
    """Print ``speed_table()`` (``evals.figures.print_table``)."""
    return print_table(speed_table, "benches")


if __name__ == "__main__":
    sys.exit(main())
