"""The ``affectseek`` command: its subcommands, and settings from flags, variables and a TOML file.

Run as a user runs it: the installed console script (or ``python -m app.cli`` where the script is
not on the path), on the bundled sample, reading the JSON it writes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from agents.schema import Answer
from memory.jsonl import JsonlLog, dict_record
from tests.conftest import REPO, SAMPLE, copy_default_models, load_json


def affectseek(*args: str, env: dict | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run the ``affectseek`` command with ``args``; ``env`` entries are added to the environment."""
    script = shutil.which("affectseek", path=os.path.dirname(sys.executable))
    cmd = [script] if script else [sys.executable, "-m", "app.cli"]
    return subprocess.run([*cmd, *args], check=False, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})})


def test_help_lists_every_subcommand():
    proc = affectseek("--help")
    assert proc.returncode == 0
    for name in ("ask", "batch", "inspect", "eval", "report", "bench", "draw", "models"):
        assert f"\n  {name} " in proc.stdout


def test_unknown_subcommand_is_one_clear_error():
    proc = affectseek("answer", "x.mp4", "q")
    assert proc.returncode == 2
    assert "unknown command 'answer'" in proc.stderr and "Traceback" not in proc.stderr


def test_models_lists_the_registered_backends_with_their_defaults():
    proc = affectseek("models")
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert "face8 (default)" in lines["expression"] and "fer" in lines["expression"]
    assert "hsemotion" in lines["expression"]
    assert "faster-whisper (default)" in lines["asr"]
    assert "not fetched" in lines["hsemotion-enet-b0-8"]  # listed with how to fetch it, never fetched silently
    alone = affectseek("models", "--url", "https://example.org/model.tar")  # where to fetch from, but no --fetch
    assert alone.returncode == 2 and "give --fetch NAME with it" in alone.stderr and not alone.stdout


def test_models_and_ask_read_the_models_folder_of_the_same_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("AFFECTSEEK_MODEL_CACHE", raising=False)  # CI sets it; this test is about --cache-dir
    monkeypatch.delenv("AFFECTSEEK_CACHE", raising=False)
    listed = affectseek("models", "--cache-dir", str(tmp_path))
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.startswith("  ")}
    assert "not fetched:" in rows["whisper-base"] and "not fetched, default:" in rows["fer-mini-xception"]
    copy_default_models(tmp_path / "models")  # as `affectseek models --fetch defaults --cache-dir` leaves it
    asked = affectseek("ask", str(SAMPLE), "when does she laugh?", "--asr-model", "whisper-base", "--cache-dir",
                       str(tmp_path), "--quiet")
    assert asked.returncode != 0 and "Traceback" not in asked.stderr
    error = asked.stderr.strip().splitlines()[-1]
    assert f"not fetched in {tmp_path / 'models'}" in error and "affectseek models --fetch whisper-base" in error


@pytest.mark.slow
def test_settings_come_from_the_file_then_the_environment_then_the_flags(tmp_path, cache_root):
    config = tmp_path / "affectseek.toml"
    config.write_text("top_k = 1\n")
    out = tmp_path / "a.json"
    base = (str(SAMPLE), "when does he point at someone?", "--json", str(out), "--cache-dir", str(cache_root),
            "--quiet", "--config", str(config))
    proc = affectseek("ask", *base)
    assert proc.returncode == 0, proc.stderr
    assert len(Answer.model_validate(load_json(out)).moments) == 1  # top_k from the file
    proc = affectseek("ask", *base, env={"AFFECTSEEK_TOP_K": "2"})
    assert proc.returncode == 0, proc.stderr
    assert len(Answer.model_validate(load_json(out)).moments) == 2  # the variable beats the file
    proc = affectseek("ask", *base, "--top-k", "1", env={"AFFECTSEEK_TOP_K": "2"})
    assert proc.returncode == 0, proc.stderr
    assert len(Answer.model_validate(load_json(out)).moments) == 1  # the flag beats both


def test_a_bad_setting_or_config_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("top_k = \n")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("topk = 3\n")
    nul = tmp_path / "nul.toml"  # a NUL character written as TOML's escape: no shell passes one, a file can
    nul.write_text('cache_dir = "out\\u0000cache"\n')
    for args, env, says in (
        (("--config", str(bad)), {}, "bad.toml"),
        (("--config", str(nul)), {}, "cache_dir: 'out\\x00cache' holds a NUL character"),
        (("--config", str(unknown)), {}, "topk: Extra inputs are not permitted"),
        (("--config", str(tmp_path / "missing.toml")), {}, "no such file"),
        ((), {"AFFECTSEEK_TOP_K": "many"}, "top_k"),
        ((), {"AFFECTSEEK_CONFIG": str(bad)}, "bad.toml"),
    ):
        proc = affectseek("ask", str(SAMPLE), "when is she happy?", *args, env=env, timeout=120)
        assert proc.returncode == 2, (args, env, proc.stderr)
        assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_jsonl_log_drops_a_torn_line_and_appends_after_the_good_ones(tmp_path):
    """A line cut short by a kill is dropped and the file mended, keeping its permissions (it is the user's results
    file, readable by others where it was)."""
    log = JsonlLog(tmp_path / "results.jsonl")
    log.append([{"video": "a.mp4", "query": "q", "status": "ok"}, {"video": "b.mp4", "query": "q", "status": "ok"}])
    os.chmod(log.path, 0o644)
    with log.path.open("a") as f:
        f.write('{"video": "c.mp4", "query": "q", "sta')  # killed mid-write
    parse = dict_record({"video", "query", "status"})
    assert [r["video"] for r in log.read(parse)] == ["a.mp4", "b.mp4"]
    assert log.path.stat().st_mode & 0o777 == 0o644 and "c.mp4" not in log.path.read_text()
    log.append([{"video": "c.mp4", "query": "q", "status": "ok"}])
    assert [r["video"] for r in log.read(parse)] == ["a.mp4", "b.mp4", "c.mp4"]


def test_the_older_clip_flag_names_still_set_the_clip_model():
    from app.ask import build_parser

    old = build_parser().parse_args(["v.mp4", "q", "--clip-checkpoint", "x.pt", "--clip-model", "ViT-L-14"])
    new = build_parser().parse_args(["v.mp4", "q", "--openclip-checkpoint", "x.pt", "--openclip-model", "ViT-L-14"])
    assert vars(old) == vars(new)
    assert (new.openclip_checkpoint, new.openclip_model) == ("x.pt", "ViT-L-14")


def test_times_in_the_moments_table_carry_over_to_the_next_minute():
    from app.table import fmt_time

    assert [fmt_time(s) for s in (0.0, 7.884, 59.97, 119.96, 61.2)] == ["00:00.0", "00:07.9", "01:00.0", "02:00.0",
                                                                       "01:01.2"]


def test_the_searched_line_names_the_whole_video_where_the_part_covers_it():
    """A part named by its position alone in a video shorter than 30 s is the whole video (the answer's warning says
    so); the terminal's and the report's "searched" line must not call it the part the question names."""
    from app.table import searched_part

    assert searched_part(None, 10.0) is None
    assert searched_part((0.0, 4.0), 10.0) == "00:00.0-00:04.0 (the part the question names)"
    assert searched_part((0.0, 10.0), 10.0) == "00:00.0-00:10.0 (the whole video)"
    assert searched_part((600.0, 660.0), 3600.0) == "10:00.0-11:00.0 (the part the question names)"
