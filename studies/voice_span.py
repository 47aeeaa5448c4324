"""Where the index reads a clip's voice: over the recognised words, or over the detected speech?

    python -m studies.voice_span [--split test] [--json FILE]

Each labelled speech clip of RAVDESS (English) and EMO-DB (German) of ``--split`` goes through the
index's own recogniser (the offline English-only Whisper with the default guards) and its voice
activity detection, and the voice8 head reads the clip's voice over the span ``indexing.clips.voice_span``
gives: by the recognised words (the reading before) or by the speech regions (now). Scored per set:
coverage (clips that get a voice reading at all), accuracy of the head's top label among them, and
accuracy over all clips (a clip without a reading counts as wrong). Nothing here is fitted or chosen:
RAVDESS test actors and EMO-DB test speakers are people the voice head never heard.
"""

from __future__ import annotations

import argparse
import sys

from evals.data.assemble import default_root, load_manifest
from studies.command import report


def measure(split: str = "test") -> dict:
    """Coverage and accuracy of the two voice spans on each set's ``split`` (module doc).

    Raises:
        FileNotFoundError: a set was not assembled.
    """
    from indexing.clips import clip_voice
    from tools.core.media import load_audio
    from tools.perception.asr import load_asr
    from tools.perception.voice_emotion import load_voice_emotion

    asr, voice = load_asr("faster-whisper"), load_voice_emotion()
    out = {"asr": asr.name, "voice": voice.name, "split": split}
    for name in ("ravdess", "emodb"):
        recs = load_manifest(default_root(), name, split)
        hits = {"words": [], "speech": []}
        for r in recs:
            audio = load_audio(r["path"], 16_000)
            transcript = asr.transcribe(audio)
            for by, got in hits.items():
                dist = clip_voice(voice, audio, transcript, 0.0, len(audio) / 16_000, by=by)
                got.append(None if dist is None else max(dist, key=dist.__getitem__) == r["label"])
        out[name] = {"n": len(recs), **{by: {
            "coverage": round(sum(h is not None for h in got) / len(got), 4),
            "accuracy_read": round(sum(bool(h) for h in got) / max(1, sum(h is not None for h in got)), 4),
            "accuracy_all": round(sum(bool(h) for h in got) / len(got), 4)} for by, got in hits.items()}}
        print(name, out[name], file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.voice_span", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="test")
    ap.add_argument("--json", default=None, help="write the result here too")
    args = ap.parse_args(argv)
    return report(lambda: measure(args.split), args.json)


if __name__ == "__main__":
    sys.exit(main())
