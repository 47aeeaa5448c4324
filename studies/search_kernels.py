"""FAISS's search and ours under the CPU's vector kernels: are the cosines the same bits?

    python -m studies.search_kernels VIDEO [VIDEO ...] [--cache-dir DIR]
        [--json evals/results/search_kernels.json]

Each video's index (built first when the cache lacks it) has its clip, transcript and event vectors (``clips.faiss``,
``segments.faiss``, ``events.faiss``) searched for every stored vector with each of them as the query: one query at a
time (FAISS sums a few queries with its own SIMD kernels) and all at once (FAISS calls BLAS from 20 queries on). Each
setting runs in a child process: FAISS's best kernels for this CPU (its dynamic dispatch), its generic ones
(``FAISS_SIMD_LEVEL=NONE``), and the generic ones with numpy and OpenBLAS held below AVX2 (``NPY_DISABLE_CPU_FEATURES``,
``OPENBLAS_CORETYPE=Sandybridge``), as on a CPU without it. Reported per setting against the first: the cosines that
differ and by how much, and the rankings that differ, of FAISS's own search (``faiss``) and of
``memory.index.VectorIndex.search`` (``ours``). A CPU with AVX-512 has a further FAISS level that cannot run here; what
this shows is that two levels that sum apart give the same cosines through ``ours``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from studies.command import report

SETTINGS: dict[str, dict[str, str]] = {
    "best": {},
    "generic": {"FAISS_SIMD_LEVEL": "NONE"},
    "generic, numpy and OpenBLAS below AVX2": {
        "FAISS_SIMD_LEVEL": "NONE", "NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR",
        "OPENBLAS_CORETYPE": "Sandybridge"},
}
NAMES = ("clips", "segments", "events")


def _searches(index_dirs: list[str], out: str) -> None:
    """The child: every search of the module doc under this process's kernels, written to ``out`` (npz)."""
    import faiss

    from memory.index import VectorIndex, l2_normalize

    arrays = {"level": np.array(faiss.SIMDConfig.get_level_name())}
    for n, folder in enumerate(index_dirs):
        for name in NAMES:
            path = Path(folder) / f"{name}.faiss"
            ours, theirs = VectorIndex.load(path), faiss.read_index(str(path))
            v = ours.vectors()
            if len(v) == 0:
                continue
            for mode, batches in (("one", [v[[i]] for i in range(len(v))]), ("all", [v])):
                for who in ("ours", "faiss"):
                    pairs = [ours.search(q, len(v)) if who == "ours" else theirs.search(l2_normalize(q), len(v))
                             for q in batches]
                    arrays[f"{n}/{name}/{mode}/{who}/scores"] = np.concatenate([s for s, _ in pairs])
                    arrays[f"{n}/{name}/{mode}/{who}/ids"] = np.concatenate([i for _, i in pairs])
    np.savez(out, **arrays)


def _run(index_dirs: list[str], env: dict[str, str], out: Path) -> dict[str, np.ndarray]:
    subprocess.run([sys.executable, "-m", "studies.search_kernels", "--child", str(out), *index_dirs], check=True,
                   env={**os.environ, **env}, cwd=Path(__file__).resolve().parents[1])
    with np.load(out) as f:
        return {k: f[k] for k in f.files}


def compare(videos: list[str], cache_dir: str | None = None) -> dict:
    """Every setting's searches on the videos' indexes against the first setting's (module doc).

    Raises:
        FileNotFoundError: a video is missing.
    """
    from graphs.pipeline import open_index

    missing = [v for v in videos if not Path(v).is_file()]
    if missing:
        raise FileNotFoundError(f"no such video: {missing[0]}")
    index_dirs = [str(open_index(v, cache_dir=cache_dir).dir) for v in videos]
    with tempfile.TemporaryDirectory() as tmp:
        runs = {name: _run(index_dirs, env, Path(tmp) / f"{k}.npz") for k, (name, env) in enumerate(SETTINGS.items())}
    base_name, base = next(iter(runs.items()))
    keys = sorted(k for k in base if k.endswith("/scores"))
    result: dict = {"videos": videos, "against": base_name,
                    "cosines per setting": {who: sum(base[k].size for k in keys if f"/{who}/" in k)
                                            for who in ("ours", "faiss")}}
    for name, run in runs.items():
        row: dict = {"FAISS level": str(run["level"]), "environment": SETTINGS[name]}
        for who in ("faiss", "ours"):
            ks = [k for k in keys if f"/{who}/" in k]
            diff = [run[k] != base[k] for k in ks]
            row[who] = {"cosines that differ": int(sum(d.sum() for d in diff)),
                        "largest difference": float(max(np.abs(run[k].astype(np.float64) - base[k]).max() for k in ks)),
                        "rankings that differ": int(sum((run[k.replace("scores", "ids")] != base[k.replace(
                            "scores", "ids")]).any(axis=1).sum() for k in ks))}
        result[name] = row
    return result


def main(argv: list[str] | None = None) -> int:
    """Compare the settings' searches on the given videos' indexes; print and write JSON."""
    ap = argparse.ArgumentParser(prog="python -m studies.search_kernels", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", metavar="VIDEO", help="videos whose indexes to search")
    ap.add_argument("--cache-dir", help="index cache (default $AFFECTSEEK_CACHE)")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # the child: PATHS are index directories
    args = ap.parse_args(argv)
    if args.child:
        _searches(args.paths, args.child)
        return 0
    return report(lambda: compare(args.paths, args.cache_dir), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
