"""A face at the frame's border: cut at the border and stretched to a square (shipped), or kept square. A trial.

    python -m studies.border_crops --mirrors /work/.mirror [--ckplus DATA] [--json evals/results/border_crops_dev.json]

The expression readers read a grey square around each face box (``tools.perception.crops.gray_crop``). Where that
square runs past the frame's border it is cut there and what is left is resized to the square, so a face at the
border is read stretched (``CROPS["cut"]``). Two ways to keep its shape are tried beside it: ``padded``, the square
as it is, the part outside the frame repeating the border's pixels (OpenCV's ``BORDER_REPLICATE``); ``shifted``, the
square moved inside the frame (and shrunk to the frame's shorter side where it is larger), so the face sits off
centre. Faces inside the frame are cut alike by all three.

Read on the recorded development clips of ``studies.recorded_faces`` (section 25's 20 clips, RAVDESS actor 05's 52,
cut so tightly that nearly every face reaches the border, MAFW's 12 film samples and the Javanese development
people's 120; each clip's largest face at the verifier's 4 fps, a clip's reading the mean over its frames) and, with
``--ckplus DATA`` (the assembled sets' root, ``evals.data.assemble``), on CK+'s test subjects as the composed benches
show them (``studies.faces.shown_face``: letterboxed into a 640x360 frame, so every face reaches its top and bottom),
by the default reader and its two parts. Per set: clips (or images) right for each crop with a 95 % interval over
people, the faces whose square reaches past the border and how many of them each crop reads right. Nothing is fitted;
every set is development data (CK+'s test subjects since section 33, ``evals/RESULTS.md`` "Test reads").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from studies.command import report
from studies.recorded_faces import CLIPS, READ_FPS, _extract, mafw_rows, ravdess05_rows, score_clips
from tools.core.schema import AFFECTNET8

#: The readers compared: the default and its two parts.
READERS = ("faceres+face8", "faceres", "face8")


def square_bounds(shape: tuple[int, ...], box) -> tuple[int, int, int, int]:
    """Pixel bounds (x0, y0, x1, y1) of the shipped crop's square around ``box`` (normalized coordinates) in an image
    of ``shape`` (H, W, ...), not cut at its border (``tools.perception.crops.crop_bounds`` before the cut)."""
    h, w = shape[:2]
    cx, cy = (box.x0 + box.x1) / 2 * w, (box.y0 + box.y1) / 2 * h
    side = max((box.x1 - box.x0) * w, (box.y1 - box.y0) * h) * 1.2  # the shipped 10 % margin a side
    return (int(np.floor(cx - side / 2)), int(np.floor(cy - side / 2)),
            int(np.floor(cx + side / 2)), int(np.floor(cy + side / 2)))


def padded_square(frame: np.ndarray, box) -> np.ndarray:
    """The square of ``square_bounds``, the part outside ``frame`` (H, W, 3) repeating its border pixels."""
    import cv2

    h, w = frame.shape[:2]
    x0, y0, x1, y1 = square_bounds(frame.shape, box)
    a0, b0 = min(max(0, x0), w - 1), min(max(0, y0), h - 1)
    a1, b1 = max(min(w, x1), a0 + 1), max(min(h, y1), b0 + 1)
    return cv2.copyMakeBorder(np.ascontiguousarray(frame[b0:b1, a0:a1]), b0 - y0, max(0, y1 - b1), a0 - x0,
                              max(0, x1 - a1), cv2.BORDER_REPLICATE)


def shifted_square(frame: np.ndarray, box) -> np.ndarray:
    """The square of ``square_bounds`` moved inside ``frame`` (H, W, 3), shrunk to its shorter side where larger."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = square_bounds(frame.shape, box)
    if not at_border(frame.shape, box):
        return frame[y0:y1, x0:x1]
    side = max(1, min(x1 - x0, y1 - y0, w, h))
    a0 = int(min(max(0, round((x0 + x1 - side) / 2)), w - side))
    b0 = int(min(max(0, round((y0 + y1 - side) / 2)), h - side))
    return frame[b0:b0 + side, a0:a0 + side]


def _grey(cut: Callable[[np.ndarray, object], np.ndarray]) -> Callable[[np.ndarray, object], np.ndarray]:
    """``cut``'s crop in grey, resized to 64 x 64 as ``tools.perception.crops.gray_crop`` resizes."""
    def crop(frame: np.ndarray, box) -> np.ndarray:
        import cv2

        gray = cv2.cvtColor(np.ascontiguousarray(cut(frame, box)), cv2.COLOR_RGB2GRAY)
        return cv2.resize(gray, (64, 64), interpolation=cv2.INTER_AREA)
    return crop


def _shipped(frame: np.ndarray, box) -> np.ndarray:
    from tools.perception.crops import gray_crop

    return gray_crop(frame, box)


#: The crops compared, each (frame, box) -> a grey uint8 (64, 64) square.
CROPS = {"cut": _shipped, "padded": _grey(padded_square), "shifted": _grey(shifted_square)}


def at_border(shape: tuple[int, ...], box) -> bool:
    """Whether the square of ``square_bounds`` runs past the border of an image of ``shape``."""
    x0, y0, x1, y1 = square_bounds(shape, box)
    return x0 < 0 or y0 < 0 or x1 > shape[1] or y1 > shape[0]


def clip_crops(path: Path, detector) -> tuple[dict[str, np.ndarray], list[bool]]:
    """The largest face of each frame of ``path`` at ``READ_FPS``: its crops by each of ``CROPS`` (uint8, (n, 64,
    64) each) and whether each face's square runs past the border."""
    from tools.core.frames import iter_frames

    crops: dict[str, list] = {name: [] for name in CROPS}
    border = []
    for _, frame in iter_frames(path, READ_FPS):
        found = detector.detect(frame)
        if found:
            box = max((b for b, _ in found), key=lambda b: b.area)
            for name, cut in CROPS.items():
                crops[name].append(cut(frame, box))
            border.append(at_border(frame.shape, box))
    return {k: np.stack(v) if v else np.zeros((0, 64, 64), np.uint8) for k, v in crops.items()}, border


def score_set(rows: list[tuple[str, str, str, str]], read: list[tuple[dict[str, np.ndarray], list[bool]]],
              readers: dict) -> dict:
    """Per reader and crop over one set (``rows`` in the form of ``studies.recorded_faces.CLIPS``, ``read`` their
    ``clip_crops``): ``score_clips`` of the mean reading of each clip, and its border faces read right."""
    out: dict = {"clips": len(rows), "faces": sum(len(b) for _, b in read),
                 "border_faces": sum(sum(b) for _, b in read), "readers": {}}
    for reader_name, reader in readers.items():
        for crop in CROPS:
            pred, border_right = [], 0
            for (_, _, label, _), (crops, border) in zip(rows, read, strict=True):
                probs = reader.classify_crops(crops[crop]) if len(crops[crop]) else np.zeros((0, 8))
                pred.append(AFFECTNET8[int(probs.mean(axis=0).argmax())] if len(probs) else None)
                border_right += sum(AFFECTNET8[int(p.argmax())] in label.split("|")
                                    for p, at in zip(probs, border, strict=True) if at)
            out["readers"][f"{reader_name}/{crop}"] = {**score_clips(pred, rows), "border_right": int(border_right)}
    return out


def ckplus_set(data: Path, detector) -> tuple[list[tuple[str, str, str, str]], list]:
    """CK+'s test subjects as the composed benches show them: rows (source, path, label, subject) and ``clip_crops``'
    form (one face each; images without a detected face are left out)."""
    from evals.data.assemble import load_manifest
    from studies.faces import shown_face

    rows, read = [], []
    for rec in load_manifest(data, "ckplus", "test"):
        frame, box, _ = shown_face(str(data / "ckplus" / rec["path"]), detector)
        if box is not None:
            rows.append(("CK+", rec["path"], rec["label"], rec["person"]))
            read.append(({name: cut(frame, box)[None] for name, cut in CROPS.items()},
                         [at_border(frame.shape, box)]))
    return rows, read


def evaluate(mirrors: Path, ckplus: Path | None = None) -> dict:
    """Every crop on the development sets (see the module doc).

    Raises:
        FileNotFoundError: a repository snapshot is missing under ``mirrors``, or CK+ is not assembled in ``ckplus``.
    """
    from evals.data.javanese import rows as javanese_rows
    from tools.perception.expression import load_expression_classifier
    from tools.perception.faces import load_face_detector

    sets = {"section 25": CLIPS, "RAVDESS actor 05": ravdess05_rows(), "MAFW samples": mafw_rows(),
            "Javanese development": javanese_rows(mirrors, "dev")}
    detector = load_face_detector()
    readers = {name: load_expression_classifier(name) for name in READERS}
    result: dict = {"read_fps": READ_FPS, "sets": {}}
    for name, rows in sets.items():
        with tempfile.TemporaryDirectory() as tmp:
            read = [clip_crops(p, detector) for p in _extract(mirrors, Path(tmp), rows)]
        result["sets"][name] = score_set(rows, read, readers)
    if ckplus is not None:
        result["sets"]["CK+ test subjects (stills)"] = score_set(*ckplus_set(ckplus, detector), readers)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--ckplus", type=Path, default=None, metavar="DATA",
                    help="root of the assembled sets holding ckplus (python -m evals.data.assemble)")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.mirrors, args.ckplus), args.json)


if __name__ == "__main__":
    sys.exit(main())
