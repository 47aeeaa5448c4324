"""Run one method over a bench: ``python -m evals.run --bench B.jsonl --method graph --out runs/NAME``.

VQAU-Bench as released: ``python -m evals.run --bench-format vqau --bench test.json --videos DIR --method
graph --out runs/NAME`` (records read by ``evals.vqau``; answers and emotion metrics in VQAU-13).

Writes into ``--out``: ``predictions.jsonl`` (one line per item as soon as it is done; a rerun with the
same ``--out`` resumes after the items already there), ``metrics.json``, ``config.json`` (method,
models, library versions, seed, commit), ``moment_detr_predictions.jsonl`` (the predictions as
QVHighlights/Moment-DETR ``pred_relevant_windows`` records), ``results.md`` (the metrics by moment length, also
printed) and ``run.log``. An item that fails (a video that does not decode, say) is recorded with its error and
counts as a miss; a rerun with ``--retry-failed`` predicts the failed items again. A model that cannot load (default
weights not fetched, ``affectseek models --fetch defaults``) would fail every item alike, so it stops the run at once
and records nothing.

Exit codes: 0 every item predicted; 1 a model cannot load; 2 bad bench or arguments; 3 some items failed (each
error in ``predictions.jsonl``, tracebacks in ``run.log``; scored as misses).

As ``affectseek eval``, the options it shares with ``affectseek ask`` (``SHARED_SETTINGS``) also come from
``AFFECTSEEK_*`` variables and a TOML file (``--config FILE`` or ``$AFFECTSEEK_CONFIG``); a flag wins. Its index is
the one ``ask`` would build with the same settings (``run_index_config``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import BaseModel

from evals.bench import BenchError
from evals.formats import BenchFormat, load_formats
from evals.methods import METHODS, MethodContext, Prediction
from graphs.flags import add_setting_flags
from graphs.settings import SettingsError, load_settings
from memory.index_config import IndexConfig, library_versions
from memory.jsonl import JsonlLog
from tools.core.argtypes import CommandParser
from tools.core.runtime import DeviceError, check_device, configure_runtime
from tools.perception.expression import EXPRESSION_CLASSIFIERS


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def read_predictions(path: Path, model: type[BaseModel] = Prediction) -> dict[str, BaseModel]:
    """Predictions (``model``: ``Prediction`` or ``evals.mcq.McqPrediction``) already written (a torn last
    line from a killed run is dropped; ``memory.jsonl``)."""
    return {p.id: p for p in JsonlLog(path).read(model.model_validate_json)}


#: The run's settings that ``affectseek eval`` takes from ``AFFECTSEEK_*`` variables and the config file as well
#: (``graphs.settings.Settings`` fields of the same names, given to ``main`` as ``defaults``; a flag still wins).
SHARED_SETTINGS = ("llm", "top_k", "cache_dir", "device", "expression_backend", "voice_backend", "abstain_below",
                   "verify_fps", "dense_per_round", "affect_weight", "own_baseline", "fusion", "labels")


#: What some shared settings mean for ``eval`` (``graphs.flags``; the rest say what they say for ``ask``).
EVAL_HELP = {"llm": "offline or a litellm model id (graph method)",
             "expression_backend": "facial expression model used by the index and the verifier",
             "abstain_below": "drop moments below this support (0.3 = the earlier behaviour: empty answers when none "
                              "passes)"}


def build_parser(prog: str, formats: dict[str, BenchFormat] | None = None,
                 defaults: dict | None = None) -> argparse.ArgumentParser:
    """The command's parser; ``--bench-format`` offers ``formats`` (default: every registered one); ``defaults``
    (names of ``SHARED_SETTINGS``) replace the built-in defaults of those options."""
    formats = formats or load_formats()
    p = CommandParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="bench file: our .jsonl, or VQAU-Bench records with "
                   "--bench-format vqau (formats: evals/README.md)")
    p.add_argument("--bench-format", choices=sorted(formats), default="jsonl",
                   help="; ".join(f"{f.name}: {f.help}" + (f" (methods {', '.join(f.methods)})" if f.methods else "")
                                  for f in formats.values()))
    p.add_argument("--videos", metavar="DIR", help="folder holding the bench's videos as <video id>.<ext> "
                   "(searched recursively; --bench-format vqau)")
    p.add_argument("--labels", metavar="NAME|FILE", default=None,
                   help="label set of the bench's emotions and of the answers: AffectNet-8, VQAU-13, Ekman-6, "
                        "MER-6 or a taxonomy .json (default: VQAU-13 for --bench-format vqau, else AffectNet-8)")
    p.add_argument("--method", required=True, choices=METHODS,
                   help="graph: the pipeline; the others are the baselines the results tables keep (evals/README.md)")
    p.add_argument("--out", required=True, help="run directory (a rerun with the same one resumes)")
    p.add_argument("--retry-failed", action="store_true",
                   help="on resuming, predict again the items a run before recorded as failed")
    p.add_argument("--seed", type=int, default=0, help="seed of the methods that draw at random (default 0)")
    shared = {k: v for k, v in (defaults or {}).items() if k in SHARED_SETTINGS}
    add_setting_flags(p, ("llm", "top_k", "cache_dir", "device"), defaults=shared, target=p, helps=EVAL_HELP)
    a = p.add_argument_group("ablation (what each component adds)")
    add_setting_flags(p, ("expression_backend", "voice_backend", "abstain_below", "verify_fps", "dense_per_round",
                          "affect_weight", "own_baseline", "fusion"),
                      defaults=shared, target=a, helps=EVAL_HELP)
    p.set_defaults(labels=shared.get("labels"))
    return p


@contextlib.contextmanager
def _run_log(out: Path) -> Iterator[logging.Logger]:
    """The ``evals.run`` logger writing to ``out/run.log`` for one run; its file is closed and let go after, so a
    second run in the same process (a script, ``affectseek eval`` called twice, the tests) logs to its own file only
    (before, each run's handler stayed, and every later run's lines went to the earlier runs' files too)."""
    log = logging.getLogger("evals.run")
    log.setLevel(logging.INFO)
    handler = logging.FileHandler(out / "run.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    try:
        yield log
    finally:
        log.removeHandler(handler)
        handler.close()


def _predict_all(items, args, predict_one: Callable, failed: Callable, model: type[BaseModel], log_path: Path,
                 log: logging.Logger) -> dict[str, BaseModel]:
    """Predictions for every item (``predict_one(item)``; ``failed(item, error)`` records a failure), resuming
    after those already in ``log_path`` (with ``args.retry_failed``, after those predicted without an error); each is
    appended as it is done, a retried item's line after its failed one (the later line counts).

    Raises:
        tools.core.registry.BackendUnavailableError: a model cannot load; that item is not recorded.
    """
    from rich.progress import Progress

    from tools.core.registry import BackendUnavailableError

    results = JsonlLog(log_path)
    done = read_predictions(log_path, model)
    retry = {i for i, p in done.items() if p.error} if args.retry_failed else set()
    if done:
        log.info("resuming: %d of %d items already predicted%s", len(done), len(items),
                 f", {len(retry)} failed ones again" if retry else "")
    with Progress(transient=True) as progress:
        task = progress.add_task(f"{args.method}", total=len(items), completed=len(done.keys() - retry))
        for item in items:
            if item.id in done and item.id not in retry:
                continue
            try:
                pred = predict_one(item)
            except BackendUnavailableError:  # every item would fail alike: stop, record nothing
                log.exception("item %s: a model cannot load; the run stops", item.id)
                raise
            except Exception as exc:  # one item's failure is recorded, the run goes on
                log.exception("item %s failed", item.id)
                pred = failed(item, f"{type(exc).__name__}: {exc}")
            results.append([pred])
            done[item.id] = pred
            log.info("item %s done in %.1f s", item.id, pred.wall_s)
            progress.update(task, advance=1)
    return done


def _run_record(args: argparse.Namespace, fmt: BenchFormat, n_items: int) -> dict:
    """The start of ``config.json``: method, LLM, bench, top_k, seed, commit, library versions, start time."""
    return {"method": args.method, "llm": args.llm if args.method == "graph" else None, "bench": str(args.bench),
            "bench_format": fmt.name, "n_items": n_items, "top_k": args.top_k, "seed": args.seed, "commit": _commit(),
            "versions": library_versions(("affectseek", "torch", "faiss-cpu", "mediapipe", "faster-whisper",
                                          "sentence-transformers", "langgraph", "litellm")),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def run_index_config(args: argparse.Namespace) -> IndexConfig:
    """How this run indexes: ``ask``'s settings (``graphs.settings``: the eval flags, then ``AFFECTSEEK_*`` and the
    config file, then the defaults) as an ``IndexConfig``, so an index an evaluation builds is the one ``ask`` would.

    Raises:
        SettingsError: an ``AFFECTSEEK_*`` value or the config file is invalid.
    """
    return _settings(args).index_config()


def run_settings(args: argparse.Namespace, labels: str) -> dict:
    """The run's search and verification settings (``agents.state.RunSettings`` fields but ``top_k``) from the same
    sources as ``run_index_config``, with the answer's ``labels``.

    Raises:
        SettingsError: as ``run_index_config``.
    """
    return _settings(args, labels=labels).run_settings().model_dump(exclude={"top_k"})


def _settings(args: argparse.Namespace, **given: object):
    flags = {k: getattr(args, k) for k in SHARED_SETTINGS if k not in ("llm", "cache_dir", "labels")}
    return load_settings({**flags, **given})


def main(argv: list[str] | None = None, prog: str = "python -m evals.run", defaults: dict | None = None) -> int:
    """Run the command; returns the exit code. ``defaults``: as ``build_parser``'s (``affectseek eval`` passes the
    settings the environment and the config file give)."""
    formats = load_formats()
    args = build_parser(prog, formats, defaults).parse_args(argv)
    configure_runtime(args.cache_dir)  # before anything imports a native library (numba reads its cache folder once)
    try:
        check_device(args.device, onnx=EXPRESSION_CLASSIFIERS.runs_onnx(args.expression_backend), ctranslate2=True)
    except DeviceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from agents.taxonomy import TaxonomyError, resolve_labels

    fmt = formats[args.bench_format]
    try:
        labels = resolve_labels(args.labels or fmt.default_labels)
        if fmt.methods is not None and args.method not in fmt.methods:
            raise BenchError(f"--method {args.method} does not answer --bench-format {fmt.name} benches; use "
                             f"{' or '.join(fmt.methods)}")
        items = fmt.load(args, labels)
    except (BenchError, TaxonomyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        from agents.fusion import resolve_fusion

        resolve_fusion(args.fusion)
    except (OSError, ValueError) as exc:
        print(f"error: --fusion {args.fusion}: {exc}", file=sys.stderr)
        return 2
    try:
        index_config, settings = run_index_config(args), run_settings(args, labels)
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with _run_log(out) as log:
        return _run(args, fmt, items, labels, index_config, settings, out, log)


def _run(args: argparse.Namespace, fmt: BenchFormat, items: list, labels: str, index_config: IndexConfig,
         settings: dict, out: Path, log: logging.Logger) -> int:
    """``main`` once its arguments are checked: predict every item (resuming), score, write the run's files. Returns
    0, 1 when a model cannot load (nothing scored) or 3 when some items failed (a line on standard error names how
    many and the first one's error)."""
    config = _run_record(args, fmt, len(items))
    config.update(index_config=index_config.model_dump(), settings=settings)
    ctx = MethodContext(llm=args.llm, top_k=args.top_k, seed=args.seed, cache_dir=args.cache_dir,
                        index_config=index_config, settings=settings)
    from tools.core.registry import BackendUnavailableError
    from tools.perception.text import load_text_encoder

    try:
        done = _predict_all(items, args, lambda it: fmt.predict(args.method, it, it.video_path(args.bench), ctx),
                            lambda it, err: fmt.failed(args.method, it, err), fmt.prediction,
                            out / "predictions.jsonl", log)
    except BackendUnavailableError as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    metrics = fmt.score(items, done, load_text_encoder(model=None), labels)
    models = next((p.models for p in done.values() if getattr(p, "models", None)), {})
    config["models"] = {**models, "metrics_text_encoder": "all-MiniLM-L6-v2"}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    table = fmt.write(items, done, metrics, out)
    (out / "results.md").write_text(table + "\n")
    print(fmt.summary(args.method, metrics))
    print(table)
    failed = [done[it.id] for it in items if done[it.id].error]
    if failed:
        print(f"error: {len(failed)} of {len(items)} items failed and are scored as misses (first, {failed[0].id}: "
              f"{failed[0].error.splitlines()[0]}); each error is in {out / 'predictions.jsonl'}, the tracebacks in "
              f"{out / 'run.log'}; --retry-failed predicts them again", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
