"""Can a head trained on the upper face read talking faces better? A trial, not shipped.

    python -m studies.upper_face --mirrors /work/.mirror --cremad CLIPS [--json evals/results/upper_face_dev.json]

Section 32 of ``evals/RESULTS.md`` hid the mouth from the whole-face head and lost; it left open a head *trained*
on faces with the mouth hidden, so that brows, eyes and nose alone speak while the lips move with speech. Here
that head is fitted exactly as face8 is (``studies.train_face``: RAF-DB train and CK+ dev subjects, mirrored,
class-balanced, C chosen from ``C_GRID`` on the dev validation part), on the same crops with the rows below
``studies.talking_mouth.MASK_FROM`` filled with the mean grey of the rest (``hide_mouth``). It is read on every
recorded development clip at 8 fps (the largest face of each frame, cropped as the pipeline crops it): section 25's
20 clips, RAVDESS actor 05's 52 and the 100 CREMA-D clips (development data since section 36), a clip's reading the
mean over its frames, beside the default reader (faceres+face8), face8, and two mixtures with the upper-face head.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from studies.talking_mouth import hide_mouth

#: Frame rate the recorded clips are read at (section 45 read CREMA-D at 8 fps too).
READ_FPS = 8.0


def fit_upper_head(out: Path) -> dict:
    """Fit the upper-face head (see the module doc) into ``out``: face8's training (``studies.train_face.train``) on
    the dev crops with the mouth hidden; returns the C selection log."""
    from studies.train_face import train

    fitted = train(out, transform=hide_mouth)
    return {"selection": fitted["selection"], "C": fitted["C"]}


def clip_crops(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """(crops (n, 64, 64) uint8, clip index (n,)) of the largest face in each frame of ``paths`` at ``READ_FPS``."""
    from tools.core.frames import iter_frames
    from tools.perception.crops import gray_crop
    from tools.perception.faces import load_face_detector

    det = load_face_detector("mediapipe")
    crops, clip = [], []
    for i, p in enumerate(paths):
        for _, frame in iter_frames(p, READ_FPS):
            found = det.detect(frame)
            if found:
                crops.append(gray_crop(frame, max((b for b, _ in found), key=lambda b: b.area)))
                clip.append(i)
    return np.stack(crops), np.asarray(clip)


def score(crops: np.ndarray, clip: np.ndarray, rows: list[tuple[str, str, str, str]], head: Path) -> dict:
    """Clips right per reading (a clip's label among its ``|``-joined labels), with a 95 % bootstrap interval over
    people, for the default reader, face8, the upper-face head and two mixtures."""
    from evals.metrics import bootstrap_interval
    from tools.core.schema import AFFECTNET8
    from tools.perception.expression import Face8, load_expression_classifier

    def read(reader, x: np.ndarray) -> np.ndarray:
        return np.concatenate([reader.classify_crops(x[i:i + 256]) for i in range(0, len(x), 256)])

    p8, pr = read(load_expression_classifier("face8"), crops), read(load_expression_classifier("faceres"), crops)
    pu = read(Face8(head=head), hide_mouth(crops))
    readings = {"faceres+face8 (default)": (p8 + pr) / 2, "face8": p8, "upper-face head": pu,
                "mean of default and upper": ((p8 + pr) / 2 + pu) / 2, "mean of the three heads": (p8 + pr + pu) / 3}
    out = {}
    for name, p in readings.items():
        pred = [AFFECTNET8[int(p[clip == i].mean(0).argmax())] if (clip == i).any() else None for i in range(len(rows))]
        right = [q is not None and q in lab.split("|") for q, (_, _, lab, _) in zip(pred, rows, strict=True)]
        lo, hi = bootstrap_interval(right, groups=[r[3] for r in rows])
        out[name] = {"right": int(sum(right)), "n": len(rows), "ci95": [round(lo, 3), round(hi, 3)], "predicted": pred}
    return out


def evaluate(mirrors: Path, cremad: Path) -> dict:
    from studies.recorded_faces import CLIPS, _extract, cremad_clips, ravdess05_rows

    with tempfile.TemporaryDirectory() as tmp:
        head = Path(tmp) / "upper_head.npz"
        result = {"training": fit_upper_head(head), "read_fps": READ_FPS, "sets": {}}
        sets = {"section 25's 20 clips": (_extract(mirrors, Path(tmp) / "rec", CLIPS), CLIPS),
                "RAVDESS actor 05": (_extract(mirrors, Path(tmp) / "r05", ravdess05_rows()), ravdess05_rows()),
                "CREMA-D 100": cremad_clips(cremad)}
        for name, (paths, rows) in sets.items():
            result["sets"][name] = score(*clip_crops(paths), rows, head)
    return result


def main(argv: list[str] | None = None) -> int:
    from studies.recorded_faces import mirrors_main

    return mirrors_main(__doc__.splitlines()[0], evaluate, argv, cremad=True)


if __name__ == "__main__":
    sys.exit(main())
