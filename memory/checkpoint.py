"""Resumable index builds: per-chunk checkpoints in a build's staging directory.

An index build walks the video in chunks (``indexing.build``: ``VISUAL_CHUNK_S`` of sampled frames,
``ASR_CHUNK_S`` of audio). Each finished chunk is written atomically under ``<staging>/parts/``; a
build that was killed finds the finished chunks there on its next run and starts after the last one.
The staging directory belongs to one (video content, index config) pair, and ``plan.json`` records the
chunking, so a checkpoint is only ever reused by a build that would have produced it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from memory.cache import atomic_write_bytes, read_json, write_json


class Checkpoints:
    """Finished chunks of one build, kept in ``<staging>/parts``.

    Args:
        staging: the build's staging directory.
        plan: what makes the chunks comparable (chunk lengths, index config key); when the directory
            holds parts from another plan they are deleted first.
    """

    def __init__(self, staging: Path, plan: dict[str, Any]) -> None:
        self.dir = Path(staging) / "parts"
        plan_path = self.dir / "plan.json"
        if self.dir.is_dir():
            try:
                same = read_json(plan_path) == json.loads(json.dumps(plan))
            except (OSError, ValueError):
                same = False
            if not same:
                for p in self.dir.iterdir():
                    p.unlink()
        self.dir.mkdir(parents=True, exist_ok=True)
        if not plan_path.is_file():
            write_json(plan_path, plan)
        self.resumed = 0

    def load(self, name: str) -> tuple[Any, dict[str, np.ndarray]] | None:
        """The JSON object and arrays saved as ``name``, or None when that chunk is not finished."""
        path = self.dir / f"{name}.json"
        if not path.is_file():
            return None
        try:
            obj = read_json(path)
            arrays_path = self.dir / f"{name}.npz"
            arrays = dict(np.load(arrays_path)) if arrays_path.is_file() else {}
        except (OSError, ValueError):
            return None
        self.resumed += 1
        return obj, arrays

    def save(self, name: str, obj: Any, **arrays: np.ndarray) -> None:
        """Atomically write chunk ``name``: its arrays first, its JSON (the completion mark) last."""
        if arrays:
            buf = io.BytesIO()
            np.savez(buf, **arrays)
            atomic_write_bytes(self.dir / f"{name}.npz", buf.getvalue())
        write_json(self.dir / f"{name}.json", obj)
