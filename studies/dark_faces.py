"""Faces in a dim scene: does stretching a dark, flat face crop to the training faces' look help the expression
reader? A trial on development stills darkened as an under-exposed video camera would darken them.

    python -m studies.dark_faces [--data DIR] [--stops 2 3] [--json evals/results/dark_faces_dev.json]

The sample's audience shot (``samples/hamilton_short.mp4``, 8-10 s: people smiling and laughing in a dim hall) is
read neutral, sadness, fear and anger; its face crops (``tools.perception.crops.gray_crop``) have a median grey level
of 37 and a median spread (standard deviation over the crop) of 20, where RAF-DB's training crops have 97 and 66, and
1 % of them a spread under 29. So two ways of bringing such a crop to the training look are tried before the reader:

- ``standardized``: a crop whose spread is under ``TRIGGER_PERCENTILE`` % of RAF-DB's training crops' is shifted and
  scaled to their median level and spread (other crops are read as they are);
- ``clahe``: the same crops equalized by OpenCV's contrast-limited adaptive histogram equalization (Zuiderveld, 1994,
  Graphics Gems IV; clip limit 2, 4x4 tiles).

Scored per image, by the default reader (faceres+face8), on development stills as the composed benches show them
(``studies.faces.face_crops``): RAF-DB's test part and CK+ (both read as test sets before, development sets since:
``evals/RESULTS.md`` "Test reads") and FER2013's PublicTest (FER2013's PrivateTest, a held-out set, is not read), each
as it is and darkened (``darkened``: two or three stops of under-exposure in linear light, sensor noise, 8-bit grey,
JPEG at quality 40, the way a video camera records a dim hall; three stops come nearer the audience crops' look),
with a 95 % bootstrap interval of each paired difference against reading the crop as it is. And the sample's
audience crops (every face the detector finds at the video's frame rate from 8 s on), as each way reads them. Nothing
is fitted; the trigger and targets come from RAF-DB's training part, which none of the scored sets is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from studies.command import report

#: A crop is brought to the training look when its spread is under this percentile of RAF-DB's training crops'.
TRIGGER_PERCENTILE = 1.0
#: ``darkened``: stops of under-exposure (the default; the trial reads ``STOPS``), sensor noise (standard deviation in
#: linear light) and JPEG quality.
DARK_STOPS, DARK_NOISE, DARK_JPEG = 2.0, 0.004, 40
#: The under-exposures the trial reads.
STOPS = (2.0, 3.0)
#: The display gamma of 8-bit video (sRGB's is about 2.2): how linear light maps to grey levels.
GAMMA = 2.2
#: The sample's audience shot, seconds: where ``audience_crops`` reads.
AUDIENCE_FROM_S = 8.0


def darkened(crops: np.ndarray, stops: float = DARK_STOPS, seed: int = 0) -> np.ndarray:
    """``crops`` (N, H, W) uint8 as an under-exposed video camera records them (module doc): linear light scaled by
    2^-``stops``, Gaussian noise of ``DARK_NOISE``, back to 8-bit grey, JPEG at ``DARK_JPEG``. Same ``seed``, same
    bytes."""
    import cv2

    rng = np.random.default_rng(seed)
    out = np.empty_like(crops)
    for i, im in enumerate(crops):
        lin = (im.astype(np.float64) / 255) ** GAMMA * 0.5 ** stops
        lin = np.clip(lin + rng.normal(0.0, DARK_NOISE, lin.shape), 0.0, 1.0)
        grey = np.clip(np.round(lin ** (1 / GAMMA) * 255), 0, 255).astype(np.uint8)
        _, buf = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, DARK_JPEG])
        out[i] = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return out


def spreads(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each crop's mean grey level and standard deviation (N,), (N,)."""
    flat = crops.reshape(len(crops), -1).astype(np.float64)
    return flat.mean(1), flat.std(1)


class Look(NamedTuple):
    """The training crops' look, grey levels: the spread under which a crop is brought to it, its level and spread."""

    trigger: float
    level: float
    spread: float

    @classmethod
    def of(cls, crops: np.ndarray) -> Look:
        """The look of training ``crops`` (N, H, W): the ``TRIGGER_PERCENTILE`` spread, the median level and spread."""
        mean, std = spreads(crops)
        return cls(float(np.percentile(std, TRIGGER_PERCENTILE)), float(np.median(mean)), float(np.median(std)))


def standardized(crops: np.ndarray, look: Look) -> np.ndarray:
    """``crops`` with those flatter than ``look``'s trigger shifted and scaled to its level and spread (module doc);
    the others unchanged, byte for byte."""
    out = crops.copy()
    mean, std = spreads(crops)
    for i in np.flatnonzero(std < look.trigger):
        z = (crops[i].astype(np.float64) - mean[i]) / max(std[i], 1.0)
        out[i] = np.clip(np.round(z * look.spread + look.level), 0, 255).astype(np.uint8)
    return out


def clahe(crops: np.ndarray, look: Look) -> np.ndarray:
    """``crops`` with those flatter than ``look``'s trigger equalized by CLAHE (module doc); the others unchanged."""
    import cv2

    eq = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(4, 4))
    out = crops.copy()
    for i in np.flatnonzero(spreads(crops)[1] < look.trigger):
        out[i] = eq.apply(np.ascontiguousarray(crops[i]))
    return out


#: The ways compared: name -> how a crop is brought to the training look before the reader.
WAYS: dict[str, Callable[[np.ndarray, Look], np.ndarray]] = {
    "as it is": lambda crops, look: crops, "standardized": standardized, "clahe": clahe}


def audience_crops(video: Path) -> np.ndarray:
    """The grey crops (N, 64, 64) of every face the pipeline's detector finds in ``video`` from ``AUDIENCE_FROM_S``,
    its frames read at the video's own rate as the pipeline reads them (``tools.core.frames.iter_frames``)."""
    from tools.core.frames import iter_frames
    from tools.core.media import probe
    from tools.perception.crops import gray_crop
    from tools.perception.faces import load_face_detector

    det = load_face_detector("mediapipe")
    return np.stack([gray_crop(rgb, box) for _, rgb in iter_frames(video, probe(video).fps, AUDIENCE_FROM_S)
                     for box, _ in det.detect(rgb)])


def scored_sets(root: Path, raf: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The development stills (module doc) of the assembled sets under ``root``, RAF-DB's crops given (``raf``,
    ``studies.faces.face_crops``): name -> (crops (N, 64, 64), AffectNet-8 label indices (N,))."""
    from evals.data.assemble import load_manifest
    from studies.faces import face_crops

    ck = face_crops("ckplus", root)
    fer = face_crops("fer2013", root)
    public = np.array(["PublicTest" in r["path"] for r in load_manifest(root, "fer2013")])
    test = raf["split"] == "test"
    return {"rafdb_test": (raf["x"][test], raf["y"][test]), "ckplus": (ck["x"], ck["y"]),
            "fer2013_public": (fer["x"][public], fer["y"][public])}


def run(root: Path | None = None, video: Path = Path("samples/hamilton_short.mp4"), stops: tuple[float, ...] = STOPS
        ) -> dict:
    """The trial (module doc): per set and way, accuracy as shown and darkened by each of ``stops`` with the paired
    difference against "as it is", and the crops each way changed; the audience crops' mean reading and top labels per
    way."""
    from evals.data.assemble import default_root
    from studies.faces import face_crops
    from studies.intent import paired
    from tools.core.schema import AFFECTNET8
    from tools.perception.expression import DEFAULT_EXPRESSION, load_expression_classifier

    root = root or default_root()
    raf = face_crops("rafdb", root)
    look = Look.of(raf["x"][raf["split"] != "test"])
    clf = load_expression_classifier(DEFAULT_EXPRESSION)
    out: dict = {"reader": DEFAULT_EXPRESSION,
                 "look": {"trigger_spread": look.trigger, "level": look.level, "spread": look.spread},
                 "darkened": {"stops": list(stops), "noise": DARK_NOISE, "jpeg": DARK_JPEG}, "sets": {}}
    for name, (x, y) in scored_sets(root, raf).items():
        row = {"n": len(y)}
        for form, crops in (("shown", x), *((f"darkened_{n:g}", darkened(x, n)) for n in stops)):
            level, spread = spreads(crops)
            right = {way: (clf.classify_crops(fn(crops, look)).argmax(1) == y) for way, fn in WAYS.items()}
            row[form] = {"median_level": round(float(np.median(level)), 1),
                         "median_spread": round(float(np.median(spread)), 1),
                         "changed": int((spread < look.trigger).sum()),
                         **{way: {"accuracy": round(float(r.mean()), 4),
                                  **({} if way == "as it is" else
                                     {"paired": paired(r.tolist(), right["as it is"].tolist())})}
                            for way, r in right.items()}}
        out["sets"][name] = row
    crops = audience_crops(video)
    level, spread = spreads(crops)
    out["audience"] = {"faces": len(crops), "median_level": round(float(np.median(level)), 1),
                       "median_spread": round(float(np.median(spread)), 1),
                       "changed": int((spread < look.trigger).sum())}
    for way, fn in WAYS.items():
        probs = clf.classify_crops(fn(crops, look))
        out["audience"][way] = {"mean": {k: round(float(v), 3) for k, v in zip(AFFECTNET8, probs.mean(0), strict=True)},
                                "top": {k: int(n) for k, n in zip(AFFECTNET8, np.bincount(probs.argmax(1), minlength=8),
                                                                  strict=True) if n}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.dark_faces", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, help="the assembled sets' root (default <cache>/data; evals.data.assemble)")
    ap.add_argument("--stops", type=float, nargs="+", default=list(STOPS), help="under-exposures read (default 2 3)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    return report(lambda: run(args.data, stops=tuple(args.stops)), args.json)


if __name__ == "__main__":
    sys.exit(main())
