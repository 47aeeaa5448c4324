"""A face read through several crops of it (test-time views): other margins and shifted boxes, their readings
averaged, on the recorded development clips.

    python -m studies.crop_views --mirrors /work/.mirror [--readings R.npz] [--json evals/results/crop_views_dev.json]
    python -m studies.crop_views --stills [--data DIR] [--json evals/results/crop_views_stills_dev.json]

The readers see one crop of each face: MediaPipe's box with a 10 % margin, grey, 64x64 (``tools.perception.crops``),
and average it with its mirror image. Reading a face through several framings and averaging (test-time
augmentation; e.g. Krizhevsky et al., 2012, ten crops; Simonyan and Zisserman, 2015, multi-scale) evens out where a
detector's box happens to fall in a frame, which moves from frame to frame in video. Here each frame's largest face
is cut in every view of ``VIEWS`` (margin, shift of the box's centre as a share of the crop's side) and read by the
default reader (faceres+face8); a clip's reading is the mean over its frames at the verifier's 4 fps (as the
verifier pools) of the mean over a combination's views (``COMBOS``).

Sets, all development data (``evals/data/SOURCES.md``): section 25's 20 clips of 11 people
(``studies.recorded_faces.CLIPS``), RAVDESS actor 05's 52 performances, MAFW's 12 film samples and the Javanese
development people's 120 clips. The rule, fixed before the first run: a combination is kept if it names at least
five more clips right over the 204 than the single view, and no set loses more than two.

``--stills`` reads instead the labelled stills' test parts, development data by now (RAF-DB test, 3,068; CK+ test
subjects, 297; ``evals/RESULTS.md`` "Test reads"), shown as a composed bench shows them (``studies.faces.shown_face``)
and cut in every view where the detector finds a face: what the views cost or give on faces the readers were
trained to read.

``--readings`` keeps every frame's readings of every view (an npz) and reads them back when the file exists, so the
combinations can be scored again without decoding.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from studies.command import report
from studies.recorded_faces import READ_FPS
from tools.core.schema import AFFECTNET8

#: Views of a face: name -> (margin as a share of the box side on each side, shift of the centre along x and along
#: y as a share of the crop's side). ``m10`` is the pipeline's crop (``tools.perception.crops.gray_crop``).
VIEWS: dict[str, tuple[float, float, float]] = {
    "m10": (0.10, 0.0, 0.0), "m00": (0.00, 0.0, 0.0), "m20": (0.20, 0.0, 0.0), "m30": (0.30, 0.0, 0.0),
    "left": (0.10, -0.05, 0.0), "right": (0.10, 0.05, 0.0), "up": (0.10, 0.0, -0.05), "down": (0.10, 0.0, 0.05),
}
#: Combinations of views scored: name -> views averaged.
COMBOS: dict[str, tuple[str, ...]] = {
    "now": ("m10",),
    "margin 0": ("m00",), "margin 0.2": ("m20",), "margin 0.3": ("m30",),
    "margins 0-0.2": ("m00", "m10", "m20"),
    "margins 0.1-0.3": ("m10", "m20", "m30"),
    "shifts": ("m10", "left", "right", "up", "down"),
    "all": tuple(VIEWS),
}


def view_crop(frame: np.ndarray, box, margin: float, dx: float, dy: float, size: int = 64) -> np.ndarray:
    """The grey ``size`` x ``size`` uint8 crop of ``box`` (normalized image coordinates) in an RGB ``frame``
    (H, W, 3): ``tools.perception.crops.crop_bounds`` with ``margin`` of the box moved by ``dx``, ``dy`` times the
    crop's side (``margin`` included), clipped at the frame's border."""
    from types import SimpleNamespace

    import cv2

    from tools.perception.crops import crop_bounds

    h, w = frame.shape[:2]
    side = max((box.x1 - box.x0) * w, (box.y1 - box.y0) * h) * (1 + 2 * margin)
    sx, sy = dx * side / w, dy * side / h
    moved = SimpleNamespace(x0=box.x0 + sx, x1=box.x1 + sx, y0=box.y0 + sy, y1=box.y1 + sy)
    x0, y0, x1, y1 = crop_bounds(frame.shape, moved, margin)
    gray = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_RGB2GRAY)
    return cv2.resize(gray, (size, size), interpolation=cv2.INTER_AREA)


def read_views(path: Path, detector, reader) -> np.ndarray:
    """Readings (n_frames, len(VIEWS), 8) of the largest face in each frame of ``path`` with a face, at
    ``READ_FPS``, one row per view of ``VIEWS`` in its order; (0, len(VIEWS), 8) when no frame shows a face."""
    from tools.core.frames import iter_frames

    rows = []
    for _, frame in iter_frames(path, READ_FPS):
        dets = detector.detect(frame)
        if dets:
            box = max((b for b, _ in dets), key=lambda b: b.area)
            crops = np.stack([view_crop(frame, box, *v) for v in VIEWS.values()])
            rows.append(reader.classify_crops(crops))
    return np.array(rows, np.float32).reshape(-1, len(VIEWS), len(AFFECTNET8))


def clip_sets(mirrors: Path) -> dict[str, list[tuple[str, str, str, str]]]:
    """The development sets by name, as rows (source, path, label, person) of ``studies.recorded_faces.CLIPS``."""
    from evals.data.javanese import rows as javanese_rows
    from studies.recorded_faces import CLIPS, mafw_rows, ravdess05_rows

    return {"section 25": CLIPS, "ravdess 05": ravdess05_rows(), "mafw": mafw_rows(),
            "javanese dev": javanese_rows(mirrors, "dev")}


def readings(mirrors: Path, sets: dict[str, list], keep: Path | None) -> dict[str, list[np.ndarray]]:
    """Every clip's view readings by set (``read_views``), from ``keep`` when it exists, else read and written
    there (when given)."""
    if keep is not None and keep.exists():
        with np.load(keep) as z:
            return {name: [z[f"{name}/{i}"] for i in range(len(rows))] for name, rows in sets.items()}
    from studies.recorded_faces import _extract
    from tools.perception.engine import PerceptionConfig, load_engine

    engine = load_engine(PerceptionConfig(expression_backend="faceres+face8"))
    out: dict[str, list[np.ndarray]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rows in sets.items():
            paths = _extract(mirrors, Path(tmp) / name.replace(" ", "_"), rows)
            out[name] = [read_views(p, engine.detector, engine.classifier) for p in paths]
            print(f"{name}: {len(paths)} clips read", file=sys.stderr)
    if keep is not None:
        np.savez_compressed(keep, **{f"{name}/{i}": r for name, rs in out.items() for i, r in enumerate(rs)})
    return out


def combo_labels(clips: list[np.ndarray], views: tuple[str, ...]) -> list[str | None]:
    """Each clip's label: the top class of the mean over frames of the mean over ``views``; None without frames."""
    idx = [list(VIEWS).index(v) for v in views]
    return [AFFECTNET8[int(np.argmax(r[:, idx].mean(axis=1).mean(axis=0)))] if len(r) else None for r in clips]


def evaluate(mirrors: Path, keep: Path | None = None) -> dict:
    """Every combination of ``COMBOS`` scored on every set (``studies.recorded_faces.score_clips``), and its
    clips right against the single view's, per set and over all, with a paired bootstrap 95 % interval over
    people of the difference in accuracy."""
    from evals.metrics import bootstrap_interval
    from studies.recorded_faces import score_clips

    sets = clip_sets(mirrors)
    read = readings(mirrors, sets, keep)
    result: dict = {"views": {k: list(v) for k, v in VIEWS.items()}, "read_fps": READ_FPS,
                    "clips": {name: len(rows) for name, rows in sets.items()}, "combinations": {}}
    def rights(name: str, views: tuple[str, ...]) -> tuple[dict, list[bool]]:
        scored = score_clips(combo_labels(read[name], views), sets[name])
        return scored, [p is not None and p in lab.split("|")
                        for p, (_, _, lab, _) in zip(scored["predicted"], sets[name], strict=True)]

    right_now = {name: rights(name, COMBOS["now"])[1] for name in sets}
    for combo, views in COMBOS.items():
        entry: dict = {"views": list(views), "sets": {}}
        all_right, all_now, all_people = [], [], []
        for name, rows in sets.items():
            scored, right = rights(name, views)
            entry["sets"][name] = {k: scored[k] for k in ("right", "n", "accuracy", "ci95")}
            all_right += right
            all_now += right_now[name]
            all_people += [f"{name}/{who}" for *_, who in rows]
        diff = [int(a) - int(b) for a, b in zip(all_right, all_now, strict=True)]
        lo, hi = bootstrap_interval(diff, groups=all_people)
        entry["right"] = int(sum(all_right))
        entry["n"] = len(all_right)
        entry["vs_now"] = {"gained": sum(d > 0 for d in diff), "lost": sum(d < 0 for d in diff),
                           "difference": round(float(np.mean(diff)), 3), "ci95": [round(lo, 3), round(hi, 3)]}
        result["combinations"][combo] = entry
    return result


#: The stills read by ``--stills`` (``evals.data.assemble``), their test parts.
STILL_SETS = ("rafdb", "ckplus")


def still_readings(root: Path | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """By set of ``STILL_SETS``: (view readings (n, len(VIEWS), 8) of the test images where a face is found, their
    AffectNet-8 label indices (n,)).

    Raises:
        FileNotFoundError: a set was not assembled.
    """
    from evals.data.assemble import default_root, load_manifest
    from studies.faces import shown_face
    from tools.perception.engine import PerceptionConfig, load_engine

    engine = load_engine(PerceptionConfig(expression_backend="faceres+face8"))
    out = {}
    for name in STILL_SETS:
        recs = [r for r in load_manifest(root or default_root(), name) if r["split"] == "test"]
        rows, labels = [], []
        for r in recs:
            frame, box, _ = shown_face(r["path"], engine.detector)
            if box is not None:
                rows.append(engine.classifier.classify_crops(np.stack([view_crop(frame, box, *v)
                                                                       for v in VIEWS.values()])))
                labels.append(AFFECTNET8.index(r["label"]))
        out[name] = (np.array(rows, np.float32).reshape(-1, len(VIEWS), len(AFFECTNET8)), np.array(labels, int))
        print(f"{name}: {len(labels)} of {len(recs)} test images with a face read", file=sys.stderr)
    return out


def evaluate_stills(root: Path | None = None) -> dict:
    """Per-image accuracy of every combination of ``COMBOS`` on ``still_readings``, with its difference from the
    single view's and a paired bootstrap 95 % interval over images."""
    from evals.metrics import bootstrap_interval

    result: dict = {"views": {k: list(v) for k, v in VIEWS.items()}, "sets": {}}
    for name, (r, y) in still_readings(root).items():
        now = r[:, [list(VIEWS).index("m10")]].mean(axis=1).argmax(axis=1) == y
        entry = {}
        for combo, views in COMBOS.items():
            right = r[:, [list(VIEWS).index(v) for v in views]].mean(axis=1).argmax(axis=1) == y
            diff = right.astype(int) - now.astype(int)
            lo, hi = bootstrap_interval(diff)
            entry[combo] = {"accuracy": round(float(right.mean()), 3), "difference": round(float(diff.mean()), 3),
                            "ci95": [round(lo, 3), round(hi, 3)]}
        result["sets"][name] = {"n": len(y), "combinations": entry}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--mirrors", type=Path, help="folder of <owner>+<name>/repo git snapshots")
    src.add_argument("--stills", action="store_true", help="the labelled stills' test parts instead (dev by now)")
    ap.add_argument("--data", type=Path, default=None, help="with --stills: the assembled sets' folder")
    ap.add_argument("--readings", type=Path, default=None, metavar="FILE",
                    help="npz of every frame's view readings: read when it exists, written otherwise")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    if args.stills:
        return report(lambda: evaluate_stills(args.data), args.json)
    return report(lambda: evaluate(args.mirrors, args.readings), args.json)


if __name__ == "__main__":
    sys.exit(main())
