"""One clock for pictures and sound: every time counts from the file's first timestamp, as a player shows it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import SAMPLE, shifted_remux

RATE = 16_000


def _stream_starts(path: Path) -> tuple[float, float, float]:
    """(file, video, audio) first timestamps in seconds, as FFmpeg's demuxer declares them."""
    import av

    with av.open(str(path)) as c:
        v, a = c.streams.video[0], c.streams.audio[0]
        return c.start_time / 1e6, float(v.start_time * v.time_base), float(a.start_time * a.time_base)


def test_the_samples_first_frame_is_where_its_video_stream_starts_on_the_file_clock():
    """The sample's video starts 0.844 s after its audio (FFmpeg's stream start times): its first frame is
    at 0.844 s, not 0, so a face is read at the time its words are heard."""
    from tools.core.frames import iter_frames
    from tools.core.media import probe

    file_s, video_s, audio_s = _stream_starts(SAMPLE)
    assert video_s - audio_s == pytest.approx(0.844, abs=0.001)
    first_t, _ = next(iter(iter_frames(SAMPLE, 1.0)))
    assert first_t == pytest.approx(video_s - file_s, abs=0.001)
    every = [t for t, _ in iter_frames(SAMPLE, 30.0)]
    assert [t for t, _ in iter_frames(SAMPLE, 30.0, 7.8, 8.5)] == [t for t in every if 7.8 <= t + 0.5 / 29.97 < 8.5]
    assert probe(SAMPLE).duration_s == pytest.approx(10.02, abs=0.05)


def test_audio_that_starts_after_the_picture_is_preceded_by_silence(tmp_path):
    """The same packets with the audio 2 s late: the decoded sound is the sample's, 2 s later, after 2 s of
    silence; the frames keep their times."""
    from tools.core.frames import iter_frames
    from tools.core.media import load_audio

    late = shifted_remux(tmp_path / "late_audio.mkv", 2.0, kinds=("audio",))
    file_s, _video_s, audio_s = _stream_starts(late)
    assert audio_s - file_s == pytest.approx(2.0 - 0.844, abs=0.01)  # the picture now leads
    original, shifted = load_audio(SAMPLE, RATE), load_audio(late, RATE)
    lead = round((audio_s - file_s) * RATE)
    assert not np.any(shifted[:lead])
    n = min(len(original), len(shifted) - lead)
    assert np.corrcoef(original[:n], shifted[lead:lead + n])[0, 1] > 0.99
    assert next(iter(iter_frames(late, 1.0)))[0] == pytest.approx(0.0, abs=0.001)


@pytest.mark.parametrize(("fps", "stride", "gap"), [(4.0, 2.0, 0.0), (8.0, 1.0, 0.0), (29.97, 0.5, 0.0), (4.0, 2.0, 1.5),
                                                    (4.0, 2.0, 3.0)])
def test_spans_read_through_one_decoder_are_the_frames_each_span_decodes_alone(fps, stride, gap):
    """``SpanReader`` (the verifier's chunks read through one decoder) gives each span exactly the frames, times and
    pixels, that its own ``iter_frames`` call gives (which seeks back to a keyframe), at the verifier's 4 fps and where
    a chunk's end falls a hair before a frame (8 fps, 29.97 fps: the sample's own rate), across gaps shorter and longer
    than the reader reads through, again for a span before the last one (a fresh seek), and after a span dropped half
    read."""
    from tools.core.frames import SpanReader, iter_frames
    from tools.core.media import probe, sampling_start

    info = probe(SAMPLE)
    starts = [round(1.0 + j * (stride + gap), 3) for j in range(8) if 1.0 + j * (stride + gap) + stride <= 9.0]
    spans = [(sampling_start(info, s, fps), round(s + stride, 3)) for s in starts] + [(sampling_start(info, 1.5, fps), 3.0)]
    with SpanReader(SAMPLE, fps) as reader:
        read = [list(reader.frames(a, b)) for a, b in spans]
        part = reader.frames(*spans[0])
        next(part)
        part.close()  # a span dropped after its first frame: the next span still gets its own frames
        read.append(list(reader.frames(*spans[1])))
    spans.append(spans[1])
    alone = [list(iter_frames(SAMPLE, fps, a, b)) for a, b in spans]
    assert [[t for t, _ in r] for r in read] == [[t for t, _ in r] for r in alone]
    assert all(np.array_equal(x, y) for r, s in zip(read, alone, strict=True) for (_, x), (_, y) in zip(r, s, strict=True))
    assert all(alone) and len(alone) >= 3


def test_spans_decoded_one_frame_ahead_on_a_thread_are_the_same_frames():
    """``prefetched`` (the verifier decodes a chunk's next frame while it reads this one) gives each span of a
    ``SpanReader`` the frames, times and pixels the span gives read directly; a prefetched span dropped after its first
    frame leaves the next span its own frames; an error raised on the decoding thread is raised to the reader."""
    from tools.core.frames import SpanReader, prefetched
    from tools.core.media import probe, sampling_start

    info = probe(SAMPLE)
    spans = [(sampling_start(info, s, 4.0), s + 2.0) for s in (1.0, 3.0, 6.0)]
    with SpanReader(SAMPLE, 4.0) as reader:
        direct = [list(reader.frames(a, b)) for a, b in spans]
    with SpanReader(SAMPLE, 4.0) as reader:
        ahead = [list(prefetched(reader.frames(a, b))) for a, b in spans[:1]]
        part = prefetched(reader.frames(*spans[1]))
        next(part)
        part.close()
        ahead += [list(prefetched(reader.frames(a, b))) for a, b in spans[1:]]
    assert [[t for t, _ in r] for r in ahead] == [[t for t, _ in r] for r in direct]
    assert all(len(r) == 8 for r in direct)
    pairs = [(x, y) for r, d in zip(ahead, direct, strict=True) for (_, x), (_, y) in zip(r, d, strict=True)]
    assert all(np.array_equal(x, y) for x, y in pairs)

    def failing():
        yield 1
        raise ValueError("decoding failed at 2.0 s")

    got = []
    with pytest.raises(ValueError, match="decoding failed"):
        got.extend(prefetched(failing()))
    assert got == [1]
