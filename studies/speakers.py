"""Who the index says speaks, against the one person of each shot of a joined bench.

    python -m studies.speakers --bench B/bench.jsonl --cache-dir C [--voice-emotion NAME] [--json FILE]
    python -m studies.speakers --answers (--bench B/bench.jsonl | --video V --query Q [--query Q ...]) [--speaker N]
        --cache-dir C [--json FILE]

A joined bench (``evals.build_bench`` over CREMA-D's or the Javanese acted clips) plays one labelled clip a shot, one
person speaking in it, so the speaker of an utterance (``memory.store.Utterance.speaker``) or of a clip's speech
(``memory.store.Clip.speaker``, for clips with a voice reading) is the one person the index tracked in the shot that
holds its middle (``TrackSummary.person_id``; shots between ``VideoIndex.cuts``). Each is counted right, wrong
(another person), none (the index names nobody) or unknown (no person, or several, tracked in that shot), per video
and in all, with how the utterances' speakers were found (``speaker_by``: lips or voice). Each video's index is the one
``python -m evals.run --cache-dir C`` built (built here if missing, with the default settings; ``--voice-emotion``: the
index of that voice reader).

With ``--answers`` it counts, instead, who the answers quote: each bench question is asked of its video's index
(``graphs.pipeline.ask``, default settings, the offline reasoner) and each verbal evidence item of the answer's moments
(a quoted line, ``agents.evidence.speech_evidence``) is counted against the one person of the shot holding the middle
of its words, or, with ``--speaker N``, against person N: a video with one voice (a monologue, a performance), whose
speaker a viewer names. ``--video V --query Q ...`` asks those questions of one video instead of a bench's.
Measured in ``evals/RESULTS.md`` sections 135 (the index's speakers) and 143 (the answers').
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


def bench_questions(bench: Path) -> list[tuple[str, str, str]]:
    """``(id, video path, query)`` of each item of ``bench`` (videos relative to the bench).

    Raises:
        BenchError: the bench does not load.
    """
    from evals.bench import load_bench

    return [(item.id, str(bench.parent / item.video), item.query) for item in load_bench(bench)]


def count_quoted_speakers(questions: list[tuple[str, str, str]], cache_dir: Path, speaker: int | None = None) -> dict:
    """``{"quotes": {outcome: n}, "questions": n, "wrong": [{"id", "query", "span_s", "said", "detail"}],
    "videos": {video: {outcome: n}}}`` for the answers to ``questions`` (``(id, video, query)``, as
    ``bench_questions``; module doc); ``speaker``: the one person every quoted line is counted against, instead of the
    shot's one person.
    """
    from evals.methods import MethodContext
    from graphs.pipeline import ask

    ctx, total, per_video, wrong = MethodContext(cache_dir=str(cache_dir)), Counter(), {}, []
    for qid, video, query in questions:
        index = ctx.index(video)  # opened once while consecutive questions ask about one video
        cuts, people = shot_people(index)
        counts = Counter()
        for moment in ask(index, query).moments:
            for e in moment.evidence:
                if e.modality != "verbal":
                    continue
                if speaker is None:
                    got = outcome(e.person, e.start_s, e.end_s, cuts, people)
                else:
                    got = "none" if e.person is None else "right" if e.person == speaker else "wrong"
                counts[got] += 1
                if got == "wrong":
                    wrong.append({"id": qid, "query": query, "span_s": [e.start_s, e.end_s],
                                  "said": e.person, "detail": e.detail})
        total.update(counts)
        per_video.setdefault(Path(video).name, Counter()).update(counts)
    return {"quotes": _full(total), "questions": len(questions), "wrong": wrong,
            "videos": {v: _full(c) for v, c in per_video.items()}}


def _full(counts: Counter) -> dict[str, int]:
    return {k: counts.get(k, 0) for k in OUTCOMES}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.speakers", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=None, help="a joined bench's bench.jsonl")
    ap.add_argument("--cache-dir", type=Path, required=True, help="the cache its indexes are in (or built into)")
    ap.add_argument("--voice-emotion", default=None, help="the index's voice reader (default: the default's)")
    ap.add_argument("--answers", action="store_true",
                    help="count who the answers' quoted lines name instead of the index's speakers")
    ap.add_argument("--speaker", type=int, default=None,
                    help="with --answers: the one person every quoted line is counted against (one voice a video)")
    ap.add_argument("--video", type=Path, default=None, help="with --answers: one video to ask --query of")
    ap.add_argument("--query", action="append", default=[], help="with --video: a question (repeat for more)")
    ap.add_argument("--json", type=Path, default=None, help="write the counts here")
    args = ap.parse_args(argv)
    if (args.bench is None) == (args.video is None) or (args.video is not None) != bool(args.query):
        ap.error("give --bench, or --video with --query")
    if not args.answers and (args.video is not None or args.speaker is not None):
        ap.error("--video and --speaker count quoted lines: give --answers too")
    if args.answers:
        def questions():
            if args.bench is not None:
                return bench_questions(args.bench)
            if not args.video.is_file():
                raise FileNotFoundError(f"no such video: {args.video}")
            return [(f"q{n}", str(args.video), q) for n, q in enumerate(args.query, 1)]
        return report(lambda: count_quoted_speakers(questions(), args.cache_dir, args.speaker), args.json)
    return report(lambda: count_speakers(args.bench, args.cache_dir, args.voice_emotion), args.json)


if __name__ == "__main__":
    sys.exit(main())
