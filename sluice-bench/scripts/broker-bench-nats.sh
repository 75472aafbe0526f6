#!/usr/bin/env bash
# Sluice delivering to NATS JetStream under the accepting load of delivery-bench.sh, and
# JetStream's own ceiling on the same machine. Usage: broker-bench-nats.sh [SECONDS] (60);
# MAX_IN_FLIGHT=n sets the destination's max_in_flight (default 256, as the other delivery benchmarks) and
# the plain publishers' window of unacknowledged messages (the same concurrency on both sides);
# WARM_UP=s (30) the same load first, not counted, on each server: the full-load server starts
# cold, and the replay server delivers that load live before its destination is paused, so
# that a replay measures a compiled delivery path, as on a server that has been delivering.
# Prints: accepted/s, delivered/s (stream message count), lag p50/p99 (stream time minus
# the UUIDv7 receipt time), a plain async publisher's acked/s (1 KiB, same as the load's
# bodies; then again with each message as Sluice sends it: its headers, a distinct
# Nats-Msg-Id, 16 subjects), and the rate of a backlog replay (destination paused under
# load, then resumed).
# ONLY=replay runs the backlog replay alone (no ceilings, no full load), e.g. to profile it.
# WARM_REPLAY=s (0, none): before the counted replay, a pause, s seconds of the load and a resume, drained
# and not counted, for a server that has replayed before (a pause and a resume deoptimise the dispatcher's
# compiled path: docs/bench-notes/brokers-2026-12-05-to-06.md, "Where a Kafka replay's CPU goes",
# which says how much this saves).
# CPU: after each ceiling, nats-server's CPU per message (the publisher's own is in its line), and after
# the replay Sluice's and nats-server's CPU per hook, how busy the machine was, and what 0.5x the plain
# publisher would leave per message (read from /proc; no process is started for it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs="${1:-60}"

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || apt-get install -y nats-server >/dev/null
nats_server=$(command -v nats-server || echo /usr/sbin/nats-server)
# SKIP_BUILD=1 uses the jars of the last build (broker-bench.sh builds once for both parts)
# SLUICE_JAR=path runs that server jar instead of this checkout's (a before/after comparison)
[ "${SKIP_BUILD:-}" = 1 ] || mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package -DskipTests -Djcstress.skip=true
sluice_jar="${SLUICE_JAR:-$root/sluice-edge/target/sluice.jar}"
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
    '  bus: {type: nats, servers: ["'"$nats_url"'"], subject: "hooks.{tenant}.{source}", max_in_flight: '"${MAX_IN_FLIGHT:-256}"'}' bus
  launch_sluice "$1" 18081 18082
}
admin() { curl -sf --retry 5 --retry-connrefused -X POST -H "Authorization: Bearer $token" -H "X-Sluice-Actor: bench" "http://127.0.0.1:18082$1" > /dev/null; }

warm="${WARM_UP:-30}"
warm_up() { # WARM_UP s of the same load, not counted, then the backlog drained
  if [ "$warm" -gt 0 ]; then
    wrk -t2 -c64 -d"${warm}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/warm.wrk"
    drain > /dev/null
  fi
}
load() { # label: wrk at full load; sets ACCEPTED FROM TO
  accepting_load "$1" 18081
  echo "$1: accepted/s=$(per_second "$ACCEPTED" "$((TO - FROM))") (non_2xx $NON2XX)"
}
pending() {
  curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:18082/v1/destinations" \
    | first_pending
}
nothing_pending() { [ "$(pending)" = "0" ]; }
drain() { # until Sluice has nothing pending (up to 300 s; an admin request twice a second, where
  # counting the stream would start a JVM each time and take the CPU the replay needs); prints when
  local start; start=$(now_ms)
  poll 600 0.5 nothing_pending || echo "  (not drained after 300 s)"
  DRAINED=$(now_ms); DRAINED_CPU=$(cpu_snapshot "$server_pid" "$nats_pid") # before the count's JVM
  echo "  stream holds $("${bench[@]}" count "$nats_url" HOOKS) messages, $((DRAINED - start)) ms after the load stopped"
}

echo "load before: $(uptime)"; echo "cores: $(nproc)"

if [ "${ONLY:-}" != replay ]; then # ONLY=replay: the backlog replay alone (no ceilings, no full load)
ceiling() { # [records]: the publisher loop on a fresh nats-server, then the server's CPU per message
  local before line
  start_nats
  before=$(cpu_snapshot "$nats_pid")
  line=$("${bench[@]}" ceiling "$nats_url" "$secs" 1024 "${MAX_IN_FLIGHT:-256}" ${1:-})
  echo "$line"
  echo "  CPU per message (nats-server's, from /proc; the window includes the publisher JVM's start): $(cpu_per_item "$before" "$(cpu_snapshot "$nats_pid")" "$(acked_count <<< "$line")" nats-server)"
  PLAIN_PER_S=${PLAIN_PER_S:-$(acked_per_s <<< "$line")}
}
ceiling
ceiling records

start_nats
start_sluice live
warm_up
before=$("${bench[@]}" count "$nats_url" HOOKS)
load "full load, nats destination (after ${warm} s of warm-up)"
in_window=$(( $("${bench[@]}" count "$nats_url" HOOKS) - before ))
echo "  delivered/s during the load=$(per_second "$in_window" "$((TO - FROM))") (stream count at the end of the load, less the warm-up's)"
drain
echo "  $("${bench[@]}" lag "$nats_url" HOOKS "$FROM" "$TO")"
stop_sluice
fi

start_nats
start_sluice replay
warm_up
if [ "${WARM_REPLAY:-0}" -gt 0 ]; then # WARM_REPLAY=s: a pause, s seconds of load and a resume first, drained, not counted
  admin /v1/destinations/bus/pause
  wrk -t2 -c64 -d"${WARM_REPLAY}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/warm-replay.wrk"
  admin /v1/destinations/bus/resume
  drain > /dev/null
fi
admin /v1/destinations/bus/pause
load "backlog build-up (destination paused)"
sleep 2
resumed=$(now_ms); cpu_resumed=$(cpu_snapshot "$server_pid" "$nats_pid"); admin /v1/destinations/bus/resume
drain
echo "  backlog replay: $ACCEPTED hooks in $((DRAINED - resumed)) ms = $(per_second "$ACCEPTED" "$((DRAINED - resumed))") delivered/s"
echo "  CPU per hook over the replay: $(cpu_per_item "$cpu_resumed" "$DRAINED_CPU" "$ACCEPTED" "server nats-server")"
if [ -n "${PLAIN_PER_S:-}" ]; then
  echo "  0.5x the plain publisher (${PLAIN_PER_S}/s) leaves $(budget_at_half "$PLAIN_PER_S") us of CPU per message for every process together, all $(nproc) cores busy"
fi
stop_sluice
echo "load after: $(uptime)"
