"""Batch mode over a folder: worker pool, bad videos recorded, resume after a kill, the Ray path."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from agents.schema import Answer
from tests.conftest import REPO, SAMPLE, shared_media

pytestmark = pytest.mark.slow
QUERY = "when does the audience enjoy the show?"
PART_QUERY = "when is the performer most worked up in the first 4 seconds?"


def _batch(folder, out, cache_root, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.batch", str(folder), "--query", QUERY, "--out", str(out),
                           "--cache-dir", str(cache_root), "--quiet", *extra], check=False, cwd=REPO,
                          capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def _records(out) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("videos")
    shutil.copy(SAMPLE, d / "hamilton_short.mp4")
    shutil.copy(shared_media("WDA_KatieHill_000.mp4"), d / "Katie Hill — ü.mp4")  # spaces and unicode
    (d / "broken.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(4000))  # not decodable
    (d / "notes.txt").write_text("not a video")
    return d


def test_batch_answers_every_video_and_records_the_bad_one(folder, tmp_path, cache_root):
    out = tmp_path / "out"
    proc = _batch(folder, out, cache_root, "--workers", "1", "--query", PART_QUERY)
    assert proc.returncode == 3, proc.stderr  # 3: some pairs failed
    recs = {(r["video"], r["query"]): r for r in _records(out)}
    names = ["Katie Hill — ü.mp4", "broken.mp4", "hamilton_short.mp4"]  # notes.txt skipped
    assert sorted(recs) == [(name, q) for name in names for q in sorted((QUERY, PART_QUERY))]
    assert recs["broken.mp4", QUERY]["status"] == "error" and "cannot be decoded" in recs["broken.mp4", QUERY]["error"]
    for name in ("hamilton_short.mp4", "Katie Hill — ü.mp4"):
        for query in (QUERY, PART_QUERY):
            rec = recs[name, query]
            answer = Answer.model_validate_json((out / rec["answer"]).read_text())
            assert rec["status"] == "ok" and answer.query == query
            assert rec["moments"] == [[m.start_s, m.end_s, m.emotion, m.confidence] for m in answer.moments]
        assert recs[name, QUERY]["window"] is None  # the question names no part: the whole video searched
    assert 7.8 <= recs["hamilton_short.mp4", QUERY]["moments"][0][0] < 9.0  # the audience's shot (first frame 7.884 s)
    assert recs["hamilton_short.mp4", PART_QUERY]["window"] == [0.0, 4.0]  # the part the question names, searched
    part_moments = recs["hamilton_short.mp4", PART_QUERY]["moments"]
    assert part_moments and all(m[1] <= 4.0 for m in part_moments)
    assert "4 answered, 2 failed (first: broken.mp4: " in proc.stderr  # the summary names the first failure


@pytest.mark.parametrize("pool", [("--workers", "1"), ("--ray",)], ids=["workers", "ray"])
def test_a_model_that_cannot_load_stops_the_batch_at_once(folder, tmp_path, pool):
    """Without the default weights every video would fail alike: the batch stops with the one line that names the
    fetch command (on Ray too, whose task error wraps the worker's), exit 1, and records no pair, so the same command
    after the fetch answers them all (before, each pair was recorded as failed and the run ended with exit 3)."""
    if pool == ("--ray",):
        pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "app.batch", str(folder), "--query", QUERY, "--out", str(out),
                           "--cache-dir", str(tmp_path / "cache"), "--quiet", *pool], check=False, cwd=REPO,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONWARNINGS": "ignore",
                               "AFFECTSEEK_MODEL_CACHE": str(tmp_path / "none")})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    if pool == ("--ray",):  # Ray logs its own start
        lines = [ln for ln in lines if not re.match(r"\d{4}-\d\d-\d\d \d\d:", ln)]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "affectseek models --fetch defaults" in lines[0]
    assert not (out / "results.jsonl").exists() or not (out / "results.jsonl").read_text()


def test_killed_batch_resumes_with_the_unfinished_pairs(folder, tmp_path, cache_root):
    out = tmp_path / "out"
    out.mkdir()
    first = _batch(folder, out, cache_root, "--workers", "1")
    kept = [r for r in _records(out) if r["video"] != "hamilton_short.mp4"]
    # as if killed while the sample's record was being written: its line is cut short
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept) + '{"video": "hamilton_sh')
    again = _batch(folder, out, cache_root, "--workers", "1")
    assert first.returncode == again.returncode == 3
    assert "resuming: 2 pair(s) already" in again.stderr and ", 1 to do" in again.stderr
    recs = _records(out)  # the cut line is gone, the sample was answered once more, nothing else rerun
    assert [r["video"] for r in recs] == [r["video"] for r in kept] + ["hamilton_short.mp4"]
    retried = _batch(folder, out, cache_root, "--retry-failed")
    assert "1 to do" in retried.stderr and len(_records(out)) == 4  # broken.mp4 tried again, fails again


def test_a_failed_pair_answered_on_retry_counts_as_answered(folder, tmp_path, cache_root):
    """The results file keeps every run's line; a pair that failed and was answered on ``--retry-failed`` counts once,
    as answered, so the batch exits 0 then and on every later run."""
    mended, out = tmp_path / "videos", tmp_path / "out"
    shutil.copytree(folder, mended)
    out.mkdir()
    assert _batch(mended, out, cache_root, "--workers", "1").returncode == 3  # broken.mp4 cannot be read
    shutil.copy(SAMPLE, mended / "broken.mp4")  # the user mends the file
    retried = _batch(mended, out, cache_root, "--workers", "1", "--retry-failed")
    assert retried.returncode == 0, retried.stderr
    assert "resuming: 3 pair(s) already" in retried.stderr and "3 answered, 0 failed" in retried.stderr
    again = _batch(mended, out, cache_root, "--workers", "1")
    assert again.returncode == 0 and ", 0 to do" in again.stderr and "3 answered, 0 failed" in again.stderr
    assert len(_records(out)) == 4  # the failed line stays, read as superseded


def test_ray_path_on_a_local_cluster_gives_the_same_answers(folder, tmp_path, cache_root):
    pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    local, ray_out = tmp_path / "local", tmp_path / "ray"
    _batch(folder, local, cache_root, "--workers", "1")
    proc = _batch(folder, ray_out, cache_root, "--ray")
    assert proc.returncode == 3, proc.stderr
    by_pair = {(r["video"], r["query"]): (r["status"], r.get("moments")) for r in _records(local)}
    assert {(r["video"], r["query"]): (r["status"], r.get("moments")) for r in _records(ray_out)} == by_pair


def test_a_folder_is_searched_for_camcorder_phone_and_web_video_files(tmp_path):
    """MPEG-TS from a camcorder (.mts, .m2ts, .ts), a phone's .3gp, .ogv and an animated GIF are video files too
    (before, a folder of .mts recordings had "no video files"); text and pictures are not."""
    from app.batch import find_videos

    names = ["a.MTS", "b.m2ts", "c.ts", "d.3gp", "e.ogv", "f.gif", "g.mp4", "notes.txt", "photo.jpg"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in find_videos(tmp_path)] == names[:7]


def test_batch_without_videos_or_query_exits_2(tmp_path):
    empty = _batch(tmp_path, tmp_path / "out", tmp_path / "cache")
    assert empty.returncode == 2 and "no video files" in empty.stderr
    proc = subprocess.run([sys.executable, "-m", "app.batch", str(tmp_path)], check=False, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--query" in proc.stderr and "Traceback" not in proc.stderr
