"""The same index and answer on a machine with one core or with many (``tests/as_cores.py``)."""

import pytest

from tests.conftest import SAMPLE, load_json, run_module


def _files(index_dir) -> dict[str, bytes]:
    """Every file of an index but its manifest (which holds the build's timings), by path within the index."""
    return {str(p.relative_to(index_dir)): p.read_bytes() for p in sorted(index_dir.rglob("*"))
            if p.is_file() and p.name != "manifest.json"}


@pytest.mark.slow
@pytest.mark.asr
def test_one_core_and_four_cores_build_the_same_index_and_answer(tmp_path):
    """The thread counts a CPU sets (CTranslate2's, onnxruntime's, the sentence encoder's, OpenMP's and OpenBLAS's)
    change how fast the index is built, not what it holds: cold runs as a one-core and as a four-core machine store
    byte-identical index files and give the same answer (``evals/RESULTS.md`` section 93; the sample has too few face
    crops for the re-identification worker, which the section's 10-minute video used)."""
    answers, dirs = [], []
    for cores in ("1", "4"):
        proc = run_module("tests.as_cores", cores, str(SAMPLE), "when does the audience enjoy the show?",
                          "--cache-dir", str(tmp_path / cores), "--json", str(tmp_path / f"{cores}.json"), "--quiet",
                          env={"OMP_NUM_THREADS": cores, "OPENBLAS_NUM_THREADS": cores})
        assert proc.returncode == 0, proc.stderr
        answers.append(load_json(tmp_path / f"{cores}.json"))
        [d] = sorted(p for p in (tmp_path / cores).rglob("index-*") if p.is_dir())
        dirs.append(d)
    assert dirs[0].name == dirs[1].name  # the thread counts are not part of the cache key
    one, four = (_files(d) for d in dirs)
    assert {"transcript.json", "faces.json", "tracks.json", "clips.faiss"} <= set(one)
    assert sorted(one) == sorted(four)
    for name in one:
        assert one[name] == four[name], name
    assert load_json(dirs[0] / "transcript.json")["segments"]  # the sample's speech was transcribed
    assert load_json(dirs[0] / "tracks.json")["tracks"]  # and its faces tracked
    for a in answers:  # what may differ: seconds spent, and where each cache lives
        a.pop("timings_s"), a["index"].pop("dir")
        for step in a["trace"]:
            step.pop("elapsed_s")
    assert answers[0]["moments"] and answers[0] == answers[1]


@pytest.mark.parametrize(("omp", "budget", "beside"), [("3", 3, 2), ("1", 1, 1), ("0", 1, 1), ("", None, None),
                                                       ("four", None, None)])
def test_the_speech_pass_leaves_a_core_to_the_pictures_within_the_cores_it_may_use(monkeypatch, omp, budget, beside):
    """``OMP_NUM_THREADS`` (a batch worker's share, ``app.batch_tasks``) caps the cores a build keeps busy; the
    recogniser beside the visual pass gets one fewer, and never none. Unset or unreadable: one per core."""
    import os

    from indexing.build import speech_threads
    from tools.core.runtime import cpu_budget

    monkeypatch.setenv("OMP_NUM_THREADS", omp)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert cpu_budget() == (budget or 6)
    assert speech_threads(beside_pictures=True) == (beside or 5)
    assert speech_threads(beside_pictures=False) == (budget or 6)


def test_the_text_encoder_takes_a_batch_workers_share_of_the_cores(monkeypatch):
    """The text encoder runs its texts one per core at a time, each on one onnxruntime thread: where
    ``OMP_NUM_THREADS`` is set (a batch worker's share, ``app.batch_tasks``; onnxruntime does not read it) on that many
    threads, one here, so in the caller's thread; unset, on one per core (two, here made so); the vectors are the same
    bits either way."""
    import os
    import threading

    import numpy as np

    from tools.perception.text_onnx import OnnxSentenceEncoder

    texts = ["when does she mention being new?", "the audience laughs and claps", "he points at the screen", "ok"]
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    capped = OnnxSentenceEncoder()
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    free = OnnxSentenceEncoder()
    ran: dict[str, set[str]] = {"capped": set(), "free": set()}
    for name, enc in (("capped", capped), ("free", free)):
        run = enc._run
        monkeypatch.setattr(enc, "_run", lambda t, run=run, name=name: ran[name].add(threading.current_thread().name)
                            or run(t))
        assert enc._session.get_session_options().intra_op_num_threads == 1
    assert np.array_equal(capped.encode(texts), free.encode(texts))
    assert ran["capped"] == {threading.current_thread().name}
    assert ran["free"] and all(n.startswith("text-encoder") for n in ran["free"]) and free._pool._max_workers == 2
