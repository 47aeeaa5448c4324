"""Read VQAU-Bench records as released: a JSON list or JSON Lines of query-clip records.

VQAU-Bench (TianZhenK/vqau-bench; arXiv 2605.05640) pairs vague queries with affective clips of long
videos and labels each clip with one of 13 emotions (``agents/taxonomies/vqau13.json``). Its exact field
names are not public, so each field accepts the aliases below (first present wins):

=========== ==================================================================================
field       accepted keys
=========== ==================================================================================
id          ``id``
video       ``video_id``, ``video``; else the id without its clip number and query suffix
            (``1024_1024_00001698_Q1`` -> ``1024_1024``)
span (s)    ``start``/``end``, ``start_s``/``end_s``, or ``timestamps: [start, end]``
query       ``query``
emotion     ``emotion`` (any case: ``Joy``, ``joy``)
rationale   ``summary``, ``rationale`` (optional)
=========== ==================================================================================

Each record becomes one ``evals.bench.BenchItem`` whose video is the file under ``--videos DIR``
(searched recursively) named ``<video>.<ext>`` for a video extension. A record that lacks a field, names
an unknown emotion or a video that is not there stops the run with ``FILE:LINE: field ...`` (exit 2).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.bench import BenchError, BenchItem, bench_text, canonical_emotions
from evals.evaluate import moment_format
from evals.formats import register_format
from tools.core.schema import first_error

#: File extensions taken for videos under ``--videos``.
VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".avi", ".mov", ".m4v")
_ALIASES = {"video": ("video_id", "video"), "start": ("start", "start_s"), "end": ("end", "end_s"),
            "rationale": ("summary", "rationale")}


def video_of_id(record_id: str) -> str:
    """The video id inside a record id ``<video>_<clip number>_Q<n>`` (``1024_1024_00001698_Q1`` ->
    ``1024_1024``); an id without that shape is returned whole."""
    m = re.fullmatch(r"(.+)_\d+_Q\d+", record_id)
    return m.group(1) if m else record_id


def _records(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed record) for a JSON list or a JSON Lines file."""
    text = bench_text(path)
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] != "[":
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    out.append((n, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise BenchError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        return out
    decoder, pos, out = json.JSONDecoder(), start + 1, []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            raise BenchError(f"{path}:{text.count(chr(10)) + 1}: not JSON (the list has no closing ']')")
        if text[pos] == "]":
            if rest := text[pos + 1:].strip():
                line = text.count("\n", 0, pos + 1 + text[pos + 1:].index(rest[0])) + 1
                raise BenchError(f"{path}:{line}: not JSON (text after the list's closing ']')")
            return out
        line = text.count("\n", 0, pos) + 1
        try:
            record, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise BenchError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc
        out.append((line, record))


def _field(record: dict, name: str, where: str, required: bool = True) -> Any:
    for key in _ALIASES.get(name, (name,)):
        if record.get(key) is not None:
            return record[key]
    if required:
        raise BenchError(f"{where}: {name} (missing; accepted keys: {', '.join(_ALIASES.get(name, (name,)))})")
    return None


def _span(record: dict, where: str) -> tuple[Any, Any]:
    stamps = record.get("timestamps")
    if stamps is not None:
        if not (isinstance(stamps, list) and len(stamps) == 2):
            raise BenchError(f"{where}: timestamps (expected [start, end] in seconds)")
        return stamps[0], stamps[1]
    try:
        return _field(record, "start", where), _field(record, "end", where)
    except BenchError:
        raise BenchError(f"{where}: start/end (missing; accepted: start/end, start_s/end_s, timestamps)") from None


def _video_files(videos: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for p in sorted(videos.rglob("*")):
        if p.suffix.lower() in VIDEO_EXTENSIONS and p.is_file():
            found.setdefault(p.stem, p.absolute())
    return found


def load_vqau(path: str | os.PathLike, videos: str | os.PathLike, labels: str = "VQAU-13") -> list[BenchItem]:
    """Bench items from a VQAU-Bench record file, videos resolved under ``videos`` (module doc).

    Raises:
        BenchError: the file or folder is missing, a record is not JSON or lacks a field, an emotion is
            not a label of ``labels``, a video is not under ``videos``, or ids repeat.
    """
    p, vdir = Path(path), Path(videos)
    if not p.is_file():
        raise BenchError(f"{p}: no such record file")
    if not vdir.is_dir():
        raise BenchError(f"--videos {vdir}: no such folder")
    files = _video_files(vdir)
    items, seen = [], set()
    for line, record in _records(p):
        where = f"{p}:{line}"
        if not isinstance(record, dict):
            raise BenchError(f"{where}: record (expected a JSON object)")
        rid = str(_field(record, "id", where))
        video = str(_field(record, "video", where, required=False) or video_of_id(rid))
        start, end = _span(record, where)
        if video not in files:
            raise BenchError(f"{where}: video {video!r} (no {video}.<{'|'.join(e[1:] for e in VIDEO_EXTENSIONS)}> "
                             f"under {vdir})")
        moment = {"start_s": start, "end_s": end, "emotion": str(_field(record, "emotion", where)),
                  "rationale": _field(record, "rationale", where, required=False)}
        try:
            item = BenchItem(id=rid, video=str(files[video]), query=_field(record, "query", where), moments=[moment])
        except ValidationError as exc:
            field, msg = first_error(exc, "item")
            raise BenchError(f"{where}: {field}: {msg}") from exc
        canonical_emotions(item, labels, where)
        if rid in seen:
            raise BenchError(f"{where}: duplicate id {rid!r}")
        seen.add(rid)
        items.append(item)
    if not items:
        raise BenchError(f"{p}: no records")
    return items


def _load(args, labels: str) -> list[BenchItem]:
    """``load_vqau`` of ``--bench`` and ``--videos`` (``evals.run``'s arguments)."""
    if not args.videos:
        raise BenchError("--bench-format vqau needs --videos DIR (the folder holding the videos)")
    return load_vqau(args.bench, args.videos, labels)


register_format(moment_format(
    "vqau", "VQAU-Bench query-clip records, a JSON list or JSON Lines; videos found under --videos", "VQAU-13",
    _load))
