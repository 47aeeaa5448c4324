"""Facial expression of a talking face: the whole face against the face with its mouth hidden.

    python -m studies.talking_mouth --mirrors /work/.mirror [--json evals/results/talking_mouth_dev.json]

A talking mouth passes through shapes that read, frame by frame, as surprise or fear (an open jaw) or as
happiness (spread lips). On the recorded clips of ``studies.recorded_faces`` (development data, 20 clips of 11
people, most of them talking), each frame's largest face is read by face8 (``tools.perception.expression.Face8``) on its
crop as the index reads it and on the same crop with its lower part (from ``MASK_FROM`` of the crop's height
down: mouth and chin) filled with the mean grey of the rest, so that only brows, eyes and nose speak. The
mouth's opening (``tools.perception.gaze.mouth_opening``: inner-lip gap / inter-ocular distance) tells a frame with the
mouth open from one with it closed. Readings are pooled per clip by the mean and scored against the clip's
label, with a bootstrap 95 % interval over people: whole face; mouth hidden always; mouth hidden on frames
whose mouth is open (above ``OPEN``), whole face otherwise; and the mean of the two readings.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from studies.recorded_faces import READ_FPS, _extract, mirrors_main, score_clips
from tools.core.schema import AFFECTNET8

#: Fraction of the crop's height below which the face is hidden (the mouth and chin of a 64x64 face crop).
MASK_FROM = 0.62
#: Mouth opening (inner-lip gap / inter-ocular distance) above which a mouth counts as open.
OPEN = 0.08


def hide_mouth(crops: np.ndarray, mask_from: float = MASK_FROM) -> np.ndarray:
    """uint8 crops (N, H, W) with rows from ``mask_from`` x H down set to the mean of the rows above."""
    out = np.array(crops, copy=True)
    cut = round(mask_from * out.shape[1])
    for c in out:
        c[cut:] = int(c[:cut].mean())
    return out


def read_clip(path: Path, engine, face8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(whole (n, 8), mouth hidden (n, 8), mouth opening (n,)) of the largest face per frame at ``READ_FPS``."""
    from tools.core.frames import iter_frames
    from tools.perception.crops import gray_crop

    crops, opening = [], []
    for t, frame in iter_frames(path, READ_FPS):
        obs = engine.observe_frame(t, frame, "f", hands=False)
        if not obs.faces:
            continue
        i = max(range(len(obs.faces)), key=lambda k: obs.faces[k].box.area)
        crops.append(gray_crop(frame, obs.faces[i].box))
        gaze = obs.gaze[i] if i < len(obs.gaze) else None
        opening.append(gaze.mouth_open if gaze is not None and gaze.mouth_open is not None else np.nan)
    if not crops:
        return np.zeros((0, 8)), np.zeros((0, 8)), np.zeros(0)
    crops = np.stack(crops)
    return face8.classify_crops(crops), face8.classify_crops(hide_mouth(crops)), np.asarray(opening)


def evaluate(mirrors: Path) -> dict:
    from tools.perception.engine import PerceptionConfig, load_engine
    from tools.perception.expression import Face8

    engine, face8 = load_engine(PerceptionConfig(expression_backend="face8")), Face8()
    with tempfile.TemporaryDirectory() as tmp:
        readings = [read_clip(p, engine, face8) for p in _extract(mirrors, Path(tmp))]
    methods = {
        "whole": lambda w, m, o: w,
        "mouth hidden": lambda w, m, o: m,
        "mouth hidden when open": lambda w, m, o: np.where((o > OPEN)[:, None], m, w),
        "mean of both": lambda w, m, o: (w + m) / 2,
    }
    result = {"read_fps": READ_FPS, "mask_from": MASK_FROM, "open": OPEN,
              "open_share": [round(float(np.nanmean(o > OPEN)), 3) if len(o) else None for *_, o in readings],
              "methods": {}}
    for name, pick in methods.items():
        result["methods"][name] = score_clips(
            [AFFECTNET8[int(np.argmax(pick(w, m, o).mean(axis=0)))] if len(w) else None for w, m, o in readings])
    return result


def main(argv: list[str] | None = None) -> int:
    return mirrors_main(__doc__.splitlines()[0], evaluate, argv)


if __name__ == "__main__":
    sys.exit(main())
