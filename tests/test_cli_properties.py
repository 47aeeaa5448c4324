"""Property test over the command lines: any argument vector ends in exit 0, 1 or 2, fast, without a traceback.

Videos are a missing file or a folder, so a vector that parses stops at the input check: what is under
test is the option handling (numbers, choices, text with control characters), not the pipeline.
"""

from __future__ import annotations

import contextlib
import io
import signal

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

NUMBERS = st.one_of(
    st.sampled_from(["inf", "-inf", "nan", "NaN", "1e309", "-1", "0", "0.0", "1e-320", "3", "2.5", "100000", "",
                     "0x10", "1_000", " 4 ", "٣"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**12, 10**12).map(str),
)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
RUN_NUMERIC = ["--top-k", "--clip-len", "--clip-stride", "--fps", "--verify-fps", "--min-support", "--max-requery",
               "--abstain-below"]
RUN_TEXT = ["--asr-backend", "--expression-backend", "--language", "--json", "--report"]
RUN_FLAGS = ["--no-audio", "--no-voice-emotion", "--quiet", "--trace", "--debug", "--bogus"]


def _options(numeric: list[str], text: list[str], flags: list[str]):
    one = st.one_of(
        st.tuples(st.sampled_from(numeric), NUMBERS).map(list),
        st.tuples(st.sampled_from(text), TEXT).map(list),
        st.sampled_from(flags).map(lambda f: [f]),
        st.sampled_from(numeric + text).map(lambda f: [f]),  # an option without its value
    )
    return st.lists(one, max_size=5).map(lambda groups: [a for g in groups for a in g])


def _exit_code(main, argv: list[str]) -> tuple[int, str]:
    def too_slow(*_):
        raise TimeoutError(f"argument vector {argv!r} took over 30 s")

    old = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(30)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, err.getvalue()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(video=st.sampled_from(["missing.mp4", "."]), query=TEXT, options=_options(RUN_NUMERIC, RUN_TEXT, RUN_FLAGS))
@example(video="missing.mp4", query="0", options=["--json", "\x00"])  # found by this test: a traceback once
@example(video="a\x00.mp4", query="0", options=["--report", "r.html"])
def test_any_run_command_line_exits_0_1_or_2_without_traceback(tmp_path, video, query, options):
    from app.ask import main

    argv = [str(tmp_path / video), query, *options, "--cache-dir", str(tmp_path / "cache")]
    code, err = _exit_code(main, argv)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err and code != 1, (argv, err)  # bad input is 2, never an internal error


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=TEXT, options=_options(["--workers", "--top-k"], ["--llm", "--device"], ["--quiet", "--recursive",
                                                                                     "--retry-failed", "--bogus"]))
def test_any_batch_command_line_exits_0_or_2_without_traceback(tmp_path, query, options):
    from app.batch import main

    argv = [str(tmp_path / "no-such-folder"), "--query", query, *options, "--out", str(tmp_path / "out")]
    code, err = _exit_code(main, argv)
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
