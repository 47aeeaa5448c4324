"""Decoded video frames sampled at a frame rate: ``iter_frames`` for one span, ``SpanReader`` for spans in time order
through one decoder. Times are seconds from the file's first timestamp (``tools.core.media``: the one clock of
pictures and sound); frames are RGB uint8 (H, W, 3), upright as a player shows them. Decoding is FFmpeg's, through
PyAV.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from tools.core.media import VideoError, file_start, open_video

if TYPE_CHECKING:
    from typing import Self

T = TypeVar("T")
_END = object()


def _scaled_size(w: int, h: int, max_side: int) -> dict[str, int]:
    """``to_ndarray`` size arguments that bring the longer side down to ``max_side`` (even sides); {} to keep it."""
    scale = min(1.0, max_side / max(w, h)) if max(w, h) > 0 else 1.0
    return {"width": int(w * scale) // 2 * 2, "height": int(h * scale) // 2 * 2} if scale < 1 else {}


def _upright_rgb(frame, size: dict[str, int]) -> np.ndarray:
    """The decoded frame as RGB uint8 (H, W, 3), turned as its display matrix says (phone video: CCW degrees)."""
    rgb = frame.to_ndarray(format="rgb24", **size)
    turns = round((frame.rotation or 0) / 90) % 4
    return np.ascontiguousarray(np.rot90(rgb, turns)) if turns else rgb


def _timed_frames(container, vs, t0: float) -> Iterator[tuple[float, object]]:
    """``(t, av.VideoFrame)`` of each decoded frame of stream ``vs`` that has a timestamp, ``t`` in seconds from the
    file's first timestamp ``t0``."""
    for frame in container.decode(vs):
        if frame.pts is not None:
            yield float(frame.pts * vs.time_base) - t0, frame


class _Decoder:
    """The decoded frames ``(t, av.VideoFrame)`` of a video's first video stream, ``t`` in seconds from the file's first
    timestamp, from the keyframe before ``seek_s`` (from the start when that seek decodes nothing, as in an MPEG-TS
    with a single keyframe) to the end; a span that stops at a frame puts it back (``held``) for the next span.
    ``half_frame`` (s) and ``size`` (``to_ndarray`` arguments, longer side at most ``max_side``) are set once the
    file is open, before the first frame is returned. ``threads``: see ``iter_frames``."""

    def __init__(self, path: Path, seek_s: float, max_side: int, threads: int = 0) -> None:
        self.half_frame, self.size = 0.0, {}
        self.held: tuple[float, object] | None = None
        self._frames = self._decode(path, seek_s, max_side, threads)

    def _decode(self, path: Path, seek_s: float, max_side: int, threads: int) -> Iterator[tuple[float, object]]:
        for seek in ((True, False) if seek_s > 0 else (False,)):
            decoded = 0
            with open_video(path) as container:
                vs = container.streams.video[0]
                vs.thread_type, vs.thread_count = "AUTO", threads  # 1: no decoding threads at all
                t0 = file_start(container)
                self.size = _scaled_size(vs.codec_context.width, vs.codec_context.height, max_side)
                self.half_frame = 0.5 / (float(vs.average_rate or 25))
                if seek:
                    container.seek(int((seek_s + t0) / vs.time_base), stream=vs, backward=True)
                for item in _timed_frames(container, vs, t0):
                    decoded += 1
                    yield item
            if decoded:
                return
            # the seek landed where nothing decodes (no keyframe after it): decode from the start instead

    def next(self) -> tuple[float, object] | None:
        """The next frame (the one put back first), None at the end of the stream."""
        if self.held is not None:
            item, self.held = self.held, None
            return item
        return next(self._frames, None)

    def close(self) -> None:
        self._frames.close()


def _sampled(path: Path, decoder: _Decoder, fps: float, start_s: float, end_s: float | None,
             on_decoded: Callable[[float, object], None] | None = None) -> Iterator[tuple[float, np.ndarray]]:
    """``iter_frames``'s sampling of ``decoder``'s frames in [start_s, end_s) (see there); the frame that ends the span
    is put back into ``decoder``."""
    import av

    step, next_t = 1.0 / fps, start_s
    try:
        while (item := decoder.next()) is not None:
            t, frame = item
            if end_s is not None and t + decoder.half_frame >= end_s:
                decoder.held = item
                return
            if on_decoded is not None:
                on_decoded(round(t, 3), frame)
            if t + decoder.half_frame < next_t:
                continue
            yield round(t, 3), _upright_rgb(frame, decoder.size)
            while next_t <= t + decoder.half_frame:
                next_t += step
    except av.error.FFmpegError as exc:
        raise VideoError(f"{path}: decoding failed at {next_t:.1f} s ({exc.strerror or type(exc).__name__})") from exc


def iter_frames(
    path: str | os.PathLike,
    fps: float,
    start_s: float = 0.0,
    end_s: float | None = None,
    max_side: int = 960,
    on_decoded: Callable[[float, object], None] | None = None,
    seek_s: float | None = None,
    threads: int = 0,
) -> Iterator[tuple[float, np.ndarray]]:
    """Yield ``(t, frame)`` sampled at ``fps`` frames/s in [start_s, end_s).

    Frames are turned upright as the file's display matrix says (phone videos recorded in portrait
    store a rotation instead of turned pixels), so what the tools see is what a player shows.
    Sample times follow the grid ``start_s + k / fps``: the first decoded frame within half a frame interval before
    a grid time, or after it, stands for it; the span stops at the first frame within half a frame interval of
    ``end_s``.

    Times are seconds from the file's first timestamp (an MKV whose clock starts at 100 s gives times
    from 0; a video stream that starts 0.8 s after the audio gives a first frame at 0.8 s).
    Each frame is RGB uint8 of shape (H, W, 3), downscaled so that its longer side is at most
    ``max_side`` pixels. Only the sampled frames are converted to arrays; ``on_decoded`` sees every decoded frame
    before ``end_s`` as ``(t, av.VideoFrame)``, sampled or not, so a full-frame-rate measure (``tools.signals.shots``)
    costs no second decode. The decoder seeks to the keyframe before ``seek_s`` (default and at most ``start_s``)
    first, so a short span of a long video costs a short decode (a file where the seek finds no keyframe, such as
    an MPEG-TS with a single keyframe, is decoded from its start instead).

    ``threads``: FFmpeg's decoding threads. 0 (default) lets FFmpeg choose (frame and slice threads, one per core):
    the shortest wall time on an idle machine. 1 decodes on one thread: the same frames for about a sixth less CPU time
    (no threads to hand frames between), the better choice when other work keeps every core busy, as the speech pass
    does beside the index's picture pass (``indexing.visual.chunk_frames``).

    Raises:
        VideoError: the file cannot be opened as a video.
    """
    if fps <= 0:
        raise ValueError("fps must be positive")
    p, seek_s = Path(path), start_s if seek_s is None else min(seek_s, start_s)
    decoder = _Decoder(p, seek_s, max_side, threads)
    try:
        yield from _sampled(p, decoder, fps, start_s, end_s, on_decoded)
    finally:
        decoder.close()


class SpanReader:
    """Spans of one video sampled at one frame rate, read in time order through one decoder: ``frames(start_s, end_s)``
    yields exactly what ``iter_frames(path, fps, start_s, end_s, max_side)`` yields, but a span that starts at or
    after the previous span's end, within ``CONTINUE_S``, continues the decode where that span stopped instead of
    opening the file and seeking back to a keyframe (which decodes the frames from the keyframe again).

    Why the frames are the same: the decoder returns frames in presentation order, so every frame the continued decode
    passes over ends before the previous span's end, hence before ``start_s``, where a fresh decode skips it too; from
    the frame that ended the previous span on, both decodes see the same frames (``iter_frames``'s sampling rule).
    Each span's frames must be read (or dropped) before the next span is asked for. A context manager (closes the file).

    Raises:
        VideoError: the file cannot be opened or decoded (while reading a span).
    """

    #: The longest gap (s) between spans read through by the decoder rather than by a seek.
    CONTINUE_S = 2.0
    #: The sampling rate (frames per second).
    fps: float

    def __init__(self, path: str | os.PathLike, fps: float, max_side: int = 960) -> None:
        if fps <= 0:
            raise ValueError("fps must be positive")
        self._path, self.fps, self._max_side = Path(path), fps, max_side
        self._decoder: _Decoder | None = None
        self._end: float | None = None

    def frames(self, start_s: float, end_s: float) -> Iterator[tuple[float, np.ndarray]]:
        """``(t, frame)`` of [start_s, end_s) as ``iter_frames`` gives them (see the class doc)."""
        if self._decoder is None or self._end is None or not self._end <= start_s <= self._end + self.CONTINUE_S:
            self.close()
            self._decoder = _Decoder(self._path, start_s, self._max_side)
        self._end = end_s
        return self._read(self._decoder, start_s, end_s)

    def _read(self, decoder: _Decoder, start_s: float, end_s: float) -> Iterator[tuple[float, np.ndarray]]:
        try:
            yield from _sampled(self._path, decoder, self.fps, start_s, end_s)
        except BaseException:  # a failed or abandoned span: the next one opens the file afresh
            if self._decoder is decoder:
                self.close()
            raise

    def close(self) -> None:
        """Close the file (a later span opens it again)."""
        if self._decoder is not None:
            self._decoder.close()
        self._decoder, self._end = None, None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def prefetched(items: Iterator[T]) -> Iterator[T]:
    """The items of ``items``, in order, each made on a thread of its own while the caller works on the one before
    (one item ahead): decoding a span's next frame overlaps the work on this one, since FFmpeg decodes and converts
    without holding the GIL (PyAV). An error raised making an item is raised here when the caller reaches it; when the
    caller stops early, the item being made is waited for and ``items`` is closed (a ``SpanReader`` span then opens
    the file afresh)."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="prefetch")
    try:
        ahead = pool.submit(next, items, _END)
        while (item := ahead.result()) is not _END:
            ahead = pool.submit(next, items, _END)
            yield item
    finally:
        pool.shutdown(wait=True)
        close = getattr(items, "close", None)
        if close is not None:
            close()
