"""``affectseek models --prune``: the model cache keeps the derived files the defaults read, and nothing else made here."""

from __future__ import annotations

import json

from tests.conftest import copy_default_models, run_cli, run_module, shared_media
from tools.perception.text_onnx import PRECISION


def _derived(folder, name: str, data: bytes = b"x" * 1000) -> None:
    from tools.core.derived import write_derived

    write_derived(folder / name, data)


def test_prune_removes_derived_files_not_kept_with_their_manifests_and_leaves_the_rest(tmp_path):
    from tools.core.derived import manifest_path, prune_derived

    for name in ("faceres-aaaaaaaaaaaaaaaa.onnx", "faceres-bbbbbbbbbbbbbbbb.onnx", "text.fixed-cccccccccccccccc.npy"):
        _derived(tmp_path, name)
    (tmp_path / "own-notes.txt").write_text("a user's file")  # no manifest: not ours
    (tmp_path / "gone.onnx.manifest.json").write_text(json.dumps({"size": 3, "sha256": "0" * 64}))  # orphan
    (tmp_path / "pinned" / "m").mkdir(parents=True)
    _derived(tmp_path / "pinned" / "m", "weights.onnx")  # a subfolder (fetched models) is never looked into
    keep = {(tmp_path / "faceres-bbbbbbbbbbbbbbbb.onnx").absolute()}
    removed = prune_derived(tmp_path, keep)
    assert sorted(p.name for p, _ in removed) == sorted([
        "faceres-aaaaaaaaaaaaaaaa.onnx", "faceres-aaaaaaaaaaaaaaaa.onnx.manifest.json", "gone.onnx.manifest.json",
        "text.fixed-cccccccccccccccc.npy", "text.fixed-cccccccccccccccc.npy.manifest.json"])
    assert {p.name: s for p, s in removed}["faceres-aaaaaaaaaaaaaaaa.onnx"] == 1000
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["faceres-bbbbbbbbbbbbbbbb.onnx", "faceres-bbbbbbbbbbbbbbbb.onnx.manifest.json", "own-notes.txt",
                    "pinned/m/weights.onnx", "pinned/m/weights.onnx.manifest.json"]
    assert manifest_path(tmp_path / "faceres-bbbbbbbbbbbbbbbb.onnx").is_file()


def test_models_prune_keeps_what_the_defaults_read_and_a_question_makes_nothing_after_it(tmp_path):
    """A model cache holding the current files (linked from this one), an export older code made and a file of the
    user's: ``affectseek models --prune`` removes the old export only, and loading the defaults again (a second
    prune) finds every file it reads, so it makes none and removes none."""
    from tools.core.registry import model_cache_dir

    models = tmp_path / "models"
    models.mkdir()
    for p in model_cache_dir().iterdir():  # the defaults' exports and fetched models, as links
        (models / p.name).symlink_to(p.resolve())
    _derived(models, "faceres-0000000000000000.onnx", b"\0" * 4096)  # as an older version left it
    (models / "README.txt").write_text("mine")
    env = {"AFFECTSEEK_MODEL_CACHE": str(models)}
    first = run_module("app.cli", "models", "--prune", env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "removed faceres-0000000000000000.onnx (0.0 MiB)" in first.stdout
    assert not (models / "faceres-0000000000000000.onnx").exists() and (models / "README.txt").is_file()
    assert (models / "pinned").exists()
    kept = sorted(p.name for p in models.iterdir())
    assert any(n.startswith("all-MiniLM-L6-v2-") and n.endswith(f"-{PRECISION}.onnx") for n in kept)
    assert any(n.startswith("faceres-") and n.endswith(".onnx") for n in kept)
    second = run_module("app.cli", "models", "--prune", env=env, timeout=300)
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("0 files removed, 0.0 MiB freed")
    assert sorted(p.name for p in models.iterdir()) == kept  # nothing made again: the first prune kept it all


def test_models_prune_without_the_default_weights_removes_nothing(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    _derived(models, "faceres-0000000000000000.onnx")
    proc = run_module("app.cli", "models", "--prune", env={"AFFECTSEEK_MODEL_CACHE": str(models)}, timeout=300)
    assert proc.returncode == 2 and "nothing removed" in proc.stderr and "--fetch defaults" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (models / "faceres-0000000000000000.onnx").is_file()


def test_fetching_the_defaults_makes_their_derived_files_so_the_first_question_makes_none(tmp_path):
    """``affectseek models --fetch defaults`` (what ``make install`` runs) also makes the ONNX exports and label vectors
    the defaults read, so a new user's first question makes no model file: before, it made them itself, which cost it
    6.5 s and 1 GB more peak memory on the talking head (``evals/RESULTS.md`` section 110)."""
    models = copy_default_models(tmp_path / "models")
    env = {"AFFECTSEEK_MODEL_CACHE": str(models)}
    fetch = run_module("app.cli", "models", "--fetch", "defaults", env=env, timeout=300)
    assert fetch.returncode == 0, fetch.stderr
    assert f"derived files (ONNX exports, label vectors): ready in {models}" in fetch.stdout
    made = sorted(p.name for p in models.iterdir())
    for prefix, suffix in (("all-MiniLM-L6-v2-", f"-{PRECISION}.onnx"), ("faceres-", ".onnx"),
                           ("minixception-", ".onnx"),
                           ("ge2e-", ".onnx"), ("dlib-face-resnet-", ".onnx")):
        assert any(n.startswith(prefix) and n.endswith(suffix) for n in made), (prefix, made)
    ask = run_cli(str(shared_media("WDA_KatieHill_000.mp4")), "when does she light up?", "--cache-dir",
                  str(tmp_path / "cache"), "--quiet", env=env, timeout=300)
    assert ask.returncode == 0, ask.stderr
    assert sorted(p.name for p in models.iterdir()) == made  # the question found every file it reads
