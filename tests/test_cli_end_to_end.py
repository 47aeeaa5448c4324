"""The CLI end to end on the bundled real video (hamilton_short.mp4, public domain White House footage).

What a user checks: the JSON validates against the published schema, moments lie inside the video,
each evidence item points at a tool output that really is in the cache, and a second query on the
same video reuses the index and the verifier's stored observations.
"""

from __future__ import annotations

import json

import pytest

from agents.schema import Answer
from memory.cache import VideoCache, file_sha256
from tests.conftest import SAMPLE, load_json, run_cli

pytestmark = pytest.mark.slow
QUERY = "when does the audience enjoy the show?"


@pytest.fixture(scope="module")
def e2e_cache(tmp_path_factory):
    """A cache of this module's own, so the first run really builds the index."""
    return tmp_path_factory.mktemp("e2e-cache")


@pytest.fixture(scope="module")
def first_run(e2e_cache, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "answer.json"
    proc = run_cli(str(SAMPLE), QUERY, "--json", str(out), "--cache-dir", str(e2e_cache), "--quiet")
    return proc, out


def test_cli_answers_with_valid_json(first_run):
    proc, out = first_run
    assert proc.returncode == 0, proc.stderr
    answer = Answer.model_validate(load_json(out))
    assert answer.query == QUERY
    assert answer.duration_s == pytest.approx(10.0, abs=0.1)
    assert answer.embedder == "descriptor:all-MiniLM-L6-v2"
    assert answer.llm == "offline"
    assert answer.intent.target_emotions[0] == "happiness"
    assert answer.index["built_now"] is True
    # the terminal table shows the same moments: row i holds moment i's span, emotion and confidence
    from app.table import fmt_time

    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in proc.stdout.splitlines()
            if line.startswith("│") and line.split("│")[1].strip()]
    assert answer.moments and len(rows) == len(answer.moments)
    for i, (m, row) in enumerate(zip(answer.moments, rows, strict=True), 1):
        span = f"{fmt_time(m.start_s)}-{fmt_time(m.end_s)}"
        assert row[:4] == [str(i), span, m.emotion, f"{m.confidence:.2f}"], (row, span)


def test_moments_lie_inside_the_video_and_are_ordered(first_run):
    _, out = first_run
    answer = Answer.model_validate(load_json(out))
    assert answer.moments, answer.message
    for m in answer.moments:
        assert 0.0 <= m.start_s < m.end_s <= answer.duration_s + 1e-6
        assert 0.0 <= m.confidence <= 1.0
        assert m.rationale
        for step in m.steps:
            assert set(step.evidence_ids) <= {e.id for e in m.evidence}


def test_every_evidence_item_resolves_to_a_cached_tool_output(first_run, e2e_cache):
    _, out = first_run
    answer = Answer.model_validate(load_json(out))
    cache = VideoCache(e2e_cache, file_sha256(SAMPLE))
    n = 0
    for m in answer.moments:
        for ev in m.evidence:
            record = cache.resolve(ev.ref)
            n += 1
            if ev.modality == "visual" and "looking_at_camera" in record:  # a gaze estimate
                if "looks at the camera" in ev.detail:
                    assert record["looking_at_camera"]
                elif "(excluded" not in ev.detail:  # an exclusion cites the excluded person's own gaze
                    assert record["looking_at"] is not None
            elif ev.modality == "visual" and "gesture" in record:  # a hand gesture
                assert record["t"] == pytest.approx(ev.start_s)
                assert ev.detail.endswith(f"({record['gesture']})") or \
                    (record["gesture"] == "point" and "(pointing_at" in ev.detail)
            elif ev.modality == "visual":  # a face and its expression
                assert record["t"] == pytest.approx(ev.start_s)
                if ev.person is not None:
                    assert f"person {ev.person}'s face" in ev.detail
                label = max(record["expression"], key=record["expression"].get)
                assert f"shows {label}" in ev.detail
            elif ev.modality == "verbal":
                assert record["start_s"] <= ev.start_s and ev.end_s <= record["end_s"]
                speaker = f"person {ev.person}" if ev.person is not None else "the speaker"
                assert ev.detail.startswith(f'{speaker} says "')
            elif ev.tool.startswith(("voice8", "whisper8")):  # the vocal emotion of the clip
                read = record["voice_emotion"]
                assert (ev.start_s, ev.end_s) == (record["start_s"], record["end_s"])
                label = max(read, key=read.get)
                assert ev.detail.startswith(f"the voice sounds {label} (p={read[label]:.2f}")
            else:
                assert ev.detail.startswith(f"voice level {record['rms_dbfs']:.1f} dBFS")
    assert n > 0


def test_second_query_reuses_index_and_perception(first_run, e2e_cache, tmp_path):
    out = tmp_path / "again.json"
    proc = run_cli(str(SAMPLE), QUERY, "--json", str(out), "--cache-dir", str(e2e_cache), "--quiet")
    assert proc.returncode == 0, proc.stderr
    again = Answer.model_validate(load_json(out))
    first = Answer.model_validate(load_json(first_run[1]))
    assert again.index["built_now"] is False
    assert not any(k in again.timings_s for k in ("index_decode_faces", "index_transcribe", "index_embed"))
    assert "face_expression_frames" not in again.index["tool_calls"]  # verifier outputs came from the cache
    assert [(m.start_s, m.end_s, m.emotion) for m in again.moments] == \
        [(m.start_s, m.end_s, m.emotion) for m in first.moments]
    between = tmp_path / "between.json"  # options between the video and the question (before: unrecognised)
    proc = run_cli(str(SAMPLE), "--top-k", "1", QUERY, "--json", str(between), "--cache-dir", str(e2e_cache), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert [m.start_s for m in Answer.model_validate(load_json(between)).moments] == [first.moments[0].start_s]


def test_corrupted_perception_chunk_is_recomputed_not_used(first_run, e2e_cache, tmp_path):
    cache = VideoCache(e2e_cache, file_sha256(SAMPLE))
    first = Answer.model_validate(load_json(first_run[1]))
    chunks = sorted({cache.dir / e.ref.partition("#")[0] for m in first.moments for e in m.evidence
                     if e.ref.startswith("perception/")})
    assert chunks  # stored verifier outputs this query cites
    chunks[0].write_text('[{"t": 2.0, "faces": [{"id"')  # cut short, as by a full disk outside the atomic writes
    out = tmp_path / "again.json"
    proc = run_cli(str(SAMPLE), QUERY, "--json", str(out), "--cache-dir", str(e2e_cache), "--quiet")
    assert proc.returncode == 0, proc.stderr
    again = Answer.model_validate(load_json(out))
    assert again.index["tool_calls"].get("face_expression_frames", 0) > 0  # that chunk ran again
    assert isinstance(load_json(chunks[0]), list)  # and was rewritten whole
    assert [(m.start_s, m.end_s, m.emotion) for m in again.moments] == \
        [(m.start_s, m.end_s, m.emotion) for m in first.moments]


def test_schema_flag_prints_the_answer_schema():
    proc = run_cli("--schema")
    assert proc.returncode == 0
    schema = json.loads(proc.stdout)
    assert schema["title"] == "Answer"
    assert {"video", "query", "intent", "moments", "timings_s", "models"} <= set(schema["properties"])


def test_help_explains_usage():
    proc = run_cli("--help")
    assert proc.returncode == 0
    for flag in ("--llm", "--json", "--top-k", "--cache-dir", "--openclip-checkpoint"):
        assert flag in proc.stdout


def test_rationales_name_only_people_that_exist(first_run, e2e_cache):
    import re

    from memory.cache import read_json

    _, out = first_run
    answer = Answer.model_validate(load_json(out))
    tracks = read_json(next(e2e_cache.rglob("tracks.json")))["tracks"]
    people = {t["person"] for t in tracks}
    assert None not in people and len(people) < len(tracks)  # re-identified: some person has several tracks
    for m in answer.moments:
        text = " ".join([m.rationale, *(s.text for s in m.steps)])
        named = {int(n) for n in re.findall(r"person (\d+)", text)}
        assert named <= people, (named, people)
        assert {e.person for e in m.evidence if e.person is not None} <= people


def test_the_voice_reader_named_by_the_flag_reads_the_index(tmp_path, first_run, e2e_cache):
    """``--voice-emotion whisper8`` indexes the voice with Whisper's encoder and its head: the answer names that reader
    among its models, its clips' voice readings are not the default reader's (voice8, the index of ``first_run``), and
    each voice observation the answer cites says what the whisper8 index holds for its clip."""
    from pathlib import Path

    out = tmp_path / "w8.json"
    proc = run_cli(str(SAMPLE), "when is the performer most worked up?", "--json", str(out), "--cache-dir",
                   str(tmp_path / "cache"), "--quiet", "--voice-emotion", "whisper8")
    assert proc.returncode == 0, proc.stderr
    answer = Answer.model_validate(load_json(out))
    assert answer.models["voice"] == "whisper8-head:whisper8_head.npz" and answer.moments
    assert first_run[0].returncode == 0, first_run[0].stderr

    def readings(cache: Path, reader: str) -> dict:  # clip id -> voice reading, in the indexes that reader built
        return {c["id"]: c["voice_emotion"] for f in cache.rglob("clips.json")
                if json.loads((f.parent / "manifest.json").read_text())["models"]["voice"].startswith(reader)
                for c in json.loads(f.read_text())}

    whisper8, voice8 = readings(tmp_path / "cache", "whisper8"), readings(e2e_cache, "voice8")
    heard = [k for k, v in whisper8.items() if v and voice8.get(k)]
    assert heard and any(whisper8[k] != voice8[k] for k in heard)  # the same clips, another reader's readings
    cited = [ev for m in answer.moments for ev in m.evidence if ev.id.endswith(".ve")]
    assert cited
    for ev in cited:
        dist = whisper8[ev.ref.rsplit("#", 1)[1]]
        label = max(dist, key=dist.__getitem__)
        assert ev.detail.startswith(f"the voice sounds {label} (p={dist[label]:.2f}")
