"""VQAU-Bench-style benchmark files: one JSON object per line (see evals/README.md).

    {"id": "...", "video": "relative/or/absolute.mp4", "query": "...",
     "moments": [{"start_s": 8.0, "end_s": 10.0, "emotion": "happiness",
                  "rationale": "...", "evidence_modalities": ["visual"]}]}

Video paths are relative to the bench file. Times are seconds from the start of the video. Emotions
are labels of the bench's label set (``--labels``; AffectNet-8 by default), in any case.
VQAU-Bench's released records are read by ``evals.vqau``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field, ValidationError

from agents.taxonomy import DEFAULT, load_taxonomy
from tools.core.schema import Modality, TimeSpan, first_error

Item = TypeVar("Item", bound=BaseModel)


class BenchError(ValueError):
    """A bench file is missing or malformed; the message names the file and line."""


class GroundTruthMoment(TimeSpan):
    """One annotated moment; ``emotion`` is a label of the bench's label set."""

    emotion: str = Field(min_length=1)
    rationale: str | None = None
    evidence_modalities: list[Modality] = Field(default_factory=list)


class BenchItem(BaseModel):
    """One query over one video with its annotated moments (at least one)."""

    id: str
    video: str
    query: str = Field(min_length=1)
    moments: list[GroundTruthMoment] = Field(min_length=1)

    def video_path(self, bench_file: str | os.PathLike) -> Path:
        """The video's path, resolved against the bench file's folder when relative."""
        p = Path(self.video)
        return p if p.is_absolute() else (Path(bench_file).resolve().parent / p)


def canonical_emotions(item: BenchItem, labels: str, where: str) -> BenchItem:
    """``item`` with each moment's emotion spelled as in the label set ``labels`` (any case accepted).

    Raises:
        BenchError: an emotion is not a label of that set (``where`` names the file and line).
    """
    taxonomy = load_taxonomy(labels)
    for k, m in enumerate(item.moments):
        try:
            m.emotion = taxonomy.canonical(m.emotion)
        except KeyError as exc:
            raise BenchError(f"{where}: moments.{k}.emotion: {exc.args[0]}") from None
    return item


def load_items(path: str | os.PathLike, model: type[Item], check: Callable[[Item, str], None] | None = None,
               ) -> list[Item]:
    """Read a JSON Lines file of ``model`` items (each with an ``id``), validated with pydantic; blank
    lines are skipped; ``check(item, "FILE:LINE")`` may refuse an item by raising ``BenchError``.

    Raises:
        BenchError: the file is missing or empty, a line is not JSON or not a valid item, ``check``
            refuses one, or ids repeat; the message names the file and line.
    """
    p = Path(path)
    if not p.is_file():
        raise BenchError(f"{p}: no such bench file")
    items, seen = [], set()
    for n, line in enumerate(p.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = model.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise BenchError(f"{p}:{n}: not JSON ({exc.msg})") from exc
        except ValidationError as exc:
            where, msg = first_error(exc, "item")
            raise BenchError(f"{p}:{n}: {where}: {msg}") from exc
        if check is not None:
            check(item, f"{p}:{n}")
        if item.id in seen:
            raise BenchError(f"{p}:{n}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise BenchError(f"{p}: no items")
    return items


def load_bench(path: str | os.PathLike, labels: str = DEFAULT) -> list[BenchItem]:
    """Read and validate a bench file whose emotions are labels of ``labels`` (``agents.taxonomy``).

    Raises:
        BenchError: as ``load_items``, or an emotion is not in the label set.
    """
    return load_items(path, BenchItem, lambda item, where: canonical_emotions(item, labels, where))
