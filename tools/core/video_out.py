"""Video output with PyAV (FFmpeg): an H.264 + mono AAC writer fed frame by frame, and mono audio muxing.

What writes video here (composed benches, test clips, the speed benchmark's long videos) uses these;
reading video is ``tools.core.media``'s.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Self


def mux_mono_audio(container, stream, samples: np.ndarray, first_sample: int = 0) -> None:
    """Encode mono float32 ``samples`` in [-1, 1] into the audio ``stream`` of an output ``container``.

    Frames of 1024 samples get presentation times counted in samples from ``first_sample`` (so clips can
    be appended back to back); the encoder is not flushed (``stream.encode(None)`` does that).
    """
    import av

    rate = stream.rate
    for i in range(0, len(samples), 1024):
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples[None, i:i + 1024], np.float32), format="flt",
                                           layout="mono")
        frame.sample_rate, frame.pts, frame.time_base = rate, first_sample + i, Fraction(1, rate)
        for packet in stream.encode(frame):
            container.mux(packet)


class VideoWriter:
    """An H.264 video (yuv420p, ``preset veryfast``) with one mono AAC track, written frame by frame.

    Frames and audio samples are appended in order; their presentation times count from 0 at ``fps``
    and ``sample_rate``. Use it as a context manager: leaving the block without an error flushes both
    encoders; the file is closed either way.

    Args:
        path: the output file.
        size: (width, height) in pixels; every frame given must have this size.
        fps: frames per second.
        sample_rate: audio samples per second.
        crf: x264's constant-rate factor (lower: better picture, larger file).
    """

    def __init__(self, path: str | os.PathLike, size: tuple[int, int], fps: int = 25, sample_rate: int = 16_000,
                 crf: int = 23) -> None:
        import av

        self.fps, self.frames, self.samples = fps, 0, 0
        self._out = av.open(str(path), "w")
        self._video = self._out.add_stream("libx264", rate=fps)
        self._video.width, self._video.height, self._video.pix_fmt = size[0], size[1], "yuv420p"
        self._video.options = {"preset": "veryfast", "crf": str(crf)}
        self._audio = self._out.add_stream("aac", rate=sample_rate, layout="mono")

    def add_frame(self, rgb: np.ndarray) -> None:
        """Append one RGB uint8 frame of shape (height, width, 3)."""
        import av

        frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
        frame.pts, frame.time_base = self.frames, Fraction(1, self.fps)
        for packet in self._video.encode(frame):
            self._out.mux(packet)
        self.frames += 1

    def add_audio(self, samples: np.ndarray) -> None:
        """Append mono float32 ``samples`` in [-1, 1]."""
        mux_mono_audio(self._out, self._audio, samples, first_sample=self.samples)
        self.samples += len(samples)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                for stream in (self._video, self._audio):
                    for packet in stream.encode(None):
                        self._out.mux(packet)
        finally:
            self._out.close()
