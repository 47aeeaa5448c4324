"""The shared ending of the measurement commands (``studies.reid``, ``studies.face_geometry``, ``studies.sound``,
``studies.train_voice``, ``studies.multilingual``, ``studies.gesture_loop``, ...): compute, print the result as JSON, write it to ``--json``; a labelled set that
was not assembled, or a bench file that is missing or malformed, is one line on stderr and exit status 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from evals.bench import BenchError


def report(compute: Callable[[], dict], json_path: str | Path | None, echo: bool = True, indent: int = 1,
           ensure_ascii: bool = True,
           errors: tuple[type[Exception], ...] = (FileNotFoundError, BenchError)) -> int:
    """Run ``compute()``; print its result (``echo``) and write it to ``json_path`` (when given) as JSON
    indented by ``indent`` (``ensure_ascii=False`` keeps non-ASCII text such as German words as it is).
    Returns the exit status: 0, or 2 when ``compute`` raised one of ``errors`` (its message one line on stderr;
    by default FileNotFoundError or ``evals.bench.BenchError``)."""
    try:
        result = compute()
    except errors as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=indent, ensure_ascii=ensure_ascii)
    if echo:
        print(text)
    if json_path:
        Path(json_path).write_text(text + "\n")
    return 0


def gloss_table_command(argv: list[str] | None, prog: str, doc: str, source: tuple[str, str], out: Path,
                        build: Callable[[Path], tuple[dict[str, str], dict[str, str]]],
                        trial: Callable[[], dict], heldout: Callable[[], dict], what: str) -> int:
    """The command of a gloss table's study (``studies.build_idiom_glosses``, ``studies.build_word_glosses``): build
    the table from ``--<source[0]> PATH`` (help ``source[1]``) and write it to ``--out`` (default ``out``) as JSON,
    ``{**about, "glosses": table}`` of ``build(PATH) -> (about, table)``, counting ``what`` ("idioms", "words"); or
    ``--trial`` / ``--heldout`` through ``report`` (``--json``). An unreadable source is one line on stderr and exit
    status 2."""
    import argparse

    import yaml

    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument(f"--{source[0]}", dest="source", type=Path, metavar="PATH",
                      help=f"build the table from {source[1]}")
    mode.add_argument("--trial", action="store_true",
                      help="read the development questions with and without the glosses")
    mode.add_argument("--heldout", action="store_true", help="read the held-out question file the same two ways, once")
    ap.add_argument("--out", type=Path, default=out, help=f"the table's path (default: tools/data/{out.name})")
    ap.add_argument("--json", type=Path, help="write the trial's report here (with --trial or --heldout)")
    args = ap.parse_args(argv)
    if args.json is not None and args.source is not None:
        ap.error("--json goes with --trial or --heldout")
    if args.trial or args.heldout:
        return report(trial if args.trial else heldout, args.json)
    try:
        about, table = build(args.source)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**about, "glosses": table}, indent=0, sort_keys=True, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    print(f"wrote {len(table)} {what} to {args.out}")
    return 0


def paired_shares(x: list[int], y: list[int], groups: list[str]) -> dict:
    """Shares of 1/0 scores before (``x``) and now (``y``, the same questions in the same order), each with a
    bootstrap 95 % interval resampling ``groups`` (one label per question: its video), and the interval of the paired
    difference (``evals.metrics.bootstrap_interval``), rounded to 0.001."""
    from evals.metrics import bootstrap_interval

    def interval(values: list[float]) -> list[float]:
        return [round(v, 3) for v in bootstrap_interval(values, groups)]

    return {"before": round(sum(x) / len(x), 3), "before_95": interval(x), "now": round(sum(y) / len(y), 3),
            "now_95": interval(y), "paired_95": interval([q - p for p, q in zip(x, y, strict=True)])}


def bench_questions_command(argv: list[str] | None, prog: str, doc: str, what: str,
                            build: Callable[[Path], list[dict]],
                            compare: Callable[[list[tuple[Path, Path, Path]]], dict]) -> int:
    """The command of a study that asks a bench's videos new questions and scores two runs of ``evals.run`` on them
    (``studies.moment_order``, ``studies.denied_moments``): ``build --bench B --out F`` writes ``build(B)`` (the
    questions, ``what`` in the help) to ``F`` as JSON lines; ``compare BENCH BEFORE AFTER [...] [--json OUT]`` reports
    ``compare`` of the triples (``report``)."""
    import argparse

    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help=f"write the {what} of a bench")
    b.add_argument("--bench", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="score two runs on each such bench: BENCH BEFORE AFTER, repeated")
    c.add_argument("runs", type=Path, nargs="+", metavar="BENCH BEFORE AFTER")
    c.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "build":
        rows = build(args.bench)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} questions -> {args.out}")
        return 0
    if len(args.runs) % 3:
        ap.error("compare takes BENCH BEFORE AFTER, once per bench")
    triples = [tuple(args.runs[i:i + 3]) for i in range(0, len(args.runs), 3)]
    return report(lambda: compare(triples), args.json)
