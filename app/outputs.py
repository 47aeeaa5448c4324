"""The check every command makes of the outputs a user names, before any work: so that a run that cannot write its
answer stops in one line (exit 2) instead of indexing first, and never writes over the video it reads or over
another of its outputs. A write that fails later (a full disk) is exit 1."""

from __future__ import annotations

import os
from pathlib import Path

from memory.cache import writes_through, writes_to_stdout


def output_problem(target: str | os.PathLike) -> str | None:
    """Why the user-named output ``target`` cannot be written ("is a folder"; "its folder does not exist or cannot be
    written"), or None: standard output, a link, a device or a FIFO (``memory.cache.writes_through``), or a file in an
    existing folder this process may write."""
    if writes_through(target):
        return None
    path = Path(target)
    if path.is_dir():
        return "is a folder"
    folder = path.parent if str(path.parent) else Path(".")
    if not (folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)):
        return "its folder does not exist or cannot be written"
    return None


def outputs_problem(outputs: list[tuple[str, str | os.PathLike | None]],
                    inputs: list[str | os.PathLike] = ()) -> str | None:
    """An error line for the first of the user-named ``outputs`` ((flag, target); None: not asked for) that cannot be
    written (``output_problem``), that is one of the ``inputs`` (the video read: writing it would destroy it), or that
    an earlier output names too (one would overwrite the other; standard output, ``-``, takes one); None when all
    can be written."""
    taken: dict[str, str] = {}
    for flag, target in outputs:
        if not target:
            continue
        if (problem := output_problem(target)) is not None:
            return f"error: {flag} {target}: {problem}"
        if any(_same_file(target, source) for source in inputs):
            return f"error: {flag} {target}: is the video this command reads; name another file"
        key = "standard output" if writes_to_stdout(target) else os.path.realpath(target)
        if key in taken:
            return f"error: {flag} {target}: {taken[key]} writes there too; name two different outputs"
        taken[key] = flag
    return None


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether paths ``a`` and ``b`` name one file (the same path, or the same file through links)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # either does not exist yet
        return False
