"""Shared fixtures: the bundled sample, the shared real media, and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.core.runtime import reproducible_kernels

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "hamilton_short.mp4"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# the tests use many throw-away caches: they share one folder of model exports (the MiniLM ONNX export)
os.environ.setdefault("AFFECTSEEK_MODEL_CACHE", str(Path.home() / ".cache" / "affectseek" / "models"))
# tests that run librosa in this process (no entry point, so no configure_runtime) keep numba's cache out of
# the environment too; numba reads the variable when it is first imported. Commands run by ``run_module`` do
# not inherit it: their configure_runtime puts numba's cache under their --cache-dir.
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "affectseek" / "tmp" / "numba"))
_OWN_ENV = {"NUMBA_CACHE_DIR"}
# what every entry point does first (``configure_runtime``): CTranslate2 reads CT2_USE_MKL as it is imported, so a test
# that imported faster-whisper before any recogniser loaded would leave its worker transcribing with Intel MKL
reproducible_kernels()


def command_env(**extra: str) -> dict[str, str]:
    """The environment of a command a test runs: this process's, less what conftest set for this process
    alone (``NUMBA_CACHE_DIR``), with ``PYTHONWARNINGS=ignore`` and ``extra``."""
    return {**{k: v for k, v in os.environ.items() if k not in _OWN_ENV}, "PYTHONWARNINGS": "ignore", **extra}


@pytest.fixture(autouse=True)
def _restore_environment():
    """An in-process CLI call sets ``AFFECTSEEK_CACHE`` and library folders for its run: undo it after each test."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def shared_file(rel: str) -> Path:
    """A file of ../shared (real clips that may not be bundled, the dev bench); skips when absent."""
    path = REPO.parent / "shared" / rel
    if not path.is_file():
        pytest.skip(f"{path} not present (shared media are beside the repository in CI)")
    return path


def shared_media(name: str) -> Path:
    """A file of ../shared/media; skips when absent."""
    return shared_file(f"media/{name}")


def run_module(module: str, *args: str, timeout: int = 900, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
    """Run ``python -m MODULE ARGS`` in the repository (``env``: variables set on top of ``command_env()``);
    returns the completed process (text mode)."""
    return subprocess.run([sys.executable, "-m", module, *args], check=False, cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=command_env(**(env or {})))


def run_cli(*args: str, timeout: int = 900, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m agents.run ARGS`` in the repository; returns the completed process (text mode)."""
    return run_module("agents.run", *args, timeout=timeout, env=env)


def copy_default_models(models: Path) -> Path:
    """Copy the fetched default models (``tools.core.pins.DEFAULT_MODELS``) from the shared model folder into the
    model folder ``models`` (what ``affectseek models --fetch defaults`` would put there); returns ``models``."""
    import shutil

    from tools.core.fetch import pinned_path
    from tools.core.pins import DEFAULT_MODELS

    for model in DEFAULT_MODELS:
        dst = models / "pinned" / model.name / model.file
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(pinned_path(model), dst, dirs_exist_ok=True)
    return models


def pytest_sessionstart(session) -> None:
    """Most tests run the default pipeline: without its fetched weights, stop with the command to run."""
    from tools.core.fetch import fetched
    from tools.core.pins import DEFAULT_MODELS
    from tools.core.registry import model_cache_dir

    missing = [m.name for m in DEFAULT_MODELS if not fetched(m)]
    if missing:
        pytest.exit(f"the default weights ({', '.join(missing)}) are not fetched in {model_cache_dir()}: run "
                    "`affectseek models --fetch defaults` (or `make test`, which does)", returncode=4)


def load_json(path: Path) -> dict:
    return json.loads(Path(path).read_text())


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory) -> Path:
    """One cache root shared by the end-to-end tests (so later runs can hit it)."""
    return tmp_path_factory.mktemp("cache")


def shifted_remux(dst: Path, seconds: float, kinds: tuple[str, ...] = ("video", "audio")) -> Path:
    """The bundled sample's packets remuxed into ``dst`` (Matroska) with the streams of ``kinds`` ``seconds``
    later: both for a clock that starts at 100 s, the audio alone for sound that starts after the picture."""
    import av

    with av.open(str(SAMPLE)) as inp, av.open(str(dst), "w") as out:
        vin, ain = inp.streams.video[0], inp.streams.audio[0]
        vo, ao = out.add_stream_from_template(vin), out.add_stream_from_template(ain)
        for packet in inp.demux(vin, ain):
            if packet.dts is None:
                continue
            if packet.stream.type in kinds:
                shift = int(seconds / packet.time_base)
                packet.pts, packet.dts = packet.pts + shift, packet.dts + shift
            packet.stream = vo if packet.stream.type == "video" else ao
            out.mux(packet)
    return dst

