"""A clip's face readings pooled seven ways, as read and against the person's usual reading (recorded dev clips).

Section 196 of ``evals/RESULTS.md``.

    python -m studies.face_pooling --mirrors /work/.mirror [--readings R.json] [--json face_pooling_dev.json]

The clips and their frame readings are ``studies.face_baseline``'s (``set_readings``: section 25's 20 web clips, RAVDESS
actor 05's 52 face crops, MAFW's 12 film clips and the Javanese development people's 120; 204 clips of 29 people, the
default reader at 4 fps). A clip's label is the top of a pooling (``POOLS``) of its frames, each frame read as read
(exponent 0) or against the person's usual reading (``tools.signals.timeline.departure_reading`` at each exponent of
``EXPONENTS``; the usual reading the per-label median over every frame of the person's clips, where the person has at
least ``studies.face_baseline.MIN_CLIPS`` clips, section 166's ``frames`` baseline; anyone else as read). The shipped
labelling is the mean at exponent 0.5. Also: a baseline of the other people of the same set for a person without
their own (``population``), each variant's difference from the shipped labelling paired over clips with its interval
over people, and the shipped labelling's confusions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from studies.face_baseline import MIN_CLIPS, set_readings
from studies.recorded_faces import apex_pool, mirrors_main, named_right
from tools.core.schema import AFFECTNET8
from tools.signals.timeline import departure_reading, median_distribution

#: The exponents tried (0: the reading as read; 0.5: the shipped ``BASELINE_EXPONENT``).
EXPONENTS = (0.0, 0.5, 0.75)


def _furthest(read: np.ndarray, raw: np.ndarray, usual: np.ndarray, share: float) -> np.ndarray:
    """The mean (8,) of the ``share`` of the frames ``read`` (n, 8; as pooled) whose readings as read ``raw`` (n, 8)
    depart furthest from ``usual`` (8,) by Kullback-Leibler divergence, at least one frame (ties keep frame order)."""
    k = max(1, round(share * len(raw)))
    size = (raw * np.log((raw + 1e-4) / (usual + 1e-4))).sum(axis=1)
    return read[np.sort(np.argsort(-size, kind="stable")[:k])].mean(axis=0)


#: Poolings of a clip's frames ``f`` (n, 8; as read, or against the usual reading) given the frames as read ``raw``
#: (n, 8) and the usual reading ``b`` (8,; the clip's mean where there is none): the mean; the geometric mean; each
#: frame's top label counted (ties by the mean); the mean over the quarter and the half of the frames least neutral
#: (section 65's apex, ``studies.recorded_faces.apex_pool``); the same over the frames whose readings as read depart
#: furthest from the usual reading.
POOLS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "mean": lambda f, raw, b: f.mean(axis=0),
    "geometric mean": lambda f, raw, b: np.exp(np.log(f + 1e-4).mean(axis=0)),
    "vote": lambda f, raw, b: np.bincount(f.argmax(axis=1), minlength=len(AFFECTNET8)) + 1e-3 * f.mean(axis=0),
    "apex quarter": lambda f, raw, b: apex_pool(f, 0.25),
    "apex half": lambda f, raw, b: apex_pool(f, 0.5),
    "furthest quarter": lambda f, raw, b: _furthest(f, raw, b, 0.25),
    "furthest half": lambda f, raw, b: _furthest(f, raw, b, 0.5),
}


def usual_readings(rows: list[tuple[str, str, str, str]], readings: list[list[list[float]]], population: bool = False
                   ) -> list[np.ndarray | None]:
    """Each clip's usual reading (8,): the median over every frame of its person's clips where the person has at
    least ``MIN_CLIPS`` read clips; else, with ``population``, over every frame of the set's other people; else None."""
    clips_of: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        if readings[i]:
            clips_of.setdefault(r[3], []).append(i)
    out: list[np.ndarray | None] = []
    for i, r in enumerate(rows):
        own = clips_of.get(r[3], [])
        others = [j for who, clips in clips_of.items() if who != r[3] for j in clips]
        use = own if len(own) >= MIN_CLIPS else others if population and others else []
        out.append(median_distribution(np.concatenate([np.array(readings[j]) for j in use])) if use else None)
    return out


def labels(rows: list[tuple[str, str, str, str]], readings: list[list[list[float]]], pool: str, exponent: float,
           population: bool = False) -> list[str | None]:
    """Each clip's label (None where no face was read) by ``POOLS[pool]`` of its frames read against its usual
    reading (``usual_readings``) at ``exponent`` (0: as read)."""
    out: list[str | None] = []
    for frames, usual in zip(readings, usual_readings(rows, readings, population), strict=True):
        if not frames:
            out.append(None)
            continue
        f = np.array(frames)
        read = departure_reading(f, usual, exponent) if usual is not None and exponent else f
        out.append(AFFECTNET8[int(np.argmax(POOLS[pool](read, f, f.mean(axis=0) if usual is None else usual)))])
    return out


def evaluate(mirrors: Path, readings_file: Path | None = None) -> dict:
    """Every pooling at every exponent, and the population baseline: clips right per set and over all, paired
    against the shipped labelling (the mean at 0.5) over all 204 clips with its interval over people; the shipped
    labelling's confusions (label -> label read -> clips)."""
    from evals.metrics import bootstrap_interval

    sets, readings = set_readings(mirrors, readings_file)
    people = [f"{name}/{r[3]}" for name, rows in sets.items() for r in rows]
    truth = [r[2] for rows in sets.values() for r in rows]

    def labels_of(pool: str, exponent: float, population: bool = False) -> list[str | None]:
        return [p for name, rows in sets.items() for p in labels(rows, readings[name], pool, exponent, population)]

    read = {f"{pool} {exponent}": labels_of(pool, exponent) for pool in POOLS for exponent in EXPONENTS}
    for exponent in (0.5, 0.75):
        read[f"mean {exponent}, others' usual reading where a person has none"] = labels_of("mean", exponent, True)
    trials = {name: [named_right(p, t) for p, t in zip(pred, truth, strict=True)] for name, pred in read.items()}
    shipped = trials["mean 0.5"]
    out: dict = {"clips": len(truth), "people": len(set(people)), "shipped": "mean 0.5", "trials": {}}
    for name, right in trials.items():
        diff = [float(a) - float(b) for a, b in zip(right, shipped, strict=True)]
        low, high = bootstrap_interval(diff, people)
        per_set, start = {}, 0
        for set_name, rows in sets.items():
            per_set[set_name] = int(sum(right[start:start + len(rows)]))
            start += len(rows)
        out["trials"][name] = {"right": int(sum(right)), "per_set": per_set,
                               "paired": [round(sum(diff) / len(diff), 4), round(low, 4), round(high, 4)],
                               "gained": diff.count(1.0), "lost": diff.count(-1.0)}
    confusions = Counter((t, p or "no face") for t, p in zip(truth, read["mean 0.5"], strict=True))
    out["confusions"] = {t: {p: n for (tt, p), n in sorted(confusions.items()) if tt == t}
                         for t in dict.fromkeys(truth)}
    return out


def main(argv: list[str] | None = None) -> int:
    return mirrors_main(__doc__.splitlines()[0], evaluate, argv,
                        keep=(("--readings", "the clips' frame readings (JSON): read if it exists, else written"),))


if __name__ == "__main__":
    raise SystemExit(main())
