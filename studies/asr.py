"""Speech recognition on real dialogue: invented words on speech the model cannot read, word error rate
on English, and the unread-speech warning, with and without the hallucination guards.

    python -m studies.asr [--split dev|test] [--fit] [--beam N] [--json FILE]

Material (``evals.data.assemble``): EMO-DB German sentences (Burkhardt et al., 2005) and RAVDESS English
statements (Livingstone & Russo, 2018), both with the spoken sentence known. Utterances of one split
are joined into dialogues of about ``DIALOGUE_S`` seconds, alternating speakers, with pauses of 0.3-1.0 s
(seeded), so the recogniser sees running speech by several people, as in a video's audio track.

- German dialogues: the default model reads English only, so every word it keeps there was never
  spoken ("invented words"); the warning must fire.
- English dialogues: word error rate (``jiwer``, lower-cased, punctuation removed) of the kept words
  against the spoken sentences; the warning must not fire.

The report also scores the default guards without ``SpeechGuards.island_gap_s`` (a fragment alone among
rejected segments is kept), so that rule's share is seen.

``--fit`` (dev split only) picks ``min_word_probability``, ``min_avg_logprob`` and the joint pair of
``tools.signals.transcript.SpeechGuards`` from a grid: fewest invented German words per minute while the English word
error rate stays within ``MAX_WER_RISE`` of the best grid row's and at most ``MAX_REAL_WORD_LOSS`` of the words of the real English recordings
(``REAL_ENGLISH`` and ``--real-english`` files: talks, a news report, a licence read aloud) is rejected.

RAVDESS has two sentences, so its dialogues repeat them: Whisper then often decodes a 30-50 s stretch
as one segment of the two sentences, which the repetition guards reject (their timing is wrong, too);
its English figures are a stress test of the guards, not a typical case. Decoding runs once per dialogue (cached under
``<data>/crops/``); guards are applied to the decoded segments (``tools.signals.utterances.guarded_transcript``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from tools.perception.asr import SAMPLE_RATE, load_asr
from tools.signals.transcript import DEFAULT_GUARDS, SpeechGuards, speech_warning
from tools.signals.utterances import guarded_transcript

DIALOGUE_S = 60.0
REPO = Path(__file__).resolve().parents[1]
#: Real English recordings (``../shared/media``, ``tests/data``): no guard may reject any of their
#: segments when thresholds are fitted, and where the words are known their WER is reported.
#: (file, seconds to read or None for all, reference text or None, English only before this second or None)
REAL_ENGLISH = [
    (REPO / "tests" / "data" / "multilingual.mp3", 30.0,  # the MIT licence's permission paragraph
     ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
      "associated documentation files to deal in the software without restriction, including without limitation "
      "the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the "
      "software, and to permit persons to whom the software is furnished to do so, subject to the following "
      "conditions: The above copyright notice and this permission notice shall be included in all copies or "
      "substantial portions of the software."), None),
    # the same file whole: Whisper scores a 30-s window at once, so the English lines that share a window with the
    # German reading after 30 s get that window's log-probability (only the segments before 30 s count)
    (REPO / "tests" / "data" / "multilingual.mp3", None, None, 30.0),
    (REPO.parent / "shared" / "media" / "jfk.flac", None,
     "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
     None),
    (REPO / "samples" / "hamilton_short.mp4", None, None, None),
    (REPO.parent / "shared" / "media" / "WDA_KatieHill_000.mp4", None, None, None),
    (REPO.parent / "shared" / "media" / "RD_Radio31_000.wav", None, None, None),
]
MAX_WER_RISE = 0.005
#: Share of the real English recordings' decoded words a fitted guard may reject (0.005: two of their
#: ~560 words; decoding at temperature 0 makes a one-word "If..." where silero-vad's test.wav is cut off
#: mid-sentence, with a mean word probability of 0.29, which no useful joint guard keeps).
MAX_REAL_WORD_LOSS = 0.005
WORD_PROB_GRID = (0.0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
LOGPROB_GRID = (-1.0, -0.8, -0.6, -0.55)
#: (joint_avg_logprob, joint_word_probability); (-inf, 0) switches the joint guard off
JOINT_GRID = ((float("-inf"), 0.0),) + tuple(itertools.product((-0.55, -0.6, -0.7, -0.8, -0.85, -0.9),
                                                                (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)))


def dialogues(records: list[dict], seconds: float = DIALOGUE_S, seed: int = 0) -> list[tuple[np.ndarray, str]]:
    """Join labelled utterances into dialogues of about ``seconds``: (mono float32 audio at 16 kHz,
    reference text). Each next utterance is by another speaker and, where the split allows, another
    sentence than the one before (people rarely repeat the previous turn word for word); pauses 0.3-1.0 s."""
    from tools.core.media import load_audio

    rng = random.Random(seed)
    pool = sorted(records, key=lambda r: r["path"])
    rng.shuffle(pool)
    order: list[dict] = []
    while pool:
        prev = order[-1] if order else None
        pick = next((i for i, r in enumerate(pool) if prev is None
                     or (r["person"] != prev["person"] and r["text"] != prev["text"])), None)
        if pick is None:
            pick = next((i for i, r in enumerate(pool) if r["person"] != prev["person"]), 0)
        order.append(pool.pop(pick))
    out: list[tuple[np.ndarray, str]] = []
    parts: list[np.ndarray] = []
    texts: list[str] = []
    length = 0.0
    for r in order:
        speech = load_audio(Path(r["path"]), SAMPLE_RATE).astype(np.float32)
        pause = np.zeros(int(rng.uniform(0.3, 1.0) * SAMPLE_RATE), np.float32)
        parts += [speech, pause]
        texts.append(r["text"])
        length += (len(speech) + len(pause)) / SAMPLE_RATE
        if length >= seconds:
            out.append((np.concatenate(parts), " ".join(texts)))
            parts, texts, length = [], [], 0.0
    return out


def platform_note() -> dict:
    """The CPU a decode ran on and the CTranslate2 instruction set it was told to use (int8 kernels differ
    between instruction sets, so decodes can too)."""
    import platform

    from tools.core.runtime import cpu_fields

    fields = cpu_fields()
    model = fields.get("model name", platform.processor()) if fields else ""
    return {"machine": platform.machine(), "cpu": model, "ct2_isa": os.environ.get("CT2_FORCE_CPU_ISA", "auto")}


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower()))


def score(decoded: list[tuple[list, list, float, str, str]], guards: SpeechGuards | None) -> dict:
    """Metrics of one guard setting over decoded dialogues (raw segments, speech spans, seconds,
    reference, language[, decoding seconds]): invented words per minute and warning rate (German), WER
    and false warnings (English), kept and rejected segment counts, decoding real-time factor."""
    import jiwer

    out: dict = {}
    for lang in ("de", "en"):
        rows = [d for d in decoded if d[4] == lang]
        if not rows:
            continue
        words = warned = kept = rejected = 0
        speech_s = 0.0
        hyps, refs = [], []
        for raw, speech, duration, ref, *_ in rows:
            tr = guarded_transcript(raw, speech, duration, "eval", None, guards, english_only=True)
            words += sum(len(s.words) for s in tr.segments)
            warned += speech_warning(tr) is not None
            kept += len(tr.segments)
            rejected += len(tr.rejected)
            speech_s += tr.speech_s
            hyps.append(_norm(" ".join(s.text for s in tr.segments)))
            refs.append(_norm(ref))
        row = {"dialogues": len(rows), "speech_min": round(speech_s / 60, 2), "kept_segments": kept,
               "rejected_segments": rejected, "warned": warned}
        if all(len(d) > 5 for d in rows):  # decoding time was recorded: real-time factor (audio s / decode s)
            row["decode_rtf"] = round(sum(d[2] for d in rows) / max(sum(d[5] for d in rows), 1e-9), 2)
        if lang == "de":
            row["invented_words_per_min"] = round(words / max(speech_s / 60, 1e-9), 2)
        else:
            row["wer"] = round(float(jiwer.wer(refs, hyps)), 4)
        out[lang] = row
    return out


def real_english(asr, extra: list[Path]) -> list[tuple]:
    """Decode ``REAL_ENGLISH`` (the files present) and ``extra`` files: (name, raw segments, speech spans,
    seconds, reference or None, English only before this second or None); such a file is decoded and guarded whole,
    and only its segments that start before that second are scored."""
    from tools.core.media import load_audio

    out = []
    for path, seconds, ref, english_until in [*REAL_ENGLISH, *((p, None, None, None) for p in extra)]:
        if not Path(path).is_file():
            continue
        audio = load_audio(path, SAMPLE_RATE)
        audio = audio[:int(seconds * SAMPLE_RATE)] if seconds else audio
        raw, speech, _ = asr.decode(audio)
        name = Path(path).name + (f" (first {english_until:g} s, decoded whole)" if english_until is not None else "")
        out.append((name, raw, speech, len(audio) / SAMPLE_RATE, ref, english_until))
    return out


def _english(segments: list, until: float | None, start=lambda seg: seg["start"]) -> list:
    """The segments that start before ``until`` (all when None)."""
    return [seg for seg in segments if until is None or start(seg) < until]


def real_english_score(decoded: list[tuple], guards: SpeechGuards | None) -> dict:
    """Rejected segments and WER (where the words are known) on the real English recordings."""
    import jiwer

    rows = {}
    for name, raw, speech, seconds, ref, until in decoded:
        tr = guarded_transcript(raw, speech, seconds, "eval", None, guards, english_only=True)
        rejected = _english(tr.rejected, until, start=lambda r: r.start_s)
        row = {"segments": len(_english(raw, until)), "rejected": [f"{r.text} ({r.reason})" for r in rejected],
               "rejected_words": sum(len(r.text.split()) for r in rejected),
               "warned": until is None and speech_warning(tr) is not None}
        if ref:
            row["wer"] = round(float(jiwer.wer(_norm(ref), _norm(" ".join(x.text for x in tr.segments)))), 4)
        rows[name] = row
    return rows


def fit(decoded: list, english: list[tuple]) -> tuple[SpeechGuards, list[dict]]:
    """The grid setting with the fewest invented German words per minute among those that reject at most
    ``MAX_REAL_WORD_LOSS`` of the real English recordings' words and keep the English dialogues' WER within ``MAX_WER_RISE``
    of the lowest WER a grid row reaches (if none does, the one with the lowest English WER); also every grid row.

    The rows are compared with each other, not with decoding without guards: every row keeps Whisper's compression
    ratio and repetition guards, which reject RAVDESS's repeated sentences (module docstring), so with a greedy
    decoder (``--beam 1``) no row comes within ``MAX_WER_RISE`` of the unguarded WER."""
    rows = []
    for wp, lp, (jlp, jwp) in itertools.product(WORD_PROB_GRID, LOGPROB_GRID, JOINT_GRID):
        g = replace(DEFAULT_GUARDS, min_word_probability=wp, min_avg_logprob=lp, joint_avg_logprob=jlp,
                    joint_word_probability=jwp)
        real = real_english_score(english, g)
        rows.append({"min_word_probability": wp, "min_avg_logprob": lp, "joint_avg_logprob": jlp,
                     "joint_word_probability": jwp, **score(decoded, g),
                     "real_english_rejected": sum(len(r["rejected"]) for r in real.values()),
                     "real_english_rejected_words": sum(r["rejected_words"] for r in real.values())})
    base = min(r["en"]["wer"] for r in rows)
    allowed = MAX_REAL_WORD_LOSS * sum(len(seg["words"]) for _, raw, _, _, _, until in english
                                       for seg in _english(raw, until))
    ok = [r for r in rows if r["en"]["wer"] <= base + MAX_WER_RISE and r["real_english_rejected_words"] <= allowed] or [
        min(rows, key=lambda r: (r["real_english_rejected_words"], r["en"]["wer"]))]
    best = min(ok, key=lambda r: (r["de"]["invented_words_per_min"], r["en"]["wer"]))
    return replace(DEFAULT_GUARDS, min_word_probability=best["min_word_probability"],
                   min_avg_logprob=best["min_avg_logprob"], joint_avg_logprob=best["joint_avg_logprob"],
                   joint_word_probability=best["joint_word_probability"]), rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.asr", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    ap.add_argument("--split", choices=("dev", "test"), default="dev", help="person split to use (default dev)")
    ap.add_argument("--fit", action="store_true", help="choose the guard thresholds on this split (dev only)")
    ap.add_argument("--json", type=Path, default=None, help="write the metrics here")
    ap.add_argument("--max-dialogues", type=int, default=30, help="dialogues per language at most (default 30)")
    ap.add_argument("--fallback", action="store_true",
                    help="decode with Whisper's temperature fallback (samples; the default decodes at temperature 0 only)")
    ap.add_argument("--batched", type=int, default=0, metavar="N",
                    help="decode N voice-activity chunks at a time (faster-whisper's batched pipeline; 0: off)")
    ap.add_argument("--beam", type=int, default=5, metavar="N",
                    help="hypotheses the sequential decoder keeps (default 5, beam search as indexed; 1: greedy)")
    ap.add_argument("--real-english", type=Path, action="append", default=[], metavar="FILE",
                    help="another real English recording whose segments no guard may reject (repeatable)")
    args = ap.parse_args(argv)
    if args.fit and args.split != "dev":
        ap.error("--fit only on the dev split")
    root = args.data or default_root()
    try:
        german = load_manifest(root, "emodb", args.split)
        english = load_manifest(root, "ravdess", args.split)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    asr = load_asr("faster-whisper", fallback=args.fallback, batch_size=args.batched, beam_size=args.beam)
    decoder = "_fallback" if args.fallback else f"_batched{args.batched}" if args.batched else f"_t0_beam{args.beam}"
    cache = root / "crops" / f"asr_decoded_{args.split}_{args.max_dialogues}{decoder}.json"
    decoded = json.loads(cache.read_text()) if cache.is_file() else []
    if not decoded:
        for lang, recs in (("de", german), ("en", english)):
            for audio, ref in dialogues(recs)[:args.max_dialogues]:
                t = time.perf_counter()
                raw, speech, _ = asr.decode(audio)
                decoded.append((raw, speech, len(audio) / SAMPLE_RATE, ref, lang, time.perf_counter() - t))
                print(f"{lang} dialogue {len(decoded)}: {len(audio) / SAMPLE_RATE:.0f} s, {len(raw)} segments",
                      file=sys.stderr)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(decoded))
    english_real = real_english(asr, args.real_english)
    guards = asr.guards  # the decoder's own (``tools.signals.transcript.BATCHED_GUARDS`` for --batched)
    report = {"split": args.split, "model": asr.name, "decoder": decoder.strip("_"),
              "without_guards": score(decoded, None),
              "with_guards": score(decoded, guards), "guards": guards.__dict__, "platform": platform_note(),
              "real_english_without_guards": real_english_score(english_real, None),
              "real_english_with_guards": real_english_score(english_real, guards)}
    if guards.island_gap_s is not None:  # ablation: what rejecting fragments alone among rejected ones adds
        alone = replace(guards, island_gap_s=None)
        report["with_guards_without_island_rule"] = score(decoded, alone)
        report["real_english_with_guards_without_island_rule"] = real_english_score(english_real, alone)
    if args.fit:
        chosen, grid = fit(decoded, english_real)
        report["fitted_guards"], report["grid"] = chosen.__dict__, grid
        report["with_fitted_guards"] = score(decoded, chosen)
    print(json.dumps({k: v for k, v in report.items() if k != "grid"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
