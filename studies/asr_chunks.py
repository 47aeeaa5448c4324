"""How the index's cutting of long audio into transcription chunks changes the words: TIMIT's read sentences joined.

    python -m studies.asr_chunks --data DIR [--plan 300:300 300:60 ...] [--orders 0 1] [--json FILE]

``DIR`` holds ``studies.word_times``'s ``manifest.jsonl`` (one utterance per line: ``audio``, ``words``); here the
TIMIT corpus sample that NLTK shipped (160 read sentences, 16 speakers; ``evals/data/SOURCES.md``). Every
utterance is joined in one recording with 0.3 s of silence after each: in the manifest's order (order 0) and in
orders shuffled with seeds 1, 2, ... (``--orders``). Each recording is cut by ``indexing.speech.asr_chunks`` with a
plan ``CHUNK:LAST`` (its ``chunk_s`` and ``last_s``: ``300:300`` fixed 300-s chunks, the index before section
121; ``300:60`` chunks that shrink from 300 s to 60 s towards the end, the index since; ``60:60`` fixed 60-s
chunks), each chunk decoded by the shipped recogniser on one thread (``tools.perception.asr``, beam 5), and the
transcripts merged as the index merges them (``indexing.speech.merge_transcripts``). Reported per order and plan:
chunks, word errors against the joined reference words (``studies.word_times.word_errors``: jiwer after the same
text normalisation), reference words, rejected segments and decoding seconds; and per plan the errors summed
over orders. Used for ``evals/RESULTS.md`` section 121 (``evals/results/asr_chunks_timit.json``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

PAUSE_S = 0.3
"""Silence after each joined sentence (seconds)."""


def joined(data: Path, records: list[dict], order: int, sample_rate: int) -> tuple[np.ndarray, str]:
    """The ``records`` joined in ``order`` (0: as listed, else shuffled with that seed): audio (float32 at
    ``sample_rate``) with ``PAUSE_S`` of silence after each sentence, and the reference words joined by spaces."""
    from tools.core.media import load_audio

    records = list(records)
    if order:
        random.Random(order).shuffle(records)
    gap = np.zeros(int(PAUSE_S * sample_rate), np.float32)
    audio = np.concatenate([x for r in records for x in (load_audio(data / r["audio"], sample_rate), gap)])
    return audio, " ".join(w["word"] for r in records for w in r["words"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.asr_chunks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="folder with manifest.jsonl and the audio it names")
    ap.add_argument("--plan", nargs="+", default=["300:300", "120:120", "60:60", "300:60"], metavar="CHUNK:LAST",
                    help="chunk plans: asr_chunks' chunk_s and last_s in seconds (default: 300:300 120:120 60:60 "
                         "300:60)")
    ap.add_argument("--orders", type=int, nargs="+", default=[0, 1], help="sentence orders (0: the manifest's)")
    ap.add_argument("--json", type=Path, default=None, help="write the report here")
    args = ap.parse_args(argv)
    manifest = args.data / "manifest.jsonl"
    if not manifest.is_file():
        print(f"error: {manifest} not found", file=sys.stderr)
        return 2
    try:
        plans = [tuple(float(x) for x in p.split(":")) for p in args.plan]
    except ValueError:
        print("error: a --plan is CHUNK:LAST in seconds, e.g. 300:60", file=sys.stderr)
        return 2
    from tools.core.runtime import reproducible_kernels

    reproducible_kernels()
    from indexing.speech import asr_chunks, merge_transcripts
    from studies.word_times import word_errors
    from tools.perception.asr import SAMPLE_RATE, load_asr

    records = [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]
    asr = load_asr("faster-whisper", threads=1)
    rows = []
    for order in args.orders:
        audio, reference = joined(args.data, records, order, SAMPLE_RATE)
        for chunk_s, last_s in plans:
            spans = asr_chunks(audio, SAMPLE_RATE, chunk_s, last_s=last_s)
            t = time.perf_counter()
            transcript = merge_transcripts([(a / SAMPLE_RATE, asr.transcribe(audio[a:b])) for a, b in spans],
                                           len(audio) / SAMPLE_RATE)
            seconds = time.perf_counter() - t
            wrong, n_ref = word_errors(" ".join(s.text for s in transcript.segments), reference)
            rows.append({"order": order, "plan": f"{chunk_s:g}:{last_s:g}",
                         "audio_s": round(len(audio) / SAMPLE_RATE, 1), "chunks": len(spans),
                         "word_errors": int(wrong), "reference_words": int(n_ref),
                         "wer": round(wrong / n_ref, 4), "rejected_segments": len(transcript.rejected),
                         "decode_s": round(seconds, 1)})
            print(json.dumps(rows[-1]), flush=True)
    totals = {p: sum(r["word_errors"] for r in rows if r["plan"] == p) for p in dict.fromkeys(r["plan"] for r in rows)}
    report = {"utterances": len(records), "asr": asr.name, "pause_s": PAUSE_S, "rows": rows,
              "word_errors_over_orders": totals}
    print(json.dumps({"word_errors_over_orders": totals}))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
