"""CREMA-D clips of the assembled ``cremad`` set as video files, for the recorded test bench.

    python -m evals.data.cremad --out DIR [--data ROOT]

The assembled set (``evals.data.assemble --source cremad=DIR``; ``evals/data/SOURCES.md``) holds CREMA-D clips
as the emotalkingface preprocessing stores them: ``video`` (frames, 128x128 aligned faces, BGR, 25 fps),
``speech`` (8 kHz) and landmarks. Each becomes ``DIR/<ActorID_Sentence_Emotion_Level>.mp4`` (H.264 25 fps, the
speech resampled to 16 kHz AAC), named by the CREMA-D convention that ``python -m evals.build_bench DIR --format
cremad`` reads. Recorded video of 64 actors the face readers never saw; every clip is test data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from tools.core.video_out import VideoWriter

#: Frame rate and speech rate of the stored clips (the emotalkingface preprocessing).
FPS, SPEECH_RATE = 25, 8_000


def write_clip(hdf5: Path, out: Path) -> float:
    """Write one stored clip as ``out`` (mp4); returns its duration in seconds.

    Raises:
        KeyError: the file lacks ``video`` or ``speech``.
    """
    import cv2
    import h5py
    from scipy.signal import resample_poly

    with h5py.File(hdf5) as f:
        frames, speech = f["video"][:], f["speech"][:].astype(np.float32)
    h, w = frames.shape[1:3]
    audio = resample_poly(speech, 2, 1).astype(np.float32)  # 8 kHz -> 16 kHz
    with VideoWriter(out, (w, h), FPS, 2 * SPEECH_RATE) as video:
        for frame in frames:
            video.add_frame(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
        video.add_audio(audio[: round(len(frames) / FPS * 2 * SPEECH_RATE)])
    return len(frames) / FPS


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.data.cremad", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    args = ap.parse_args(argv)
    try:
        records = load_manifest(args.data or default_root(), "cremad")
        args.out.mkdir(parents=True, exist_ok=True)
        total = sum(write_clip(Path(r["path"]), args.out / (Path(r["path"]).stem + ".mp4")) for r in records)
    except (OSError, KeyError) as exc:  # not assembled; a listed file missing, or without its video or speech
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(records)} clips ({total:.0f} s) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
