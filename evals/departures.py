"""Composed departures: how a person feels after another one leaves the picture (EmoTrans's feeling after an event).

    python -m evals.departures --split dev|test --out DIR [--videos 12] [--seed 0]
    python -m evals.transitions score --bench DIR/bench.jsonl --predictions NAME=FILE ... [--reading]

These videos are **composed**, like ``evals.transitions``'s: two CK+ subjects of the split side by side in one
continuous picture (each face crop letterboxed into ``FACE_SHARE`` of its half of 640x360 with black around it, 25
fps, silent). The one on the left stays for the whole
video; the one on the right is there from the start and walks out to the right over ``WALK_S`` seconds at a place
drawn in the middle of the video, leaving black. In half of the videos the one who stays turns from one emotion to
another as the other leaves (two of their recorded sequences, each played as ``evals.transitions`` plays one: the
three frames near the apex over a second, then held); in the other half their face stays as it is, so the answer
is the feeling they keep. One question per video, "how does the person who stays feel after the other one
leaves?", in the transitions bench format (``change``: ``t_s`` = the end of the walk, the feeling ``before`` and
``after`` it), scored by ``python -m evals.transitions score``: the change point within 2 s of the departure, and
before and after named. There is no neutral in CK+48, so every feeling here is an emotion.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

from evals.bench import open_bench_folder, write_bench_file
from evals.build_bench import letterbox
from evals.ckplus import sequences
from evals.transitions import FPS, RATE, SEGMENT_S, SIZE, _item
from tools.core.argtypes import CommandParser, number
from tools.core.video_out import VideoWriter

#: Seconds over which the one who leaves walks out of the picture.
WALK_S = 1.0
#: Share of its half of the picture (each side) a face crop fills: CK+48's crops are the face alone, and a face
#: detector needs some room around it.
FACE_SHARE = 0.6
#: The question every video asks.
QUESTION = "how does the person who stays feel after the other one leaves?"


def _held(paths: list[str], n: int) -> list[np.ndarray]:
    """``n`` frames of one recorded sequence letterboxed into half the picture: its frames over the first second,
    then the last held."""
    import cv2

    half, face = (SIZE[0] // 2, SIZE[1]), (round(SIZE[0] // 2 * FACE_SHARE), round(SIZE[1] * FACE_SHARE))
    rgbs = []
    for p in paths:
        canvas = np.zeros((half[1], half[0], 3), np.uint8)
        x0, y0 = (half[0] - face[0]) // 2, (half[1] - face[1]) // 2
        canvas[y0:y0 + face[1], x0:x0 + face[0]] = letterbox(cv2.cvtColor(cv2.imread(p), cv2.COLOR_BGR2RGB), face)
        rgbs.append(canvas)
    return [rgbs[min(i * len(rgbs) // FPS, len(rgbs) - 1)] for i in range(n)]


def _walked_out(frame: np.ndarray, k: int, n: int) -> np.ndarray:
    """``frame`` moved ``k`` / ``n`` of its width to the right over black."""
    shift = round(frame.shape[1] * k / n)
    out = np.zeros_like(frame)
    out[:, shift:] = frame[:, : frame.shape[1] - shift]
    return out


def write_video(stays: list[list[str]], leaves: list[str], seconds: list[float], path: Path) -> float:
    """Encode one video: the one who stays plays ``stays[i]`` for ``seconds[i]`` (one or two sequences), the one who
    leaves plays ``leaves`` until the end of the first part, walking out over its last ``WALK_S``. Returns when the
    walk ends (s): the departure."""
    left = [f for paths, s in zip(stays, seconds, strict=True) for f in _held(paths, round(s * FPS))]
    gone = round(seconds[0] * FPS)
    walk = round(WALK_S * FPS)
    right = _held(leaves, gone)
    right[gone - walk:] = [_walked_out(f, k, walk) for k, f in enumerate(right[gone - walk:], start=1)]
    right += [np.zeros_like(right[0])] * (len(left) - gone)
    with VideoWriter(path, SIZE, FPS, RATE, crf=20) as out:
        for a, b in zip(left, right, strict=True):
            out.add_frame(np.hstack([a, b]))
        out.add_audio(np.zeros(round(len(left) / FPS * RATE), np.float32))
    return round(gone / FPS, 3)


def build(split: str, out_dir: Path, videos: int, seed: int = 0, root: Path | None = None) -> Path:
    """Write ``videos`` departure videos (module doc; the one who stays drawn without repetition among the split's
    subjects with two emotions, the one who leaves among the others) and their items; returns the bench file.

    Raises:
        FileNotFoundError: CK+ is not assembled.
        ValueError: no subject of the split shows two emotions, or nobody else is there to walk out.
    """
    rng = random.Random(f"departures-{split}-{seed}")
    seqs, subjects = sequences(split, root)
    if not subjects or len(seqs) < 2:
        raise ValueError(f"{split}: {len(subjects)} subject(s) with two emotions among {len(seqs)}; a departure needs "
                         "one of them and someone else to walk out")
    open_bench_folder(out_dir)
    lines = []
    for v, subject in enumerate(rng.sample(subjects, min(videos, len(subjects)))):
        other = rng.choice([p for p in sorted(seqs) if p != subject])
        changes = v % 2 == 0
        emotions = rng.sample(sorted(seqs[subject]), 2) if changes else [rng.choice(sorted(seqs[subject]))] * 2
        seconds = [rng.uniform(*SEGMENT_S), rng.uniform(*SEGMENT_S)]
        stays = [rng.choice(seqs[subject][emotions[0]])]
        stays.append(rng.choice(seqs[subject][emotions[1]]) if changes else stays[0][-1:])  # the held last frame
        leaves = rng.choice(rng.choice(list(seqs[other].values())))
        name = f"departures_{split}_{v:03d}.mp4"
        t = write_video(stays, leaves, seconds, out_dir / "videos" / name)
        lines.append(_item(name[:-4], name, QUESTION, subject, t, emotions[0], emotions[1]))
    return write_bench_file(out_dir, lines)


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m evals.departures", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["dev", "test"], required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--videos", type=number(1, 10_000, integer=True), default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    args = ap.parse_args(argv)
    try:
        bench = build(args.split, args.out, args.videos, args.seed, args.data)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {sum(1 for _ in bench.open())} items to {bench}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
