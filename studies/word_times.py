"""How far the transcript's word times are from hand-labelled ones, before and after ``tools.signals.word_times``.

    python -m studies.word_times --data DIR [--split dev|test|all] [--json FILE]

``DIR`` holds ``manifest.jsonl``: one utterance per line, ``{"audio": <path relative to DIR>, "words": [{"word",
"start", "end"}...] (seconds), "speaker"}``. The material measured here is the TIMIT corpus sample that NLTK
shipped (16 speakers, 160 read sentences, 8.2 minutes; word boundaries aligned to TIMIT's hand-labelled,
hand-verified phone segmentation; ``evals/data/SOURCES.md``). Split by speaker: dialect regions 1-4 are dev,
5-8 test.

The report also gives the word error rate of the decoded text (every segment kept), with a 95 % bootstrap interval
over speakers, so decoders (``--beam``) can be compared on recorded read speech.

Each utterance is decoded with the default ASR (``tools.perception.asr``, temperature 0); decoded words are matched to
the reference words by their spelling (``difflib`` on lower-cased tokens), and for each matched word the
absolute start and end errors are taken, of Whisper's own times and of the refined ones. Reported: mean and
median absolute error (no interval for the median), the share of edges within 0.1 s and 0.2 s, over all word edges and separately over the
edges that border a pause (``_at``: an utterance's first start and last end, and edges next to a reference gap
of at least ``PAUSE_S``) and those between two words spoken without one (``_between``), each with a 95 %
bootstrap interval over speakers (a speaker's sentences are not independent; ``evals.metrics.ratio_interval``,
percentile method, 2,000 resamples, seed 0).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

import numpy as np

from tools.perception.asr import SAMPLE_RATE, load_asr
from tools.signals.word_times import refine_segments

DEV_REGIONS = {"dr1", "dr2", "dr3", "dr4"}
_TOKEN = re.compile(r"[a-z0-9']+")


def split_of(record: dict) -> str:
    """``dev`` for TIMIT dialect regions 1-4 (by the speaker id ``timit-dr<N>-...``), else ``test``."""
    region = str(record.get("speaker", "")).split("-")[1:2]
    return "dev" if region and region[0] in DEV_REGIONS else "test"


def matched_words(hyp: list[dict], ref: list[dict]) -> list[tuple[dict, dict]]:
    """Pairs (decoded word, reference word) whose lower-cased spellings match, in order (``difflib``'s
    longest matching blocks over the two token sequences); a decoded word holding several tokens is
    matched by its first."""
    norm = lambda w: (_TOKEN.findall(str(w).lower()) or [""])[0]
    a, b = [norm(w["word"]) for w in hyp], [norm(w["word"]) for w in ref]
    out = []
    for block in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks():
        out += [(hyp[block.a + k], ref[block.b + k]) for k in range(block.size) if a[block.a + k]]
    return out


PAUSE_S = 0.1
"""A reference gap at least this long (seconds) before a word's start or after its end makes that edge a
pause edge, as are the first start and the last end of an utterance."""


def pause_edges(ref: list[dict]) -> list[tuple[bool, bool]]:
    """For each reference word, whether its start and its end border a pause (``PAUSE_S``)."""
    out = []
    for i, w in enumerate(ref):
        before = i == 0 or w["start"] - ref[i - 1]["end"] >= PAUSE_S
        after = i == len(ref) - 1 or ref[i + 1]["start"] - w["end"] >= PAUSE_S
        out.append((before, after))
    return out


def errors(pairs: list[tuple[dict, dict]], start_key: str, end_key: str, ref: list[dict] | None = None,
           at_pause: bool | None = None) -> np.ndarray:
    """Absolute start and end errors in seconds of matched words, the decoded times read from ``start_key`` /
    ``end_key``: shape (N, 2), or with ``at_pause`` given (and ``ref``, the utterance's reference words), a flat
    (M,) array of only the edges that do (True) or do not (False) border a pause."""
    errs = np.array([[abs(h[start_key] - r["start"]), abs(h[end_key] - r["end"])] for h, r in pairs],
                    np.float64).reshape(-1, 2)
    if at_pause is None or ref is None:
        return errs
    where = dict(zip(map(id, ref), pause_edges(ref)))
    mask = np.array([where[id(r)] for _, r in pairs], bool).reshape(-1, 2)
    return errs[mask == at_pause]


def word_errors(hypothesis: str, reference: str) -> tuple[int, int]:
    """(substitutions + deletions + insertions, reference words) of ``hypothesis`` against ``reference``, both
    lower-cased and split into ``_TOKEN`` tokens (``jiwer``'s word alignment)."""
    import jiwer

    hyp, ref = " ".join(_TOKEN.findall(hypothesis.lower())), " ".join(_TOKEN.findall(reference.lower()))
    if not ref:
        return len(hyp.split()), 0
    out = jiwer.process_words(ref, hyp)
    return out.substitutions + out.deletions + out.insertions, len(ref.split())


def wer_summary(per_speaker: dict[str, list[float]], seed: int = 0) -> list[float]:
    """Word error rate over every utterance of ``per_speaker`` (speaker -> [word errors, reference words], every
    decoded segment kept: no guards), with a 95 % bootstrap interval over speakers: [wer, low, high]."""
    from evals.metrics import ratio_interval

    wrong = np.array([v[0] for v in per_speaker.values()], np.float64)
    words = np.array([v[1] for v in per_speaker.values()], np.float64)
    low, high = ratio_interval(wrong, words, n_resamples=2000, seed=seed)
    return [round(float(wrong.sum() / words.sum()), 4), round(low, 4), round(high, 4)]


def summary(per_speaker: dict[str, list[np.ndarray]], seed: int = 0) -> dict:
    """Mean and median absolute error (s) and the share of edges within 0.1 / 0.2 s over every word edge
    of ``per_speaker`` (speaker -> that speaker's utterances' error arrays), with 95 % bootstrap intervals
    over speakers for all but the median."""
    from evals.metrics import ratio_interval

    rows = [np.concatenate([e.ravel() for e in arrays]) for arrays in per_speaker.values()]
    rows = [r for r in rows if r.size]
    edges = np.concatenate(rows) if rows else np.zeros(0)
    out: dict = {"speakers": len(rows), "edges": int(edges.size), "median_abs_error_s": round(float(np.median(edges)), 3)}
    sizes = np.array([len(r) for r in rows], np.float64)
    for name, value in (("mean_abs_error_s", lambda r: r), ("within_0.1s", lambda r: r <= 0.1),
                        ("within_0.2s", lambda r: r <= 0.2)):
        sums = np.array([float(np.sum(value(r))) for r in rows])
        low, high = ratio_interval(sums, sizes, n_resamples=2000, seed=seed)
        out[name] = [round(float(sums.sum() / sizes.sum()), 3), round(low, 3), round(high, 3)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.word_times", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with manifest.jsonl and the audio it names")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev", help="speaker split (default dev)")
    ap.add_argument("--json", type=Path, default=None, help="write the report here")
    ap.add_argument("--beam", type=int, default=5, metavar="N",
                    help="hypotheses the decoder keeps (default 5, beam search as indexed; 1: greedy)")
    args = ap.parse_args(argv)
    manifest = args.data / "manifest.jsonl"
    if not manifest.is_file():
        print(f"error: {manifest} not found", file=sys.stderr)
        return 2
    from tools.core.media import load_audio

    records = [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]
    records = [r for r in records if args.split == "all" or split_of(r) == args.split]
    asr = load_asr("faster-whisper", beam_size=args.beam)
    edges: dict[str, dict[str, list[np.ndarray]]] = {f"{k}{p}": {} for k in ("whisper", "refined")
                                                      for p in ("", "_at", "_between")}
    decoded = matched = 0
    errors_by_speaker: dict[str, list[float]] = {}  # speaker -> [word errors, reference words]
    for r in records:
        audio = load_audio(args.data / r["audio"], SAMPLE_RATE)
        raw, _, _ = asr.decode(audio)
        wrong, n_ref = word_errors(" ".join(s["text"] for s in raw), " ".join(w["word"] for w in r["words"]))
        tally = errors_by_speaker.setdefault(r["speaker"], [0.0, 0.0])
        tally[0], tally[1] = tally[0] + wrong, tally[1] + n_ref
        hyp = [w for seg in refine_segments(raw, audio, SAMPLE_RATE) for w in seg["words"] if "whisper_start" in w]
        pairs = matched_words(hyp, r["words"])
        decoded, matched = decoded + len(hyp), matched + len(pairs)
        for key, (start, end) in (("whisper", ("whisper_start", "whisper_end")), ("refined", ("start", "end"))):
            edges[key].setdefault(r["speaker"], []).append(errors(pairs, start, end))
            for at_pause in (True, False):
                edges[f"{key}_{'at' if at_pause else 'between'}"].setdefault(r["speaker"], []).append(
                    errors(pairs, start, end, r["words"], at_pause))
    report = {"split": args.split, "utterances": len(records), "speakers": len({r["speaker"] for r in records}),
              "reference_words": sum(len(r["words"]) for r in records), "decoded_words": decoded,
              "matched_words": matched, "asr": asr.name, "beam_size": args.beam,
              "wer": wer_summary(errors_by_speaker),
              **{name: summary(rows) for name, rows in edges.items()}}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
