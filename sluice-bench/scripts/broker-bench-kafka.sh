#!/usr/bin/env bash
# Kafka delivery benchmark, on this machine, in one run (issue 14):
#  0. the broker: one KRaft node (Kafka's test kit) in its own JVM, on a free port;
#  1. the plain producer's ceiling: an idempotent acks=all lz4 producer loop with 1 KiB
#     records straight at the broker, for SECONDS;
#  2. full accepting load with one kafka destination: wrk -t2 -c64 posting signed 1 KiB
#     hooks (as in delivery-bench.sh) for SECONDS; accepted/s from wrk; appended/s and the
#     lag (broker append time - receipt, the receipt read from the UUIDv7 webhook-id) from
#     the topic itself, read whole after the backlog has drained;
#  3. backlog replay: the destination paused while the same load is accepted, then resumed:
#     how fast Sluice publishes when ingest is not the bottleneck (hooks / time from the
#     first to the last append).
# Usage (from anywhere): sluice-bench/scripts/broker-bench-kafka.sh [seconds, default 60]
# (SKIP_BUILD=1 uses the jars of the last build.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scripts="$root/sluice-bench/scripts"
fixtures="$scripts/fixtures"
secs="${1:-60}"
cd "$root"

if ! command -v wrk >/dev/null; then
  apt-get install -y wrk >/dev/null
fi
if [ -z "${SKIP_BUILD:-}" ]; then # SKIP_BUILD=1: the jar, test classes and test.cp of a build just made
  mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package dependency:build-classpath -DskipTests -Djcstress.skip=true \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test.cp
fi
sluice_jar="$root/sluice-edge/target/sluice.jar"
tool_cp="$root/sluice-bench/target/test-classes:$root/sluice-bench/target/classes:$(cat "$root/sluice-bench/target/test.cp")"
tool() { java -Xmx1g -Dlogback.configurationFile="$root/sluice-bench/src/test/resources/logback-test.xml" -cp "$tool_cp" org.sluice.bench.consuming.KafkaBenchTool "$@"; }
work="$(mktemp -d)"
broker_pid=""
server_pid=""
TOKEN="bench-admin-token-0123456789abcdef"
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$broker_pid" ]; then kill "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; fi
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

admin() { # method path
  curl -sf -X "$1" -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:18182$2"
}
pending() {
  admin GET /v1/destinations | python3 -c "import json,sys; print(json.load(sys.stdin)['destinations'][0]['pending'])"
}

start_sluice() { # name topic
  cat > "$work/$1.yaml" <<YAML
node: {id: bench-kafka, data_dir: "$work/$1-data"}
admin: {listen: "127.0.0.1:18182", token: "$TOKEN"}
http: {listen: "127.0.0.1:18181"}
intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
destinations:
  bus: {type: kafka, bootstrap_servers: ["$bootstrap"], topic: "$2", key: source, compression: lz4, linger_ms: 5, max_in_flight: 256}
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}, dedupe: {header: X-Event-Id}, deliver_to: [bus]}
YAML
  java -Xms1g -Xmx1g -jar "$sluice_jar" serve --config "$work/$1.yaml" > "$work/$1.out" 2> "$work/$1.err" &
  server_pid=$!
  wait_port 127.0.0.1 18181
  wait_port 127.0.0.1 18182
}

stop_sluice() {
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=""
}

drain() { # wait (up to 300 s) until nothing is pending
  for _ in $(seq 1 3000); do
    if [ "$(pending)" = "0" ]; then return 0; fi
    sleep 0.1
  done
  echo "  (not drained after 300 s)"
}

load() { # label: wrk at full load; sets ACCEPTED, FROM, TO
  FROM=$(now_ms)
  wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18181/hooks/bench" > "$work/$1.wrk"
  TO=$(now_ms)
  local total; total=$(awk '/requests in/ {print $1}' "$work/$1.wrk")
  local non2xx; non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$1.wrk"); non2xx=${non2xx:-0}
  ACCEPTED=$((total - non2xx))
  echo "$1: accepted/s=$(awk -v a="$ACCEPTED" -v ms="$((TO - FROM))" 'BEGIN {printf "%.0f", a / (ms / 1000)}') ($ACCEPTED in $((TO - FROM)) ms; non_2xx $non2xx; latency $(awk '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print "p50=" p50 " p99=" p99}' "$work/$1.wrk"))"
}

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the broker ---------------------------------------------------------------------
tool broker "$work/bootstrap" > "$work/broker.out" 2>&1 &
broker_pid=$!
for _ in $(seq 1 1200); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
bootstrap="$(cat "$work/bootstrap")"
echo "broker: $bootstrap (one KRaft node, kafka-clients $(tr ':' '\n' < "$root/sluice-bench/target/test.cp" | grep -o 'kafka-clients-[0-9][0-9.]*[0-9]' | head -1 | sed 's/kafka-clients-//'))"

# ---- 1. the plain producer's ceiling ---------------------------------------------------
tool topic "$bootstrap" ceiling 3
tool ceiling "$bootstrap" ceiling "$secs" 1024

# ---- 2. full accepting load ------------------------------------------------------------
tool topic "$bootstrap" live.bench 3
start_sluice live "live.{tenant}"
load "full load, 1 kafka destination"
start_drain=$(now_ms)
drain
echo "  backlog drained $(( $(now_ms) - start_drain )) ms after the load stopped"
echo "  topic: $(tool count "$bootstrap" live.bench "$FROM" "$TO")"
stop_sluice

# ---- 3. backlog replay -----------------------------------------------------------------
tool topic "$bootstrap" replay.bench 3
start_sluice replay "replay.{tenant}"
admin POST /v1/destinations/bus/pause > /dev/null
load "backlog (destination paused)"
echo "  pending before resume: $(pending)"
resumed=$(now_ms)
admin POST /v1/destinations/bus/resume > /dev/null
drain
done_at=$(now_ms)
echo "  replay: resumed -> nothing pending in $((done_at - resumed)) ms"
echo "  topic: $(tool count "$bootstrap" replay.bench "$resumed" "$done_at")"
stop_sluice

echo "load after: $(uptime)"
