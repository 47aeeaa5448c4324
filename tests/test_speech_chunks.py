"""The speech pass's chunks shared with a helper thread (``indexing.speech.SharedChunks``): the transcript is the
one a single recogniser makes, and a failure on either thread ends the pass with its error."""

import threading
import time

import pytest

from tests.conftest import SAMPLE

CHUNK_S = 2.0  # the sample's 10 s of speech: about five chunks


class _Slow:
    """The shipped recogniser, each call at least ``delay`` s, failing in the thread named ``fail_in``."""

    def __init__(self, delay: float = 0.2, fail_in: str | None = None, **opts) -> None:
        from tools.perception.asr import load_asr

        self.asr, self.delay, self.fail_in, self.calls = load_asr("faster-whisper", **opts), delay, fail_in, []

    def transcribe(self, audio):
        self.calls.append(threading.current_thread().name)
        if threading.current_thread().name == self.fail_in:
            raise RuntimeError("the helper's recogniser broke")
        time.sleep(self.delay)
        return self.asr.transcribe(audio)


def _track(tmp_path, name: str, shared=None):
    from indexing.build import NullProgress
    from indexing.speech import transcribe_track
    from memory.checkpoint import Checkpoints
    from memory.index_config import IndexConfig
    from tools.core.media import probe

    ckpt = Checkpoints(tmp_path / name, {"asr_chunk_s": CHUNK_S})
    return transcribe_track(probe(SAMPLE), IndexConfig(), ckpt, NullProgress(), CHUNK_S, threads=1, shared=shared)[1]


def _beside(target):
    """Run ``target`` on a thread named ``speech``; return a function that joins it and gives (result, error)."""
    out: dict = {}

    def run() -> None:
        try:
            out["result"] = target()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, name="speech")
    thread.start()

    def join():
        thread.join(timeout=300)
        return out.get("result"), out.get("error")

    return join


@pytest.mark.asr
def test_a_helper_takes_chunks_and_the_transcript_is_the_one_recogniser_makes(tmp_path, monkeypatch):
    """The sample's speech in ~2 s chunks: alone, the speech pass decodes every chunk itself with one recogniser;
    with a helper thread (as the build's main thread once its pictures are done), the two decode chunks side by side
    on a recogniser that takes two calls at once, and the joined transcript is the same."""
    import indexing.speech
    from indexing.speech import SharedChunks, asr_chunks
    from tools.core.media import load_audio
    from tools.perception.asr import SAMPLE_RATE

    made: list[_Slow] = []
    monkeypatch.setattr(indexing.speech, "load_asr", lambda _name, **opts: made.append(_Slow(**opts)) or made[-1])
    alone = _track(tmp_path, "alone")
    assert len(made) == 1 and made[0].calls == ["MainThread"] * len(made[0].calls)

    shared = SharedChunks()
    join = _beside(lambda: _track(tmp_path, "helped", shared))
    shared.help()  # as the build's main thread does once its pictures are done
    helped, error = join()
    assert error is None
    chunks = len(asr_chunks(load_audio(SAMPLE, SAMPLE_RATE), SAMPLE_RATE, CHUNK_S))
    assert chunks >= 4 and len(made[1].calls) == chunks
    assert 1 <= len(shared.helped) < chunks  # both threads decoded chunks
    assert sorted(made[1].calls) == sorted(["speech"] * (chunks - len(shared.helped)) + ["MainThread"] * len(
        shared.helped))
    assert helped.segments and helped.model_dump() == alone.model_dump()


@pytest.mark.asr
def test_the_helpers_failure_ends_the_speech_pass_with_its_error(tmp_path, monkeypatch):
    """A recogniser call that fails in the helper raises there, and the speech pass, once its own chunk is done,
    takes no further chunk and raises the same error (the build then fails with it, not with a partial transcript)."""
    import indexing.speech
    from indexing.speech import SharedChunks

    made: list[_Slow] = []
    monkeypatch.setattr(indexing.speech, "load_asr",
                        lambda _name, **opts: made.append(_Slow(0.5, "MainThread", **opts)) or made[-1])
    shared = SharedChunks()
    join = _beside(lambda: _track(tmp_path, "a", shared))
    with pytest.raises(RuntimeError, match="helper's recogniser broke"):
        shared.help()
    _, error = join()
    assert isinstance(error, RuntimeError) and "helper's recogniser broke" in str(error)
    assert made[0].calls == ["speech", "MainThread"]  # the speech pass took no chunk after the failure


def test_a_helper_of_a_pass_that_offers_nothing_returns():
    """A pass without audio, or whose chunks were all checkpointed, finishes without opening: the helper returns."""
    from indexing.speech import SharedChunks

    shared = SharedChunks()
    threading.Timer(0.1, shared.finish).start()
    shared.help()
    assert shared.helped == []


def test_a_pass_whose_build_failed_already_loads_no_recogniser(tmp_path, monkeypatch):
    """When the visual pass failed before the speech pass reached its first chunk (the build's ``stop`` is set), the
    speech pass stops with ``PassStopped`` without loading Whisper, and the helper waiting on it returns."""
    import indexing.speech
    from indexing.speech import PassStopped, SharedChunks

    loads: list[dict] = []
    monkeypatch.setattr(indexing.speech, "load_asr", lambda _name, **opts: loads.append(opts))
    stop = threading.Event()
    stop.set()
    shared = SharedChunks(stop)
    with pytest.raises(PassStopped, match="before chunk 0"):
        _track(tmp_path, "a", shared)
    shared.help()
    assert loads == [] and shared.helped == []
