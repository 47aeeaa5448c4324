"""Model files derived from shipped weights (``tools.core.registry.model_cache_dir``), checked before use.

A backend that makes a file once and keeps it in the model cache (the ONNX exports of all-MiniLM-L6-v2,
``tools.perception.text_onnx.export_onnx``, and of the networks of ``tools.perception.cpu_onnx``; ``write_derived``)
records the file's size and SHA-256 in a manifest beside it,
``<file>.manifest.json``, written atomically (temporary file, then ``os.replace``) after the file itself
is in place. Before loading the file, ``check_derived`` compares it with its manifest, so a file cut short
or changed between runs (a full disk, a copy interrupted, an editor) is made again instead of ending a run
with onnxruntime's "InvalidProtobuf".

The whole check runs on every load: reading and hashing the 181 MB float64 MiniLM export of sections 95-124 took
0.13 s on one core of the 2-core development machine (0.07 s for a 90 MB float32 export, as the encoder's is again;
``hashlib`` SHA-256 at about 1.4 GB/s, file in the page cache; ``benches/results_text_f64_10.json``), under the 0.3 s
where a cheaper check (size always, the digest once per mtime) would have paid for its extra state; onnxruntime then
reads the file from the page cache the hash warmed. Registries load each backend once per process, so the check is
paid once per process.

The files a process checks or writes are remembered (``used_derived``), so that ``prune_derived`` can remove the rest
once the defaults are loaded (``affectseek models --prune``, ``app.prune``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from tools.core.interrupt import in_flight

#: Format version of the manifest files.
MANIFEST_FORMAT = 1

#: The derived files this process checked or wrote (absolute paths): the ones ``prune_derived`` keeps.
_USED: set[Path] = set()

#: What ``check_derived`` finds: ``ok`` (the file matches its manifest), ``missing`` (no file),
#: ``unrecorded`` (a file without a readable manifest, e.g. made before manifests existed), ``mismatch``
#: (size or digest differ from the manifest).
DerivedState = Literal["ok", "missing", "unrecorded", "mismatch"]


def manifest_path(path: str | os.PathLike) -> Path:
    """The manifest of the derived file ``path``: ``<path>.manifest.json`` in the same folder."""
    path = Path(path)
    return path.with_name(f"{path.name}.manifest.json")


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 (64 hex) of the file at ``path``, read in 1 MiB blocks.

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _replace_atomically(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` through a temporary file beside it, marked ``in_flight`` before it exists (a Ctrl-C
    removes it), then ``os.replace``: a reader sees the old file or the whole new one.

    Raises:
        OSError: the file cannot be written.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with in_flight(tmp):
            tmp.write_bytes(data)
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):  # e.g. a file where the folder should be: nothing was made
            tmp.unlink(missing_ok=True)


def _write_manifest(path: Path, size: int, sha256: str) -> dict:
    manifest = {"format": MANIFEST_FORMAT, "file": path.name, "size": size, "sha256": sha256}
    _replace_atomically(manifest_path(path), (json.dumps(manifest, indent=1) + "\n").encode())
    return manifest


def record_derived(path: str | os.PathLike) -> dict:
    """Write the manifest of the (complete) file ``path``: ``{"format", "file", "size", "sha256"}``, size in
    bytes, atomically; returns it. Call it after the file itself has been put in place.

    Raises:
        OSError: the file cannot be read or the manifest cannot be written.
    """
    path = Path(path)
    return _write_manifest(path, path.stat().st_size, file_sha256(path))


def write_derived(path: str | os.PathLike, data: bytes) -> dict:
    """Put the derived file ``data`` at ``path`` atomically (its folder made when missing), then its manifest, hashed
    from ``data`` itself; returns the manifest.

    Raises:
        OSError: the folder, the file or the manifest cannot be written.
    """
    path = Path(path)
    _USED.add(path.absolute())
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace_atomically(path, data)
    return _write_manifest(path, len(data), hashlib.sha256(data).hexdigest())


def read_manifest(path: str | os.PathLike) -> dict | None:
    """The manifest of ``path`` (``record_derived``), or None when it is missing or unreadable."""
    try:
        manifest = json.loads(manifest_path(path).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("size"), int) \
            or not isinstance(manifest.get("sha256"), str):
        return None
    return manifest


def check_derived(path: str | os.PathLike) -> DerivedState:
    """Whether the derived file ``path`` is the one its manifest describes (see ``DerivedState``): the
    size first (a stat), then the SHA-256 of the whole file (see the module doc for its cost)."""
    path = Path(path)
    _USED.add(path.absolute())
    try:
        size = path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):  # a file where a folder of the path should be: no such file
        return "missing"
    manifest = read_manifest(path)
    if manifest is None:
        return "unrecorded"
    if size != manifest["size"]:
        return "mismatch"
    try:
        digest = file_sha256(path)
    except OSError:
        return "mismatch"
    return "ok" if digest == manifest["sha256"] else "mismatch"


def used_derived() -> set[Path]:
    """The derived files (absolute paths) this process has checked (``check_derived``) or written (``write_derived``)
    so far, whether or not they exist."""
    return set(_USED)


def prune_derived(folder: str | os.PathLike, keep: set[Path]) -> list[tuple[Path, int]]:
    """Remove from ``folder`` (not its subfolders) every derived file, one with a manifest beside it, that ``keep``
    (absolute paths) does not name, with its manifest, and every manifest whose file is gone. Other files (a file
    without a manifest, a temporary file of a write in progress, anything a user put there) are left. Returns the
    (path, bytes) removed, file and manifest apart, sorted by path.

    Raises:
        OSError: a file cannot be removed (the files removed before it stay removed).
    """
    folder = Path(folder)
    suffix = ".manifest.json"
    removed = []
    for man in sorted(folder.glob(f"*{suffix}")):
        path = man.with_name(man.name[: -len(suffix)])
        if not man.is_file() or path.absolute() in keep:
            continue
        for p in (path, man):
            with contextlib.suppress(FileNotFoundError):
                size = p.stat().st_size
                p.unlink()
                removed.append((p, size))
    return sorted(removed)
