"""Long-video benchmark: indexing speed per stage, query latency, peak memory, cache size, brute force.

    python benches/bench_index.py [--minutes 10 30 60] [--bases clips dialogue] [--voice-emotion voice8|whisper8]
        [--out benches/results.json]

Two looped units (``--bases``; nothing committed), looped by stream copy to each length:
- ``clips``: the real clips ``hamilton_short.mp4`` and ``WDA_KatieHill_000.mp4`` of ``../shared/media``
  re-encoded back to back (640x360, 25 fps, 16 kHz mono; PyAV, i.e. FFmpeg's libraries), 18 s with
  little speech;
- ``dialogue``: every real speech recording at hand (``SPEECH``: a speech, a radio address, two
  speakers, two talking heads, a licence read in English then German, two acted statements; ~110 s,
  speech nearly all the time) under the same clips' pictures: ASR at its busiest.

Every measurement runs in a fresh subprocess, so each peak RSS is its own:

  1. index: build the index -> real-time factor (video seconds per wall second) per stage, peak RSS,
     cache size on disk;
  2. session: four queries in one process -> Q1 with models loading and an empty perception cache
     ("cold"), Q1 again (models loaded, perception cached: "warm"), Q2 (models loaded, new candidates), Q3 (a
     question about a change of feeling: every person's affect timeline over the whole video, then new candidates),
     Q4 (a feeling few clips support, so the verifier re-queries: the costly kind of new question);
     per question, the frames the verifier observed and those it read back from the index pass;
  3. fresh: Q1 in a new process on the warm cache (what a second ``affectseek ask`` costs);
  4. brute force: every verifier tool (face detection, expression, gestures, gaze) on every frame at
     the verifier's 4 fps over the whole video, the baseline the agentic verifier avoids -> frames,
     seconds, per-tool throughput (frames/s); ratio = brute-force frames / frames the verifier ran.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.core.argtypes import CommandParser

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
MEDIA = REPO.parent / "shared" / "media"
Q1 = "when does the audience enjoy the show?"
Q2 = "when does she mention being new?"
Q3 = "when does her mood change?"
Q4 = "when is someone afraid?"


def loop_video(src: Path, dst: Path, seconds: float) -> Path:
    """Remux ``src`` back to back until ``seconds`` are covered (stream copy, no re-encode)."""
    import av

    with av.open(str(src)) as probe_c:
        one = probe_c.duration / 1_000_000
    n = max(1, int(seconds // one + (seconds % one > 0)))
    lead = 0.0  # B-frame reordering gives negative first decode times: keep each loop's dts after the last
    with av.open(str(src)) as inp:
        for packet in inp.demux(inp.streams.video[:1] + inp.streams.audio[:1]):
            if packet.dts is not None:
                lead = max(lead, -float(packet.dts * packet.time_base))
    with av.open(str(dst), "w") as out:
        outs = {}
        offset = lead
        for _ in range(n):
            with av.open(str(src)) as inp:
                streams = inp.streams.video[:1] + inp.streams.audio[:1]
                for s in streams:
                    if s.type not in outs:
                        outs[s.type] = out.add_stream_from_template(s)
                last = offset
                for packet in inp.demux(streams):
                    if packet.dts is None:
                        continue
                    tb = packet.time_base
                    shift = int(offset / tb)
                    packet.pts = packet.pts + shift if packet.pts is not None else None
                    packet.dts += shift
                    last = max(last, float((packet.pts or packet.dts) * tb) + float((packet.duration or 0) * tb))
                    packet.stream = outs[packet.stream.type]
                    out.mux(packet)
                offset = last + lead
    return dst


def base_video(dst: Path) -> Path:
    """The shared clips re-encoded back to back into one 640x360 video (the unit that is looped)."""
    from evals.build_bench import concatenate

    concatenate([MEDIA / "hamilton_short.mp4", MEDIA / "WDA_KatieHill_000.mp4"], dst, size=(640, 360))
    return dst


#: Every real speech recording at hand, in this order: ../shared/media's and tests/data's (English, with
#: the German half of multilingual.mp3 and two RAVDESS statements); about 110 s of dense speech.
SPEECH = [MEDIA / "jfk.flac", MEDIA / "RD_Radio31_000.wav", MEDIA / "stereo_diarization.wav",
          MEDIA / "WDA_KatieHill_000.mp4", REPO / "tests" / "data" / "multilingual.mp3", MEDIA / "hamilton_short.mp4",
          *sorted((REPO / "tests" / "data" / "ravdess").glob("*.flac"))]


def dialogue_video(dst: Path, size: tuple[int, int] = (640, 360), fps: int = 25, pause_s: float = 0.3) -> Path:
    """The dialogue-dense unit that is looped: ``SPEECH`` back to back (``pause_s`` between recordings)
    under the shared clips' pictures (hamilton, then KatieHill, repeated to the speech's length)."""
    import itertools

    import numpy as np

    from evals.build_bench import letterbox
    from tools.core.frames import iter_frames
    from tools.core.media import load_audio
    from tools.core.video_out import VideoWriter

    gap = np.zeros(int(pause_s * 16_000), np.float32)
    speech = np.concatenate([x for f in SPEECH for x in (load_audio(f, 16_000), gap)])
    pictures = itertools.cycle([MEDIA / "hamilton_short.mp4", MEDIA / "WDA_KatieHill_000.mp4"])
    want = int(len(speech) / 16_000 * fps)
    with VideoWriter(dst, size, fps) as out:
        while out.frames < want:
            for _, rgb in itertools.islice(iter_frames(next(pictures), fps), want - out.frames):
                out.add_frame(letterbox(rgb, size))
        out.add_audio(speech[: int(want / fps * 16_000)])
    return dst


def own_peak_rss_mib() -> float:
    """Peak resident memory (MiB) of this process since it started its program: ``VmHWM`` of ``/proc/self/status``
    where Linux has it, else ``ru_maxrss``. On Linux ``ru_maxrss`` of a process started by ``subprocess`` also counts
    the process it was forked from, up to its ``exec``: a child of a process holding 400 MB reported 408 MB there, and
    13 MB by ``VmHWM`` (``evals/RESULTS.md`` section 113)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(mode: str, video: str, cache: str, voice: str = "voice8") -> None:
    """Run one measurement in this (fresh) process with the vocal emotion model ``voice`` and print a JSON line."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    t0 = time.perf_counter()
    if mode == "brute":
        result = _brute_force(video)
    elif mode == "index":
        from indexing.build import open_index
        from memory.index_config import IndexConfig

        idx = open_index(video, IndexConfig(voice_backend=voice), cache)
        result = {"timings": idx.manifest["timings_s"], "duration_s": idx.info.duration_s,
                  "clips": len(idx.clips), "segments": len(idx.transcript.segments), "events": len(idx.events)}
    else:
        from graphs.pipeline import answer_query
        from memory.index_config import IndexConfig

        queries = [Q1, Q1, Q2, Q3, Q4] if mode == "session" else [Q1]
        result = {"queries": []}
        for q in queries:
            t = time.perf_counter()
            a = answer_query(video, q, IndexConfig(voice_backend=voice), cache_dir=cache)
            result["queries"].append({"query": q, "wall_s": round(time.perf_counter() - t, 2),
                                      "timings": a.timings_s, "tool_calls": a.index["tool_calls"],
                                      "moments": len(a.moments), "built_now": a.index["built_now"]})
    result["wall_s"] = time.perf_counter() - t0
    result["peak_rss_mib"] = own_peak_rss_mib()
    print("RESULT " + json.dumps(result))


def _brute_force(video: str) -> dict:
    from memory.index_config import IndexConfig
    from tools.core.frames import iter_frames
    from tools.perception.engine import load_engine

    engine = load_engine(IndexConfig().perception())
    engine.tool_names(hands=True)  # load every model before timing
    engine.seconds.clear()
    decode, n, t_prev = 0.0, 0, time.perf_counter()
    for t, frame in iter_frames(video, 4.0):
        decode += time.perf_counter() - t_prev
        engine.observe_frame(t, frame, "f", hands=True)  # every verifier tool on every frame
        n += 1
        t_prev = time.perf_counter()
    spent = {"decode": decode, **engine.seconds}
    return {"frames": n, "seconds": sum(spent.values()),
            "tool_fps": {k: round(n / v, 1) for k, v in spent.items() if v > 0}}


def _run_child(mode: str, video: Path, cache: Path, voice: str = "voice8") -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(video), str(cache), voice], check=False,
                          capture_output=True, text=True, cwd=REPO)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"{mode} run failed:\n{proc.stderr[-2000:]}")
    return json.loads(line[7:])


def measure(video: Path, cache: Path, minutes: float, brute: bool = True, voice: str = "voice8") -> dict:
    """All measurements on one video with the vocal emotion model ``voice``; returns one result row (see the module
    docstring)."""
    index = _run_child("index", video, cache, voice)
    session = _run_child("session", video, cache, voice)
    fresh = _run_child("fresh", video, cache, voice)
    d, t = index["duration_s"], index["timings"]
    q1, q1_again, q2, q3, q4 = session["queries"]

    def rtf(*keys: str) -> float:
        return round(d / max(1e-9, sum(t.get(k, 0.0) for k in keys)), 2)

    verifier_frames = sum(q["tool_calls"].get("face_expression_frames", 0) for q in (q1, q2))
    row = {
        "minutes": minutes, "duration_s": round(d, 1),
        "index_wall_s": round(index["wall_s"], 1),
        "rtf_index_wall": round(d / index["wall_s"], 2),  # the whole build, process start included
        "rtf_index_stages": rtf("visual_and_speech", "embed") if "visual_and_speech" in t
        else rtf("decode_faces", "transcribe", "embed"),
        "rtf_decode": rtf("decode"), "rtf_faces_expression": rtf("faces_expression"), "rtf_gaze_cuts": rtf("gaze_cuts"),
        "rtf_asr": rtf("transcribe"), "rtf_diarize": rtf("diarize"), "rtf_embed": rtf("embed"),
        "rtf_tracks_reid": rtf("face_crops", "tracks"),  # face crops, thumbnails, identity, re-identification
        "rtf_decode_embed_asr": rtf("decode", "clip_frames", "transcribe", "embed"),
        "peak_rss_mib_index": round(index["peak_rss_mib"]),
        "cache_mib": round(sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 2**20, 2),
        "query_cold_s": q1["wall_s"], "query_warm_in_session_s": q1_again["wall_s"],
        "query_new_in_session_s": q2["wall_s"], "query_warm_fresh_process_s": round(fresh["wall_s"], 2),
        "peak_rss_mib_query": round(max(session["peak_rss_mib"], fresh["peak_rss_mib"])),
        "verifier_frames_2_queries": verifier_frames,
        "query_change_in_session_s": q3["wall_s"],
        "query_feeling_requery_in_session_s": q4["wall_s"],
        "verifier_frames_per_question": {q["query"]: q["tool_calls"].get("face_expression_frames", 0)
                                         for q in (q1, q2, q3, q4)},
        "index_frames_read_back_per_question": {q["query"]: q["tool_calls"].get("index_frames_reused", 0)
                                                for q in (q1, q2, q3, q4)},
        "gesture_frames_per_question": {q["query"]: q["tool_calls"].get("gesture_frames", 0) for q in (q1, q2, q3, q4)},
    }
    if brute:
        b = _run_child("brute", video, cache)
        row.update({"brute_force_frames": b["frames"], "brute_force_s": round(b["seconds"], 1),
                    "tool_fps": b["tool_fps"],
                    "frames_ratio_brute_vs_agentic": round(b["frames"] / max(1, verifier_frames), 1)})
    return row


BASES = {"clips": base_video, "dialogue": dialogue_video}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:6])
        return 0
    p = CommandParser(prog="affectseek bench", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, nargs="+", default=[10.0, 30.0, 60.0],
                   help="lengths of the looped videos to index and question (default 10 30 60)")
    p.add_argument("--bases", nargs="+", choices=sorted(BASES), default=["clips", "dialogue"],
                   help="looped units: the two shared clips (little speech) and/or the dialogue-dense real speech")
    p.add_argument("--brute-force-minutes", type=float, nargs="*", default=None,
                   help="lengths to run the every-frame baseline on (default: all; none: skip it)")
    p.add_argument("--voice-emotion", default="voice8", choices=("voice8", "whisper8"),
                   help="the vocal emotion model the index reads (default voice8)")
    p.add_argument("--out", type=Path, default=REPO / "benches" / "results.json",
                   help="the result file (default benches/results.json)")
    p.add_argument("--workdir", type=Path, default=None,
                   help="where the long videos and caches go, made when missing (default: tmp)")
    args = p.parse_args()
    if args.workdir is not None:
        try:
            args.workdir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            p.error(f"--workdir {args.workdir}: {exc.strerror}")
    rows = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for name in args.bases:
            base = BASES[name](Path(tmp) / f"base-{name}.mp4")
            for minutes in args.minutes:
                video = loop_video(base, Path(tmp) / f"{name}{minutes:g}m.mp4", minutes * 60)
                brute = args.brute_force_minutes is None or minutes in args.brute_force_minutes
                row = {"base": name, "voice": args.voice_emotion,
                       **measure(video, Path(tmp) / f"cache-{name}{minutes:g}", minutes, brute=brute,
                                 voice=args.voice_emotion)}
                rows.append(row)
                print(json.dumps(row), flush=True)
                args.out.write_text(json.dumps({"queries": [Q1, Q2, Q3, Q4], "cpu_count": os.cpu_count(), "rows": rows},
                                               indent=2))
    keys = list(dict.fromkeys(k for r in rows for k in r if k != "tool_fps"))
    print("| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r.get(k, "")) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
