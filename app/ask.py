"""``affectseek ask VIDEO "QUERY"`` (also ``python -m agents.run``): answer a vague affective query.

Settings come from flags, ``AFFECTSEEK_*`` variables and a TOML config file (``graphs.settings``).
Exit codes: 0 an answer (possibly "no matching moment"), 2 bad input (video, query, arguments,
settings), 1 internal failure, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys

from tools.core.argtypes import CommandParser

EXAMPLES = """examples:
  affectseek ask samples/hamilton_short.mp4 "when does the audience enjoy the show?"
  affectseek ask meeting.mp4 "when does she feel left out?" --json answer.json --top-k 3
  affectseek ask talk.mp4 "when is he nervous?" --llm openai/gpt-4o-mini
  affectseek ask talk.mp4 "when is he nervous?" --openclip-checkpoint laion2b_s34b_b79k --openclip-model ViT-B-32
  affectseek ask talk_de.mp4 "when does she talk about the contract?" --asr-model whisper-base
  AFFECTSEEK_TOP_K=3 affectseek ask talk.mp4 "when is he nervous?" --config affectseek.toml
  affectseek ask --schema > answer.schema.json
(python -m agents.run takes the same arguments)

settings: a flag wins over $AFFECTSEEK_<NAME> (e.g. AFFECTSEEK_LLM, AFFECTSEEK_TOP_K), which wins over
the TOML file of --config or $AFFECTSEEK_CONFIG (keys: llm, top_k, verify_fps, ...), then the defaults.
"""

#: Flags not given stay out of the parsed namespace, so the environment and the config file can set them.
UNSET = argparse.SUPPRESS


def _fail(message: str, code: int) -> int:
    """Print one line on stderr and return ``code``."""
    from tools.core.terminal import printable

    print(printable(" ".join(message.split())), file=sys.stderr)
    return code


def build_parser(prog: str = "affectseek ask") -> argparse.ArgumentParser:
    """The ``ask`` command's parser; flags left out are absent from the result (``UNSET``). Every setting of
    ``graphs.settings.Settings`` is a flag (``graphs.flags``), in its ``--help`` group."""
    from graphs.flags import add_setting_flags
    from graphs.settings import Settings

    p = CommandParser(
        prog=prog, argument_default=UNSET,
        description="Find the moments in a video that answer a vague social/affective question, with their "
                    "AffectNet-8 emotion and a rationale grounded in what the perception tools observed.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("video", nargs="?", default=None,
                   help="video file (any format FFmpeg reads; one without an audio track is read from its pictures)")
    p.add_argument("query", nargs="?", default=None, help='the question, e.g. "when does she feel left out?" (offline, '
                   "a question in another of the multilingual sentence encoder's 16 languages is read for its feeling, "
                   "and in Spanish, German, French and Chinese its people; the answer says so)")
    p.add_argument("--json", metavar="OUT", default=None, help="write the answer as JSON here ('-': standard output, the table "
                   "then goes to standard error; schema: --schema)")
    p.add_argument("--report", metavar="HTML", default=None, help="write a self-contained HTML report (timeline, tracks, events, "
                   "rationales); put the video beside it to play moments on click")
    p.add_argument("--config", metavar="TOML", default=None, help="settings file (default $AFFECTSEEK_CONFIG); flags and "
                   "AFFECTSEEK_* variables override it")
    add_setting_flags(p, Settings.model_fields)
    _add_output_flags(p)
    return p


def _add_output_flags(p: argparse.ArgumentParser) -> None:
    """Multiple-choice options, the answer's schema, the trace and tracebacks."""
    p.add_argument("--options", nargs="+", metavar="OPTION",
                   help="answer a multiple-choice question (Social-IQ 2.0 / Social Genome style): give 2-10 "
                        "options after the query; the answer adds the chosen option and a reasoning trace whose "
                        "steps are tagged visual / verbal / vocal / n/a and flag external knowledge")
    p.add_argument("--schema", action="store_true", default=False, help="print the JSON Schema of the answer and exit")
    p.add_argument("--trace", action="store_true", default=False,
                   help="print each graph step as it runs (node, time, decision); the JSON always holds the trace")
    p.add_argument("--debug", action="store_true", default=False, help="show tracebacks of internal errors")


def main(argv: list[str] | None = None, prog: str = "affectseek ask") -> int:
    """Run the ``ask`` command; returns the exit code. Options may stand anywhere, between the video and the question
    too (``parse_intermixed_args``)."""
    args = build_parser(prog).parse_intermixed_args(argv)
    if args.schema:
        from agents.schema import Answer

        print(json.dumps(Answer.model_json_schema(), indent=2))
        return 0
    if not args.video or args.query is None:
        return _fail("error: give a VIDEO and a QUERY (see --help)", 2)
    if not args.query.strip():
        return _fail('error: the query is empty: ask a question, e.g. "when does she feel left out?"', 2)
    from graphs.settings import SettingsError, settings_from_args
    from tools.core.runtime import configure_runtime

    try:
        settings = settings_from_args(args, args.config)
    except SettingsError as exc:
        return _fail(f"error: {exc}", 2)
    configure_runtime(settings.cache_dir)  # the cache root may come from a flag, the environment or the file
    from tools.core.runtime import DeviceError

    try:
        settings.check_device()  # a missing GPU is one line now, not a traceback once the models load
    except DeviceError as exc:
        return _fail(f"error: {exc}", 2)
    from rich.console import Console

    err = Console(stderr=True)
    try:
        return _run(args, settings, err)
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130


def _check_outputs(args) -> str | None:
    """An error line when ``--json`` or ``--report`` cannot be written, is the video, or names the other's file
    (``app.outputs.outputs_problem``)."""
    from app.outputs import outputs_problem

    return outputs_problem([("--json", args.json), ("--report", args.report)], [args.video])


def _run(args, settings, err) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from app.report import render_report
    from app.table import print_answer
    from graphs.pipeline import QueryError, run_query
    from memory.cache import OutputError, write_output, writes_to_stdout
    from tools.core.media import VideoError
    from tools.core.registry import BackendUnavailableError

    if (problem := _check_outputs(args)) is not None:
        return _fail(problem, 2)
    progress = Progress(TextColumn("{task.description:<16}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                        TimeElapsedColumn(), console=err, disable=settings.quiet, transient=False)

    def show(step) -> None:
        err.print(f"[dim]{step.elapsed_s:7.2f}s[/dim] [bold]{step.node}[/bold]: {step.decision}", highlight=False)

    try:
        with progress:
            result = run_query(args.video, args.query, settings.index_config(), settings.run_settings(), settings.llm,
                               settings.cache_dir, progress, on_step=show if args.trace else None,
                               options=getattr(args, "options", None))
        if args.report:
            render_report(result.answer, result.index, args.report)
    except (VideoError, QueryError) as exc:
        return _fail(f"error: {exc}", 2)
    except (BackendUnavailableError, OutputError) as exc:
        return _fail(f"error: {exc}", 1)
    except Exception as exc:  # one line for users; --debug shows the traceback
        if args.debug:
            raise
        return _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", 1)
    answer = result.answer
    if args.json:
        try:
            write_output(args.json, answer.model_dump_json(indent=2).encode())
        except OutputError as exc:
            return _fail(f"error: {exc}", 1)
    # the table goes to standard error when an output went to standard output ('-', /dev/stdout, a link to it)
    print_answer(answer, Console(stderr=writes_to_stdout(args.json) or writes_to_stdout(args.report)))
    return 0


def entry(prog: str = "affectseek ask") -> int:
    """``main()`` with Ctrl-C at any moment (imports, model loading, writing) ending in one line and exit 130
    (``tools.core.interrupt.exit_on_interrupt``)."""
    from tools.core.interrupt import exit_on_interrupt

    exit_on_interrupt()
    return main(prog=prog)


if __name__ == "__main__":
    sys.exit(entry())
