"""Caches a run can trust: a derived model file cut short is made again (``tools.core.derived``), library caches
stay out of the environment (``tools.core.runtime.configure_runtime``), and an output named through a link to
standard output reaches it (``memory.cache.write_output``)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tests.conftest import REPO, SAMPLE, command_env, copy_default_models, run_cli
from tools.core.derived import check_derived, manifest_path, record_derived

QUERY = "when is she happy?"
TEXTS = ["she laughs at the joke", "the audience claps", "he is nervous before the talk"]


def test_manifest_tells_a_whole_file_from_a_missing_cut_short_or_changed_one(tmp_path):
    f = tmp_path / "model.onnx"
    f.write_bytes(os.urandom(4096))
    assert check_derived(f) == "unrecorded"
    manifest = record_derived(f)
    assert json.loads(manifest_path(f).read_text()) == manifest and manifest["size"] == 4096
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "model.onnx.manifest.json"]  # no temp file
    assert check_derived(f) == "ok"
    f.write_bytes(os.urandom(4096))  # same size, other bytes
    assert check_derived(f) == "mismatch"
    record_derived(f)
    os.truncate(f, 2048)
    assert check_derived(f) == "mismatch"
    manifest_path(f).write_text("{not json")
    assert check_derived(f) == "unrecorded"
    f.unlink()
    assert check_derived(f) == "missing"


def _private_models(dst: Path) -> Path:
    """A model folder of the test's own (the shared one, ``AFFECTSEEK_MODEL_CACHE``, is never cut short): the
    fetched default weights, and the shared MiniLM export of this environment's weights and its manifest when they
    are there (saves an export; another environment's export in the shared folder is left out)."""
    from tools.core.registry import model_cache_dir
    from tools.perception.text_onnx import export_name

    copy_default_models(dst)
    for onnx in [model_cache_dir() / export_name()]:
        if check_derived(onnx) in ("ok", "unrecorded"):
            shutil.copy2(onnx, dst / onnx.name)
            if manifest_path(onnx).is_file():
                shutil.copy2(manifest_path(onnx), manifest_path(dst / onnx.name))
    return dst


def test_a_cut_short_onnx_export_is_made_again_with_the_same_embeddings(tmp_path):
    from tools.perception.text_onnx import OnnxSentenceEncoder

    models = _private_models(tmp_path / "models")
    first = OnnxSentenceEncoder(cache_dir=models)  # exports when nothing was copied; records the manifest
    before, size = first.encode(TEXTS), first.path.stat().st_size
    assert check_derived(first.path) == "ok"
    os.truncate(first.path, size // 2)  # what a full disk or an interrupted copy leaves
    again = OnnxSentenceEncoder(cache_dir=models)
    assert again.path == first.path and again.path.stat().st_size == size and check_derived(again.path) == "ok"
    np.testing.assert_allclose(again.encode(TEXTS), before, atol=1e-5)
    assert sorted(p.name for p in models.iterdir() if p.name != "pinned") == [first.path.name,
                                                                           manifest_path(first.path).name]


def test_the_label_descriptions_vectors_are_kept_beside_the_export_and_read_back_alike(tmp_path):
    """What a new process reads instead of running the network 39 times: the same bits, checked by a manifest, and
    computed again when the file is cut short."""
    from tools.perception.text_onnx import OnnxSentenceEncoder
    from tools.signals.lexicon import EMOTION_DESCRIPTIONS

    def not_run(text):
        raise AssertionError(f"ran the network for {text!r}")

    models = _private_models(tmp_path / "models")
    texts = [text for described in EMOTION_DESCRIPTIONS.values() for text in described]
    first = OnnxSentenceEncoder(cache_dir=models)
    computed = first.encode_fixed(texts)
    kept = sorted(models.glob("*.fixed-*.npy"))
    assert len(kept) == 1 and check_derived(kept[0]) == "ok"
    assert np.array_equal(computed, first.encode(texts))
    reader = OnnxSentenceEncoder(cache_dir=models)
    reader._run = not_run
    assert np.array_equal(reader.encode_fixed(texts), computed)
    os.truncate(kept[0], 64)  # an interrupted write: the vectors are computed and kept again
    again = OnnxSentenceEncoder(cache_dir=models)
    assert np.array_equal(again.encode_fixed(texts), computed) and check_derived(kept[0]) == "ok"
    again.encode_fixed(texts[:3])  # other texts, a file of their own
    assert len(list(models.glob("*.fixed-*.npy"))) == 2


def test_an_expression_network_export_is_kept_checked_and_made_again(tmp_path):
    """faceres's export (``tools.perception.cpu_onnx.CpuOnnx``): written once with its manifest; a second reader
    loads it without building the network; one cut short is made again; a folder that cannot be written keeps the
    export in memory. Every reading equals torch's own to within 1e-5."""
    from tools.perception import face_resnet
    from tools.perception.cpu_onnx import CpuOnnx
    from tools.perception.face_resnet import INPUT, FaceRes, network_input

    faceres = FaceRes()
    crops = network_input(np.stack([np.full((64, 64), 40 + 60 * i, np.uint8) for i in range(3)]))
    by_torch = faceres.onnx(crops, engine="torch")[0]
    sha = faceres.name.rsplit("@", 1)[1]
    models = tmp_path / "models"

    def reader(build=faceres._network, cache=models) -> CpuOnnx:
        return CpuOnnx(build, (2, 1, INPUT, INPUT), ("p",), name="faceres", weights_sha256=sha,
                       source=face_resnet.__file__, cache_dir=cache)

    def no_build(device):
        raise AssertionError("the network was built although its export is kept")

    first = reader()
    np.testing.assert_allclose(first(crops)[0], by_torch, atol=1e-5)
    assert check_derived(first.path) == "ok" and first.path.parent == models
    assert sorted(p.name for p in models.iterdir()) == [first.path.name, manifest_path(first.path).name]
    np.testing.assert_array_equal(reader(no_build)(crops)[0], first(crops)[0])
    size = first.path.stat().st_size
    os.truncate(first.path, size // 2)  # what a full disk or an interrupted copy leaves
    np.testing.assert_array_equal(reader()(crops)[0], first(crops)[0])
    assert first.path.stat().st_size == size and check_derived(first.path) == "ok"
    blocked = tmp_path / "a-file"  # a model folder that cannot be made (a file stands where its parent would be)
    blocked.write_bytes(b"")
    in_memory = reader(cache=blocked / "models")
    np.testing.assert_array_equal(in_memory(crops)[0], first(crops)[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "models"]


def test_two_threads_export_two_networks_at_once(tmp_path):
    """A first run exports on two threads together (the picture pass's expression networks, the speech pass's voice
    encoder); torch's exporter keeps process-wide state, so without ``ONNX_EXPORT_LOCK`` one of them failed."""
    import threading

    from tools.perception import face_resnet, voices
    from tools.perception.cpu_onnx import CpuOnnx
    from tools.perception.face_resnet import INPUT, FaceRes
    from tools.perception.voices import N_MELS, GE2EEncoder

    faceres, ge2e = FaceRes(), GE2EEncoder()
    readers = [CpuOnnx(faceres._network, (2, 1, INPUT, INPUT), ("p",), name="faceres", source=face_resnet.__file__,
                       weights_sha256="a" * 64, cache_dir=tmp_path),
               CpuOnnx(ge2e._network, (2, 160, N_MELS), ("embedding",), name="ge2e", source=voices.__file__,
                       weights_sha256="b" * 64, input_axes=(0, 1), cache_dir=tmp_path)]
    start, errors = threading.Barrier(2), []

    def export(reader: CpuOnnx) -> None:
        start.wait()
        try:
            reader.prepare()
        except OSError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=export, args=(r,)) for r in readers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and all(check_derived(r.path) == "ok" for r in readers)


def test_output_named_as_standard_output_keeps_its_place_when_stdout_is_a_file(tmp_path):
    """``--json`` through a link to /proc/self/fd/1 with standard output redirected to a file: the bytes go
    through the process's own standard output, not a second handle that would truncate and overwrite it."""
    link, captured = tmp_path / "out.json", tmp_path / "stdout.txt"
    link.symlink_to("/proc/self/fd/1")
    code = ("import sys\nfrom memory.cache import write_output, writes_to_stdout\n"
            "print('before', flush=True)\n"
            f"assert writes_to_stdout({str(link)!r})\n"
            f"write_output({str(link)!r}, b'{{\"a\": 1}}\\n')\n"
            "print('after')\n")
    with captured.open("wb") as out:
        subprocess.run([sys.executable, "-c", code], cwd=REPO, stdout=out, check=True)
    assert captured.read_text() == 'before\n{"a": 1}\nafter\n'
    assert link.is_symlink()


def _snapshot(roots: list[Path]) -> dict[str, tuple[int, int] | None]:
    """Every path under ``roots``: (mtime in ns, size) of each file or link, None for each folder."""
    seen: dict[str, tuple[int, int] | None] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            seen[folder] = None
            for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                seen[path] = (st.st_mtime_ns, st.st_size)
    return seen


@pytest.fixture(scope="module")
def cold_run(tmp_path_factory):
    """One run on the sample with a fresh cache, with what the environment held before and after it.

    The environment is ``sys.prefix`` (the virtual environment the CLI runs in) and the folder of the
    librosa package (numba compiled librosa's kernels into its ``__pycache__`` before ``NUMBA_CACHE_DIR``).
    Python's own bytecode is left out (``PYTHONDONTWRITEBYTECODE=1`` for this run): it is not a library
    cache, and the CLI runs from the repository (the working directory comes first on the path), whether the
    project is installed editable (``make``) or not (CI).
    """
    root = tmp_path_factory.mktemp("cold")
    cache, out = root / "cache", root / "answer.json"
    spec = importlib.util.find_spec("librosa")  # not imported: that would load numba here
    roots = [Path(sys.prefix)]
    if spec is not None and spec.origin and not Path(spec.origin).is_relative_to(sys.prefix):
        roots.append(Path(spec.origin).parent)
    before = _snapshot(roots)
    proc = subprocess.run([sys.executable, "-m", "agents.run", str(SAMPLE), QUERY, "--cache-dir", str(cache),
                           "--json", str(out), "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=900,
                          check=False, env=command_env(PYTHONDONTWRITEBYTECODE="1"))
    after = _snapshot(roots)
    return SimpleNamespace(proc=proc, cache=cache, out=out, before=before, after=after)


@pytest.mark.slow
def test_a_cold_run_writes_nothing_inside_the_environment(cold_run):
    """Files under the virtual environment and librosa's folder created or changed by the run: none (a
    concurrent ``pip install`` into the same environment would show up here too). A library that compiles
    kernels on first use (numba, for parts of librosa) writes its cache under ``<cache>/tmp``
    (``tools.core.runtime``); the default run's voice front end imports only librosa's filters, which compile
    nothing (``tools.perception.voices.mel_frames``)."""
    assert cold_run.proc.returncode == 0, cold_run.proc.stderr
    changed = sorted(p for p, st in cold_run.after.items() if p not in cold_run.before or cold_run.before[p] != st)
    assert changed == []
    assert not list(cold_run.cache.rglob("*.nbi"))  # nothing was compiled, so a first run does not wait for it


def _moments(answer: dict) -> list:
    return [(m["start_s"], m["end_s"], m["emotion"], m["confidence"], m["rationale"]) for m in answer["moments"]]


@pytest.mark.slow
def test_the_answer_is_the_same_after_the_text_model_export_is_cut_short(cold_run, tmp_path):
    """The cold run's index, a model folder of this test's own holding the MiniLM export cut to half its
    size: the run makes the export again (no "InvalidProtobuf") and answers as before."""
    assert cold_run.proc.returncode == 0, cold_run.proc.stderr
    models = _private_models(tmp_path / "models")
    exports = list(models.glob("*.onnx"))
    if not exports:
        pytest.skip("no MiniLM export in the shared model folder to cut short")
    size = exports[0].stat().st_size
    os.truncate(exports[0], size // 2)
    out = tmp_path / "answer.json"
    proc = subprocess.run([sys.executable, "-m", "agents.run", str(SAMPLE), QUERY, "--cache-dir", str(cold_run.cache),
                           "--json", str(out), "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=900,
                          check=False, env=command_env(AFFECTSEEK_MODEL_CACHE=str(models)))
    assert proc.returncode == 0, proc.stderr
    assert exports[0].stat().st_size == size and check_derived(exports[0]) == "ok"
    before, after = json.loads(cold_run.out.read_text()), json.loads(out.read_text())
    assert after["moments"] and _moments(after) == _moments(before)
    assert after["intent"] == before["intent"] and after["people"] == before["people"]


@pytest.mark.slow
def test_json_through_a_link_to_standard_output_reaches_it(cold_run, tmp_path):
    """``--json LINK`` where LINK -> /proc/self/fd/1 (as wrappers make for stdout): standard output holds the
    answer's JSON alone (the table goes to standard error, as with ``--json -``) and the link is kept."""
    assert cold_run.proc.returncode == 0, cold_run.proc.stderr
    link = tmp_path / "out.json"
    link.symlink_to("/proc/self/fd/1")
    proc = run_cli(str(SAMPLE), QUERY, "--cache-dir", str(cold_run.cache), "--json", str(link), "--quiet")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["query"] == QUERY and _moments(answer) == _moments(json.loads(cold_run.out.read_text()))
    assert "start-end" in proc.stderr  # the table
    assert link.is_symlink()


def test_a_videos_hash_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    """``memory.cache.video_digest``: the SHA-256 of an unchanged file is read back (the file is not hashed again);
    after the file grows, or is rewritten with the same size, it is hashed again and gives the new content's hash."""
    import hashlib
    import time

    from memory import cache

    video = tmp_path / "v.mp4"
    shutil.copyfile(SAMPLE, video)
    first = cache.video_digest(video, tmp_path / "c")
    assert first == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert len(list((tmp_path / "c" / cache.DIGESTS_DIR).iterdir())) == 1
    hashed = []
    real = cache.file_sha256
    monkeypatch.setattr(cache, "file_sha256", lambda p: hashed.append(p) or real(p))
    assert cache.video_digest(video, tmp_path / "c") == first and hashed == []
    time.sleep(0.05)  # past the kernel's timestamp tick
    with open(video, "ab") as f:
        f.write(b"\0")
    grown = cache.video_digest(video, tmp_path / "c")
    assert grown == hashlib.sha256(video.read_bytes()).hexdigest() != first and len(hashed) == 1
    time.sleep(0.05)
    data = bytearray(video.read_bytes())
    data[100] ^= 0xFF
    with open(video, "r+b") as f:  # rewritten in place, the same size
        f.write(data)
    assert cache.video_digest(video, tmp_path / "c") == hashlib.sha256(bytes(data)).hexdigest() != grown
    assert len(hashed) == 2


def test_a_cache_file_is_marked_in_flight_before_it_exists(tmp_path, monkeypatch):
    """``memory.cache.atomic_write_bytes`` registers its temporary file with ``in_flight`` before creating it, so a
    Ctrl-C between the two (the handler removes what is registered, then exits) cannot leave it behind; the entry is
    then complete and no temporary file remains."""
    from memory.cache import atomic_write_bytes
    from tools.core import interrupt

    created = []
    real_open = os.open

    def spy(path, flags, *args):
        if flags & os.O_CREAT:
            created.append((str(path), str(path) in interrupt._IN_FLIGHT))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", spy)
    atomic_write_bytes(tmp_path / "entry.json", b'{"a": 1}')
    assert len(created) == 1 and created[0][1], created
    assert (tmp_path / "entry.json").read_bytes() == b'{"a": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"] and not interrupt._IN_FLIGHT
