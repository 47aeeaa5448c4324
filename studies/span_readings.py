"""What the index alone reads over each labelled moment of a bench: the face's and the voice's top emotion.

    python -m studies.span_readings --bench B/bench.jsonl --cache-dir C [--voice-emotion NAME] [--json FILE]

For every moment of every item (each labelled clip of a joined bench once, whichever question lists it), the index's
clips that overlap it (``memory.store.Clip``: ``expression``, the mean face reading of its frames at the index's
rate; ``voice_emotion``, the voice head's reading of its speech) are averaged, weighted by the share of each clip
inside the moment, and the top emotion of each is compared with the moment's label. Each video's index is the one
``python -m evals.run --cache-dir C`` built (built here if missing, with the default settings; ``--voice-emotion``: the
index of that voice reader). Reported per modality:
moments right, per label (right, n) and the most common (label, read) pairs.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from tools.core.schema import AFFECTNET8


def read_spans(bench: Path, cache_dir: Path, voice: str | None = None) -> dict:
    """``{"face" | "voice": {"right": int, "n": int, "per_label": {label: [right, n]}, "pairs": [[label, read,
    count], ...]}}`` (module doc); a moment no clip of the index reads (no face, no speech) is left out of that
    modality's ``n``. ``voice``: the voice reader of the indexes read (``IndexConfig.voice_backend``; None: the
    default's).

    Raises:
        BenchError: the bench does not load.
    """
    from evals.bench import load_bench
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    moments = {}
    for item in load_bench(bench):
        for m in item.moments:
            moments[(str(bench.parent / item.video), m.start_s, m.end_s)] = m.emotion  # videos relative to the bench
    pairs: dict[str, Counter] = {"face": Counter(), "voice": Counter()}
    indexes = {}
    for (video, start, end), label in sorted(moments.items()):
        if video not in indexes:
            indexes[video] = open_index(video, IndexConfig(**({"voice_backend": voice} if voice else {})), cache_dir)
        for name, field in (("face", "expression"), ("voice", "voice_emotion")):
            read = [((min(end, c.end_s) - max(start, c.start_s)) / (c.end_s - c.start_s),
                     [getattr(c, field).get(e, 0.0) for e in AFFECTNET8]) for c in indexes[video].clips
                    if c.end_s > c.start_s and min(end, c.end_s) > max(start, c.start_s) and getattr(c, field)]
            if read:
                mean = np.average([r for _, r in read], axis=0, weights=[w for w, _ in read])
                pairs[name][(label, AFFECTNET8[int(mean.argmax())])] += 1
    out = {}
    for name, counts in pairs.items():
        labels = sorted({lab for lab, _ in counts}, key=AFFECTNET8.index)
        out[name] = {"right": sum(n for (lab, got), n in counts.items() if lab == got), "n": sum(counts.values()),
                     "per_label": {lab: [sum(n for (a, b), n in counts.items() if a == lab == b),
                                         sum(n for (a, _), n in counts.items() if a == lab)] for lab in labels},
                     "pairs": [[a, b, n] for (a, b), n in counts.most_common()]}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.span_readings", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, required=True)
    ap.add_argument("--cache-dir", type=Path, required=True)
    ap.add_argument("--voice-emotion", default=None, help="the index's voice reader (default: the default's)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.voice_emotion:
        from pydantic import ValidationError

        from memory.index_config import IndexConfig
        from tools.core.schema import first_error

        try:
            IndexConfig(voice_backend=args.voice_emotion)
        except ValidationError as exc:  # an unknown reader: one line before any bench is read
            print(f"error: --voice-emotion: {first_error(exc, 'voice_backend')[1]}", file=sys.stderr)
            return 2
    return report(lambda: read_spans(args.bench, args.cache_dir, args.voice_emotion), args.json)


if __name__ == "__main__":
    sys.exit(main())
