"""Shot boundaries at the video's own frame rate, found around the index's coarse cuts.

The index samples frames at ``IndexConfig.sample_fps`` (1 fps by default) and declares a cut at the first
sample of a new shot (``tools.tracks.is_cut``), so the real boundary lies somewhere in the sampling interval
before that sample. ``refine_cut`` decodes that interval at the full frame rate and returns the time of the
frame whose HSV colour histogram departs most from the frame before it: the coarse detector's own measure,
applied frame by frame where a change is already known to lie (the two-pass coarse-to-fine scheme of shot
boundary detection; the histogram difference is the classic hard-cut cue, Zhang, Kankanhalli and Smoliar,
1993, "Automatic partitioning of full-motion video"). Only the cuts an answer's moments touch are refined,
at question time: a few short decodes per question, not a full-rate pass over the video.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from tools.media import iter_frames
from tools.tracks import frame_histogram

#: Sampling rate asked of ``iter_frames`` so that every decoded frame is yielded (above any video's frame rate).
EVERY_FRAME_FPS = 1000.0
#: Longer side (pixels) of the frames compared: colour histograms need no detail, and small frames decode to
#: arrays quickly.
COMPARE_SIDE = 160


def refine_cut(path: str | os.PathLike, cut_s: float, interval_s: float) -> float:
    """The frame-accurate start (seconds on the file's clock, ``tools.media``) of the shot the index found at ``cut_s``.

    Args:
        path: the video file the index was built from.
        cut_s: a coarse cut: the time of the first sampled frame of the new shot.
        interval_s: the index's sampling interval (1 / ``sample_fps``); the boundary lies in
            (cut_s - interval_s, cut_s].

    Returns the time of the frame in that interval that differs most from the frame before it (lowest
    histogram correlation), or ``cut_s`` itself when fewer than two frames decode there.

    Raises:
        tools.media.VideoError: the file cannot be opened or decoded.
    """
    start = max(0.0, cut_s - interval_s)
    times: list[float] = []
    hists: list[np.ndarray] = []
    for t, frame in iter_frames(path, EVERY_FRAME_FPS, start, cut_s + interval_s, max_side=COMPARE_SIDE):
        if t > cut_s + 1e-6:
            break
        times.append(t)
        hists.append(frame_histogram(frame))
    if len(times) < 2:
        return cut_s
    import cv2

    corr = [cv2.compareHist(a, b, cv2.HISTCMP_CORREL) for a, b in itertools.pairwise(hists)]
    return times[1 + int(np.argmin(corr))]
