"""Non-English speech: what the offline English-only recogniser, a multilingual Whisper transcribing,
and the same model translating into English give a user who asks in English.

    python -m studies.multilingual [--split dev|test] [--json FILE]

Material: the EMO-DB German sentences of one speaker split (``evals.data.assemble``; Burkhardt et al.,
2005), each utterance decoded alone. Three settings:

- ``tiny.en``: the offline default (English only); every word it keeps is invented.
- ``whisper-base transcribe``: the fetched multilingual model (``affectseek models --fetch whisper-base``)
  writing German; word error rate against the spoken sentence (``jiwer``, lower-cased, no punctuation).
- ``whisper-base translate``: the same model writing English (``--asr-task translate``).

For each, the share of utterances whose speech is flagged (``tools.signals.transcript.speech_warning``), the
language detected, and **English search**: each utterance's kept text is compared with English renderings
of the ten EMO-DB sentences (``EMODB_EN``, written for this evaluation from the German) by each transcript
encoder the pipeline offers (``tools.perception.text.TRANSCRIPT_ENCODERS``: all-MiniLM-L6-v2, English; the multilingual
Universal Sentence Encoder; cosine); it counts as found when the rendering of its own sentence is the most
similar of the ten (chance 0.1). That is what an English question about what was said can reach.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from evals.data.sources import EMODB_TEXTS
from studies.asr import _norm
from studies.command import report
from tools.perception.asr import SAMPLE_RATE, FasterWhisperASR
from tools.signals.transcript import speech_warning

#: English renderings of the ten EMO-DB sentences (``evals.data.sources.EMODB_TEXTS``), written for this
#: evaluation; only their meaning matters (they are search queries, not references for a score).
EMODB_EN = {
    "a01": "The cloth is lying on the fridge.",
    "a02": "She wants to hand it in on Wednesday.",
    "a04": "Tonight I could tell him.",
    "a05": "The black piece of paper is up there next to the piece of wood.",
    "a07": "In seven hours it will be time.",
    "b01": "What are those bags standing under the table?",
    "b02": "They just carried it up and now they are going down again.",
    "b03": "At the weekends I have always gone home and visited Agnes.",
    "b09": "I just want to take this away and then go for a drink with Karl.",
    "b10": "It will be in the place where we always put it.",
}
SETTINGS = {"tiny.en": (None, "transcribe"), "whisper-base transcribe": ("whisper-base", "transcribe"),
            "whisper-base translate": ("whisper-base", "translate")}


def _sentence(record: dict) -> str:
    """The EMO-DB text code (a01..b10) of a record: characters 2-5 of its file name (``SSTTTEv.wav``)."""
    return Path(record["path"]).name[2:5]


def evaluate(records: list[dict], settings: list[str] | None = None) -> dict:
    """Metrics of each ``SETTINGS`` entry (or those named in ``settings``) over ``records`` (module doc)."""
    import jiwer

    from tools.core.media import load_audio
    from tools.perception.text import TRANSCRIPT_ENCODERS, load_transcript_encoder

    codes = sorted(EMODB_EN)
    encoders = {name: load_transcript_encoder(name) for name in TRANSCRIPT_ENCODERS}
    queries = {name: enc.encode([EMODB_EN[c] for c in codes]) for name, enc in encoders.items()}
    audio = [load_audio(Path(r["path"]), SAMPLE_RATE).astype(np.float32) for r in records]
    out = {}
    for name, (model, task) in SETTINGS.items():
        if settings and name not in settings:
            continue
        asr = FasterWhisperASR(model=model, task=task)
        t0 = time.perf_counter()
        transcripts = [asr.transcribe(a) for a in audio]
        seconds = time.perf_counter() - t0
        texts = [" ".join(s.text for s in tr.segments).strip() for tr in transcripts]
        kept = [(r, t) for r, t in zip(records, texts, strict=True) if t]
        found = {}
        for enc_name, enc in encoders.items():
            best = (enc.encode([t for _, t in kept]) @ queries[enc_name].T).argmax(axis=1) if kept else []
            hits = sum(codes[int(b)] == _sentence(r) for (r, _), b in zip(kept, best, strict=True))
            found[enc_name] = round(hits / len(records), 3)
        langs = [tr.language for tr in transcripts]
        row = {
            "utterances": len(records),
            "with_text": sum(bool(t) for t in texts),
            "warned": sum(speech_warning(tr) is not None for tr in transcripts),
            "detected_de": sum(lang == "de" for lang in langs),
            "english_search_found": found,
            "decode_rtf": round(sum(len(a) for a in audio) / SAMPLE_RATE / seconds, 2),
            "examples": [{"spoken": r["text"], "text": t} for r, t in list(zip(records, texts, strict=True))[:5]],
        }
        if task == "transcribe" and model is not None:
            row["german_wer"] = round(float(jiwer.wer([_norm(r["text"]) for r in records], [_norm(t) for t in texts])), 4)
        out[name] = row
        print(name, {k: v for k, v in row.items() if k != "examples"}, file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.multilingual", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="assembled data root (default <cache>/data)")
    ap.add_argument("--split", choices=("dev", "test"), default="dev", help="speaker split (default dev)")
    ap.add_argument("--json", type=Path, default=None, help="write the metrics here")
    ap.add_argument("--setting", action="append", choices=sorted(SETTINGS), help="run only these settings")
    args = ap.parse_args(argv)

    def compute() -> dict:
        records = load_manifest(args.data or default_root(), "emodb", args.split)
        assert all(_sentence(r) in EMODB_TEXTS for r in records)
        return {"split": args.split, "material": "EMO-DB German sentences, one utterance per decode",
                **evaluate(records, args.setting)}

    return report(compute, args.json, indent=2, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
