"""Indexing and query benchmark on long real input (looped shared/media clips), 2-CPU friendly.

    python benches/bench_index.py [--minutes 1 5] [--video PATH] [--out benches/results.json]

For each length it builds a looped copy of the bundled sample (PyAV remux, nothing committed), then in
fresh subprocesses (so each peak RSS is its own):
  1. cold run: index + query -> per-stage real-time factor (video seconds per wall second), peak RSS;
  2. warm run: a second query on the cached index -> query latency;
  3. brute force: every verifier tool (face detection, expression, gestures, gaze) on every frame at
     the verifier's 4 fps over the whole video, the baseline the agentic verifier avoids -> frames,
     seconds, per-tool throughput (frames/s), and the ratio.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
QUERY = "when does the audience enjoy the show?"


def loop_video(src: Path, dst: Path, seconds: float) -> Path:
    """Remux ``src`` back to back until ``seconds`` are covered (stream copy, no re-encode)."""
    import av

    with av.open(str(src)) as probe_c:
        one = probe_c.duration / 1_000_000
    n = max(1, int(seconds // one + (seconds % one > 0)))
    with av.open(str(dst), "w") as out:
        outs = {}
        offset = 0.0
        for _ in range(n):
            with av.open(str(src)) as inp:
                streams = [s for s in (inp.streams.video[:1] + inp.streams.audio[:1])]
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
                offset = last
    return dst


def _child(mode: str, video: str, cache: str) -> None:
    """Run one measurement in this (fresh) process and print a JSON line."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    t0 = time.perf_counter()
    if mode == "brute":
        from memory.video import iter_frames
        from tools.expression import load_expression_classifier
        from tools.faces import load_face_detector
        from tools.gaze import load_gaze_estimator
        from tools.gestures import load_gesture_recognizer

        det, clf = load_face_detector(), load_expression_classifier()
        hands, gaze = load_gesture_recognizer(), load_gaze_estimator()
        spent = {"decode": 0.0, "faces": 0.0, "expression": 0.0, "gestures": 0.0, "gaze": 0.0}
        n, t_prev = 0, time.perf_counter()
        for t, frame in iter_frames(video, 4.0):
            t_now = time.perf_counter()
            spent["decode"] += t_now - t_prev
            boxes = [b for b, _ in det.detect(frame)]
            t1 = time.perf_counter()
            clf.classify(frame, boxes)
            t2 = time.perf_counter()
            hands.recognize(frame, t, boxes, "h")
            t3 = time.perf_counter()
            gaze.estimate(frame, boxes)
            t4 = time.perf_counter()
            spent["faces"] += t1 - t_now
            spent["expression"] += t2 - t1
            spent["gestures"] += t3 - t2
            spent["gaze"] += t4 - t3
            n += 1
            t_prev = time.perf_counter()
        result = {"frames": n, "seconds": sum(spent.values()),
                  "tool_fps": {k: round(n / v, 1) for k, v in spent.items() if v > 0}}
    else:
        from graphs.pipeline import answer_query

        a = answer_query(video, QUERY if mode == "cold" else "when is someone sad?", cache_dir=cache)
        result = {"timings": a.timings_s, "tool_calls": a.index["tool_calls"], "moments": len(a.moments),
                  "duration_s": a.duration_s, "built_now": a.index["built_now"]}
    result["wall_s"] = time.perf_counter() - t0
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(result))


def _run_child(mode: str, video: Path, cache: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", mode, str(video), str(cache)], check=False,
                          capture_output=True,
                          text=True, cwd=REPO)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"{mode} run failed:\n{proc.stderr[-2000:]}")
    return json.loads(line[7:])


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:5])
        return 0
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, nargs="+", default=[1.0, 5.0])
    p.add_argument("--video", type=Path, default=REPO / "samples" / "hamilton_short.mp4")
    p.add_argument("--out", type=Path, default=REPO / "benches" / "results.json")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for minutes in args.minutes:
            video = loop_video(args.video, Path(tmp) / f"long{minutes:g}m.mp4", minutes * 60)
            cache = Path(tmp) / f"cache{minutes:g}"
            cold = _run_child("cold", video, cache)
            warm = _run_child("warm", video, cache)
            brute = _run_child("brute", video, cache)
            d = cold["duration_s"]
            t = cold["timings"]
            agentic_frames = cold["tool_calls"].get("face_expression_frames", 0) + \
                warm["tool_calls"].get("face_expression_frames", 0)
            print("per-tool throughput on 2 cores (frames/s, every 4 fps frame):", brute["tool_fps"], flush=True)
            row = {
                "minutes": minutes, "duration_s": d,
                "rtf_decode_faces": round(d / t["index_decode_faces"], 2),
                "rtf_transcribe": round(d / t["index_transcribe"], 2),
                "rtf_embed": round(d / t["index_embed"], 2),
                "rtf_index_total": round(d / t["index_total"], 2),
                "cold_total_s": round(cold["wall_s"], 1),
                "warm_query_s": round(warm["timings"]["total"], 2),
                "warm_graph_s": round(warm["timings"]["graph"], 2),
                "warm_process_s": round(warm["wall_s"], 1),
                "peak_rss_mib_cold": round(cold["peak_rss_mib"]),
                "peak_rss_mib_warm": round(warm["peak_rss_mib"]),
                "verifier_frames_2_queries": agentic_frames,
                "brute_force_frames": brute["frames"], "brute_force_s": round(brute["seconds"], 1),
                "tool_fps": brute["tool_fps"],
                "frames_ratio_brute_vs_agentic": round(brute["frames"] / max(1, agentic_frames), 1),
                "cache_mib": round(sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 2**20, 2),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    args.out.write_text(json.dumps({"query": QUERY, "cpu_count": os.cpu_count(), "rows": rows}, indent=2))
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |\n|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r[k]) for k in keys) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
