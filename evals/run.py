"""Run one method over a bench: ``python -m evals.run --bench B.jsonl --method graph --out runs/NAME``.

Writes into ``--out``: ``predictions.jsonl`` (one line per item as soon as it is done; a rerun with the
same ``--out`` resumes after the items already there), ``metrics.json``, ``config.json`` (method,
models, library versions, seed, commit), ``moment_detr_predictions.jsonl`` (the predictions as
QVHighlights/Moment-DETR ``pred_relevant_windows`` records) and ``run.log``. Exit codes: 0 done, 2 bad bench or arguments.
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import time
from pathlib import Path

from evals.bench import BenchError, load_bench
from evals.methods import METHODS, MethodContext, Prediction, predict
from memory.jsonl import JsonlLog
from memory.store import IndexConfig, library_versions
from tools.argtypes import number
from tools.runtime import configure_runtime


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def read_predictions(path: Path) -> dict[str, Prediction]:
    """Predictions already written (a torn last line from a killed run is dropped; ``memory.jsonl``)."""
    return {p.id: p for p in JsonlLog(path).read(Prediction.model_validate_json)}


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The command's parser."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="bench .jsonl (format: evals/README.md)")
    p.add_argument("--method", required=True, choices=METHODS)
    p.add_argument("--out", required=True, help="run directory")
    p.add_argument("--llm", default="offline", help="offline or a litellm model id (graph method)")
    p.add_argument("--top-k", type=number(1, 100, integer=True), default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cache-dir", help="affectseek cache root")
    a = p.add_argument_group("ablation (what each component adds)")
    a.add_argument("--expression-backend", default="face8", choices=["face8", "fer", "hsemotion"],
                   help="facial expression model used by the index and the verifier (default face8)")
    a.add_argument("--no-voice-emotion", action="store_true", help="index without the vocal emotion model")
    a.add_argument("--affect-weight", type=number(0, 100), default=None,
                   help="weight of perceived affect in the localizer's ranking (default: RunSettings; 0 = text only)")
    a.add_argument("--abstain-below", type=number(0, 1), default=0.0,
                   help="drop moments below this support (0.3 = the earlier behaviour: empty answers when none passes)")
    a.add_argument("--fusion", default="fitted",
                   help="the offline judge's fusion: fitted (agents/fusion.json, fitted on the dev split; default), "
                        "hand (the earlier hand-set weights, uncalibrated) or a fusion JSON file")
    return p


def _logger(out: Path) -> logging.Logger:
    log = logging.getLogger("evals.run")
    log.setLevel(logging.INFO)
    handler = logging.FileHandler(out / "run.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    return log


def _predict_all(items, args, ctx: MethodContext, log_path: Path, log: logging.Logger) -> dict[str, Prediction]:
    """Predictions for every item, resuming after those already in ``log_path``; each is appended as it is done."""
    from rich.progress import Progress

    results = JsonlLog(log_path)
    done = read_predictions(log_path)
    if done:
        log.info("resuming: %d of %d items already predicted", len(done), len(items))
    with Progress(transient=True) as progress:
        task = progress.add_task(f"{args.method}", total=len(items), completed=len(done))
        for item in items:
            if item.id in done:
                continue
            try:
                pred = predict(args.method, item.id, item.video_path(args.bench), item.query, ctx)
            except Exception as exc:  # one item's failure is recorded, the run goes on
                log.exception("item %s failed", item.id)
                pred = Prediction(id=item.id, method=args.method, moments=[], wall_s=0.0,
                                  error=f"{type(exc).__name__}: {exc}")
            results.append([pred])
            done[item.id] = pred
            log.info("item %s: %d moments in %.1f s", item.id, len(pred.moments), pred.wall_s)
            progress.update(task, advance=1)
    return done


def main(argv: list[str] | None = None, prog: str = "python -m evals.run") -> int:
    """Run the command; returns the exit code."""
    configure_runtime()
    args = build_parser(prog).parse_args(argv)
    try:
        items = load_bench(args.bench)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        from agents.emotion import resolve_fusion

        resolve_fusion(args.fusion)
    except (OSError, ValueError) as exc:
        print(f"error: --fusion {args.fusion}: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = _logger(out)
    config = {"method": args.method, "llm": args.llm if args.method == "graph" else None, "bench": str(args.bench),
              "n_items": len(items), "top_k": args.top_k, "seed": args.seed, "commit": _commit(),
              "versions": library_versions(("affectseek", "torch", "faiss-cpu", "mediapipe", "keras",
                                            "faster-whisper", "sentence-transformers", "langgraph", "litellm")),
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    index_config = IndexConfig(expression_backend=args.expression_backend,
                               voice_backend=None if args.no_voice_emotion else "voice8")
    settings = {"abstain_below": args.abstain_below, "fusion": args.fusion,
                **({"affect_weight": args.affect_weight} if args.affect_weight is not None else {})}
    config.update(index_config=index_config.model_dump(), settings=settings)
    ctx = MethodContext(llm=args.llm, top_k=args.top_k, seed=args.seed, cache_dir=args.cache_dir,
                        index_config=index_config, settings=settings)
    done = _predict_all(items, args, ctx, out / "predictions.jsonl", log)
    from evals.evaluate import evaluate, moment_detr_predictions
    from tools.text import load_text_encoder

    metrics = evaluate(items, done, load_text_encoder(model=None))
    config["models"] = {**next((p.models for p in done.values() if p.models), {}),
                        "metrics_text_encoder": "all-MiniLM-L6-v2"}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    (out / "moment_detr_predictions.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in moment_detr_predictions(items, done)))
    loc, emo = metrics["localization"], metrics["emotion"]
    print(f"{args.method}: " + ", ".join(f"{k}={v}" for k, v in loc.items()) +
          f", emotion acc={emo['accuracy']} macro-F1={emo['macro_f1']} (n={emo['n']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
