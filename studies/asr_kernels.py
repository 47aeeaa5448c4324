"""Whisper's transcripts under each family of CPU kernels, by beam search and by greedy decoding.

    python -m studies.asr_kernels [--beam 5 1] [--emulate EPYC-Milan Skylake-Client]
        [--json evals/results/asr_kernels.json]

Each setting runs in a fresh process, since CTranslate2, oneDNN, numpy and OpenBLAS choose their kernels when they
load, and transcribes the real speech at hand (``recordings``: the bench's ``SPEECH`` list, the speech control clip
and the bench's dialogue unit, those recordings back to back) with the shipped recogniser
(``tools.perception.asr.FasterWhisperASR``) at each beam size:

- ``native``: as the code runs on any CPU: oneDNN capped (at AVX2 until section 111, at SSE4.1 since), CTranslate2
  off Intel MKL (``tools.core.runtime.reproducible_kernels``);
- ``ct2_avx2``: CTranslate2's own kernels held to AVX2 (``CT2_FORCE_CPU_ISA=AVX2``), as on a CPU without AVX-512;
- ``held``: that, with numpy's AVX-512 loops off and OpenBLAS held to its Haswell kernels;
- ``onednn_sse41``, ``onednn_all``: oneDNN at SSE4.1 (the cap since section 111) or unrestricted;
- ``ct2_avx``, ``ct2_generic``: CTranslate2's AVX and portable kernels (a CPU without AVX2);
- ``ct2_mkl``: CTranslate2's int8 products in Intel MKL (``CT2_USE_MKL=1``), its own default on Intel CPUs;
- ``mkl_cnr_avx2``: MKL in its reproducibility mode on its AVX2 branch (``MKL_CBWR=AVX2,STRICT``), which oneMKL's
  developer guide ("Getting Started with Conditional Numerical Reproducibility") promises alike on Intel CPUs with
  AVX2 only: on other CPUs it falls back to its AUTO branch;
- ``emulated CPU`` (``--emulate CPU ...``): the native setting under ``qemu-x86_64 -cpu CPU`` user-mode emulation,
  e.g. an AVX2 EPYC-Milan or an Intel Skylake-Client on an AVX-512 AMD host (slow, so only ``EMULATED``); for an
  Intel model also ``emulated CPU, MKL`` (``CT2_USE_MKL=1``: what CTranslate2 does there by default).

Reported per beam size and setting: of the recordings, how many give ``native``'s segments (text, start, end),
its words (text, start, end) and its whole transcript (with word probabilities) exactly, and the setting's decoding
seconds; and per beam size the decoding seconds of ``native`` (the real-time factor of the recogniser alone, one
process at a time). ``--settings`` runs some of the settings only (``native`` always). Used for
``evals/RESULTS.md`` sections 93 (``evals/results/asr_kernels.json``) and 122 (``asr_kernels_beams.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Kernel settings: name -> environment variables on top of this process's.
SETTINGS: dict[str, dict[str, str]] = {
    "native": {},
    "ct2_avx2": {"CT2_FORCE_CPU_ISA": "AVX2"},
    "held": {"CT2_FORCE_CPU_ISA": "AVX2", "NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
             "OPENBLAS_CORETYPE": "Haswell"},
    "onednn_sse41": {"ONEDNN_MAX_CPU_ISA": "SSE41", "CT2_FORCE_CPU_ISA": "AVX2"},
    "onednn_all": {"ONEDNN_MAX_CPU_ISA": "ALL"},
    "ct2_avx": {"CT2_FORCE_CPU_ISA": "AVX"},
    "ct2_generic": {"CT2_FORCE_CPU_ISA": "GENERIC"},
    "ct2_mkl": {"CT2_USE_MKL": "1"},
    "mkl_cnr_avx2": {"CT2_USE_MKL": "1", "MKL_CBWR": "AVX2,STRICT"},
}
#: qemu CPU models of Intel CPUs (on which CTranslate2 would pick Intel MKL by itself).
INTEL_MODELS = ("Skylake-Client", "Skylake-Server", "Cascadelake-Server", "Icelake-Server", "Haswell", "Broadwell")
#: The recordings an emulated CPU transcribes (file names among ``recordings``).
EMULATED = ("hamilton_short.mp4", "WDA_KatieHill_000.mp4", "jfk.flac", "speech_control.mp4")


def recordings(workdir: Path) -> list[Path]:
    """The real speech at hand: ``benches.bench_index.SPEECH``, ``tests/data/speech_control.mp4`` and the bench's
    dialogue unit (``benches.bench_index.dialogue_video``, made in ``workdir`` as ``unit.mp4``)."""
    sys.path.insert(0, str(REPO / "benches"))
    from bench_index import SPEECH, dialogue_video

    return [*SPEECH, REPO / "tests" / "data" / "speech_control.mp4", dialogue_video(workdir / "unit.mp4")]


def _digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj).encode()).hexdigest()[:12]


def transcribe(beam: int, paths: list[str], threads: int = 0) -> list[dict]:
    """Transcripts of ``paths`` by the shipped recogniser at ``beam`` on ``threads`` CTranslate2 threads (0: its
    default): per file its name, segments, words, the digest of its whole ``Transcript`` and the decoding seconds."""
    from tools.core.media import load_audio
    from tools.perception.asr import SAMPLE_RATE, FasterWhisperASR

    asr = FasterWhisperASR(beam_size=beam, threads=threads)
    out = []
    for path in paths:
        audio = load_audio(path)
        t0 = time.perf_counter()
        tr = asr.transcribe(audio)
        out.append({"file": Path(path).name, "seconds": round(time.perf_counter() - t0, 2),
                    "audio_s": round(len(audio) / SAMPLE_RATE, 2),
                    "segments": [(s.start_s, s.end_s, s.text) for s in tr.segments],
                    "words": [(w.text, w.start_s, w.end_s) for s in tr.segments for w in s.words],
                    "whole": hashlib.sha256(tr.model_dump_json().encode()).hexdigest()[:12]})
    return out


def run_child(beam: int, paths: list[Path], env: dict[str, str], emulate: str | None = None,
              threads: int = 0) -> list[dict]:
    """``transcribe(beam, paths, threads)`` in a fresh process with ``env`` added to this one's environment (and under
    ``qemu-x86_64 -cpu emulate`` when given), so the kernel settings take effect as the libraries load.

    Raises:
        RuntimeError: the process failed (its last stderr lines in the message).
    """
    prefix = [shutil.which("qemu-x86_64") or "qemu-x86_64", "-cpu", emulate] if emulate else []
    proc = subprocess.run([*prefix, sys.executable, "-m", "studies.asr_kernels", "--child", str(beam), str(threads),
                           *map(str, paths)], cwd=REPO, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env})
    if proc.returncode != 0:
        raise RuntimeError(f"beam {beam} under {env or emulate}: {proc.stderr[-1500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _same(rows: list[dict], base: dict[str, dict]) -> dict:
    keys = ("segments", "words", "whole")
    return {"recordings": len(rows), "decoding_s": round(sum(r["seconds"] for r in rows), 2),
            **{f"same_{k}": sum(r[k] == base[r["file"]][k] for r in rows) for k in keys},
            "digests": {r["file"]: _digest(r["segments"]) for r in rows}}


def study(beams: list[int], emulate: list[str], settings: list[str] | None = None) -> dict:
    """Run the ``settings`` (default: every one; ``native`` always) at every beam size (see the module doc)."""
    chosen = {name: env for name, env in SETTINGS.items() if name == "native" or not settings or name in settings}
    with tempfile.TemporaryDirectory() as tmp:
        return _study(recordings(Path(tmp)), beams, emulate, chosen)


def _study(paths: list[Path], beams: list[int], emulate: list[str], settings: dict[str, dict[str, str]]) -> dict:
    out: dict = {"what": "evals/RESULTS.md sections 93, 111 and 122: transcripts of the real speech at hand under each "
                         "family of CPU kernels; same_*: recordings equal to the native setting's",
                 "recordings": [p.name for p in paths], "settings": settings, "beams": {}}
    for beam in beams:
        rows = {name: run_child(beam, paths, env) for name, env in settings.items()}
        base = {r["file"]: r for r in rows["native"]}
        found = {name: _same(r, base) for name, r in rows.items()}
        few = [p for p in paths if p.name in EMULATED]
        for cpu in emulate:
            found[f"emulated {cpu}"] = _same(run_child(beam, few, {}, cpu), base)
            if cpu.startswith(INTEL_MODELS):
                found[f"emulated {cpu}, MKL"] = _same(run_child(beam, few, {"CT2_USE_MKL": "1"}, cpu), base)
        seconds, audio = sum(r["seconds"] for r in rows["native"]), sum(r["audio_s"] for r in rows["native"])
        out["beams"][str(beam)] = {"native_decoding_s": round(seconds, 2), "audio_s": round(audio, 2),
                                   "native_rtf": round(audio / seconds, 1), "settings": found}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(transcribe(int(argv[1]), argv[3:], int(argv[2]))))
        return 0
    ap = argparse.ArgumentParser(prog="python -m studies.asr_kernels", description=__doc__.split("\n\n")[0])
    ap.add_argument("--beam", type=int, nargs="+", default=[5, 1], help="beam sizes (default: 5 and 1)")
    ap.add_argument("--emulate", metavar="CPU", nargs="+", default=[],
                    help="also run under qemu-x86_64 -cpu CPU (e.g. EPYC-Milan Skylake-Client)")
    ap.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=None, metavar="NAME",
                    help=f"kernel settings to run (default: all; native always): {', '.join(SETTINGS)}")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    if args.emulate and shutil.which("qemu-x86_64") is None:
        ap.error("--emulate needs qemu-x86_64 on the PATH")
    return report(lambda: study(args.beam, args.emulate, args.settings), args.json)


if __name__ == "__main__":
    sys.exit(main())
