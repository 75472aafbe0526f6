#!/usr/bin/env bash
# Adaptive pacing against a receiver whose capacity changes during the run (issue 47).
# The receiver (fixtures/CapacityReceiver.java) answers 200 while its bucket (its capacity
# per second, a tenth of a second's burst) has a token, else 429 without Retry-After; its
# capacity follows SCHEDULE from its first request and it logs its 200s and 429s each second.
# `sluice load` offers signed 1 KiB hooks at OFFERED/s, above every capacity, so the
# destination always has a backlog and its pacing alone decides what is sent. Two runs, each
# on a fresh server and receiver:
#  1. rate: {rate: adaptive, min: 1, max: MAX};
#  2. rate: {rate: FIXED, burst: FIXED/10}, a fixed rate at the schedule's highest capacity.
# Per capacity phase: delivered/s (200s) against the capacity, the 429s, and how many seconds
# the delivered rate took to reach 70% of the capacity with 429s under 10% of it
# (adaptive-report.py); the adaptive run also samples the pace gauge once a second.
# Usage (from anywhere): sluice-bench/scripts/adaptive-bench.sh
#   SCHEDULE=cap:s,...  the receiver's capacities (default 200:30,50:20,400:30,100:20)
#   OFFERED=n           hooks/s offered (default 500)
#   MAX=n               the adaptive max (default 1000)
#   FIXED=n             the fixed run's rate (default: the schedule's highest capacity; 0: no fixed run)
#   TRANSPORT=t, SLUICE_JAR=path  as in delivery-bench.sh
#   KEEP=dir            copy each run's per-second CSV, pace samples and receiver output there
set -euo pipefail
source "$(dirname "$0")/lib.sh"

schedule="${SCHEDULE:-200:30,50:20,400:30,100:20}"
offered="${OFFERED:-500}"
max="${MAX:-1000}"
highest=$(echo "$schedule" | tr ',' '\n' | cut -d: -f1 | sort -n | tail -1)
fixed="${FIXED:-$highest}"
seconds=$(echo "$schedule" | tr ',' '\n' | cut -d: -f2 | paste -sd+ | bc)

server_jar
work="$(mktemp -d)"
receiver_pid=""
load_pid=""
cleanup() { stop_pid "$load_pid"; stop_pid "$server_pid"; stop_pid "$receiver_pid"; rm -rf "$work"; }
trap cleanup EXIT

echo "load before: $(uptime)"
echo "cores: $(nproc); schedule $schedule ($seconds s); offered $offered/s"

pace_now() { curl -sf "http://127.0.0.1:18082/metrics" | awk '/^sluice_delivery_pace_per_second/ {print $2; exit}'; }

run() { # label rate-yaml
  local label=$1 rate=$2
  java "$fixtures/CapacityReceiver.java" 18090 "$schedule" "$work/$label.csv" > "$work/$label.receiver.out" 2>&1 &
  receiver_pid=$!
  wait_port 127.0.0.1 18090
  delivery_yaml "$label" bench-adaptive '{listen: "127.0.0.1:18082", token: "adaptive-bench-token-0123456789"}' 18081 \
    "  app: {url: \"http://127.0.0.1:18090/hooks\", max_in_flight: 64, rate: $rate,
         retry: {initial_ms: 500, max_ms: 5000, max_attempts: 100000}, breaker: {failures: 1000000}}" app
  launch_sluice "$label" 18081 18082
  SLUICE_LOAD_SECRET=bench-secret java -Xmx512m -jar "$sluice_jar" load --url http://127.0.0.1:18081/hooks \
    --source bench --scheme hmac --rate "$offered" --duration "$((seconds + 30))s" --connections 16 --body-bytes 1024 \
    --json > "$work/$label.load.json" 2> "$work/$label.load.err" &
  load_pid=$!
  : > "$work/$label.pace"
  while kill -0 "$receiver_pid" 2>/dev/null; do # until the receiver's schedule has run out
    echo "$(now_ms) $(pace_now || echo -)" >> "$work/$label.pace"
    sleep 1
  done
  wait "$receiver_pid" || true; receiver_pid=""
  stop_pid "$load_pid"; load_pid=""
  stop_sluice
  echo "$label ($rate):"
  local started; started=$(sed -n 's/^started_ms=//p' "$work/$label.receiver.out")
  python3 "$scripts/adaptive-report.py" "$work/$label.csv" "$work/$label.pace" "$started" | sed 's/^/  /'
  if [ -n "${KEEP:-}" ]; then cp "$work/$label.csv" "$work/$label.pace" "$work/$label.receiver.out" "$KEEP/"; fi
}

run adaptive "{rate: adaptive, min: 1, max: $max}"
if [ "$fixed" -gt 0 ]; then
  run fixed "{rate: $fixed, burst: $((fixed / 10))}"
fi
echo "load after: $(uptime)"
