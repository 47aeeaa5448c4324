#!/usr/bin/env bash
# The confidence's calibration of agents/fusion.json (evals/RESULTS.md section 163): after studies/scripts/fit_fusion.sh
# (whose fit writes the weights and a plain Platt scaling), the judged candidates of four development sets and the
# intercept per judged label chosen and fitted on them, then the calibration of a label the departure named (section
# 167). Needs the fusion fold's records of fit_fusion.sh in W, the repository snapshots of evals/data/SOURCES.md in
# MIRRORS and the assembled composed sets (evals.data.assemble).
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
# A label the departure named (evals/RESULTS.md section 167): a calibration of its own, fitted on the Javanese people
# one person a video (the development five and the five read as test in section 166) and the recorded set above. The
# shipped one was collected with section 167's 20-frame gate; with the 12-frame gate of section 168 this gives that
# section's refit (held-out ECE within 0.005 of it), written beside the others for a user to ship by copying it over
$PY -m evals.data.javanese --mirrors "$M" --split test --out "$W/javanese-test-clips"
for s in dev test; do
  clips="$W/javanese-clips"
  if [ "$s" = test ]; then clips="$W/javanese-test-clips"; fi
  $PY -m evals.build_bench "$clips" --format javanese --clips-per-video 12 --seed 0 --by-person \
      --out "$W/bench-people-$s"
  $PY -m studies.fit_fusion collect --bench "$W/bench-people-$s/bench.jsonl" --out "$W/people-$s.jsonl" \
      --cache-dir "$W/cache-people-$s"
done
$PY -m studies.departed_calibration fit --set javanese_dev="$W/people-dev.jsonl" \
    --set javanese_former_test="$W/people-test.jsonl" --set recorded="$W/recorded.jsonl" \
    --rows "$W/departed_calibration_rows.jsonl" --json "$W/departed_calibration.json" --out "$W/fusion_departed.json"
# The shipped calibration with whisper8 reading the voice (evals/RESULTS.md section 165): the Javanese development
# people's records collected again with --voice-emotion whisper8 (judged with its vocal weight 0.40), scored against
# the calibration before section 163 and nested (chosen and fitted on the other three sets' rows)
$PY -m studies.fit_fusion collect --bench "$W/bench-javanese/bench.jsonl" --out "$W/javanese-whisper8.jsonl" \
    --cache-dir "$W/cache-javanese-whisper8" --voice-emotion whisper8
git show 0c29236:agents/fusion.json > "$W/fusion-before-163.json"
$PY -m studies.label_calibration score --set javanese="$W/javanese-whisper8.jsonl" \
    --before "$W/fusion-before-163.json" \
    --nested "$W/calibration_rows.jsonl" --json "$W/calibration_whisper8.json"
