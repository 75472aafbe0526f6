#!/usr/bin/env bash
# Delivery benchmark, on this machine, in one run (issue 13):
#  0. the receiver's own ceiling: wrk -t2 -c64 straight at the nginx destination;
#  1. full accepting load with one HTTP destination: wrk -t2 -c64 posting signed 1 KiB
#     hooks (as in edge-bench.sh) for WARM_UP seconds not counted, the backlog drained,
#     then SECONDS; accepted/s from wrk, delivered/s and the
#     delivery lag (arrival at nginx - receipt, the receipt read from the UUIDv7
#     webhook-id) from nginx's own log, after the backlog has drained: over the hooks received
#     in the counted window (the figure of record), and over every hook, the warm-up's too;
#  2. half that load, open loop (`sluice load --rate accepted/2`, HALF_WARM_UP seconds (60)
#     not counted before the measured window): the lag when the dispatcher is not behind;
#  3. full load fanned out to two destinations (warmed up the same way).
# After each section: where the dispatcher's hook reads were served from
# (sluice_delivery_hook_reads_total, from the admin port 18082: memory or store).
# Usage (from anywhere): sluice-bench/scripts/delivery-bench.sh [seconds, default 60]
#   MAX_IN_FLIGHT=n   the destinations' max_in_flight (default 256: nginx on loopback takes far more;
#                     an attempt holds its slot until its answer is recorded, and under a full
#                     ingest load that cycle takes tens of ms, so 64 slots bound delivery; the
#                     runs before 2026-12-03 12:40 UTC used 64)
#   WARM_UP=s         seconds of full load before each full-load window, not counted (default 30;
#                     0: none); the backlog it leaves is drained before the window starts
#   HALF_WARM_UP=s    seconds of the half load run before its counted window (default 60)
#   TRANSPORT=t       http.transport of the server: auto, io_uring, epoll or nio (default: not set,
#                     the server's own default, auto); its boot line in the log says which runs
#   SLUICE_JAR=path   run that server jar instead of building this checkout's (a before/after
#                     comparison in the same conditions)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs="${1:-60}"

need_wrk_and_nginx
server_jar
work="$(mktemp -d)"
cleanup() { stop_pid "$server_pid"; stop_receiver; rm -rf "$work"; }
trap cleanup EXIT

start_sluice() { # name destinations-yaml deliver_to-list
  delivery_yaml "$1" bench-delivery '{listen: "127.0.0.1:18082", token: "delivery-bench-token-0123456789"}' 18081 "$2" "$3"
  launch_sluice "$1" 18081 18082
}

hook_reads() { # where the dispatcher's hook reads were served from, since the server started (a build without the metric: nothing)
  curl -sf "http://127.0.0.1:18082/metrics" | awk '/^sluice_delivery_hook_reads_total/ { sub(/.*from="/, ""); sub(/"}/, ""); printf "%s=%d ", $1, $2 }'
}

mif="${MAX_IN_FLIGHT:-256}"
APP="  app: {url: \"http://127.0.0.1:18090/hooks\", max_in_flight: $mif}"
AUDIT="  audit: {url: \"http://127.0.0.1:18091/hooks\", max_in_flight: $mif}"
echo "destinations: max_in_flight $mif"

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the receiver's ceiling ---------------------------------------------------------
start_receiver
wrk -t2 -c64 -d"${secs}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18090/hooks" > "$work/ceiling.wrk"
echo "receiver ceiling (wrk straight at nginx): $(wrk_rps "$work/ceiling.wrk") requests/s"

warm="${WARM_UP:-30}"

accepting() { # label logs...: WARM_UP s of wrk at full load and its backlog drained, not counted;
  # then wrk at full load for $secs, drain and report
  local label=$1; shift
  local before=0
  if [ "$warm" -gt 0 ]; then
    wrk -t2 -c64 -d"${warm}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/$label.warm.wrk"
    before=$(( $(wrk_total "$work/$label.warm.wrk") - $(wrk_non2xx "$work/$label.warm.wrk") ))
    local warm_drain; warm_drain=$(now_ms)
    drain_logs "$before" "$@"
    echo "$label: warm-up ${warm} s, $before accepted, its backlog drained $(( $(now_ms) - warm_drain )) ms after it"
  fi
  accepting_load "$label" 18081
  echo "$label: accepted/s=$(per_second "$ACCEPTED" "$((TO - FROM))") (wrk: $(wrk_rps "$work/$label.wrk") requests/s, non_2xx $NON2XX, latency $(wrk_latency "$work/$label.wrk"))"
  local start_drain; start_drain=$(now_ms)
  drain_logs "$((before + ACCEPTED))" "$@"
  echo "  backlog drained $(( $(now_ms) - start_drain )) ms after the load stopped"
  for log in "$@"; do # the counted hooks (received in the window), then every hook, the warm-up's included
    echo "  $(basename "$log" .log), hooks received in the window: $(python3 "$scripts/delivery-lag.py" "$log" "$FROM" "$TO" "$FROM")"
    echo "  $(basename "$log" .log), every hook: $(python3 "$scripts/delivery-lag.py" "$log" "$FROM" "$TO")"
  done
  echo "  hooks the dispatcher read, warm-up included: $(hook_reads)"
  ACCEPTED_PER_S=$(per_second "$ACCEPTED" "$((TO - FROM))")
}

# ---- 1. full load, one destination -----------------------------------------------------
start_receiver
start_sluice one "$APP" app
accepting "full load, 1 destination" "$logs/app.log"
stop_sluice

# ---- 2. half load, open loop -----------------------------------------------------------
# One run of the load tool, HALF_WARM_UP seconds (60) longer than the counted window, the
# first HALF_WARM_UP seconds not counted. The tool is a fresh JVM: until its JIT has compiled
# its hot paths it falls behind its schedule, then catches up in bursts of twice the rate
# (15 to 35 s into a run on this machine; a second run after a warm-up one starts cold
# again), which measures the tool's warm-up, not the server's steady state.
half=$((ACCEPTED_PER_S / 2))
half_warm="${HALF_WARM_UP:-60}"
start_receiver
start_sluice half "$APP" app
started=$(now_ms)
SLUICE_LOAD_SECRET=bench-secret java -Xmx512m -jar "$sluice_jar" load --url http://127.0.0.1:18081/hooks --source bench --scheme hmac \
  --rate "$half" --duration "$((secs + half_warm))s" --connections 64 --body-bytes 1024 --json > "$work/half.json"
to=$(now_ms)
from=$((started + half_warm * 1000))
sent=$(python3 -c "import json,sys; d=json.load(open('$work/half.json')); print(d.get('status', {}).get('202', 0))")
echo "half load ($half/s offered, open loop, ${half_warm} s warm-up then ${secs} s counted): 202 answers=$sent; sluice load summary (warm-up included): $(python3 -c "import json; d=json.load(open('$work/half.json')); print({k: d[k] for k in d if k in ('sent', 'errors', 'not_sent', 'latency_ms')})")"
drain_logs "$sent" "$logs/app.log"
echo "  app, hooks received after the warm-up: $(python3 "$scripts/delivery-lag.py" "$logs/app.log" "$from" "$to" "$from")"
echo "  app, every hook: $(python3 "$scripts/delivery-lag.py" "$logs/app.log" "$started" "$to")"
echo "  hooks the dispatcher read, warm-up included: $(hook_reads)"
stop_sluice

# ---- 3. fan-out to two destinations ----------------------------------------------------
start_receiver
start_sluice fanout "$APP
$AUDIT" "app, audit"
accepting "full load, fan-out to 2 destinations" "$logs/app.log" "$logs/audit.log"
stop_sluice

echo "load after: $(uptime)"
