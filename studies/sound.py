"""Measure ``tools.perception.sound`` on labelled clips: ``python -m studies.sound DIR [--json OUT]``.

``DIR`` holds one folder per class, ``speech/``, ``music/``, ``silence/`` (and optionally ``noise/``), of
audio files (any format FFmpeg reads). Each file is decoded at 16 kHz, its speech regions found by the
same Silero VAD the speech pass uses (``faster_whisper.vad``), and ``sound_stats`` read over the whole
file; silence counts as right when the clip is read as quiet. Prints accuracy and the confusion matrix.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.media import VideoError, load_audio
from tools.perception.sound import sound_stats

#: Folder name -> the ``SoundStats.kind`` that reads it right.
CLASSES = {"speech": "speech", "music": "music", "silence": "quiet", "noise": "noise"}
KINDS = ("quiet", "speech", "music", "noise")


def speech_regions(audio: np.ndarray) -> list[tuple[float, float]]:
    """Silero VAD speech regions (seconds) of 16 kHz mono ``audio``, as the ASR's ``decode`` finds them."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    return [(c["start"] / 16_000, c["end"] / 16_000) for c in get_speech_timestamps(audio, VadOptions())]


def measure(root: Path) -> dict:
    """Per-class counts, accuracy and the confusion matrix (rows: folder class, columns: ``KINDS``).

    Raises:
        FileNotFoundError: ``root`` has none of the class folders.
    """
    rows, confusion = [], {}
    for folder, want in CLASSES.items():
        for path in sorted((root / folder).glob("*")) if (root / folder).is_dir() else []:
            try:
                audio = load_audio(path)
            except VideoError:
                continue
            got = sound_stats(audio, 16_000, 0.0, len(audio) / 16_000, speech_regions(audio)).kind
            rows.append((folder, got == want))
            confusion.setdefault(folder, dict.fromkeys(KINDS, 0))[got] += 1
    if not rows:
        raise FileNotFoundError(f"{root}: no speech/, music/, silence/ or noise/ folder with audio")
    per_class = {c: round(confusion[c][CLASSES[c]] / sum(confusion[c].values()), 3) for c in confusion}
    return {"n": len(rows), "accuracy": round(float(np.mean([ok for _, ok in rows])), 3), "per_class": per_class,
            "confusion": confusion}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m studies.sound", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="folder with speech/, music/, silence/ (noise/) subfolders")
    p.add_argument("--json", help="write the result here")
    args = p.parse_args(argv)
    return report(lambda: measure(Path(args.dir)), args.json, indent=2)


if __name__ == "__main__":
    sys.exit(main())
