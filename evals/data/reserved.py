"""Material reserved for the project's evaluation on video it never sees: never read for development, tuning or
training, whichever reader a file reaches (``evals.build_bench``'s readers, ``evals.data.assemble.load_manifest``).

Reserved (the developers' guide, *Measuring quality honestly*): MEAD actors M030, W009 and W011, in any copy (their
files and folders are named by the actor: ``M030_front_angry_3_001.mp4``, ``W009/...``); CREMA-D actor 1001
(``1001_DFA_ANG_XX.*``); the Emotion-LLaMA example clips and any other MER2023 sample (a path through an
``Emotion-LLaMA`` or ``MER2023`` folder, as a snapshot of the repository holds them); EAMM's ``sad.mp4``,
``contempt.mp4`` and ``disgusted.mp4`` (under a folder named ``EAMM``, as a snapshot of jixinya/EAMM holds them: a
user's own ``sad.mp4`` elsewhere is theirs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath
from typing import TypeVar

_MEAD = re.compile(r"^(?:M030|W009|W011)(?:[_\-.]|$)")
_CREMAD = re.compile(r"^1001_[A-Z]{3}_")
_EAMM_HELD = {"sad.mp4", "contempt.mp4", "disgusted.mp4"}

T = TypeVar("T")


def reserved(path: str | PurePath) -> str | None:
    """Why ``path`` (a file's path or name) is reserved, in a few words, or None when it is not (module doc)."""
    parts = PurePath(path).parts
    folders = [p.lower() for p in parts[:-1]]
    name = parts[-1] if parts else ""
    if any(_MEAD.match(p) for p in parts):
        return "MEAD actor M030, W009 or W011"
    if _CREMAD.match(name):
        return "CREMA-D actor 1001"
    if any("emotion-llama" in f or "mer2023" in f for f in folders):
        return "an Emotion-LLaMA or MER2023 sample"
    if name.lower() in _EAMM_HELD and any("eamm" in f for f in folders):
        return "EAMM's sad, contempt or disgusted clip"
    return None


def without_reserved(items: Iterable[T], path_of) -> tuple[list[T], list[tuple[T, str]]]:
    """(the items whose ``path_of(item)`` is not reserved, in order; the others with why each is)."""
    kept, left = [], []
    for item in items:
        why = reserved(path_of(item))
        if why is None:
            kept.append(item)
        else:
            left.append((item, why))
    return kept, left
