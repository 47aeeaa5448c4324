"""Hard shot cuts at the video's own frame rate, measured on every decoded frame of the index's single decode.

The index samples frames at ``IndexConfig.sample_fps`` (1 fps by default), too sparse to tell a cut from motion:
between two samples a talking head moves as much as one aligned face differs from the next person's, and two
shots of one room share their colours. Every frame is decoded anyway (H.264 frames depend on the frames before
them), so the visual pass hands each decoded frame to a ``ChangeTrace`` (``tools.core.frames.iter_frames``'
``on_decoded``): a ``LUMA_ROWS`` x ``LUMA_COLS`` grid of luma values point-sampled from the frame, and its change
from the frame before, the mean absolute difference (0-255). ``hard_cuts`` then declares a cut at a frame whose
change is a spike: at least ``MIN_CHANGE`` and at least ``CUT_RATIO`` times the mean change of the frames within
``WINDOW_S`` around it plus one grey level (so a near-still scene, whose mean change is a fraction of a level, needs a
change of several levels). Pixel differences between consecutive frames are the classic hard-cut cue (Zhang,
Kankanhalli and Smoliar, 1993, "Automatic partitioning of full-motion video"); the threshold relative to the
neighbouring frames is the idea of PySceneDetect's AdaptiveDetector (its score against the average of a window
of frames around it), which keeps fast motion from reading as a cut. A cut's time is the first frame of the new
shot, on the file's clock (``tools.core.media``). Gradual transitions (fades, dissolves) are not hard cuts and are not
found.

The constants were chosen on development video (``studies/shot_cuts.py``; ``evals/RESULTS.md``, section 36):
the joined CREMA-D bench, the composed joined dev bench and the recorded dev bench (their known cuts) and 20
recorded single-shot clips plus two talking-head videos (no cut; the HDTF talking head and a VoxCeleb2 strip).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

#: Rows and columns of the luma grid a frame is compared by (a 16:9 grid; point samples at the cell centres).
LUMA_ROWS, LUMA_COLS = 36, 64
#: Pixel formats whose first plane is 8-bit luma (read directly, no conversion).
_LUMA_PLANE_FORMATS = frozenset({"yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p", "nv12", "nv21",
                                 "gray"})
#: Smallest change (mean absolute luma difference, 0-255) of a cut frame: the smallest at a known cut of the
#: development videos is 8.7, the median within single shots 2.1.
MIN_CHANGE = 6.0
#: A cut frame's change is at least this many times the mean change around it (within single recorded shots the
#: ratio stayed below 2.8 for 99.9 % of frames; at known cuts it was 3.7 or more).
CUT_RATIO = 4.0
#: Seconds on each side of a frame whose changes set its local mean (the frame and its two neighbours excluded).
WINDOW_S = 0.5


def luma_grid(frame) -> np.ndarray:
    """A (``LUMA_ROWS``, ``LUMA_COLS``) uint8 grid of an ``av.VideoFrame``'s luma, point-sampled at the cell
    centres from its first plane for 8-bit YUV and grey frames (no conversion: integer reads, the same on every
    CPU), converted by FFmpeg for any other pixel format."""
    if frame.format.name not in _LUMA_PLANE_FORMATS:
        return frame.to_ndarray(format="gray", width=LUMA_COLS, height=LUMA_ROWS)
    plane = frame.planes[0]
    luma = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)
    rows = ((np.arange(LUMA_ROWS) + 0.5) * plane.height / LUMA_ROWS).astype(np.intp)
    cols = ((np.arange(LUMA_COLS) + 0.5) * plane.width / LUMA_COLS).astype(np.intp)
    return luma[np.ix_(rows, cols)]


def luma_change(prev: np.ndarray, grid: np.ndarray) -> float:
    """Mean absolute difference (0-255) of two luma grids of one shape (integer sums: exact on any CPU)."""
    return int(np.abs(grid.astype(np.int16) - prev.astype(np.int16)).sum()) / grid.size


@dataclass
class ChangeTrace:
    """Each decoded frame's luma change from the frame before, for the frames after ``last_t`` (seconds).

    ``add`` is ``tools.core.frames.iter_frames``' ``on_decoded``. A frame at or before ``last_t``, the time of the last
    frame added, is skipped, so spans decoded one after another (each seeking to a keyframe before its start)
    add every frame once: give the next span's trace the last one's ``last_t`` and ``prev`` (the grid of that
    frame). ``times`` and ``changes`` are each added frame's time (s) and change (the first frame of a trace
    started without ``prev`` has none)."""

    last_t: float = float("-inf")
    prev: np.ndarray | None = None
    times: list[float] = field(default_factory=list)
    changes: list[float] = field(default_factory=list)

    def add(self, t: float, frame) -> None:
        """Add one decoded frame at ``t`` seconds (skipped when at or before ``last_t``)."""
        if t <= self.last_t:
            return
        grid = luma_grid(frame)
        if self.prev is not None:
            self.times.append(t)
            self.changes.append(luma_change(self.prev, grid))
        self.prev, self.last_t = grid, t


def hard_cuts(times: list[float], changes: list[float]) -> list[float]:
    """The times (s) of the frames that start a new shot (module doc), ascending.

    Args:
        times: each frame's time in seconds, ascending.
        changes: each frame's ``luma_change`` from the frame before it (same length as ``times``).

    A cut frame's change is at least ``MIN_CHANGE``, at least ``CUT_RATIO`` x (1 + the mean change of the frames
    within ``WINDOW_S`` of it, leaving out it and its neighbours; twice ``MIN_CHANGE`` when there are none) and the
    largest of its neighbours'.
    """
    c = np.asarray(changes, dtype=np.float64)
    t = np.asarray(times, dtype=np.float64)
    cuts = []
    for i in np.flatnonzero(c >= MIN_CHANGE):
        if c[i] < c[max(0, i - 1):i + 2].max() or (i > 0 and c[i - 1] == c[i]):
            continue  # not the spike's peak (or its second equal frame)
        lo, hi = np.searchsorted(t, t[i] - WINDOW_S), np.searchsorted(t, t[i] + WINDOW_S, side="right")
        around = np.r_[c[lo:max(lo, i - 1)], c[min(hi, i + 2):hi]]
        level = CUT_RATIO * (around.mean() + 1.0) if len(around) else 2 * MIN_CHANGE
        if c[i] >= level:
            cuts.append(round(float(t[i]), 3))
    return cuts


#: The shortest shot (s) the index lays clips out in (``shot_parts``); a shorter one stays with its neighbour.
MIN_PART_S = 1.0


def shot_parts(cuts: Iterable[float], start_s: float, end_s: float) -> list[tuple[float, float]]:
    """[start_s, end_s) (seconds) cut at the ``cuts`` (shot starts, seconds) that fall inside it, leaving no part
    under ``MIN_PART_S``; [(start_s, end_s)] alone when no shot begins inside. Over a whole video, the shots the index
    lays its clips out in (``indexing.clips.clip_windows``)."""
    bounds = [start_s]
    for c in sorted(cuts):
        if bounds[-1] + MIN_PART_S <= c <= end_s - MIN_PART_S:
            bounds.append(c)
    return list(itertools.pairwise([*bounds, end_s]))
