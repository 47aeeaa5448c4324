"""FER+ label distributions for the assembled FER2013 faces, matched by their pixels.

    python -m evals.data.ferplus --votes /work/.mirror/microsoft+FERPlus/repo \
        --images /work/.mirror/tessav+crowd-emotion/repo [--data ROOT]

FER+ (Barsoum et al., 2016, "Training deep networks for facial expression recognition with crowd-sourced label
distribution", ICMI; microsoft/FERPlus, MIT) had ten crowd taggers label every FER2013 image with one of neutral,
happiness, surprise, sadness, anger, disgust, fear, contempt, unknown or not a face (``fer2013new.csv``). Its rows
are keyed by the image's row in FER2013's csv (``ferNNNNNNN.png``), while the assembled ``fer2013`` set holds
re-encoded JPEG copies under other names; so each assembled face is matched to the FER+ image of the same usage
part (Training, PublicTest, PrivateTest) with the nearest pixels (squared L2 over the 48x48 grey image, each image
brought to zero mean and unit variance first, since the JPEG copies' brightness and contrast differ; exact search
with faiss), from a repository that holds the FER+ images as PNG (``evals/data/SOURCES.md``). A match counts when
its root-mean-square difference is under ``MAX_RMS`` (in units of the image's standard deviation; the report prints
the nearest and the next nearest face's difference, so the margin is visible).

Writes ``<data>/ferplus.npz``: for each record of the ``fer2013`` manifest, in its order, ``votes`` (N, 8) over
AffectNet-8 (``tools.core.schema.AFFECTNET8``), ``unknown`` and ``not_face`` (N,) vote counts, ``rms`` (N,) the match's
difference and ``matched`` (N,) bool.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from evals.data.sources import repository_files
from tools.core.schema import AFFECTNET8

#: FER+ vote columns in ``fer2013new.csv`` order, as AffectNet-8 labels (then unknown, not a face).
FERPLUS_COLUMNS = ("neutral", "happiness", "surprise", "sadness", "anger", "disgust", "fear", "contempt")
#: FER+ usage part -> the folder of the PNG copies and the prefix of the assembled set's file names.
PARTS = {"Training": ("FER2013Train", "Training"), "PublicTest": ("FER2013Valid", "PublicTest"),
         "PrivateTest": ("FER2013Test", "PrivateTest")}
#: Largest root-mean-square difference of a match, in standard deviations of the normalised image (module doc).
MAX_RMS = 0.5


def read_votes(repo: Path) -> dict[str, tuple[str, np.ndarray]]:
    """``fer2013new.csv`` of a FERPlus snapshot (bare git dir or work tree): image name -> (usage, votes (10,) int in
    the csv's column order). Rows without an image name (FER+ judged them not a face) are left out.

    Raises:
        FileNotFoundError: the snapshot holds no ``fer2013new.csv``.
    """
    found = dict(repository_files(repo, re.compile(r"^fer2013new\.csv$")))
    if not found:
        raise FileNotFoundError(f"{repo}: no fer2013new.csv")
    rows = csv.reader(io.StringIO(found["fer2013new.csv"].decode()))
    next(rows)
    return {r[1]: (r[0], np.asarray(r[2:12], int)) for r in rows if r[1]}


def _gray(blob: bytes) -> np.ndarray:
    import cv2

    img = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError("an image does not decode")
    return cv2.resize(img, (48, 48), interpolation=cv2.INTER_AREA) if img.shape != (48, 48) else img


def _png_part(repo: Path, folder: str, names: list[str]) -> np.ndarray:
    """The PNG copies ``data/<folder>/<name>`` of a snapshot (``evals.data.sources.repository_files``), normalised
    (``_normalised``), in the order of ``names``.

    Raises:
        KeyError: a name has no PNG copy in the snapshot.
    """
    files = dict(repository_files(repo, re.compile(rf"^data/{folder}/fer\d+\.png$")))
    return _normalised(np.stack([_gray(files[f"data/{folder}/{n}"]) for n in names]))


def _normalised(imgs: np.ndarray) -> np.ndarray:
    """(N, 48, 48) images as (N, 2304) float32 rows of zero mean and unit variance."""
    x = imgs.reshape(len(imgs), -1).astype(np.float64)
    x = (x - x.mean(1, keepdims=True)) / (x.std(1, keepdims=True) + 1e-6)
    return x.astype(np.float32)


def match(votes_repo: Path, images_repo: Path, root: Path) -> dict[str, np.ndarray]:
    """Match every assembled FER2013 face to its FER+ row (module doc). Raises FileNotFoundError when the set was not
    assembled."""
    import faiss

    recs = load_manifest(root, "fer2013")
    votes = read_votes(votes_repo)
    n = len(recs)
    out = {"votes": np.zeros((n, 8), int), "unknown": np.zeros(n, int), "not_face": np.zeros(n, int),
           "rms": np.full(n, np.inf, np.float32), "matched": np.zeros(n, bool)}
    order = [AFFECTNET8.index(c) for c in FERPLUS_COLUMNS]
    for usage, (folder, prefix) in PARTS.items():
        names = sorted(k for k, (u, _) in votes.items() if u == usage)
        ref = _png_part(images_repo, folder, names)
        mine = [i for i, r in enumerate(recs) if Path(r["path"]).name.startswith(prefix + "_")]
        query = np.stack([_gray((root / "fer2013" / recs[i]["path"]).read_bytes()) for i in mine])
        index = faiss.IndexFlatL2(ref.shape[1])
        index.add(ref)
        dist, nearest = index.search(_normalised(query), 2)
        rms, second = np.sqrt(np.maximum(dist, 0) / ref.shape[1]).T
        for i, j, e in zip(mine, nearest[:, 0], rms, strict=True):
            v = votes[names[j]][1]
            out["votes"][i, order] = v[:8]
            out["unknown"][i], out["not_face"][i], out["rms"][i] = v[8], v[9], e
            out["matched"][i] = e < MAX_RMS
        print(f"{usage}: {len(mine)} faces, {int((rms < MAX_RMS).sum())} matched; rms median "
              f"{float(np.median(rms)):.2f}, 99th percentile {float(np.percentile(rms, 99)):.2f}, "
              f"largest {float(rms.max()):.2f}; the next nearest face: median {float(np.median(second)):.2f}", flush=True)
    return out


def soft_labels(votes: np.ndarray, unknown: np.ndarray, not_face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Training targets from FER+ votes (N, 8): a label named by a single tagger of ten is dropped as noise where
    another has two or more, and the rest normalised (N, 8); ``keep`` (N,) is False where no tagger called it a
    face, where unknown outvotes every label, or where nothing is left."""
    v = votes.astype(np.float64)
    v = np.where((v <= 1) & (v.max(1, keepdims=True) >= 2), 0.0, v)
    keep = (not_face == 0) & (votes.max(1) > unknown) & (v.sum(1) > 0)
    return np.where(keep[:, None], v / np.maximum(v.sum(1, keepdims=True), 1e-9), 0.0), keep


def matched_votes(root: Path) -> tuple[list[dict], dict[str, np.ndarray]]:
    """The assembled FER2013 records (``load_manifest``) and the arrays ``main`` wrote for them, in their order
    (module doc: ``votes``, ``unknown``, ``not_face``, ``rms``, ``matched``).

    Raises:
        FileNotFoundError: ``<root>/ferplus.npz`` is missing (``python -m evals.data.ferplus`` writes it) or the
            ``fer2013`` set was not assembled.
        ValueError: ``ferplus.npz`` does not hold one row per face of the ``fer2013`` manifest.
    """
    recs = load_manifest(root, "fer2013")
    path = root / "ferplus.npz"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: write it with python -m evals.data.ferplus")
    with np.load(path) as z:
        arrays = {key: z[key] for key in z.files}
    if len(arrays["votes"]) != len(recs):
        raise ValueError(f"{path} holds {len(arrays['votes'])} rows for {len(recs)} assembled FER2013 faces: "
                         "write it again")
    return recs, arrays


def agreed_paths(root: Path) -> set[str]:
    """The assembled FER2013 faces (their manifest paths, as ``load_manifest`` gives them) whose FER+ taggers agree
    with the FER2013 label: matched to a FER+ row and the label's votes more than those of every other AffectNet-8
    emotion, of "unknown" and of "not a face" (FER+'s majority vote: Barsoum et al., 2016). A FER2013 face labelled
    neutral that seven of ten taggers call happy is thus left out. Read by ``evals.composed --ferplus-agreed``.

    Raises:
        FileNotFoundError, ValueError: as ``matched_votes``.
    """
    return agreed_in(*matched_votes(root))


def agreed_in(recs: list[dict], z: dict[str, np.ndarray]) -> set[str]:
    """``agreed_paths`` over records and arrays already read (``matched_votes``)."""
    out = set()
    for r, v, u, nf, ok in zip(recs, z["votes"], z["unknown"], z["not_face"], z["matched"], strict=True):
        col = AFFECTNET8.index(r["label"])
        if ok and v[col] > max(np.delete(v, col).max(), u, nf):
            out.add(r["path"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.data.ferplus", description=__doc__.splitlines()[0])
    ap.add_argument("--votes", type=Path, required=True, help="microsoft/FERPlus snapshot (bare git dir)")
    ap.add_argument("--images", type=Path, required=True, help="snapshot holding data/FER2013{Train,Valid,Test}/*.png")
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    a = ap.parse_args(argv)
    root = a.data or default_root()
    try:
        out = match(a.votes, a.images, root)
    except (FileNotFoundError, KeyError, ValueError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    tmp = root / "ferplus.tmp.npz"
    np.savez_compressed(tmp, **out)
    tmp.replace(root / "ferplus.npz")
    print(f"{int(out['matched'].sum())} of {len(out['matched'])} faces matched -> {root / 'ferplus.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
