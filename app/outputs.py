"""The check every command makes of the outputs a user names, before any work: so that a run that cannot write its
answer stops in one line (exit 2) instead of indexing first. A write that fails later (a full disk) is exit 1."""

from __future__ import annotations

import os
from pathlib import Path

from memory.cache import writes_through


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
