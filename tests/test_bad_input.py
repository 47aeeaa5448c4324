"""Bad input: one clear line on stderr, exit code 2, no traceback, nothing half-written in the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLE, run_cli

pytestmark = pytest.mark.slow


def _video_without_audio(src: Path, dst: Path) -> Path:
    import av

    with av.open(str(src)) as inp, av.open(str(dst), "w") as out:
        vin = inp.streams.video[0]
        vout = out.add_stream_from_template(vin)
        for packet in inp.demux(vin):
            if packet.dts is None:
                continue
            packet.stream = vout
            out.mux(packet)
    return dst


def _assert_clean_error(proc, cache: Path, words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert words in lines[0]
    leftovers = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert leftovers == []


@pytest.mark.parametrize("case", ["missing", "directory", "not_a_video", "empty_file", "truncated", "no_audio"])
def test_bad_video_exits_2_with_one_line(case, tmp_path):
    cache = tmp_path / "cache"
    if case == "missing":
        path, words = tmp_path / "nope.mp4", "no such file"
    elif case == "directory":
        path, words = tmp_path, "is a directory"
    elif case == "not_a_video":
        path, words = tmp_path / "notes.mp4", "cannot be decoded"
        path.write_text("these are meeting notes, not a video\n" * 50)
    elif case == "empty_file":
        path, words = tmp_path / "empty.mp4", "empty"
        path.write_bytes(b"")
    elif case == "truncated":
        path, words = tmp_path / "cut.mp4", "cannot be decoded"
        path.write_bytes(SAMPLE.read_bytes()[: SAMPLE.stat().st_size // 2])
    else:
        path, words = _video_without_audio(SAMPLE, tmp_path / "silent.mp4"), "no audio track"
    proc = run_cli(str(path), "when is she happy?", "--cache-dir", str(cache), "--quiet")
    _assert_clean_error(proc, cache, words)


def test_empty_query_exits_2(tmp_path):
    proc = run_cli(str(SAMPLE), "   ", "--cache-dir", str(tmp_path / "cache"))
    _assert_clean_error(proc, tmp_path / "cache", "query is empty")


def test_no_audio_flag_answers_from_the_picture(tmp_path):
    silent = _video_without_audio(SAMPLE, tmp_path / "silent.mp4")
    out = tmp_path / "a.json"
    proc = run_cli(str(silent), "when does someone smile?", "--no-audio", "--json", str(out),
                   "--cache-dir", str(tmp_path / "cache"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    from agents.schema import Answer

    answer = Answer.model_validate_json(out.read_text())
    assert answer.models["asr"].startswith("none")
    assert all(e.modality == "visual" for m in answer.moments for e in m.evidence)
