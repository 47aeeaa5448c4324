"""Whisper's decoding time on speech-dense audio, by beam size and CPU-kernel setting.

    python -m studies.asr_speed [--seconds 300] [--beam 5 2 1] [--settings native mkl_cnr_avx2] [--runs 2]
        [--json evals/results/asr_speed.json]

The audio is the bench's dialogue unit (``benches.bench_index.dialogue_video``: every real speech recording at hand
back to back, 112 s) looped by whole units until it covers ``--seconds`` (``benches.bench_index.loop_video``; 336 s
for the default 300), the speech-dense kind of audio of issue 32's hour. Each (beam, setting) pair is decoded by the
shipped recogniser on one CTranslate2 thread, as the index's speech pass decodes beside the pictures
(``indexing.build.speech_threads``), in a fresh process (``studies.asr_kernels.run_child``: the kernel settings of
``studies.asr_kernels.SETTINGS`` take effect as the libraries load); the pairs run in turn, ``--runs`` rounds.
Reported per pair: the decoding seconds of each run (wall time of ``transcribe``, nothing else running), the
real-time factor of the fastest, the segment count and whether the transcript's segments are those of beam 5 under
``native`` (the shipped setting). Used for ``evals/RESULTS.md`` section 122.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from studies.asr_kernels import REPO, SETTINGS, run_child


def study(seconds: float, beams: list[int], settings: list[str], runs: int) -> dict:
    """Decode the looped dialogue at every (beam, setting), ``runs`` rounds (see the module doc)."""
    sys.path.insert(0, str(REPO / "benches"))
    from bench_index import dialogue_video, loop_video

    pairs = [(b, s) for s in settings for b in beams]
    found: dict[str, dict] = {f"{s}, beam {b}": {"beam": b, "setting": s, "env": SETTINGS[s], "seconds": []}
                              for b, s in pairs}
    with tempfile.TemporaryDirectory() as tmp:
        audio = loop_video(dialogue_video(Path(tmp) / "unit.mp4"), Path(tmp) / "dialogue.mp4", seconds)
        for _ in range(runs):
            for b, s in pairs:
                row = run_child(b, [audio], SETTINGS[s], threads=1)[0]
                entry = found[f"{s}, beam {b}"]
                entry["seconds"].append(row["seconds"])
                entry.update(audio_s=row["audio_s"], segments=row["segments"])
    shipped = found.get("native, beam 5", {}).get("segments")
    for entry in found.values():
        segments = entry.pop("segments")
        entry.update(rtf=round(entry["audio_s"] / min(entry["seconds"]), 1), segment_count=len(segments),
                     same_segments_as_shipped=None if shipped is None else segments == shipped)
    return {"what": "evals/RESULTS.md section 122: Whisper tiny.en (int8) decoding the bench's dialogue unit looped "
                    f"by whole units to cover {seconds:g} s (audio_s) on one CTranslate2 thread, each beam size and "
                    f"kernel setting in a fresh process, {runs} rounds in turn; seconds: the wall time of transcribe "
                    "in each round",
            "pairs": found}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.asr_speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="length of the looped dialogue (default 300)")
    ap.add_argument("--beam", type=int, nargs="+", default=[5, 2, 1], help="beam sizes (default: 5 2 1)")
    ap.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=["native", "mkl_cnr_avx2"],
                    metavar="NAME", help=f"kernel settings (default: native mkl_cnr_avx2): {', '.join(SETTINGS)}")
    ap.add_argument("--runs", type=int, default=2, help="rounds over the pairs (default 2)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    return report(lambda: study(args.seconds, args.beam, args.settings, args.runs), args.json)


if __name__ == "__main__":
    sys.exit(main())
