"""A resumable JSON Lines results file: one record per finished unit of work, appended as it finishes.

A batch (``app.batch``: ``results.jsonl``) and an eval run (``evals.run``: ``predictions.jsonl``)
write through ``JsonlLog``: each record is one line, flushed and fsynced before the next unit starts,
so a killed run loses at most the unit in progress; on the next run ``read`` returns the finished
records (a line cut short by the kill, or one that is not a valid record, is dropped and removed from
the file) and the caller skips them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from memory.cache import atomic_write_bytes

T = TypeVar("T")


class JsonlLog:
    """The records file at ``path`` (created on the first ``append``)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def read(self, parse: Callable[[str], T]) -> list[T]:
        """Every valid record in file order, parsed by ``parse(line)``, which raises ``ValueError`` (or
        ``pydantic.ValidationError``) for a line that is not a record. Invalid lines are removed from the
        file (rewritten atomically, keeping its permissions) so appends continue after the last good record."""
        if not self.path.is_file():
            return []
        raw = self.path.read_text(encoding="utf-8", errors="replace")
        good: list[tuple[str, T]] = []
        for line in raw.splitlines():
            try:
                good.append((line, parse(line)))
            except ValueError:
                continue
        clean = "".join(line + "\n" for line, _ in good)
        if clean != raw:
            mode = self.path.stat().st_mode & 0o777
            atomic_write_bytes(self.path, clean.encode())
            os.chmod(self.path, mode)  # the user's results file, not a private cache file
        return [rec for _, rec in good]

    def append(self, records: Iterable[dict[str, Any] | BaseModel]) -> None:
        """Append ``records`` (dicts or pydantic models), one line each, flushed and fsynced."""
        lines = [r.model_dump_json() if isinstance(r, BaseModel) else json.dumps(r) for r in records]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
            f.flush()
            os.fsync(f.fileno())


def dict_record(required: set[str]) -> Callable[[str], dict]:
    """A ``JsonlLog.read`` parser of JSON objects holding at least the keys ``required``."""
    def parse(line: str) -> dict:
        rec = json.loads(line)
        if not isinstance(rec, dict) or not required <= rec.keys():
            raise ValueError("not a record")
        return rec
    return parse
