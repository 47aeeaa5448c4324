"""Per-video cache: content-hashed directories, atomic writes, and evidence references.

Layout under ``cache_dir``::

    digests/<hash of a video file's path and state>   that file's SHA-256 (``video_digest``)
    <sha256 of the file, 20 hex>/
        .index-<config hash>.partial/ a build in progress, with per-chunk checkpoints in parts/
        index-<config hash>/          the finished build, renamed into place when complete
            manifest.json             config, model ids, library versions, stage timings
            clips.json, transcript.json, faces.json, clips.faiss, ...
        perception/<tool key>/<span>.json   verifier tool outputs, each written atomically

A reference ``"<path relative to the video dir>#<record id>"`` names one record of one stored tool
output; evidence in answers carries such references and ``resolve`` follows them.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from tools.core.derived import file_sha256
from tools.core.interrupt import in_flight
from tools.core.registry import cache_root


def default_cache_dir() -> Path:
    """``$AFFECTSEEK_CACHE`` or ``~/.cache/affectseek`` (model exports go in its ``models/``)."""
    return cache_root()


#: Folder under the cache root remembering videos' content hashes by the state of their file (``video_digest``).
DIGESTS_DIR = "digests"


def video_digest(video: str | os.PathLike, root: str | os.PathLike | None = None) -> str:
    """SHA-256 (64 hex) of the video file ``video``, the key of its cache, remembered under ``root`` (default
    ``default_cache_dir()``) by the file's path and state (``os.stat``: device, inode, size, modification and change
    times in ns), so a later question about the same unchanged file does not read the whole file again (about 1 s a
    GB here). Any write to a file sets its change time (ctime), which no call of a user program can set back, so a
    changed file is hashed again; on a file system that keeps times in whole seconds a rewrite of the same size within
    the second could not be told apart. A hash is remembered only when the file's state was the same before and after
    reading it; a cache that cannot be written means hashing every time.

    Raises:
        OSError: the file cannot be read.
    """
    def state() -> str:
        st = os.stat(video)
        return f"{os.path.realpath(video)}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}"

    before = state()
    name = hashlib.sha256(before.encode()).hexdigest()[:32]
    path = (Path(root) if root else default_cache_dir()) / DIGESTS_DIR / name
    try:
        known = path.read_text()
        if len(known) == 64 and all(c in "0123456789abcdef" for c in known):
            return known
    except (OSError, UnicodeDecodeError):
        pass
    digest = file_sha256(video)
    if state() == before:
        with contextlib.suppress(OSError):
            atomic_write_bytes(path, digest.encode())
    return digest


def config_key(config: dict[str, Any]) -> str:
    """Short stable hash (12 hex) of a JSON-serialisable config."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:12]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory and ``os.replace``.

    The temp file's name is registered with ``in_flight`` before the file is created, so a Ctrl-C at any moment
    (``tools.core.interrupt.exit_on_interrupt``) leaves no temp file behind (creating it first, as
    ``tempfile.mkstemp`` does, left one when the signal came between the two)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
    with in_flight(tmp):
        try:
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


class OutputError(OSError):
    """An output the user named cannot be written (the message says which and why, in one line)."""


def writes_to_stdout(target: str | os.PathLike | None) -> bool:
    """Whether the user-named output ``target`` is this process's standard output: ``-``, or a path that
    is the same open file as file descriptor 1 (``/dev/stdout``, ``/proc/self/fd/1``, a symbolic link to
    one of them, as some wrappers make). False for None and for anything that cannot be looked at."""
    if target is None:
        return False
    if str(target) == "-":
        return True
    try:
        return os.path.samestat(os.stat(target), os.fstat(1))
    except (OSError, ValueError):
        return False


def writes_through(target: str | os.PathLike) -> bool:
    """Whether ``write_output`` writes into ``target`` as it is instead of replacing it: ``-``, a symbolic
    link (followed, kept), or an existing path that is neither a regular file nor a folder (a character
    device such as /dev/stdout, a FIFO, a socket)."""
    if str(target) == "-":
        return True
    path = Path(target)
    try:
        return path.is_symlink() or (path.exists() and not path.is_file() and not path.is_dir())
    except OSError:
        return False


def write_output(target: str | os.PathLike, data: bytes) -> None:
    """Write a user-named output. Standard output (``-``, or a path that is it: ``writes_to_stdout``) gets
    the bytes through ``sys.stdout``, so they keep their place among what else the process prints; a
    symbolic link, a FIFO or a device (``writes_through``) is opened for writing and written into, the link
    followed and kept; a regular file (or a new path) is replaced atomically (temporary file in the same
    folder, then ``os.replace``) and gets the usual permissions (0666 less the umask).

    Raises:
        OutputError: the path cannot be written (missing or read-only directory, full disk, ...).
    """
    path = Path(target)
    try:
        if writes_to_stdout(target):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        if writes_through(path):
            with open(path, "wb") as f:  # follows the link / writes into the device or pipe
                f.write(data)
            return
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        atomic_write_bytes(path, data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(path, 0o666 & ~umask)
    except OSError as exc:
        where = "standard output" if str(target) == "-" else path
        raise OutputError(f"cannot write {where}: {exc.strerror or exc}") from exc


def json_bytes(obj: Any) -> bytes:
    """``obj`` (pydantic models and lists of them included) as the JSON ``write_json`` writes."""
    return json.dumps(_plain(obj), indent=1).encode()


def write_json(path: Path, obj: Any) -> None:
    """Atomically write ``obj`` (pydantic models and lists of them included) as JSON."""
    atomic_write_bytes(path, json_bytes(obj))


def _plain(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, list | tuple):
        return [_plain(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


def read_json(path: Path) -> Any:
    """Load JSON from ``path``."""
    return json.loads(Path(path).read_text())


@functools.cache
def _adapter(kind: Any) -> TypeAdapter:
    return TypeAdapter(kind)


def read_records(path: Path, kind: Any) -> Any:
    """The JSON file ``path`` read as ``kind`` (a pydantic model or ``list[Model]``) in one pass of pydantic's own JSON
    parser (``TypeAdapter.validate_json``): the same records as ``json.loads`` then ``model_validate``, in a third
    to a half of the time (an hour's faces and clips, 3.3 MB, on the 2-core development machine: 0.17-0.26 s ->
    0.06-0.09 s).

    Raises:
        OSError: the file cannot be read.
        pydantic.ValidationError (a ValueError): the file is not JSON, or not records of ``kind``.
    """
    return _adapter(kind).validate_json(Path(path).read_bytes())


class VideoCache:
    """The cache directory of one video, identified by its content hash.

    Args:
        root: the cache root (``default_cache_dir()`` if None).
        digest: hex SHA-256 of the video file.
    """

    def __init__(self, root: str | os.PathLike | None, digest: str) -> None:
        self.root = Path(root) if root else default_cache_dir()
        self.digest = digest
        self.dir = self.root / digest[:20]

    def index_dir(self, key: str) -> Path:
        """Final directory of the index built with config hash ``key`` (exists only when complete)."""
        return self.dir / f"index-{key}"

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Exclusive inter-process lock for building index ``key`` (``fcntl.flock`` on a lock file).

        A second process that wants the same index waits here, then finds it complete.
        """
        import fcntl

        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / f".index-{key}.lock", "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def staging_dir(self, key: str) -> Path:
        """The directory index ``key`` is built in before ``commit`` (call while holding ``lock(key)``).

        It is the same path for every build of ``key``, so a build that was killed leaves its finished
        chunks there for the next one to resume from (``memory.checkpoint``).
        """
        d = self.dir / f".index-{key}.partial"
        d.mkdir(parents=True, exist_ok=True)
        return d

    def commit(self, staging: Path, key: str) -> Path:
        """Move a fully written staging dir into place, dropping its chunk checkpoints."""
        final = self.index_dir(key)
        os.rename(staging, final)
        shutil.rmtree(final / "parts", ignore_errors=True)
        return final

    def perception_path(self, tool_key: str, start_s: float, end_s: float) -> Path:
        """Where the verifier stores tool ``tool_key``'s output for span [start_s, end_s)."""
        return self.dir / "perception" / tool_key / f"{start_s:09.3f}-{end_s:09.3f}.json"

    def ref(self, path: Path, record_id: str) -> str:
        """Reference string for record ``record_id`` stored in ``path`` (inside this video's dir)."""
        return f"{path.relative_to(self.dir).as_posix()}#{record_id}"

    def resolve(self, ref: str) -> dict[str, Any]:
        """Return the stored record that ``ref`` names.

        Raises:
            KeyError: the file or the record does not exist.
        """
        rel, _, record_id = ref.partition("#")
        path = self.dir / rel
        if not path.is_file() or ".." in Path(rel).parts:
            raise KeyError(f"no stored tool output {rel!r}")
        found = _find_record(read_json(path), record_id)
        if found is None:
            raise KeyError(f"record {record_id!r} not in {rel!r}")
        return found


def _find_record(obj: Any, record_id: str) -> dict[str, Any] | None:
    if isinstance(obj, dict):
        if obj.get("id") == record_id:
            return obj
        obj = list(obj.values())
    if isinstance(obj, list):
        for item in obj:
            if isinstance(item, dict | list) and (hit := _find_record(item, record_id)) is not None:
                return hit
    return None
