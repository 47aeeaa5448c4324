#!/usr/bin/env bash
# The confidence's calibration of agents/fusion.json (evals/RESULTS.md section 163): after studies/scripts/fit_fusion.sh
# (whose fit writes the weights and a plain Platt scaling), the judged candidates of four development sets and the
# intercept per judged label chosen and fitted on them. Needs the fusion fold's records of fit_fusion.sh in W, the
# repository snapshots of evals/data/SOURCES.md in MIRRORS and the assembled composed sets (evals.data.assemble).
# Usage: bash studies/scripts/label_calibration.sh [WORK_DIR] [MIRRORS]      (writes agents/fusion.json)
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-runs/fusion}
M=${2:-/work/.mirror}
PY=${PYTHON:-.venv/bin/python}
$PY -m evals.data.javanese --mirrors "$M" --split dev --out "$W/javanese-clips"
$PY -m evals.build_bench "$W/javanese-clips" --format javanese --clips-per-video 10 --seed 0 --out "$W/bench-javanese"
$PY -m studies.label_calibration clips --mirrors "$M" --out "$W/recorded-clips"
$PY -m evals.build_bench "$W/recorded-clips" --format csv --clips-per-video 8 --seed 0 --out "$W/bench-recorded"
$PY -m evals.composed --split test --form joined --videos 12 --seed 11 --faces mixed --out "$W/bench-mixed11"
for s in javanese recorded mixed11; do
  $PY -m studies.fit_fusion collect --bench "$W/bench-$s/bench.jsonl" --out "$W/$s.jsonl" --cache-dir "$W/cache-$s"
done
$PY -m studies.label_calibration fit --set fold="$W/fold-joined.jsonl" --set mixed11="$W/mixed11.jsonl" \
    --set javanese="$W/javanese.jsonl" --set recorded="$W/recorded.jsonl" --rows "$W/calibration_rows.jsonl" \
    --json "$W/calibration.json" --out agents/fusion.json
# The shipped calibration with whisper8 reading the voice (evals/RESULTS.md section 165): the Javanese development
# people's records collected again with --voice-emotion whisper8 (judged with its vocal weight 0.40), scored against
# the calibration before section 163 and nested (chosen and fitted on the other three sets' rows)
$PY -m studies.fit_fusion collect --bench "$W/bench-javanese/bench.jsonl" --out "$W/javanese-whisper8.jsonl" \
    --cache-dir "$W/cache-javanese-whisper8" --voice-emotion whisper8
git show 0c29236:agents/fusion.json > "$W/fusion-before-163.json"
$PY -m studies.label_calibration score --set javanese="$W/javanese-whisper8.jsonl" \
    --before "$W/fusion-before-163.json" \
    --nested "$W/calibration_rows.jsonl" --json "$W/calibration_whisper8.json"
