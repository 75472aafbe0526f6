#!/usr/bin/env bash
# Sluice delivering to NATS JetStream under the accepting load of delivery-bench.sh, and
# JetStream's own ceiling on the same machine. Usage: broker-bench-nats.sh [SECONDS] (60).
# Prints: accepted/s, delivered/s (stream message count), lag p50/p99 (stream time minus
# the UUIDv7 receipt time), a plain async publisher's acked/s (1 KiB, same as the load's
# bodies), and the rate of a backlog replay (destination paused under load, then resumed).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scripts="$root/sluice-bench/scripts"
fixtures="$scripts/fixtures"
secs="${1:-60}"
cd "$root"

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || apt-get install -y nats-server >/dev/null
nats_server=$(command -v nats-server || echo /usr/sbin/nats-server)
# SKIP_BUILD=1 uses the jars of the last build (broker-bench.sh builds once for both parts)
[ "${SKIP_BUILD:-}" = 1 ] || mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package -DskipTests -Djcstress.skip=true
sluice_jar="$root/sluice-edge/target/sluice.jar"
bench=(java -cp "$root/sluice-bench/target/benchmarks.jar" org.sluice.bench.edge.NatsBench)
work="$(mktemp -d)"
nats_url=nats://127.0.0.1:14222
token=broker-bench-token-0123456789
server_pid=""; nats_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$nats_pid" ]; then kill "$nats_pid" 2>/dev/null || true; wait "$nats_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

wait_port() { for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
now_ms() { date +%s%3N; }

start_nats() {
  if [ -n "$nats_pid" ]; then kill "$nats_pid"; wait "$nats_pid" || true; fi
  rm -rf "$work/nats"; mkdir -p "$work/nats"
  "$nats_server" -js -a 127.0.0.1 -p 14222 -sd "$work/nats" > "$work/nats.log" 2>&1 &
  nats_pid=$!
  wait_port 127.0.0.1 14222; sleep 0.5
  "${bench[@]}" stream "$nats_url" HOOKS 'hooks.>'
}

start_sluice() { # name
  cat > "$work/$1.yaml" <<YAML
node: {id: bench-nats, data_dir: "$work/$1-data"}
admin: {listen: "127.0.0.1:18082", token: "$token"}
http: {listen: "127.0.0.1:18081"}
intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
destinations:
  bus: {type: nats, servers: ["$nats_url"], subject: "hooks.{tenant}.{source}", max_in_flight: 64}
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}, dedupe: {header: X-Event-Id}, deliver_to: [bus]}
YAML
  java -Xms1g -Xmx1g -jar "$sluice_jar" serve --config "$work/$1.yaml" > "$work/$1.out" 2> "$work/$1.err" &
  server_pid=$!
  wait_port 127.0.0.1 18081; wait_port 127.0.0.1 18082
}
stop_sluice() { kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=""; }
admin() { curl -sf --retry 5 --retry-connrefused -X POST -H "Authorization: Bearer $token" -H "X-Sluice-Actor: bench" "http://127.0.0.1:18082$1" > /dev/null; }

load() { # label: wrk at full load; sets ACCEPTED FROM TO
  FROM=$(now_ms)
  wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/$1.wrk"
  TO=$(now_ms)
  local total non2xx; total=$(awk '/requests in/ {print $1}' "$work/$1.wrk")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$1.wrk"); non2xx=${non2xx:-0}
  ACCEPTED=$((total - non2xx))
  echo "$1: accepted/s=$(awk -v a="$ACCEPTED" -v ms="$((TO - FROM))" 'BEGIN {printf "%.0f", a / (ms / 1000)}') (non_2xx $non2xx)"
}
drain() { # expected: until the stream holds that many (up to 300 s); prints when
  local start; start=$(now_ms)
  for _ in $(seq 1 1500); do
    [ "$("${bench[@]}" count "$nats_url" HOOKS)" -ge "$1" ] && break
    sleep 0.2
  done
  DRAINED=$(now_ms); echo "  stream holds $("${bench[@]}" count "$nats_url" HOOKS) messages, $((DRAINED - start)) ms after the load stopped"
}

echo "load before: $(uptime)"; echo "cores: $(nproc)"

start_nats
"${bench[@]}" ceiling "$nats_url" "$secs" 1024 256

start_nats
start_sluice live
load "full load, nats destination"
in_window=$("${bench[@]}" count "$nats_url" HOOKS)
echo "  delivered/s during the load=$(awk -v n="$in_window" -v ms="$((TO - FROM))" 'BEGIN {printf "%.0f", n / (ms / 1000)}') (stream count at the end of the load)"
drain "$ACCEPTED"
echo "  $("${bench[@]}" lag "$nats_url" HOOKS "$FROM" "$TO")"
stop_sluice

start_nats
start_sluice replay
admin /v1/destinations/bus/pause
load "backlog build-up (destination paused)"
sleep 2
resumed=$(now_ms); admin /v1/destinations/bus/resume
drain "$ACCEPTED"
echo "  backlog replay: $ACCEPTED hooks in $((DRAINED - resumed)) ms = $(awk -v n="$ACCEPTED" -v ms="$((DRAINED - resumed))" 'BEGIN {printf "%.0f", n / (ms / 1000)}') delivered/s"
stop_sluice
echo "load after: $(uptime)"
