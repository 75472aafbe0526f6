#!/usr/bin/env bash
# Sluice delivering to NATS JetStream under the accepting load of delivery-bench.sh, and
# JetStream's own ceiling on the same machine. Usage: broker-bench-nats.sh [SECONDS] (60).
# Prints: accepted/s, delivered/s (stream message count), lag p50/p99 (stream time minus
# the UUIDv7 receipt time), a plain async publisher's acked/s (1 KiB, same as the load's
# bodies), and the rate of a backlog replay (destination paused under load, then resumed).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs="${1:-60}"

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
nats_pid=""
cleanup() {
  stop_pid "$server_pid"
  stop_pid "$nats_pid"
  rm -rf "$work"
}
trap cleanup EXIT

start_nats() {
  if [ -n "$nats_pid" ]; then kill "$nats_pid"; wait "$nats_pid" || true; fi
  rm -rf "$work/nats"; mkdir -p "$work/nats"
  "$nats_server" -js -a 127.0.0.1 -p 14222 -sd "$work/nats" > "$work/nats.log" 2>&1 &
  nats_pid=$!
  wait_port 127.0.0.1 14222; sleep 0.5
  "${bench[@]}" stream "$nats_url" HOOKS 'hooks.>'
}

start_sluice() { # name
  delivery_yaml "$1" bench-nats "{listen: \"127.0.0.1:18082\", token: \"$token\"}" 18081 \
    '  bus: {type: nats, servers: ["'"$nats_url"'"], subject: "hooks.{tenant}.{source}", max_in_flight: 64}' bus
  launch_sluice "$1" 18081 18082
}
admin() { curl -sf --retry 5 --retry-connrefused -X POST -H "Authorization: Bearer $token" -H "X-Sluice-Actor: bench" "http://127.0.0.1:18082$1" > /dev/null; }

load() { # label: wrk at full load; sets ACCEPTED FROM TO
  accepting_load "$1" 18081
  echo "$1: accepted/s=$(per_second "$ACCEPTED" "$((TO - FROM))") (non_2xx $NON2XX)"
}
stream_holds() { [ "$("${bench[@]}" count "$nats_url" HOOKS)" -ge "$1" ]; } # count
drain() { # expected: until the stream holds that many (up to 300 s); prints when
  local start; start=$(now_ms)
  poll 1500 0.2 stream_holds "$1" || true
  DRAINED=$(now_ms); echo "  stream holds $("${bench[@]}" count "$nats_url" HOOKS) messages, $((DRAINED - start)) ms after the load stopped"
}

echo "load before: $(uptime)"; echo "cores: $(nproc)"

start_nats
"${bench[@]}" ceiling "$nats_url" "$secs" 1024 256

start_nats
start_sluice live
load "full load, nats destination"
in_window=$("${bench[@]}" count "$nats_url" HOOKS)
echo "  delivered/s during the load=$(per_second "$in_window" "$((TO - FROM))") (stream count at the end of the load)"
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
echo "  backlog replay: $ACCEPTED hooks in $((DRAINED - resumed)) ms = $(per_second "$ACCEPTED" "$((DRAINED - resumed))") delivered/s"
stop_sluice
echo "load after: $(uptime)"
