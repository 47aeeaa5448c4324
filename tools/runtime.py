"""Process set-up for every entry point (CLI, batch worker, evals, inspect): one place.

``configure_runtime`` keeps native libraries quiet (TF-Lite, glog, transformers), keeps Hugging Face
and litellm offline (no hub or cost-map downloads), and turns off
onnxruntime's telemetry completely: its Linux wheels carry the 1DS uploader, which looks up
``mobile.events.data.microsoft.com`` when the first inference environment starts unless
``ORT_DISABLE_TELEMETRY=1`` is set before that (onnxruntime PR #27379; ``disable_telemetry_events()``
alone only mutes later events). Checked with strace on a cold run: no ``connect`` outside AF_UNIX.
"""

from __future__ import annotations

import contextlib
import os
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path

#: temporary files being written right now (``in_flight``): an interrupted run removes them
_IN_FLIGHT: set[str] = set()
#: a duplicate of the process's standard error taken by ``exit_on_interrupt``: the interrupt line goes there
#: even while file descriptor 2 points at /dev/null (``tools.faces.native_stderr_silenced``)
_STDERR_FD: int | None = None


@contextlib.contextmanager
def in_flight(tmp: str | os.PathLike) -> Iterator[None]:
    """Mark ``tmp`` as a temporary file being written until the block ends, so that
    ``exit_on_interrupt``'s handler can remove it if Ctrl-C ends the process meanwhile."""
    _IN_FLIGHT.add(str(tmp))
    try:
        yield
    finally:
        _IN_FLIGHT.discard(str(tmp))


def _interrupted(signum, frame) -> None:
    for tmp in list(_IN_FLIGHT):
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
    fd = 2 if _STDERR_FD is None else _STDERR_FD
    with contextlib.suppress(OSError):
        if os.isatty(fd):
            os.write(fd, b"\x1b[?25h")  # a progress bar may have hidden the cursor
        os.write(fd, b"interrupted\n")
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
    """
    global _STDERR_FD
    if _STDERR_FD is None:
        with contextlib.suppress(OSError):
            _STDERR_FD = os.dup(2)
    signal.signal(signal.SIGINT, _interrupted)


def configure_runtime(cache_dir: str | os.PathLike | None = None) -> None:
    """Set the environment and library switches described in the module doc (idempotent).

    ``cache_dir`` (``--cache-dir``) becomes ``$AFFECTSEEK_CACHE`` for this process and its workers, and
    the libraries that keep configuration or caches in the home folder or the temporary folder
    (matplotlib, TorchInductor, Triton) keep them under ``<cache>/config`` and ``<cache>/tmp``,
    so a run writes only to the cache and to the outputs it was given.
    """
    if cache_dir is not None:
        os.environ["AFFECTSEEK_CACHE"] = os.path.abspath(cache_dir)
    from tools.registry import cache_root

    root = cache_root()
    os.environ.setdefault("MPLCONFIGDIR", str(root / "config" / "matplotlib"))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(root / "tmp" / "torchinductor"))
    os.environ.setdefault("TRITON_CACHE_DIR", str(root / "tmp" / "triton"))
    os.environ.setdefault("GLOG_minloglevel", "2")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    warnings.filterwarnings("ignore")
    try:
        import onnxruntime
    except ImportError:
        return
    onnxruntime.disable_telemetry_events()
