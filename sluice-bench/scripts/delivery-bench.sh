#!/usr/bin/env bash
# Delivery benchmark, on this machine, in one run (issue 13):
#  0. the receiver's own ceiling: wrk -t2 -c64 straight at the nginx destination;
#  1. full accepting load with one HTTP destination: wrk -t2 -c64 posting signed 1 KiB
#     hooks (as in edge-bench.sh) for SECONDS; accepted/s from wrk, delivered/s and the
#     delivery lag (arrival at nginx - receipt, the receipt read from the UUIDv7
#     webhook-id) from nginx's own log, after the backlog has drained;
#  2. half that load, open loop (`sluice load --rate accepted/2`): the lag when the
#     dispatcher is not behind;
#  3. full load fanned out to two destinations.
# Usage (from anywhere): sluice-bench/scripts/delivery-bench.sh [seconds, default 60]
#   SLUICE_JAR=path   run that server jar instead of building this checkout's (a before/after
#                     comparison in the same conditions)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scripts="$root/sluice-bench/scripts"
fixtures="$scripts/fixtures"
secs="${1:-60}"
cd "$root"

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
  apt-get install -y wrk nginx-light >/dev/null
fi
if [ -z "${SLUICE_JAR:-}" ]; then
  mvn -B -ntp -q -pl sluice-edge -am package -DskipTests
fi
sluice_jar="${SLUICE_JAR:-$root/sluice-edge/target/sluice.jar}"
echo "server: $sluice_jar"
work="$(mktemp -d)"
logs=/tmp/nginx-receiver
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  nginx -c "$fixtures/nginx-receiver.conf" -s stop 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

wait_port() { # host port
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listening on $1:$2" >&2; return 1
}
now_ms() { date +%s%3N; }

start_receiver() {
  nginx -c "$fixtures/nginx-receiver.conf" -s stop 2>/dev/null || true
  sleep 0.5
  rm -rf "$logs"; mkdir -p "$logs"
  nginx -c "$fixtures/nginx-receiver.conf"
  wait_port 127.0.0.1 18090
}

start_sluice() { # name destinations-yaml deliver_to-list
  cat > "$work/$1.yaml" <<YAML
node: {id: bench-delivery, data_dir: "$work/$1-data"}
admin: {listen: "127.0.0.1:0"}
http: {listen: "127.0.0.1:18081"}
intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
destinations:
$2
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}, dedupe: {header: X-Event-Id}, deliver_to: [$3]}
YAML
  java -Xms1g -Xmx1g -jar "$sluice_jar" serve --config "$work/$1.yaml" > "$work/$1.out" 2> "$work/$1.err" &
  server_pid=$!
  wait_port 127.0.0.1 18081
}

stop_sluice() {
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=""
}

lines() { # log: lines with a webhook-id
  if [ -f "$1" ]; then grep -vc ' -$' "$1" || true; else echo 0; fi
}

drain() { # expected log...: wait (up to 300 s) until each log has at least expected lines
  local expected=$1; shift
  for _ in $(seq 1 3000); do
    local done=1
    for log in "$@"; do
      if [ "$(lines "$log")" -lt "$expected" ]; then done=0; fi
    done
    if [ $done = 1 ]; then return 0; fi
    sleep 0.1
  done
  echo "  (not drained after 300 s)"
}

APP='  app: {url: "http://127.0.0.1:18090/hooks", max_in_flight: 64}'
AUDIT='  audit: {url: "http://127.0.0.1:18091/hooks", max_in_flight: 64}'

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the receiver's ceiling ---------------------------------------------------------
start_receiver
wrk -t2 -c64 -d"${secs}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18090/hooks" > "$work/ceiling.wrk"
echo "receiver ceiling (wrk straight at nginx): $(awk '/Requests\/sec/ {print $2}' "$work/ceiling.wrk") requests/s"

accepting() { # label logs...: wrk at full load, then drain and report
  local label=$1; shift
  local from; from=$(now_ms)
  wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/$label.wrk"
  local to; to=$(now_ms)
  local total; total=$(awk '/requests in/ {print $1}' "$work/$label.wrk")
  local non2xx; non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$label.wrk"); non2xx=${non2xx:-0}
  local accepted=$((total - non2xx))
  echo "$label: accepted/s=$(awk -v a="$accepted" -v ms="$((to - from))" 'BEGIN {printf "%.0f", a / (ms / 1000)}') (wrk: $(awk '/Requests\/sec/ {print $2}' "$work/$label.wrk") requests/s, non_2xx $non2xx, latency $(awk '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print "p50=" p50 " p99=" p99}' "$work/$label.wrk"))"
  local start_drain; start_drain=$(now_ms)
  drain "$accepted" "$@"
  echo "  backlog drained $(( $(now_ms) - start_drain )) ms after the load stopped"
  for log in "$@"; do
    echo "  $(basename "$log" .log): $(python3 "$scripts/delivery-lag.py" "$log" "$from" "$to")"
  done
  ACCEPTED_PER_S=$(awk -v a="$accepted" -v ms="$((to - from))" 'BEGIN {printf "%.0f", a / (ms / 1000)}')
}

# ---- 1. full load, one destination -----------------------------------------------------
start_receiver
start_sluice one "$APP" app
accepting "full load, 1 destination" "$logs/app.log"
stop_sluice

# ---- 2. half load, open loop -----------------------------------------------------------
half=$((ACCEPTED_PER_S / 2))
start_receiver
start_sluice half "$APP" app
from=$(now_ms)
java -Xmx512m -jar "$sluice_jar" load --url http://127.0.0.1:18081/hooks --source bench --scheme hmac \
  --secret bench-secret --rate "$half" --duration "${secs}s" --connections 64 --body-bytes 1024 --json > "$work/half.json"
to=$(now_ms)
sent=$(python3 -c "import json,sys; d=json.load(open('$work/half.json')); print(d.get('status', {}).get('202', 0))")
echo "half load ($half/s offered, open loop): 202 answers=$sent; sluice load summary: $(python3 -c "import json; d=json.load(open('$work/half.json')); print({k: d[k] for k in d if k in ('sent', 'errors', 'not_sent', 'latency_ms')})")"
drain "$sent" "$logs/app.log"
echo "  app: $(python3 "$scripts/delivery-lag.py" "$logs/app.log" "$from" "$to")"
stop_sluice

# ---- 3. fan-out to two destinations ----------------------------------------------------
start_receiver
start_sluice fanout "$APP
$AUDIT" "app, audit"
accepting "full load, fan-out to 2 destinations" "$logs/app.log" "$logs/audit.log"
stop_sluice

echo "load after: $(uptime)"
