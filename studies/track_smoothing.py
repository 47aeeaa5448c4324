"""Temporal smoothing along a track, measured on consecutive real video frames of one face.

    python -m studies.track_smoothing [--json evals/results/track_smoothing.json]

CK+48 keeps three consecutive frames of each posed sequence (``Sxxx_yyy_zzzzzzzz.png``: subject,
sequence, frame number; 327 sequences), a face tracked over three video frames. Each frame is read as
the pipeline reads it (``studies.faces.face_crops``: the detector's crop), and the per-frame
AffectNet-8 reading is compared with the reading smoothed along the sequence by the same centred
moving average the pipeline applies to tracks (``tools.signals.events.smooth_track_expressions``, window 3),
per frame and per sequence (mean of the three readings), for face8 and fer, on the dev subjects (to
decide) and the test subjects (to report). The frames of a sequence are 1/30 s apart at the apex of
the expression, while the pipeline's track samples are 1/4 s (verifier) or 1 s (index) apart, so this
measures smoothing over small frame-to-frame noise, not over changing expressions.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from studies.command import report
from studies.faces import face_crops
from tools.signals.events import smooth_track_expressions

_SEQ = re.compile(r"(S\d{3}_\d{3})_(\d{8})\.png$")


def evaluate(root: Path | None = None, backends: tuple[str, ...] = ("face8", "fer")) -> dict:
    """Per-frame and smoothed accuracy on CK+ sequences, per split and backend (see the module doc).

    Raises:
        FileNotFoundError: CK+ was not assembled.
    """
    from tools.perception.expression import load_expression_classifier

    root = root or default_root()
    recs = load_manifest(root, "ckplus")
    data = face_crops("ckplus", root)
    sequences: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i, r in enumerate(recs):
        m = _SEQ.search(r["path"])
        sequences[m.group(1)].append((int(m.group(2)), i))
    out: dict = {"sequences": len(sequences), "frames_per_sequence": sorted({len(v) for v in sequences.values()})}
    for backend in backends:
        clf = load_expression_classifier(backend)
        probs = np.concatenate([clf.classify_crops(data["x"][i:i + 256]) for i in range(0, len(recs), 256)])
        for split in ("dev", "test"):
            frame_hits, smooth_hits, seq_hits = [], [], []
            for frames in sequences.values():
                rows = [i for _, i in sorted(frames)]
                if data["split"][rows[0]] != split:
                    continue
                y = data["y"][rows[0]]
                p = probs[rows]
                frame_hits += list(p.argmax(1) == y)
                smooth_hits += list(smooth_track_expressions(p).argmax(1) == y)
                seq_hits.append(p.mean(0).argmax() == y)
            out.setdefault(backend, {})[split] = {
                "frames": len(frame_hits), "per_frame": round(float(np.mean(frame_hits)), 4),
                "smoothed_per_frame": round(float(np.mean(smooth_hits)), 4),
                "sequences": len(seq_hits), "sequence_mean": round(float(np.mean(seq_hits)), 4)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.track_smoothing", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", help="write the result here")
    args = p.parse_args(argv)
    return report(evaluate, args.json)


if __name__ == "__main__":
    sys.exit(main())
