"""How much the voice the index read could add to finding and naming the asked emotion: a reading of stored indexes.

    python -m studies.voice_ranking NAME=BENCH.jsonl[@CACHE_DIR] ... [--json FILE]

For each question of each bench, the asked emotion is the one its moments are labelled with (so the question reader
is left out), and every clip of the video's index (``memory.store.Clip``: the mean face reading over its 1 fps frames,
``expression``, and its voice's reading over its detected speech, ``voice_emotion``; a clip without speech reads 0) is
scored ``face[t] + lam * voice[t]`` for each ``lam`` of ``VOICE_WEIGHTS``; clips without a face are left out, as the
reading alone does (``evals.methods``). Counted:

- ``first``: questions whose best-scored clip matches a labelled moment at tIoU >= 0.5 (R1@0.5 of the clip ranking),
  with a 95 % bootstrap interval over questions (``evals.metrics.bootstrap_interval``);
- ``named``: over the clips that match a labelled moment so, those whose top label of ``0.75 face + w voice`` (the
  offline judge's face weight, ``agents/fusion.json``; ``w`` of ``LABEL_VOICE_WEIGHTS``, 0.05 the fitted one) is the
  labelled emotion.

The indexes are opened with the settings ``python -m evals.run`` uses (environment and config file) in the cache
directory after ``@`` (default: the user's cache), so a bench is read as its runs were; nothing is indexed that is not
stored already unless the index is missing (then it is built, as ``evals.run`` would).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from evals.bench import load_bench
from evals.metrics import bootstrap_interval, recall_at_1
from graphs.settings import load_settings
from indexing.build import open_index
from tools.core.runtime import configure_runtime
from tools.core.schema import AFFECTNET8

#: Weights of the voice's probability of the asked emotion beside the face's (1) when clips are ranked.
VOICE_WEIGHTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
#: Weights of the voice beside the face's 0.75 when a clip's label is named (0.05: ``agents/fusion.json``).
LABEL_VOICE_WEIGHTS = (0.05, 0.2, 0.4)
FACE_LABEL_WEIGHT = 0.75


def question_counts(face: np.ndarray, voice: np.ndarray, right: np.ndarray, t: int
                    ) -> tuple[dict[float, int], dict[float, int]]:
    """For one question asking AffectNet-8 label index ``t`` over clips with face readings ``face`` and voice readings
    ``voice`` (shape (clips, 8) each; a clip without speech reads 0) of which ``right`` (shape (clips,), bool) match a
    labelled moment: (per voice weight of ``VOICE_WEIGHTS``, 1 when the best-scored clip is right, else 0 (0 without
    clips); per voice weight of ``LABEL_VOICE_WEIGHTS``, how many right clips are named ``t``)."""
    firsts = {lam: int(right[int(np.argmax(face[:, t] + lam * voice[:, t]))]) if len(face) else 0
              for lam in VOICE_WEIGHTS}
    names = {w: int(((FACE_LABEL_WEIGHT * face[right] + w * voice[right]).argmax(axis=1) == t).sum()) if right.any()
             else 0 for w in LABEL_VOICE_WEIGHTS}
    return firsts, names


def _matrix(readings: list[dict[str, float] | None]) -> np.ndarray:
    """AffectNet-8 readings as a (len(readings), 8) array; a missing reading or label reads 0."""
    return np.array([[(r or {}).get(k, 0.0) for k in AFFECTNET8] for r in readings]).reshape(-1, len(AFFECTNET8))


def read_bench(bench: str, cache_dir: str | None) -> dict:
    """The counts of the module doc for one bench: ``{"n": questions, "first": {lam: [right, ...]}, "named": {w:
    [right, clips]}}``, ``first`` holding one 1/0 per question.

    Raises:
        BenchError: the bench does not load.
        ValueError: a question's first moment is labelled otherwise than with one AffectNet-8 emotion (its label is
            the asked emotion).
    """
    settings = load_settings({})
    config, labels = settings.index_config(), settings.run_settings().labels
    first: dict[float, list[int]] = {lam: [] for lam in VOICE_WEIGHTS}
    named: dict[float, list[int]] = {w: [0, 0] for w in LABEL_VOICE_WEIGHTS}
    readings: dict[Path, tuple[list, np.ndarray, np.ndarray]] = {}  # per video: its clips with a face, face, voice
    items = load_bench(bench, labels)
    for item in items:
        video = item.video_path(bench)
        if video not in readings:
            clips = [c for c in open_index(video, config, cache_dir).clips if c.expression]
            readings[video] = (clips, _matrix([c.expression for c in clips]),
                               _matrix([c.voice_emotion for c in clips]))
        clips, face, voice = readings[video]
        t = AFFECTNET8.index(item.moments[0].emotion)
        truth = [(m.start_s, m.end_s) for m in item.moments]
        right = np.array([recall_at_1((c.start_s, c.end_s), truth, 0.5) for c in clips], dtype=bool)
        firsts, names = question_counts(face, voice, right, t)
        for lam in VOICE_WEIGHTS:
            first[lam].append(firsts[lam])
        for w in LABEL_VOICE_WEIGHTS:
            named[w][0] += names[w]
            named[w][1] += int(right.sum())
    return {"n": len(items), "first": first, "named": named}


def summary(read: dict) -> dict:
    """``read_bench``'s counts as JSON: per voice weight, questions right first with their interval; per label weight,
    clips named right of those read."""
    return {"n": read["n"],
            "first": {f"{lam:g}": {"right": int(sum(v)), "interval": [round(x, 3) for x in bootstrap_interval(v)]}
                      for lam, v in read["first"].items() if v},
            "named": {f"{w:g}": {"right": r, "clips": n} for w, (r, n) in read["named"].items()}}


def main(argv: list[str] | None = None) -> int:
    """Command line entry (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m studies.voice_ranking", description=__doc__.split("\n\n")[0])
    ap.add_argument("benches", nargs="+", metavar="NAME=BENCH.jsonl[@CACHE_DIR]")
    ap.add_argument("--json", help="write the counts here")
    args = ap.parse_args(argv)
    out = {}
    for spec in args.benches:
        name, _, rest = spec.partition("=")
        bench, _, cache = rest.partition("@")
        if not name or not bench:
            ap.error(f"{spec!r} is not NAME=BENCH.jsonl[@CACHE_DIR]")
        configure_runtime(cache or None)
        out[name] = summary(read_bench(bench, cache or None))
        row = out[name]
        print(f"{name:8} n={row['n']:3}  first: " + "  ".join(f"{k}:{v['right']}" for k, v in row["first"].items())
              + "  | named: " + "  ".join(f"{k}:{v['right']}/{v['clips']}" for k, v in row["named"].items()))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
