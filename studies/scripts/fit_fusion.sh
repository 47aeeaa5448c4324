#!/usr/bin/env bash
# The fit of agents/fusion.json (agents/FUSION.md, evals/RESULTS.md section 4b): heads trained without the
# dev split's fusion fold, composed benches of the fold's people, the graph's judged candidates, the grid.
# Needs the assembled labelled sets (python -m evals.data.assemble). About 15 minutes on 2 cores.
# Usage: bash studies/scripts/fit_fusion.sh [WORK_DIR]      (writes agents/fusion.json; then
# studies/scripts/label_calibration.sh WORK_DIR refits its confidence's calibration, section 163)
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-runs/fusion}
PY=${PYTHON:-.venv/bin/python}
mkdir -p "$W/heads"
$PY -m studies.train_face --without-fusion-fold --c 0.001 --out "$W/heads/face8_fold.npz"
$PY -m studies.train_voice --without-fusion-fold --c 0.03 --out "$W/heads/voice8_fold.npz" --json "$W/heads/voice8_fold.json"
$PY -m evals.composed --split fusion --form joined --videos 16 --out "$W/bench-fusion-joined"
$PY -m evals.composed --split fusion --form long --videos 2 --out "$W/bench-fusion-long"
for f in joined long; do
  $PY -m studies.fit_fusion collect --bench "$W/bench-fusion-$f/bench.jsonl" --out "$W/fold-$f.jsonl" \
      --face-head "$W/heads/face8_fold.npz" --voice-head "$W/heads/voice8_fold.npz" --cache-dir "$W/cache-fold"
done
$PY -m studies.fit_fusion fit "$W/fold-joined.jsonl" "$W/fold-long.jsonl" --out agents/fusion.json | tee "$W/fit.json"
