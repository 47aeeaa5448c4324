"""How far the GE2E voice embeddings move between CPUs, and whether the index's voice turns can move with them.

    python -m studies.voice_cpus embed VIDEO TRANSCRIPT [--first N] --out EMB.npy
    python -m studies.voice_cpus margins EMB.npy [--other NAME=EMB2.npy ...] [--trials 100] [--json OUT]

``embed`` reads the voice of VIDEO over the speech windows of TRANSCRIPT (an index's ``transcript.json``; windows
by ``tools.signals.diarization.speech_windows``, the first N of them with ``--first``) with the shipped encoder
(``tools.perception.voices``, onnxruntime on one thread) and saves the (N, 256) float32 embeddings. Run it natively
and under an emulated CPU (``qemu-x86_64 -cpu EPYC-Milan .venv/bin/python -m studies.voice_cpus embed ...``) to get
the same windows' embeddings on two kinds of CPU.

``margins`` clusters EMB.npy as the index does (``cluster_voices``) and reports how close its decisions come to
turning: the average-linkage merge heights nearest the cut (``VOICE_MAX_DISTANCE``; a label can change between CPUs
only if a merge's cosine distance moves across it), for a video past ``MAX_CLUSTERED_WINDOWS`` windows also the
smallest gap between a window's two nearest voice means; ``--trials`` random perturbations of every value, as large as
the largest difference between CPUs seen (and 10 and 100 times that), each clustered again; and for each ``--other``
file (the first rows of the same windows on another CPU) the largest difference and whether the labels are the same
with its rows in place. Used for ``evals/RESULTS.md`` section 123.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

import numpy as np

#: The largest difference between an AVX-512 and an emulated AVX2 CPU's GE2E embedding values seen (section 123:
#: 16 windows of the 10-minute dialogue, 5.07e-7; section 120: 6 windows of the talking head, 3.7e-7), rounded up.
CPU_DIFFERENCE = 5.1e-7


def _digest(a: np.ndarray) -> str:
    """The first 16 hex digits of the SHA-256 of ``a``'s bytes."""
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def embed(video: str, transcript: str, first: int | None) -> np.ndarray:
    """(N, 256) float32 GE2E embeddings of ``video``'s voice over the speech windows of ``transcript`` (a path to an
    index's ``transcript.json``), the first ``first`` windows if given."""
    from tools.core.media import load_audio
    from tools.core.schema import Transcript
    from tools.perception.voices import load_voice_identity
    from tools.signals.diarization import speech_windows

    with open(transcript, encoding="utf-8") as f:
        windows = speech_windows(Transcript.model_validate_json(f.read()).speech_regions)
    windows = windows[:first] if first else windows
    return np.asarray(load_voice_identity("ge2e").embed(load_audio(video), windows), np.float32)


def merge_margins(embeddings: np.ndarray, cut: float, n: int = 3) -> list[float]:
    """The ``n`` average-linkage merge heights (cosine distance) nearest ``cut``, nearest first: the clustering of
    ``tools.signals.diarization.cluster_voices`` over (N, D) ``embeddings`` (at most ``MAX_CLUSTERED_WINDOWS`` rows)."""
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import pdist

    heights = linkage(pdist(embeddings.astype(np.float64), "cosine"), method="average")[:, 2]
    return sorted(heights.tolist(), key=lambda h: abs(h - cut))[:n]


def nearest_mean_gap(embeddings: np.ndarray, subset: np.ndarray) -> float:
    """The smallest gap between a row's highest and second-highest cosine to the voice means that ``cluster_voices``
    assigns every row by past ``MAX_CLUSTERED_WINDOWS``: the normalised means of the clusters of the rows ``subset``
    (the evenly spaced subset it clusters). inf with one voice."""
    from tools.signals.diarization import cluster_voices

    clustered = embeddings[subset]
    groups = cluster_voices(clustered, max_windows=len(clustered))  # the subset's partition, numbered anew
    if groups.max() < 1:
        return float("inf")
    means = np.stack([clustered[groups == c].mean(0) for c in range(groups.max() + 1)])
    sims = np.sort(embeddings @ (means / np.linalg.norm(means, axis=1, keepdims=True)).T, axis=1)
    return float((sims[:, -1] - sims[:, -2]).min())


def perturbed(embeddings: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    """``embeddings`` with every value moved by uniform noise in [-scale, scale], clipped at 0 (the encoder ends in a
    ReLU) and rows normalised again, as the encoder's output is."""
    p = np.maximum(embeddings + rng.uniform(-scale, scale, embeddings.shape), 0).astype(np.float32)
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def margins(embeddings: np.ndarray, others: dict[str, np.ndarray], trials: int) -> dict:
    """The ``margins`` report of the module doc for (N, D) ``embeddings`` and other CPUs' (M, D) rows (M <= N)."""
    from tools.signals.diarization import VOICE_MAX_DISTANCE, cluster_voices, clustered_rows

    labels = cluster_voices(embeddings)
    subset = clustered_rows(len(embeddings))
    out = {"windows": len(embeddings), "voices": int(labels.max() + 1), "cut": VOICE_MAX_DISTANCE,
           "merge_heights_nearest_cut": [round(h, 6) for h in merge_margins(embeddings[subset], VOICE_MAX_DISTANCE)],
           "nearest_mean_gap": (None if len(subset) == len(embeddings)
                                else round(nearest_mean_gap(embeddings, subset), 6)),
           "perturbations": {}, "other_cpus": {}}
    rng = np.random.default_rng(0)
    for scale in (CPU_DIFFERENCE, 10 * CPU_DIFFERENCE, 100 * CPU_DIFFERENCE):
        changed = [int((cluster_voices(perturbed(embeddings, scale, rng)) != labels).sum()) for _ in range(trials)]
        out["perturbations"][f"{scale:.2g}"] = {"trials": trials,
                                                "trials_with_a_label_changed": sum(c > 0 for c in changed),
                                                "most_windows_changed": max(changed, default=0)}
    for name, rows in others.items():
        mixed = embeddings.copy()
        mixed[: len(rows)] = rows
        diff = np.abs(rows - embeddings[: len(rows)])
        out["other_cpus"][name] = {"rows": len(rows), "values_differing": int((diff > 0).sum()),
                                   "values": int(diff.size),
                                   "max_abs_diff": float(diff.max()),
                                   "digest": _digest(rows), "native_digest": _digest(embeddings[: len(rows)]),
                                   "same_labels": bool((cluster_voices(mixed) == labels).all())}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.voice_cpus", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("embed", help="embeddings of a video's speech windows")
    e.add_argument("video")
    e.add_argument("transcript", help="an index's transcript.json")
    e.add_argument("--first", type=int, help="only the first N windows")
    e.add_argument("--out", required=True, help=".npy file to write")
    m = sub.add_parser("margins", help="how near the voice labels are to changing")
    m.add_argument("embeddings", help=".npy written by embed")
    m.add_argument("--other", action="append", default=[], metavar="NAME=NPY",
                   help="the first windows' embeddings on another CPU (repeatable)")
    m.add_argument("--trials", type=int, default=100, help="perturbations per size (default 100)")
    m.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    if args.command == "embed":
        from tools.core.runtime import reproducible_kernels

        reproducible_kernels()
        emb = embed(args.video, args.transcript, args.first)
        np.save(args.out, emb)
        print(f"{len(emb)} windows, digest {_digest(emb)} -> {args.out}")
        return 0
    others = dict(o.split("=", 1) for o in args.other)

    def compute() -> dict:
        result = margins(np.load(args.embeddings), {k: np.load(v) for k, v in others.items()}, args.trials)
        return {"what": "evals/RESULTS.md section 123: the GE2E voice embeddings' differences between CPUs, and how "
                        "near the clustering's labels are to changing", **result}

    return report(compute, args.json)


if __name__ == "__main__":
    sys.exit(main())
