#!/usr/bin/env bash
# The composed-bench evaluation of evals/RESULTS.md: builds the benches, runs every method and ablation.
# Needs the assembled labelled sets (python -m evals.data.assemble; evals/data/SOURCES.md).
# Usage: bash evals/scripts/composed_eval.sh [RUNS_DIR] [CACHE_DIR]     (about 40 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-runs/composed}
CACHE=${2:-${AFFECTSEEK_CACHE:-$HOME/.cache/affectseek}}
PY=${PYTHON:-.venv/bin/python}
mkdir -p "$RUNS"
$PY -m evals.composed --split dev --form joined --videos 6 --out "$RUNS/bench-dev-joined"
$PY -m evals.composed --split test --form joined --videos 12 --out "$RUNS/bench-test-joined"
$PY -m evals.composed --split test --form long --videos 2 --out "$RUNS/bench-test-long"
run() { local bench=$1 name=$2; shift 2; $PY -m evals.run --bench "$RUNS/$bench/bench.jsonl" --out "$RUNS/$name" --cache-dir "$CACHE" "$@"; }
run bench-dev-joined dev-graph --method graph
run bench-dev-joined dev-clip_only --method clip_only
for m in graph clip_only uniform random; do run bench-test-joined test-$m --method $m; done
PREV=(--expression-backend fer --no-voice-emotion --affect-weight 0 --abstain-below 0.3)
run bench-test-joined test-graph-prev --method graph "${PREV[@]}"
run bench-test-joined test-clip_only-fer --method clip_only --expression-backend fer --no-voice-emotion
run bench-test-joined test-graph-fer --method graph --expression-backend fer
run bench-test-joined test-graph-novoice --method graph --no-voice-emotion
run bench-test-joined test-graph-aw0 --method graph --affect-weight 0
for m in graph clip_only uniform random; do run bench-test-long long-$m --method $m; done
run bench-test-long long-graph-prev --method graph "${PREV[@]}"
$PY -m studies.faces --per-clip "$RUNS/bench-test-joined/bench.jsonl" --cache-dir "$CACHE" --json "$RUNS/per_clip_faces.json"
$PY -m studies.per_emotion "$RUNS/bench-test-joined/bench.jsonl" "$RUNS"/test-graph "$RUNS"/test-clip_only \
    "$RUNS"/test-uniform "$RUNS"/test-random "$RUNS"/test-graph-prev > "$RUNS/per_emotion_test.md"
$PY -m evals.report "$RUNS"/dev-* "$RUNS"/test-* "$RUNS"/long-* --out "$RUNS/report"
