#!/usr/bin/env bash
# A backlog on the fleet's log (store.kind: kafka) delivered to a Kafka destination, against the
# plain producer, in one run (issue 45: "a replay of a 1,000,000-hook backlog from the log to a
# Kafka destination >= 0.5x the plain producer"):
#  0. the broker: one KRaft node (Kafka's test kit) in its own JVM, on a free port;
#  1. the plain producer's ceiling on that broker: an idempotent acks=all lz4 producer loop
#     writing records as Sluice sends them (1 KiB, its headers, a distinct webhook-id) for SECONDS;
#  2. the log filled with N hooks (1 KiB, source bench, to destination bus) by a producer
#     writing the hooks topic as Sluice's intake does, before any Sluice node runs;
#  3. the backlog: one node starts (store.kind: kafka, destination bus a Kafka topic); its
#     follower reads the N hooks from the log's start and delivers them: hooks / time from the
#     first to the last append on the destination topic (the count's "window's first..last append");
#  4. the replay route: POST /v1/destinations/bus/replay over the fill's time range at the
#     route's largest rate (1,000,000 a second; REPLAY_RATE=r another): the same N hooks read from the log again and
#     delivered again; hooks / time from the POST to the N-th more record on the destination topic
#     (looked for every 200 ms);
#  5. the plain producer's ceiling again, for SECONDS, on the broker as warm as the replay left it.
# Usage (from anywhere): sluice-bench/scripts/replay-bench-kafka.sh [N, default 1000000] [seconds, default 30]
# (SKIP_BUILD=1 uses the jars of the last build; PARTITIONS=p for the log, default 3; REPLAY_RATE=r the
# replay's rate, default 1,000,000, the route's largest.)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
n="${1:-1000000}"
secs="${2:-30}"
partitions="${PARTITIONS:-3}"
rate="${REPLAY_RATE:-1000000}" # the replay's rate: the route's largest (10,000 until issue 45's replay work)

if [ -z "${SKIP_BUILD:-}" ]; then # SKIP_BUILD=1: the jar, test classes and test.cp of a build just made
  mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package dependency:build-classpath -DskipTests -Djcstress.skip=true \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test.cp
fi
kafka_bench_setup

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the broker ---------------------------------------------------------------------
start_kafka_broker
echo "broker: $bootstrap (one KRaft node)"

# ---- 1. the plain producer's ceiling ---------------------------------------------------
tool topic "$bootstrap" ceiling-records 3
line=$(tool ceiling "$bootstrap" ceiling-records "$secs" 1024 records)
echo "$line"
plain=$(acked_per_s <<< "$line")

# ---- 2. the log filled -----------------------------------------------------------------
fill=$(tool fill "$bootstrap" bench "$partitions" "$n" 1024 bus)
echo "$fill"
from_ms=$(sed -n 's/.*ids from \([0-9]*\) to \([0-9]*\).*/\1/p' <<< "$fill")
to_ms=$(( $(sed -n 's/.*ids from \([0-9]*\) to \([0-9]*\).*/\2/p' <<< "$fill") + 1 ))

# ---- 3. the backlog, delivered by one node's follower ----------------------------------
tool topic "$bootstrap" replay.bench 3
cat > "$work/node.yaml" <<YAML
node: {id: bench-a, data_dir: "$work/node-data"}
admin: {listen: "127.0.0.1:18182", token: "$TOKEN"}
http: {listen: "127.0.0.1:18181"}
destinations:
  bus: {type: kafka, bootstrap_servers: ["$bootstrap"], topic: replay.bench, key: source, compression: lz4, linger_ms: 5, max_in_flight: 1024}
sources:
  bench: {tenant: bench, verify: {scheme: none}, deliver_to: [bus]}
store:
  kind: kafka
  kafka: {bootstrap_servers: ["$bootstrap"], topic_prefix: bench, partitions: $partitions, replication_factor: 1, timeout_ms: 5000}
YAML
started=$(now_ms)
cpu_before=$(cpu_snapshot "$broker_pid")
launch_sluice node 18181 18182
drained=$(tool await "$bootstrap" replay.bench "$n" 900)
echo "backlog: server start -> $n records on the destination in $((drained - started)) ms"
echo "  CPU per hook, the broker's (the server's own start is in the window, so it is not shown): $(cpu_per_item "$cpu_before" "$(cpu_snapshot "$broker_pid")" "$n" broker)"
echo "  destination topic: $(tool count "$bootstrap" replay.bench "$started" "$drained")"

# ---- 4. the replay route ---------------------------------------------------------------
body=$(printf '{"from":"%s","to":"%s","rate":%s}' "$(date -u -d "@$((from_ms / 1000))" +%Y-%m-%dT%H:%M:%SZ)" \
  "$(date -u -d "@$(( (to_ms + 999) / 1000 ))" +%Y-%m-%dT%H:%M:%SZ)" "$rate")
replay_at=$(now_ms)
cpu_before=$(cpu_snapshot "$server_pid" "$broker_pid")
echo "replay: $(curl -sf -X POST -H "Authorization: Bearer $TOKEN" -d "$body" http://127.0.0.1:18182/v1/destinations/bus/replay)"
replayed=$(tool await "$bootstrap" replay.bench "$((2 * n))" 1800)
echo "  POST -> $n more records on the destination in $((replayed - replay_at)) ms"
echo "  CPU per hook: $(cpu_per_item "$cpu_before" "$(cpu_snapshot "$server_pid" "$broker_pid")" "$n" "server broker")"
echo "  destination topic (each replayed hook is a repeat of its first delivery): $(tool count "$bootstrap" replay.bench "$replay_at" "$replayed")"
stop_sluice

# ---- 5. the plain producer again, on the broker as warm as the replay found it ----------
# (2026-12-07: the first ceiling, on a broker and a client JVM both just started, ran at 4,300/s,
# and the fill's producer, a plain producer of the same records, at 18,587/s a minute later)
line=$(tool ceiling "$bootstrap" ceiling-records "$secs" 1024 records)
echo "again, after the replay: $line"
plain_warm=$(acked_per_s <<< "$line")
echo "plain producer: ${plain}/s at the start, ${plain_warm}/s after the replay"

echo "load after: $(uptime)"
