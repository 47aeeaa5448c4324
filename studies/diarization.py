"""Measure voice diarization (``tools.signals.diarization`` over ``tools.perception.voices``) and choose its threshold.

    python -m studies.diarization [--conversations 40] [--json OUT]

Data (``evals.data.assemble``; sources and licences in ``evals/data/SOURCES.md``):
- composed conversations of 2-5 speakers from labelled speech, split by speaker: RAVDESS actors 1-18
  and EMO-DB speakers outside 12-16 are dev, RAVDESS actors 19-24 and EMO-DB speakers 12-16 are test.
  Each conversation is 10 turns; a turn is one or two clips of one speaker (cut to their Silero VAD
  speech, 0.2 s apart), turns 0.3-1.0 s apart, no speaker twice in a row, every chosen speaker heard.
  These are composed, not recorded, conversations;
- the ``speakers`` set: real recordings with speaker turns (pyAudioAnalysis), test only.

The pipeline is the index's: Silero VAD speech regions of the whole signal, 1.6 s windows, GE2E
embeddings, average-linkage clustering cut at a cosine distance, turns. The distance is chosen on the
dev conversations alone (lowest mean DER over the grid), then the test conversations and the
recordings are scored once at it. DER is pyannote.metrics' (Bredin, 2017, Interspeech) with a 0.25 s
collar, as missed speech + false alarm + speaker confusion over the reference speech time; the
baseline "one voice" puts all speech in one voice (what the index had before).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from studies.command import report
from studies.sound import speech_regions
from tools.core.media import load_audio
from tools.perception.voices import SAMPLE_RATE, load_voice_identity
from tools.signals.diarization import VOICE_MAX_DISTANCE, cluster_voices, speech_windows, voice_turns

GRID = tuple(round(x, 3) for x in np.arange(0.15, 0.601, 0.025))
COLLAR_S = 0.25
SETS = ("ravdess", "emodb")


def _speech(path: str) -> np.ndarray:
    """A clip's audio (16 kHz) cut to the span of its VAD speech regions."""
    audio = load_audio(path, SAMPLE_RATE)
    regions = speech_regions(audio)
    if not regions:
        return audio
    return audio[int(regions[0][0] * SAMPLE_RATE):int(regions[-1][1] * SAMPLE_RATE)]


def compose(records: list[dict], n: int, seed: int) -> list[tuple[np.ndarray, list[tuple[float, float, str]]]]:
    """``n`` conversations (audio, reference turns (start_s, end_s, speaker)) from ``records`` (see the
    module doc)."""
    rng = np.random.default_rng(seed)
    by_person: dict[str, list[str]] = {}
    for r in records:
        by_person.setdefault(r["person"], []).append(r["path"])
    people = sorted(by_person)
    cache: dict[str, np.ndarray] = {}
    out = []
    for _ in range(n):
        k = int(rng.integers(2, min(5, len(people)) + 1))
        chosen = list(rng.choice(people, size=k, replace=False))
        order = list(rng.permutation(chosen))
        while len(order) < 10:
            order.append(rng.choice([p for p in chosen if p != order[-1]]))
        parts, turns, t = [], [], 0.0
        for person in order:
            gap = rng.uniform(0.3, 1.0) if turns else 0.5
            parts.append(np.zeros(int(gap * SAMPLE_RATE), np.float32))
            t += gap
            start = t
            for j, path in enumerate(rng.choice(by_person[person], size=int(rng.integers(1, 3)), replace=False)):
                if j:
                    parts.append(np.zeros(int(0.2 * SAMPLE_RATE), np.float32))
                    t += 0.2
                if path not in cache:
                    cache[path] = _speech(path)
                parts.append(cache[path])
                t += len(cache[path]) / SAMPLE_RATE
            turns.append((start, t, str(person)))
        parts.append(np.zeros(SAMPLE_RATE // 2, np.float32))
        out.append((np.concatenate(parts), turns))
    return out


def _annotation(turns):
    from pyannote.core import Annotation, Segment

    ann = Annotation()
    for a, b, who in turns:
        ann[Segment(a, b)] = who
    return ann


class Case:
    """One conversation or recording: its reference, windows and their embeddings (computed once)."""

    def __init__(self, audio: np.ndarray, reference: list[tuple[float, float, str]], voices) -> None:
        regions = speech_regions(audio)
        self.reference = _annotation(reference)
        self.windows = speech_windows(regions)
        self.embeddings = voices.embed(audio, self.windows)
        self.speakers = len({w for _, _, w in reference})

    def score(self, max_distance: float | None) -> dict:
        """DER and its parts at ``max_distance`` (None: everything one voice)."""
        from pyannote.metrics.diarization import DiarizationErrorRate

        labels = (np.zeros(len(self.windows), int) if max_distance is None
                  else cluster_voices(self.embeddings, max_distance))
        hyp = _annotation([(t.start_s, t.end_s, f"v{t.voice}") for t in voice_turns(self.windows, labels)])
        d = DiarizationErrorRate(collar=COLLAR_S)(self.reference, hyp, detailed=True)
        total = d["total"] or 1.0
        return {"der": d["diarization error rate"], "missed": d["missed detection"] / total,
                "false_alarm": d["false alarm"] / total, "confusion": d["confusion"] / total,
                "voices": len(set(labels.tolist())), "speakers": self.speakers}


def _summary(cases: list[Case], max_distance: float | None) -> dict:
    rows = [c.score(max_distance) for c in cases]
    keys = ("der", "missed", "false_alarm", "confusion")
    out = {k: round(float(np.mean([r[k] for r in rows])), 3) for k in keys}
    out["n"] = len(rows)
    out["voices_minus_speakers"] = round(float(np.mean([r["voices"] - r["speakers"] for r in rows])), 2)
    return out


def evaluate(conversations: int = 40, root: Path | None = None) -> dict:
    """Dev grid, chosen distance and test scores (see the module doc).

    Raises:
        FileNotFoundError: a labelled set was not assembled.
    """
    root = root or default_root()
    voices = load_voice_identity("ge2e")
    dev, test = {}, {}
    for i, name in enumerate(SETS):
        for split, into in (("dev", dev), ("test", test)):
            recs = load_manifest(root, name, split)
            into[name] = [Case(a, ref, voices) for a, ref in compose(recs, conversations, seed=17 * i + len(split))]
    rec = load_manifest(root, "speakers")
    test["recordings"] = [Case(load_audio(r["path"], SAMPLE_RATE), [tuple(t) for t in r["turns"]], voices)
                          for r in rec]
    dev_cases = [c for cs in dev.values() for c in cs]
    grid = {str(d): _summary(dev_cases, d)["der"] for d in GRID}
    chosen = float(min(grid, key=grid.get))
    return {
        "dev_grid_der": grid, "chosen_max_distance": chosen, "shipped_max_distance": VOICE_MAX_DISTANCE,
        "collar_s": COLLAR_S, "conversations_per_set": conversations,
        "dev": {name: {"one_voice": _summary(cs, None), "diarization": _summary(cs, chosen)} for name, cs in dev.items()},
        "test": {name: {"one_voice": _summary(cs, None), "diarization": _summary(cs, chosen),
                        "per_case": [c.score(chosen) for c in cs] if name == "recordings" else None}
                 for name, cs in test.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.diarization", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conversations", type=int, default=40, help="composed conversations per set and split")
    p.add_argument("--json", help="write the result here")
    args = p.parse_args(argv)
    return report(lambda: evaluate(args.conversations), args.json)


if __name__ == "__main__":
    sys.exit(main())
