"""Train whisper8: the voice head over Whisper's encoder, fitted on several corpora of acted speech.

    python -m studies.train_whisper8 --mirrors /work/.mirror --cremad CLIPS [--features VW.npz] [--without SET|none]
        [--out tools/models/whisper8_head.npz] [--json OUT]

The features are ``tools.perception.voice_emotion.WhisperVoiceFeatures`` (768: mean and standard deviation of
Whisper tiny.en's encoder frames) of the development sets of ``studies.voice_whisper`` (``--features`` keeps them):
RAVDESS dev actors 1-18 (1,080 clips), EMO-DB dev speakers (167), CREMA-D's 99 recorded clips with speech and the
Javanese development people's 120 clips; no test split is read. The head is a class-balanced multinomial logistic
regression over standardised features (``studies.heads.fit_linear_head``); contempt, in none of the sets, gets
probability ~0. C is chosen from ``C_GRID`` by leaving one corpus out (the mean over the corpora of the share of the
held-out corpus's clips read right), then the head is fitted on all of them. The report gives, per C, each held-out
corpus's accuracy.

``--without SET`` leaves a corpus out of the head and out of choosing C. The shipped head leaves out the Javanese
(``SHIPPED_WITHOUT``): their video repository states no licence (``evals/data/SOURCES.md``), and a corpus the voice
head never heard keeps its test people a measure of speech from a corpus the project has not seen.
``--without none`` fits on all four.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.voice_whisper import C_GRID, SETS
from tools.core.schema import AFFECTNET8
from tools.perception.voice_emotion import WHISPER8_HEAD

#: The corpus the shipped head is fitted without (module doc).
SHIPPED_WITHOUT = "javanese_dev"


def fit(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, np.ndarray]:
    """The head's arrays (``tools.perception.heads``) fitted on features ``x`` (N, 768) and AffectNet-8 indices ``y``."""
    from studies.heads import fit_linear_head

    return fit_linear_head(x, y, c, class_weight="balanced", max_iter=3000)


def train(sets: dict[str, dict], out: Path, without: str | None = None) -> dict:
    """Choose C by leaving one corpus out, fit on every corpus but ``without``, write the head to ``out``; the
    report (C grid, clips per corpus, the chosen C).

    Raises:
        ValueError: ``without`` is not one of ``SETS``.
    """
    from studies.heads import save_head
    from tools.perception.heads import LinearHead

    if without is not None and without not in sets:
        raise ValueError(f"unknown set {without!r}; choose from {', '.join(sets)}")
    sets = {n: d for n, d in sets.items() if n != without}
    grid = []
    for c in C_GRID:
        held = {}
        for name, data in sets.items():
            train_sets = [d for n, d in sets.items() if n != name]
            head = LinearHead(fit(np.concatenate([d["whisper"] for d in train_sets]),
                                  np.concatenate([d["y"] for d in train_sets]), c))
            held[name] = round(float((head.probs(data["whisper"]).argmax(1) == data["y"]).mean()), 4)
        grid.append({"C": c, "held_out_accuracy": held, "mean": round(float(np.mean(list(held.values()))), 4)})
    best = max(grid, key=lambda r: r["mean"])
    x = np.concatenate([d["whisper"] for d in sets.values()])
    y = np.concatenate([d["y"] for d in sets.values()])
    head = fit(x, y, best["C"])
    save_head(out, head)
    fitted = LinearHead(head).probs(x).argmax(1) == y
    return {"out": out.name, "sets": {n: {"clips": len(d["y"]), "people": len(set(d["person"]))} for n, d in sets.items()},
            "without": without, "leave_one_corpus_out": grid, "C": best["C"], "train_accuracy": round(float(fitted.mean()), 4),
            "labels": {AFFECTNET8[i]: int((y == i).sum()) for i in range(len(AFFECTNET8))}}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report
    from studies.voice_whisper import collect

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--cremad", type=Path, required=True, help="folder of CREMA-D clips (python -m evals.data.cremad)")
    ap.add_argument("--features", type=Path, default=None, help="studies.voice_whisper's features (npz; kept here)")
    ap.add_argument("--without", choices=(*SETS, "none"), default=SHIPPED_WITHOUT,
                    help=f"leave this corpus out of the head (default {SHIPPED_WITHOUT}, as shipped; none: fit on all)")
    ap.add_argument("--out", type=Path, default=WHISPER8_HEAD, help="where the head is written")
    ap.add_argument("--json", type=Path, default=None, help="write the report here")
    args = ap.parse_args(argv)
    return report(lambda: train(collect(args.mirrors, args.cremad, args.features), args.out,
                                    None if args.without == "none" else args.without), args.json)


if __name__ == "__main__":
    sys.exit(main())
