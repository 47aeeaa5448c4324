"""The shared ending of the measurement commands (``studies.reid``, ``studies.face_geometry``, ``studies.sound``,
``studies.train_voice``, ``studies.multilingual``, ``studies.gesture_loop``, ...): compute, print the result as JSON, write it to ``--json``; a labelled set that
was not assembled is one line on stderr and exit status 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path


def report(compute: Callable[[], dict], json_path: str | Path | None, echo: bool = True, indent: int = 1,
           ensure_ascii: bool = True) -> int:
    """Run ``compute()``; print its result (``echo``) and write it to ``json_path`` (when given) as JSON
    indented by ``indent`` (``ensure_ascii=False`` keeps non-ASCII text such as German words as it is).
    Returns the exit status: 0, or 2 when ``compute`` raised FileNotFoundError."""
    try:
        result = compute()
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=indent, ensure_ascii=ensure_ascii)
    if echo:
        print(text)
    if json_path:
        Path(json_path).write_text(text + "\n")
    return 0
