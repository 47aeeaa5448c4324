"""Ctrl-C for every entry point: ``exit_on_interrupt`` makes SIGINT end the process with one line and exit status
130, and ``in_flight`` marks the temporary files its handler removes first.

This module imports nothing but ``os`` and ``signal`` (both loaded by the interpreter itself at start-up), so that
an entry point can install the handler as its very first statement: the moments a Ctrl-C still meets Python's own
``KeyboardInterrupt`` traceback are then only the interpreter's start-up and ``site`` (about 30-50 ms on the 2-core
EPYC), not also the imports of the command's modules (``evals/RESULTS.md`` section 78).
"""

from __future__ import annotations

import os
import signal

_IN_FLIGHT: set[str] = set()
#: a duplicate of the process's standard error taken by ``exit_on_interrupt``: the interrupt line goes there
#: even while file descriptor 2 points at /dev/null (``tools.perception.faces.native_stderr_silenced``)
_STDERR_FD: int | None = None


class in_flight:
    """Mark ``tmp`` (a path) as a temporary file or folder being written until the ``with`` block ends, so that
    ``exit_on_interrupt``'s handler can remove it if Ctrl-C ends the process meanwhile."""

    def __init__(self, tmp: str | os.PathLike) -> None:
        self._tmp = str(tmp)

    def __enter__(self) -> None:
        _IN_FLIGHT.add(self._tmp)

    def __exit__(self, *exc) -> None:
        _IN_FLIGHT.discard(self._tmp)


def _interrupted(signum, frame) -> None:
    import shutil

    for tmp in list(_IN_FLIGHT):
        try:
            if os.path.isdir(tmp) and not os.path.islink(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                os.unlink(tmp)
        except OSError:
            pass
    fd = 2 if _STDERR_FD is None else _STDERR_FD
    try:
        if os.isatty(fd):
            os.write(fd, b"\x1b[?25h")  # a progress bar may have hidden the cursor
        os.write(fd, b"interrupted\n")
    except OSError:
        pass
    os._exit(130)


def exit_on_interrupt() -> None:
    """Make Ctrl-C (SIGINT) end the process at once with one line, ``interrupted``, and exit status 130.

    Python's default turns SIGINT into ``KeyboardInterrupt`` wherever the interpreter is: in the middle
    of a native extension's import it leaves the module half-initialised (numpy then fails with
    "cannot load module more than once"), and a library that catches ``BaseException`` swallows it (the
    run goes on). Temporary files registered with ``in_flight`` are removed first; finished cache
    entries are complete (they are renamed into place) and a ``.partial`` index build resumes.
    The line goes to the standard error the process started with, also while a native library's start-up
    notices are being silenced (file descriptor 2 briefly redirected to /dev/null).

    A process started with SIGINT ignored (a command a script starts in the background, ``cmd &``, without job
    control) keeps ignoring it, as Python itself does at start-up and as the POSIX convention asks: the run is not
    meant to end on the terminal's Ctrl-C, and catching it only once this runs would make the same Ctrl-C end the run
    or not depending on when it came.
    """
    global _STDERR_FD
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        return
    if _STDERR_FD is None:
        try:
            _STDERR_FD = os.dup(2)
        except OSError:
            pass
    signal.signal(signal.SIGINT, _interrupted)
