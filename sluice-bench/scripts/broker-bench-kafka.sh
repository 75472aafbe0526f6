#!/usr/bin/env bash
# Kafka delivery benchmark, on this machine, in one run (issue 14):
#  0. the broker: one KRaft node (Kafka's test kit) in its own JVM, on a free port;
#  1. the plain producer's ceiling: an idempotent acks=all lz4 producer loop with 1 KiB
#     records straight at the broker, for SECONDS; then again with each record as Sluice
#     sends it (its headers, a distinct webhook-id);
#  2. full accepting load with one kafka destination: wrk -t2 -c64 posting signed 1 KiB
#     hooks (as in delivery-bench.sh) for WARM_UP seconds (30) not counted, then SECONDS; accepted/s from wrk; appended/s and the
#     lag (broker append time - receipt, the receipt read from the UUIDv7 webhook-id) from
#     the topic itself, read whole after the backlog has drained;
#  3. backlog replay: on a new server, WARM_UP seconds of the same load delivered live (so
#     that the delivery path is compiled, as on a server that has been delivering), then the
#     destination paused while the same load is accepted, then resumed: how fast Sluice
#     publishes when ingest is not the bottleneck (hooks / time from the first to the last
#     append of the backlog).
# Usage (from anywhere): sluice-bench/scripts/broker-bench-kafka.sh [seconds, default 60]
# (SKIP_BUILD=1 uses the jars of the last build; MAX_IN_FLIGHT=n sets the destination's
# max_in_flight, default 256; WARM_UP=s the uncounted load before the full-load window.)
# ONLY=replay runs the backlog replay alone (no ceilings, no full load), e.g. to profile it.
# WARM_REPLAY=s (0, none): before the counted replay, a pause, s seconds of the load and a resume, drained
# and not counted, for a server that has replayed before (a pause and a resume deoptimise the dispatcher's
# compiled path: docs/bench-notes/brokers-2026-12-05-to-06.md, "Where a Kafka replay's CPU goes",
# which says how much this saves).
# CPU: after each ceiling, the broker's CPU per record (its own JVM's is in its line), and after the
# replay the server's and the broker's CPU per hook, how busy the machine was, and what 0.5x the plain
# producer would leave per record (read from /proc; no process is started for it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs="${1:-60}"

if ! command -v wrk >/dev/null; then
  apt-get install -y wrk >/dev/null
fi
if [ -z "${SKIP_BUILD:-}" ]; then # SKIP_BUILD=1: the jar, test classes and test.cp of a build just made
  mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package dependency:build-classpath -DskipTests -Djcstress.skip=true \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test.cp
fi
kafka_bench_setup

admin() { # method path
  curl -sf -X "$1" -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:18182$2"
}
pending() {
  admin GET /v1/destinations | first_pending
}

start_sluice() { # name topic
  delivery_yaml "$1" bench-kafka "{listen: \"127.0.0.1:18182\", token: \"$TOKEN\"}" 18181 \
    "  bus: {type: kafka, bootstrap_servers: [\"$bootstrap\"], topic: \"$2\", key: source, compression: lz4, linger_ms: 5, max_in_flight: ${MAX_IN_FLIGHT:-256}}" bus
  launch_sluice "$1" 18181 18182
}

nothing_pending() { [ "$(pending)" = "0" ]; }
drain() { # wait (up to 300 s) until nothing is pending; every look costs the server an admin
  # request, so it looks twice a second (the publishing rate comes from the topic's append times)
  poll 600 0.5 nothing_pending || echo "  (not drained after 300 s)"
}

load() { # label: wrk at full load; sets ACCEPTED, FROM, TO
  accepting_load "$1" 18181
  echo "$1: accepted/s=$(per_second "$ACCEPTED" "$((TO - FROM))") ($ACCEPTED in $((TO - FROM)) ms; non_2xx $NON2XX; latency $(wrk_latency "$work/$1.wrk"))"
}

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the broker ---------------------------------------------------------------------
start_kafka_broker
echo "broker: $bootstrap (one KRaft node, kafka-clients $(tr ':' '\n' < "$root/sluice-bench/target/test.cp" | grep -o 'kafka-clients-[0-9][0-9.]*[0-9]' | head -1 | sed 's/kafka-clients-//'))"

warm="${WARM_UP:-30}" # seconds of the load delivered live on each server before what is counted

# ---- 1. the plain producer's ceiling ---------------------------------------------------
if [ "${ONLY:-}" != replay ]; then # ONLY=replay: the backlog replay alone (no ceilings, no full load)
ceiling() { # topic [records]: the producer loop, then the broker's CPU per record beside the loop's own
  local before line
  tool topic "$bootstrap" "$1" 3
  before=$(cpu_snapshot "$broker_pid")
  line=$(tool ceiling "$bootstrap" "$1" "$secs" 1024 ${2:-})
  echo "$line"
  echo "  CPU per record (the broker's, from /proc; the window includes the producer JVM's start): $(cpu_per_item "$before" "$(cpu_snapshot "$broker_pid")" "$(acked_count <<< "$line")" broker)"
  PLAIN_PER_S=${PLAIN_PER_S:-$(acked_per_s <<< "$line")}
}
ceiling ceiling
ceiling ceiling-records records

# ---- 2. full accepting load ------------------------------------------------------------
# WARM_UP seconds of the same load first, not counted: the server starts cold, and its first
# seconds (JIT) would otherwise be the lag's tail
tool topic "$bootstrap" live.bench 3
start_sluice live "live.{tenant}"
if [ "$warm" -gt 0 ]; then
  wrk -t2 -c64 -d"${warm}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18181/hooks/bench" > "$work/warm.wrk"
fi
load "full load, 1 kafka destination (after ${warm} s of warm-up)"
start_drain=$(now_ms)
drain
echo "  backlog drained $(( $(now_ms) - start_drain )) ms after the load stopped"
echo "  topic (the lag of the hooks received in the counted window): $(tool count "$bootstrap" live.bench "$FROM" "$TO" "$FROM")"
stop_sluice
fi

# ---- 3. backlog replay -----------------------------------------------------------------
tool topic "$bootstrap" replay.bench 3
start_sluice replay "replay.{tenant}"
# the delivery path warmed first, not counted: without it a replay on a new server spends its
# first seconds in the JIT (a quarter of a replay's CPU was C2 compiling, 2026-12-04)
if [ "$warm" -gt 0 ]; then
  wrk -t2 -c64 -d"${warm}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18181/hooks/bench" > "$work/warm-replay.wrk"
  drain
fi
if [ "${WARM_REPLAY:-0}" -gt 0 ]; then # WARM_REPLAY=s: a pause, s seconds of load and a resume first, drained, not counted
  admin POST /v1/destinations/bus/pause > /dev/null
  wrk -t2 -c64 -d"${WARM_REPLAY}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18181/hooks/bench" > "$work/warm-replay-2.wrk"
  admin POST /v1/destinations/bus/resume > /dev/null
  drain
fi
admin POST /v1/destinations/bus/pause > /dev/null
load "backlog (destination paused)"
echo "  pending before resume: $(pending)"
resumed=$(now_ms)
cpu_resumed=$(cpu_snapshot "$server_pid" "$broker_pid")
admin POST /v1/destinations/bus/resume > /dev/null
drain
done_at=$(now_ms)
echo "  replay: resumed -> nothing pending in $((done_at - resumed)) ms"
echo "  CPU per hook over the replay: $(cpu_per_item "$cpu_resumed" "$(cpu_snapshot "$server_pid" "$broker_pid")" "$ACCEPTED" "server broker")"
if [ -n "${PLAIN_PER_S:-}" ]; then
  echo "  0.5x the plain producer (${PLAIN_PER_S}/s) leaves $(budget_at_half "$PLAIN_PER_S") us of CPU per record for every process together, all $(nproc) cores busy"
fi
echo "  topic: $(tool count "$bootstrap" replay.bench "$resumed" "$done_at")"
stop_sluice

echo "load after: $(uptime)"
