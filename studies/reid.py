"""Re-identification across shots, measured: are two faces with different expressions the same person?

    python -m studies.reid [--json evals/results/reid.json]

Each CK+ image (``evals.data.assemble``; 118 subjects split by subject) is shown as the pipeline shows
it (``studies.faces``: letterboxed into a 640x360 frame, the pipeline's face detector), and the identity
model (``tools.perception.identity``, dlib's face ResNet) describes the detected face. Pairs of faces from
different CK+ sequences are scored (a sequence is one posed expression, so every pair shows two
different expressions, as two shots of one person in a video usually do): same subject or not.

The re-identifier's distance threshold (``tools.signals.tracks.REID_MAX_DISTANCE``) is chosen on the dev
subjects alone: the largest value on a 0.01 grid whose false-accept rate (different people called one)
stays <= ``MAX_FAR`` (a false merge makes two people one, which is worse than a missed link). The test
subjects report true-accept and false-accept rates at that threshold and at dlib's LFW threshold 0.6.

The bound for two tracks that continue each other in place across a cut
(``tools.signals.tracks.REID_CONTINUITY_DISTANCE``) is chosen the same way with a ten times larger budget,
``MAX_FAR_CONTINUITY``: the face's place and size across the cut are a second cue, so a pair that reaches
this test is far more often one person than a pair drawn from anywhere in the video.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.runtime import process_pool

MAX_FAR = 0.001
MAX_FAR_CONTINUITY = 0.01
GRID = tuple(round(0.30 + 0.01 * i, 2) for i in range(41))


def _describe(paths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from studies.faces import shown_face
    from tools.perception.faces import load_face_detector
    from tools.perception.identity import load_face_identity

    det, ident = load_face_detector("mediapipe"), load_face_identity("dlib")
    vecs, found = np.zeros((len(paths), 128), np.float32), np.zeros(len(paths), bool)
    for i, p in enumerate(paths):
        frame, box, _ = shown_face(p, det)
        if box is not None:
            vecs[i], found[i] = ident.describe(frame, [box])[0], True
    return vecs, found


def descriptors(root: Path | None = None) -> dict[str, np.ndarray]:
    """CK+ identity descriptors (cached under ``<data>/crops/ckplus_identity.npz``): ``v`` (N, 128),
    ``found``, ``person``, ``split``, ``sequence`` in manifest order.

    Raises:
        FileNotFoundError: CK+ was not assembled.
    """
    from evals.data.assemble import default_root, load_manifest
    from studies.heads import save_npz

    root = root or default_root()
    recs = load_manifest(root, "ckplus")
    cache = root / "crops" / "ckplus_identity.npz"
    if cache.is_file():
        data = dict(np.load(cache))
        if len(data["v"]) == len(recs):
            return data
    paths = [r["path"] for r in recs]
    with process_pool(2) as ex:
        parts = list(ex.map(_describe, [paths[i : i + 250] for i in range(0, len(paths), 250)]))
    data = {"v": np.concatenate([p[0] for p in parts]), "found": np.concatenate([p[1] for p in parts]),
            "person": np.asarray([r["person"] for r in recs]), "split": np.asarray([r["split"] for r in recs]),
            "sequence": np.asarray([Path(r["path"]).name[:8] for r in recs])}  # Sxxx_yyy
    save_npz(cache, data, compressed=True)
    return data


def pair_distances(data: dict[str, np.ndarray], split: str) -> tuple[np.ndarray, np.ndarray]:
    """Distances of all pairs of detected faces of ``split`` from different sequences, and whether each
    pair is one subject."""
    m = (data["split"] == split) & data["found"]
    v, person, seq = data["v"][m], data["person"][m], data["sequence"][m]
    iu = np.triu_indices(len(v), 1)
    dist = np.linalg.norm(v[:, None] - v[None], axis=2)[iu]
    same = (person[:, None] == person[None])[iu]
    other_seq = (seq[:, None] != seq[None])[iu]
    return dist[other_seq], same[other_seq]


def rates(dist: np.ndarray, same: np.ndarray, t: float) -> dict[str, float]:
    """True-accept rate (same person within ``t``) and false-accept rate (different people within ``t``)."""
    return {"threshold": t, "TAR": round(float((dist[same] <= t).mean()), 4),
            "FAR": round(float((dist[~same] <= t).mean()), 5)}


def evaluate(root: Path | None = None) -> dict:
    """Choose the threshold on dev (``MAX_FAR``) and report dev and test rates."""
    data = descriptors(root)
    dev = pair_distances(data, "dev")
    chosen = max(t for t in GRID if rates(*dev, t)["FAR"] <= MAX_FAR)
    continuity = max(t for t in GRID if rates(*dev, t)["FAR"] <= MAX_FAR_CONTINUITY)
    out = {"max_far": MAX_FAR, "chosen_threshold": chosen, "max_far_continuity": MAX_FAR_CONTINUITY,
           "continuity_threshold": continuity}
    for split, (dist, same) in (("dev", dev), ("test", pair_distances(data, "test"))):
        out[split] = {"same_pairs": int(same.sum()), "different_pairs": int((~same).sum()),
                      "faces_found": round(float(data["found"][data["split"] == split].mean()), 4),
                      "at_chosen": rates(dist, same, chosen), "at_continuity": rates(dist, same, continuity),
                      "at_dlib_0.6": rates(dist, same, 0.6)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.reid", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    return report(evaluate, ap.parse_args(argv).json)


if __name__ == "__main__":
    sys.exit(main())
