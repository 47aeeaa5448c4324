"""Labelled face images as the pipeline sees them, and per-image expression accuracy.

    python -m studies.faces [--backend fer --backend face8] [--data DIR] [--json out.json]

Each labelled image (``evals.data.assemble``: CK+ split by subject, RAF-DB and FER2013 by their own splits) is shown
the way a composed bench video shows it (``evals.build_bench.letterbox`` into a 640x360 frame), the
face is found by the pipeline's detector (MediaPipe BlazeFace full-range) and cut with the crop the
expression models read (``tools.perception.crops.gray_crop``); an image where no face is found is cropped
whole. Crops are cached under ``<data>/crops/<set>.npz``, so training and evaluation read the same
pixels the pipeline would.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from studies.heads import save_npz
from tools.core.runtime import process_pool
from tools.core.schema import AFFECTNET8, Box

FRAME_SIZE = (640, 360)


def shown_face(path: str, detector) -> tuple[np.ndarray, Box | None, tuple[int, int]]:
    """A labelled image as a composed bench shows it: (the RGB frame letterboxed to ``FRAME_SIZE``, the
    detector's most confident face box in it or None, the image's own (height, width))."""
    import cv2

    from evals.build_bench import letterbox

    rgb = cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    frame = letterbox(rgb, FRAME_SIZE)
    dets = detector.detect(frame)
    return frame, (max(dets, key=lambda d: d[1])[0] if dets else None), rgb.shape[:2]


def _crop_batch(paths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from tools.perception.crops import gray_crop
    from tools.perception.faces import load_face_detector

    det = load_face_detector("mediapipe")
    crops, found = [], []
    for p in paths:
        frame, box, (h, w) = shown_face(p, det)
        found.append(box is not None)
        if box is None:  # the whole image as shown: its square in the letterboxed frame
            s = min(FRAME_SIZE[0] / w, FRAME_SIZE[1] / h)
            bw, bh = w * s / FRAME_SIZE[0], h * s / FRAME_SIZE[1]
            box = Box(x0=0.5 - bw / 2, y0=0.5 - bh / 2, x1=0.5 + bw / 2, y1=0.5 + bh / 2)
        crops.append(gray_crop(frame, box))
    return np.stack(crops), np.asarray(found)


def face_crops(name: str, root: Path | None = None, workers: int = 2) -> dict[str, np.ndarray]:
    """Crops of set ``name`` (cached): arrays ``x`` (N, 64, 64) uint8, ``y`` (N,) AffectNet-8 index,
    ``split`` ("dev"/"test"), ``person`` (subject id or ""), ``found`` (a face was detected).

    Raises:
        FileNotFoundError: the set was not assembled.
    """
    root = root or default_root()
    cache = root / "crops" / f"{name}.npz"
    recs = load_manifest(root, name)
    if cache.is_file():
        data = dict(np.load(cache))
        if len(data["y"]) == len(recs):
            return data
    paths = [r["path"] for r in recs]
    chunks = [paths[i : i + 500] for i in range(0, len(paths), 500)]
    with process_pool(workers) as ex:
        parts = list(ex.map(_crop_batch, chunks))
    data = {"x": np.concatenate([p[0] for p in parts]), "found": np.concatenate([p[1] for p in parts]),
            "y": np.asarray([AFFECTNET8.index(r["label"]) for r in recs]),
            "split": np.asarray([r["split"] for r in recs]), "person": np.asarray([r["person"] or "" for r in recs])}
    save_npz(cache, data, compressed=True)
    return data


def accuracy_table(backend: str, sets: list[str], root: Path | None = None, split: str = "test") -> dict:
    """Per-image accuracy of expression ``backend`` on each set's ``split``: overall, per class and
    over the labels the set has (``{"ckplus": {"n", "accuracy", "per_class": {label: acc}}, ...}``)."""
    from tools.perception.expression import load_expression_classifier

    clf = load_expression_classifier(backend)
    out = {}
    for name in sets:
        d = face_crops(name, root)
        m = d["split"] == split
        probs = np.concatenate([clf.classify_crops(d["x"][m][i : i + 256]) for i in range(0, int(m.sum()), 256)])
        pred, y = probs.argmax(1), d["y"][m]
        out[name] = {"n": int(m.sum()), "accuracy": round(float((pred == y).mean()), 4),
                     "face_found": round(float(d["found"][m].mean()), 4),
                     "per_class": {AFFECTNET8[c]: round(float((pred[y == c] == c).mean()), 4)
                                   for c in sorted(set(y.tolist()))},
                     "confusion": {AFFECTNET8[c]: {AFFECTNET8[k]: int(((y == c) & (pred == k)).sum())
                                                  for k in range(8) if ((y == c) & (pred == k)).any()}
                                   for c in sorted(set(y.tolist()))}}
    return out


def per_clip_accuracy(bench: str, backend: str, cache_dir: str | None = None) -> dict:
    """Per labelled clip of a bench: does the mean expression of the faces the index saw in the clip
    (1 fps, ``backend``) name the clip's emotion? Indexes each video (or loads it from the cache).
    Returns ``{"n", "accuracy", "per_class": {label: acc}}``."""
    from evals.bench import load_bench
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    hits: dict[str, list[bool]] = {}
    cfg = IndexConfig(expression_backend=backend)
    for item in load_bench(bench):
        index = open_index(item.video_path(bench), cfg, cache_dir)
        for m in item.moments:
            faces = [f for fr in index.faces if m.start_s <= fr.t < m.end_s for f in fr.faces]
            if faces:
                mean = {k: np.mean([f.expression[k] for f in faces]) for k in AFFECTNET8}
                hits.setdefault(m.emotion, []).append(max(mean, key=mean.get) == m.emotion)
            else:
                hits.setdefault(m.emotion, []).append(False)
    every = [h for v in hits.values() for h in v]
    return {"n": len(every), "accuracy": round(float(np.mean(every)), 4),
            "per_class": {k: round(float(np.mean(v)), 4) for k, v in hits.items()}}


#: Expression backends compared by default.
BACKENDS = ["fer", "face8", "faceres", "faceres+face8"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.faces", description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", action="append", help="expression backend(s) (default: fer, face8, faceres and "
                    "faceres+face8)")
    ap.add_argument("--set", action="append", help="sets (default: ckplus, rafdb and fer2013)")
    ap.add_argument("--split", default="test", choices=["dev", "test"])
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--per-clip", metavar="BENCH", help="instead: per-clip accuracy of the index's mean expression "
                    "over each labelled clip of BENCH (composed benches: evals.composed)")
    ap.add_argument("--cache-dir", default=None, help="cache root for --per-clip")
    args = ap.parse_args(argv)
    if args.per_clip:
        result = {b: per_clip_accuracy(args.per_clip, b, args.cache_dir) for b in args.backend or BACKENDS}
        for b, r in result.items():
            print(f"{b:6s} per clip n={r['n']} acc={r['accuracy']:.3f}  " +
                  ", ".join(f"{k} {v:.2f}" for k, v in r["per_class"].items()))
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return 0
    try:
        result = {b: accuracy_table(b, args.set or ["ckplus", "rafdb", "fer2013"], args.data, args.split)
                  for b in args.backend or BACKENDS}
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for b, per in result.items():
        for name, r in per.items():
            cls = ", ".join(f"{k} {v:.2f}" for k, v in r["per_class"].items())
            print(f"{b:6s} {name:7s} {args.split} n={r['n']:5d} acc={r['accuracy']:.3f}  ({cls})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
