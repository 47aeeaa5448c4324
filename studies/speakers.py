"""Who the index says speaks, against the one person of each shot of a joined bench.

    python -m studies.speakers --bench B/bench.jsonl --cache-dir C [--voice-emotion NAME] [--json FILE]

A joined bench (``evals.build_bench`` over CREMA-D's or the Javanese acted clips) plays one labelled clip a shot, one
person speaking in it, so the speaker of an utterance (``memory.store.Utterance.speaker``) or of a clip's speech
(``memory.store.Clip.speaker``, for clips with a voice reading) is the one person the index tracked in the shot that
holds its middle (``TrackSummary.person_id``; shots between ``VideoIndex.cuts``). Each is counted right, wrong
(another person), none (the index names nobody) or unknown (no person, or several, tracked in that shot), per video
and in all, with how the utterances' speakers were found (``speaker_by``: lips or voice). Each video's index is the one
``python -m evals.run --cache-dir C`` built (built here if missing, with the default settings; ``--voice-emotion``: the
index of that voice reader).
"""

from __future__ import annotations

import argparse
import bisect
import sys
from collections import Counter
from pathlib import Path

OUTCOMES = ("right", "wrong", "none", "unknown")


def shot_people(index) -> tuple[list[float], dict[int, set[int]]]:
    """(the index's cuts in order, seconds; shot number -> the person ids tracked in it)."""
    people: dict[int, set[int]] = {}
    for t in index.tracks:
        people.setdefault(t.shot, set()).add(t.person_id)
    return sorted(index.cuts), people


def outcome(said: int | None, start_s: float, end_s: float, cuts: list[float], people: dict[int, set[int]]) -> str:
    """``right``, ``wrong``, ``none`` or ``unknown`` for a span [start_s, end_s) (seconds) the index says ``said``
    speaks (a person id; None: nobody), against the one person of the shot holding its middle."""
    seen = people.get(bisect.bisect_right(cuts, (start_s + end_s) / 2), set())
    if said is None:
        return "none"
    return "unknown" if len(seen) != 1 else "right" if said in seen else "wrong"


def count_speakers(bench: Path, cache_dir: Path, voice: str | None = None) -> dict:
    """``{"utterances": {outcome: n}, "utterances_by": {"lips" | "voice": {outcome: n}}, "clips": {outcome: n},
    "videos": {video: {"utterances": {...}, "clips": {...}}}}`` (module doc).

    Raises:
        BenchError: the bench does not load.
    """
    from evals.bench import load_bench
    from indexing.build import open_index
    from memory.index_config import IndexConfig

    videos = sorted({str(bench.parent / item.video) for item in load_bench(bench)})  # relative to the bench
    total = {"utterances": Counter(), "clips": Counter(), "lips": Counter(), "voice": Counter()}
    per_video = {}
    for video in videos:
        index = open_index(video, IndexConfig(**({"voice_backend": voice} if voice else {})), cache_dir)
        cuts, people = shot_people(index)
        utt = Counter()
        for u in index.utterances:
            got = outcome(u.speaker, u.start_s, u.end_s, cuts, people)
            utt[got] += 1
            if u.speaker_by is not None:
                total[u.speaker_by][got] += 1
        clips = Counter(outcome(c.speaker, c.start_s, c.end_s, cuts, people) for c in index.clips if c.voice_emotion)
        total["utterances"].update(utt)
        total["clips"].update(clips)
        per_video[Path(video).name] = {"utterances": _full(utt), "clips": _full(clips)}
    return {"utterances": _full(total["utterances"]),
            "utterances_by": {"lips": _full(total["lips"]), "voice": _full(total["voice"])},
            "clips": _full(total["clips"]), "videos": per_video}


def _full(counts: Counter) -> dict[str, int]:
    return {k: counts.get(k, 0) for k in OUTCOMES}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.speakers", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, required=True, help="a joined bench's bench.jsonl")
    ap.add_argument("--cache-dir", type=Path, required=True, help="the cache its indexes are in (or built into)")
    ap.add_argument("--voice-emotion", default=None, help="the index's voice reader (default: the default's)")
    ap.add_argument("--json", type=Path, default=None, help="write the counts here")
    args = ap.parse_args(argv)
    return report(lambda: count_speakers(args.bench, args.cache_dir, args.voice_emotion), args.json)


if __name__ == "__main__":
    sys.exit(main())
