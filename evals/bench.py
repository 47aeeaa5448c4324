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


def bench_text(path: Path) -> str:
    """The text of a bench file, read as UTF-8 (JSON's encoding).

    Raises:
        BenchError: the file is not UTF-8 (a spreadsheet's Latin-1 export, say) or cannot be read.
    """
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line, byte = path.read_bytes()[:exc.start].count(b"\n") + 1, exc.object[exc.start]
        raise BenchError(f"{path}:{line}: not UTF-8 text (byte {byte:#04x}); save the file as UTF-8") from None
    except OSError as exc:
        raise BenchError(f"{path}: cannot read ({exc.strerror})") from None


def load_items(path: str | os.PathLike, model: type[Item], check: Callable[[Item, str], None] | None = None,
               ) -> list[Item]:
    """Read a JSON Lines file of ``model`` items (each with an ``id``), validated with pydantic; blank
    lines are skipped; ``check(item, "FILE:LINE")`` may refuse an item by raising ``BenchError``.

    Raises:
        BenchError: the file is missing, empty or not UTF-8, a line is not JSON or not a valid item, ``check``
            refuses one, or ids repeat; the message names the file and line.
    """
    p = Path(path)
    if not p.is_file():
        raise BenchError(f"{p}: no such bench file")
    items, seen = [], set()
    for n, line in enumerate(bench_text(p).splitlines(), 1):
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


def read_records(path: str | os.PathLike, needs: tuple[str, ...] = ("id",)) -> list[dict]:
    """The JSON objects of a JSON Lines file (a bench or a run's ``predictions.jsonl``), blank lines skipped, for the
    scorers that read records whole (``evals.transitions``, ``evals.salience``).

    Raises:
        BenchError: the file is missing, empty or not UTF-8, or a line is not a JSON object holding ``needs``;
            the message names the file and line.
    """
    p = Path(path)
    if not p.is_file():
        raise BenchError(f"{p}: no such file")
    out = []
    for n, line in enumerate(bench_text(p).splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BenchError(f"{p}:{n}: not JSON ({exc.msg})") from exc
        if not isinstance(record, dict) or (missing := [k for k in needs if k not in record]):
            what = "a JSON object" if not isinstance(record, dict) else f"its {', '.join(missing)}"
            raise BenchError(f"{p}:{n}: expected a record with {', '.join(needs)}; missing {what}")
        out.append(record)
    if not out:
        raise BenchError(f"{p}: no records")
    return out


def prediction_files(specs: list[str]) -> dict[str, Path]:
    """Run name -> predictions file, from the ``NAME=FILE`` arguments of a scorer's ``--predictions``.

    Raises:
        BenchError: an argument without ``NAME=`` or a file, or a name given twice.
    """
    files: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise BenchError(f"--predictions {spec!r}: give NAME=FILE (a run's name, then its predictions.jsonl)")
        if name in files:
            raise BenchError(f"--predictions: the name {name!r} is given twice")
        files[name] = Path(path)
    return files


def prediction_runs(files: dict[str, Path], items: list[dict]) -> dict[str, dict[str, dict]]:
    """Run name -> item id -> prediction record (a run's ``predictions.jsonl``), for the items of a bench.

    Raises:
        BenchError: a file as ``read_records`` refuses, or one that predicts none of ``items`` (another bench's
            run: scoring it would report zeros).
    """
    ids = {it["id"] for it in items}
    runs = {}
    for name, path in files.items():
        runs[name] = preds = {r["id"]: r for r in read_records(path)}
        if not ids & preds.keys():
            raise BenchError(f"{path}: no prediction for any of the bench's {len(ids)} items (another bench's run?)")
    return runs


def open_bench_folder(out_dir: Path) -> Path:
    """Make ``out_dir/videos`` for a builder and remove a ``bench.jsonl`` an earlier build left there: the videos
    are rewritten in place under the same names, so an old bench file beside a build stopped half-way would
    describe videos it no longer matches. Returns the videos folder."""
    (out_dir / "videos").mkdir(parents=True, exist_ok=True)
    (out_dir / "bench.jsonl").unlink(missing_ok=True)
    return out_dir / "videos"


def write_bench_file(out_dir: Path, lines: list[dict]) -> Path:
    """Write ``out_dir/bench.jsonl`` (one JSON object a line) whole or not at all; returns its path."""
    bench, part = out_dir / "bench.jsonl", out_dir / "bench.jsonl.part"
    part.write_text("".join(json.dumps(x) + "\n" for x in lines))
    part.replace(bench)
    return bench
