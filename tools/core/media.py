"""Video ingestion with PyAV (FFmpeg): probing, the clock and audio extraction (sampled frames:
``tools.core.frames``).

Frames are streamed, never held in memory as a whole video. Every time, of frames and of audio samples
alike, is seconds on the file's own clock counted from its first timestamp (the earliest of its streams,
where a player's clock starts): a video stream that starts 0.8 s after its audio has its first frame at
0.8 s, so pictures and words line up as a player shows them. Writing video is ``tools.core.video_out``'s.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class VideoError(ValueError):
    """The input is not a usable video (missing, not a video, truncated, empty). The message is one line."""


@dataclass(frozen=True)
class VideoInfo:
    """What ``probe`` found: duration (s), average frame rate (frames/s), size (px), audio presence, and
    the file's first timestamp ``start_s`` (s on the file's clock; every time here counts from it) and the first
    video frame's time ``first_frame_s`` (s from that first timestamp: above 0 when the audio starts earlier)."""

    path: Path
    duration_s: float
    fps: float
    width: int
    height: int
    has_audio: bool
    audio_sample_rate: int | None
    start_s: float = 0.0
    first_frame_s: float = 0.0


#: Pictures the tools can read: each side at least ``MIN_SIDE_PX`` and the longer side at most
#: ``MAX_ASPECT`` times the shorter (frames are downscaled to a 960 px longer side for the tools).
MIN_SIDE_PX = 16
MAX_ASPECT = 10.0


def sampling_start(info: VideoInfo, start_s: float, fps: float) -> float:
    """The first time at or after ``start_s`` on the sampling grid ``info.first_frame_s + k / fps`` (seconds):
    frames sampled at ``fps`` from there, chunk after chunk, are the same frames whatever the offset between
    the file's first timestamp and its first video frame."""
    if start_s <= info.first_frame_s:
        return info.first_frame_s
    return round(info.first_frame_s + math.ceil((start_s - info.first_frame_s) * fps - 1e-6) / fps, 6)


def video_warnings(info: VideoInfo) -> list[str]:
    """What a user must be told about the file itself: a first timestamp other than 0 (times are relative), and
    no audio track (nothing was heard)."""
    notes = [] if info.has_audio else [NO_AUDIO_NOTE]
    if info.start_s >= 0.5:
        notes.append(f"the file's timestamps start at {info.start_s:.1f} s; every time here is counted from that first "
                     "timestamp (add that offset to seek in players that show the file's raw timestamps)")
    return notes


#: The warning of a file without an audio track, which is read from its pictures alone.
NO_AUDIO_NOTE = "the file has no audio track: read from its pictures alone (no words, voice or sound)"


def open_video(path: Path):
    """``av.open`` of ``path``; raises ``VideoError`` (one line) when FFmpeg cannot open it."""
    import av

    try:
        return av.open(str(path))
    except av.error.FFmpegError as exc:
        raise VideoError(f"{path}: cannot be decoded as a video ({exc.strerror or type(exc).__name__})") from exc


def probe(path: str | os.PathLike, check_decode: bool = True) -> VideoInfo:
    """Open ``path`` and describe it.

    Args:
        path: a video file readable by FFmpeg.
        check_decode: decode the first and the last second of video to catch truncated files.

    Raises:
        VideoError: missing file, a URL, a directory, not a video, a still image, no video stream, zero length,
            a picture size outside ``MIN_SIDE_PX``/``MAX_ASPECT``, or a file whose frames stop well before the
            video stream's declared end (truncated).
    """
    p = Path(path)
    if not p.exists() and "://" in str(path):
        raise VideoError(f"{path}: is a URL, and a run opens no network connection: download the video and pass "
                         "its file")
    if not p.exists():
        raise VideoError(f"{p}: no such file")
    if p.is_dir():
        raise VideoError(f"{p}: is a directory, not a video file")
    if p.stat().st_size == 0:
        raise VideoError(f"{p}: file is empty (0 bytes)")
    with open_video(p) as container:
        if not container.streams.video:
            raise VideoError(f"{p}: has no video stream")
        if container.format.name == "image2" or container.format.name.endswith("_pipe"):
            raise VideoError(f"{p}: is a still image, not a video")
        vs = container.streams.video[0]
        duration = _declared_duration(container, vs)
        video_end = _video_end(container, vs)
        fps = float(vs.average_rate or vs.guessed_rate or 0) or 25.0
        audio = container.streams.audio[0] if container.streams.audio else None
        info = VideoInfo(
            path=p,
            duration_s=duration,
            fps=fps,
            width=vs.codec_context.width,
            height=vs.codec_context.height,
            has_audio=audio is not None,
            audio_sample_rate=audio.rate if audio is not None else None,
            start_s=round(file_start(container), 3),
            first_frame_s=round(max(0.0, _start_time(vs) - file_start(container)), 3),
        )
    w, h = info.width, info.height
    if min(w, h) < MIN_SIDE_PX or max(w, h) > MAX_ASPECT * min(w, h):
        raise VideoError(f"{p}: picture is {w}x{h} pixels; supported: each side at least {MIN_SIDE_PX} px and an "
                         f"aspect ratio up to {MAX_ASPECT:g}:1")
    if check_decode:
        last = _last_decodable_time(p, max(0.0, duration - 1.0))
        if last is None:
            raise VideoError(f"{p}: no video frame could be decoded")
        declared = video_end or duration  # sound may run on after the pictures end: that is no truncation
        if declared > 0 and last < declared - max(1.0, 0.05 * declared):
            raise VideoError(f"{p}: truncated: frames stop at {last:.1f} s of {declared:.1f} s declared")
        if duration <= 0:
            duration = last
    if duration <= 0:
        raise VideoError(f"{p}: zero-length video")
    return VideoInfo(**{**info.__dict__, "duration_s": duration})


def _declared_duration(container, vs) -> float:
    """The later of the video stream's and the container's declared ends (seconds), both counted from the
    file's first timestamp (an MKV or MPEG-TS may start at 100 s; its container duration then ends there)."""
    whole = container.duration / 1_000_000 - file_start(container) if container.duration is not None else 0.0
    return max(_video_end(container, vs) or 0.0, whole)


def _video_end(container, vs) -> float | None:
    """The video stream's own declared end (seconds from the file's first timestamp), None where the file
    states none. MP4 and MOV give each stream a duration (its length, from the stream's first timestamp);
    Matroska and WebM give none, but FFmpeg's muxer writes each track's ``DURATION`` tag
    ("HH:MM:SS.nnnnnnnnn"): the end of its last frame on the file's timestamps."""
    if vs.duration is not None and vs.time_base is not None and vs.duration > 0:
        return float(vs.duration * vs.time_base) + _start_time(vs) - file_start(container)
    end = _clock_tag(vs.metadata.get("DURATION") or vs.metadata.get("duration") or "")
    return end - file_start(container) if end > 0 else None


def _clock_tag(text: str) -> float:
    """Seconds in a "HH:MM:SS.fraction" tag; 0.0 when the text is not one."""
    try:
        hours, minutes, seconds = (float(x) for x in text.split(":"))
    except ValueError:
        return 0.0
    return max(0.0, hours * 3600 + minutes * 60 + seconds)


def _last_decodable_time(path: Path, from_s: float) -> float | None:
    """Decode from ``from_s`` to the end and return the last frame time, None if nothing decodes.

    A file whose seek lands on no keyframe (an MPEG-TS with a single keyframe) is decoded from the start.
    """
    import av

    for seek_to in ((from_s, 0.0) if from_s > 0 else (0.0,)):
        last = None
        with open_video(path) as container:
            vs = container.streams.video[0]
            t0 = file_start(container)
            try:
                if seek_to > 0:
                    container.seek(int((seek_to + t0) / vs.time_base), stream=vs, backward=True)
                for frame in container.decode(vs):
                    if frame.pts is not None:
                        last = float(frame.pts * vs.time_base) - t0
            except av.error.FFmpegError:
                pass
        if last is not None:
            return last
    return None


def _start_time(vs) -> float:
    """A stream's first timestamp (s on the file's clock)."""
    return float(vs.start_time * vs.time_base) if vs.start_time is not None else 0.0


def file_start(container) -> float:
    """The file's first timestamp (s), the earliest of its streams: every time here counts from it."""
    return container.start_time / 1_000_000 if container.start_time is not None else 0.0


def load_audio(path: str | os.PathLike, sample_rate: int = 16_000) -> np.ndarray:
    """Decode the first audio stream to mono float32 in [-1, 1] at ``sample_rate`` Hz.

    Returns an array of shape (n_samples,) whose sample ``i`` sounds at ``i / sample_rate`` seconds on the
    file's clock (counted from its first timestamp, as frame times are): an audio stream that starts after
    the video is preceded by silence for the gap.

    Raises:
        VideoError: the file has no audio stream or it cannot be decoded.
    """
    import av

    p = Path(path)
    with open_video(p) as container:
        if not container.streams.audio:
            raise VideoError(f"{p}: has no audio track")
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=sample_rate)
        chunks = []
        lead = _start_time(stream) - file_start(container)
        if lead * sample_rate >= 1:
            chunks.append(np.zeros(round(lead * sample_rate), np.float32))
        try:
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
        except av.error.FFmpegError as exc:
            raise VideoError(f"{p}: audio decoding failed ({exc.strerror or type(exc).__name__})") from exc
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
