"""Stronger models for users with internet: an explicit, checksum-pinned fetch into the model cache.

Nothing here runs unless asked (``affectseek models --fetch NAME``); a backend that needs a fetched
file loads it from ``pinned_path(NAME)`` and, when it is absent, says which command fetches it. Each
``PinnedModel`` names its file by URL at a fixed commit of the authors' repository and by the git
blob id that repository's tree records for it (the SHA-1 of ``b"blob <size>\\0" + content``), so
the download is checked against the authors' own tree. A file is written to a temporary name in the
cache folder, verified, then renamed into place: a failed or mismatching download leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel

from tools.registry import model_cache_dir


class FetchError(RuntimeError):
    """A pinned model could not be fetched (network or HTTP error, checksum mismatch, unknown name)."""


class PinnedModel(BaseModel):
    """A model file fetched on request: where from, what it must hash to, and under which licence."""

    name: str
    file: str
    url: str
    git_blob_sha1: str
    licence: str
    source: str
    about: str


#: Models a user can fetch. HSEmotion / EmotiEffLib EfficientNet-B0 trained on AffectNet-8 (Savchenko,
#: "Classifying emotions and engagement in online learning based on a single facial expression recognition
#: neural network", IEEE Trans. Affective Computing 2022): 61.3 % on AffectNet-8 validation as its README
#: reports; input 224x224 RGB, ImageNet mean/std; logits in the order of ``HSEMOTION_LABELS``
#: (``tools.expression``). Blob id from the tree of sb-ai-lab/EmotiEffLib at commit f1df0e8.
PINNED_MODELS: dict[str, PinnedModel] = {m.name: m for m in [
    PinnedModel(
        name="hsemotion-enet-b0-8",
        file="enet_b0_8_best_vgaf.onnx",
        url=("https://github.com/sb-ai-lab/EmotiEffLib/raw/f1df0e8548c666d268826e50b7de107fd5553e9d/"
             "models/affectnet_emotions/onnx/enet_b0_8_best_vgaf.onnx"),
        git_blob_sha1="49772db4e87ee6df57087fba131832a959e5c64d",
        licence="Apache-2.0 (sb-ai-lab/EmotiEffLib)",
        source="https://github.com/sb-ai-lab/EmotiEffLib (models/affectnet_emotions/onnx)",
        about="AffectNet-8 facial expression, EfficientNet-B0 (HSEmotion enet_b0_8_best_vgaf), ~16 MB; "
              "--expression-backend hsemotion",
    ),
]}


def pinned_model(name: str) -> PinnedModel:
    """The ``PinnedModel`` called ``name``.

    Raises:
        FetchError: no such pinned model.
    """
    if name not in PINNED_MODELS:
        raise FetchError(f"no fetchable model {name!r}; choose one of {sorted(PINNED_MODELS)}")
    return PINNED_MODELS[name]


def pinned_path(model: PinnedModel) -> Path:
    """Where ``model`` lives once fetched: ``<model cache>/pinned/<name>/<file>``."""
    return model_cache_dir() / "pinned" / model.name / model.file


def git_blob_sha1(path: str | os.PathLike) -> str:
    """The git object id of the file at ``path`` as a blob (what ``git hash-object`` prints), 40 hex."""
    path = Path(path)
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_model(model: PinnedModel, url: str | None = None, timeout_s: float = 60.0, progress=None) -> Path:
    """Download ``model`` (from ``url`` when given, e.g. a mirror; else ``model.url``) into the model
    cache and verify its git blob id; returns the local path. A file already there that verifies is kept.

    ``progress`` is a ``rich.progress.Progress`` or None.

    Raises:
        FetchError: the download failed or the file does not hash to ``model.git_blob_sha1``.
    """
    import requests

    dest = pinned_path(model)
    if dest.is_file() and git_blob_sha1(dest) == model.git_blob_sha1:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{model.file}.", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as out, requests.get(url or model.url, stream=True, timeout=timeout_s) as r:
            r.raise_for_status()
            task = progress.add_task(f"fetch {model.name}", total=int(r.headers.get("content-length") or 0) or None) \
                if progress is not None else None
            for block in r.iter_content(1 << 16):
                out.write(block)
                if task is not None:
                    progress.advance(task, len(block))
        got = git_blob_sha1(tmp)
        if got != model.git_blob_sha1:
            raise FetchError(f"{model.name}: the downloaded file's git blob id is {got}, the pinned one "
                             f"{model.git_blob_sha1}; nothing was kept")
        os.replace(tmp, dest)
        return dest
    except requests.RequestException as exc:
        raise FetchError(f"{model.name}: download from {url or model.url} failed: {exc}") from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
