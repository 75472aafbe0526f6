#!/usr/bin/env bash
# Accepting hooks on one node, store.kind: kafka against store.kind: rocksdb, in one run (issue 45:
# "accepted hooks/s and p99 of store.kind: kafka >= 0.7x store.kind: rocksdb, p99 <= 20 ms, with the
# CPU per hook of each process on the same two cores"):
#  0. a local three-broker KRaft cluster (Kafka's test kit, the three brokers in one JVM of their own,
#     the first also the controller; min.insync.replicas=2), up for the whole run, warmed up first by
#     the plain producer (idempotent, acks=all, lz4, Sluice's 1 KiB records) writing a topic with
#     PARTITIONS partitions and 3 replicas for BROKER_WARM_UP seconds (its rate printed, for context);
#  1. ROUNDS rounds, each one run of each kind, rocksdb first: a fresh server (a new data directory;
#     under kafka new topics too, prefix ingest<round>, PARTITIONS partitions, replication factor 3,
#     linger_ms 2), intake as the accepting benchmark's (2 partitions, max_batch 256), SOURCES sources
#     bench0.. (verify hmac, no dedupe key, no destination: the path to the 202 alone). wrk -t2 -c64 (CONNECTIONS)
#     posts signed 1 KiB hooks to the sources in turn (post-signed-1k-sources.lua): WARM_UP seconds not
#     counted, then SECONDS counted with --latency. Under rocksdb a 202 follows the fsync of its group
#     commit; under kafka it follows the log's acknowledgement (idempotent producer, acks=all, two of
#     three replicas in sync at least).
#     Per run: hooks/s (2xx), p50 and p99 from wrk, answers other than 2xx, and the CPU per accepted
#     hook of each process over the counted seconds, from /proc/<pid>/stat (utime + stime, every
#     thread): Sluice, the brokers' JVM (idle but running under rocksdb), wrk (read from its parent
#     shell's cutime + cstime once it was reaped), and how busy the machine was (/proc/stat). Before the
#     load, the CPU of the node and the brokers idle for IDLE seconds (right after the boot, so under
#     kafka mostly the JIT compiling the Kafka client: a thread sample on 2026-12-07 found nothing else).
#     Under kafka it also checks that the hooks topic holds at least every hook answered 202, then
#     deletes the run's topics.
#  2. per round kafka/rocksdb of hooks/s and p99, then the medians over the rounds.
# Usage (from anywhere): sluice-bench/scripts/ingest-bench-kafka.sh [rounds, default 3] [seconds, default 10]
#   SKIP_BUILD=1   use the jars, test classes and test.cp of the last build
#   WARM_UP=s      seconds of load before each counted run, not counted (default 20)
#   BROKER_WARM_UP=s  seconds of the plain producer before the rounds (default 60)
#   IDLE=s         seconds each ready node is watched idle first, its and the brokers' CPU then (default 5)
#   PARTITIONS=p   partitions of the log's topics (default 8)
#   SOURCES=n      sources the load spreads over (default 4; the hooks of one source share a partition)
#   BROKER_SETTINGS="key=value ..."  broker settings more, for every broker of the cluster
#   LINGER_MS=ms   store.kafka.linger_ms of the kafka runs (default 2, the documented default)
#   INTAKE_PARTITIONS=n  intake.partitions of both kinds (default 2, as the accepting benchmark)
#   PRODUCER_PROPERTIES="key=value ..."  store.kafka.properties of the kafka runs (e.g. batch.size=262144)
#   CONNECTIONS=n  wrk's connections for both kinds (default 64); each has one request out at a time, so
#                  a kind whose 202 waits on a replicated write is capped at CONNECTIONS / latency
# Each kafka run also prints the brokers' request counts over its counted seconds (KafkaBenchTool's
# broker answers them, summed over the three brokers): produce requests and follower fetches a hook,
# and records a produce request (records appended by the leaders / produce requests).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
rounds="${1:-3}"
secs="${2:-10}"
warm="${WARM_UP:-20}"
idle="${IDLE:-5}"
broker_warm="${BROKER_WARM_UP:-60}"
partitions="${PARTITIONS:-8}"
sources="${SOURCES:-4}"
linger="${LINGER_MS:-2}"
intake_partitions="${INTAKE_PARTITIONS:-2}"
connections="${CONNECTIONS:-64}" # wrk's keep-alive connections, each one request at a time: at most CONNECTIONS / latency a second
producer_yaml=""
for kv in ${PRODUCER_PROPERTIES:-}; do producer_yaml+="${producer_yaml:+, }\"${kv%%=*}\": \"${kv#*=}\""; done

if [ -z "${SKIP_BUILD:-}" ]; then
  mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package dependency:build-classpath -DskipTests -Djcstress.skip=true \
    -Dmdep.includeScope=test -Dmdep.outputFile=target/test.cp
fi
command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
kafka_bench_setup
results="$work/results"

echo "load before: $(uptime)"
echo "cores: $(nproc)"

# ---- 0. the cluster --------------------------------------------------------------------
# shellcheck disable=SC2086 # BROKER_SETTINGS split on spaces on purpose
start_kafka_broker 3 ${BROKER_SETTINGS:-}
echo "brokers: $bootstrap (three KRaft brokers in one JVM, pid $broker_pid, min.insync.replicas=2${BROKER_SETTINGS:+, $BROKER_SETTINGS})"
echo "kafka runs: linger_ms $linger, intake.partitions $intake_partitions, topic partitions $partitions${PRODUCER_PROPERTIES:+, properties $PRODUCER_PROPERTIES}"
brokers_yaml="\"${bootstrap//,/\", \"}\""
# a fresh broker JVM is slow until its JIT has compiled the produce and replication paths: without
# this, each round's kafka run was faster than the one before (2026-12-07: 518, 1,755, 4,206 hooks/s)
tool topic "$bootstrap" warm-up "$partitions" 3
echo "brokers' warm-up, $broker_warm s: $(tool ceiling "$bootstrap" warm-up "$broker_warm" 1024 records)"
tool delete "$bootstrap" warm-up

ingest_yaml() { # kind round: writes $work/ingest.yaml
  local kind=$1 round=$2 i
  {
    cat <<YAML
node: {id: bench-ingest, data_dir: "$work/ingest-data"}
admin: {listen: "127.0.0.1:0"}
http: {listen: "127.0.0.1:18095"}
intake: {partitions: $intake_partitions, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
sources:
YAML
    for i in $(seq 0 $((sources - 1))); do
      echo "  bench$i: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: \"sha256=\", algorithm: sha256, encoding: hex, secrets: [\"bench-secret\"]}}"
    done
    if [ "$kind" = kafka ]; then
      cat <<YAML
store:
  kind: kafka
  kafka: {bootstrap_servers: [$brokers_yaml], topic_prefix: ingest$round, partitions: $partitions, replication_factor: 3, linger_ms: $linger, timeout_ms: 5000, properties: {$producer_yaml}}
YAML
    fi
  } > "$work/ingest.yaml"
}

broker_counters() { # the brokers' request counts now (KafkaBenchTool's broker answers FILE.ask in FILE.counters)
  rm -f "$work/bootstrap.counters"; touch "$work/bootstrap.ask"
  poll 500 0.01 test -s "$work/bootstrap.counters" && cat "$work/bootstrap.counters"
}

ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18095/readyz)" = 200 ]; }

load() { # seconds out-file [--latency]: wrk against the sources; prints wrk's CPU ticks (user + system),
  # read from the shell that ran it once wrk was reaped (fields 16 and 17 of that shell's /proc stat)
  # shellcheck disable=SC2016 # $$ and the fields are the inner shell's
  bash -c 'wrk -t2 -c"$6" -d"$1s" $3 -s "$4" "http://127.0.0.1:18095/" -- "$5" > "$2"; read -r s < /proc/$$/stat
           echo "$s" | awk "{print \$16 + \$17}"' _ "$1" "$2" "${3:-}" "$fixtures/post-signed-1k-sources.lua" "$sources" \
    "$connections"
}

run() { # kind round
  local kind=$1 round=$2 before after wrk_ticks warm_accepted n logged="" idle_share counted_from counted_to
  rm -rf "$work/ingest-data"
  ingest_yaml "$kind" "$round"
  launch_sluice ingest 18095
  poll 600 0.1 ready || { echo "round $round $kind: the node never became ready" >&2; return 1; }
  before=$(cpu_snapshot "$server_pid" "$broker_pid"); sleep "$idle"; after=$(cpu_snapshot "$server_pid" "$broker_pid")
  idle_share=$(awk -v b="$before" -v a="$after" -v hz="$clock_ticks" -v s="$idle" 'BEGIN { split(b, x, " "); split(a, y, " ")
    printf "sluice %.1f%%, brokers %.1f%% of a core", (y[1] - x[1]) / hz / s * 100, (y[2] - x[2]) / hz / s * 100 }')
  load "$warm" "$work/warm.wrk" > /dev/null
  warm_accepted=$(( $(wrk_total "$work/warm.wrk") - $(wrk_non2xx "$work/warm.wrk") ))
  counted_from=$(broker_counters)
  before=$(cpu_snapshot "$server_pid" "$broker_pid")
  wrk_ticks=$(load "$secs" "$work/run.wrk" --latency)
  after=$(cpu_snapshot "$server_pid" "$broker_pid")
  counted_to=$(broker_counters)
  n=$(( $(wrk_total "$work/run.wrk") - $(wrk_non2xx "$work/run.wrk") ))
  if [ "$kind" = kafka ]; then
    logged=" log_holds=$(tool size "$bootstrap" "ingest$round.hooks")/$((warm_accepted + n))_answered_202"
    tool delete "$bootstrap" "ingest$round" # the brokers' idle work stays that of one node's topics
  fi
  stop_sluice
  printf 'round %s %-7s hooks/s=%s %s non_2xx=%s%s\n' "$round" "$kind" "$(wrk_rps "$work/run.wrk")" \
    "$(wrk_latency "$work/run.wrk")" "$(wrk_non2xx "$work/run.wrk")" "$logged" | tee -a "$results"
  echo "  idle before the load ($idle s): $idle_share"
  echo "  CPU per hook: $(cpu_per_item "$before" "$after" "$n" "sluice brokers"), wrk $(awk -v t="$wrk_ticks" \
    -v hz="$clock_ticks" -v n="$n" 'BEGIN {printf "%.1f us", t / hz * 1e6 / (n > 0 ? n : 1)}')"
  if [ "$kind" = kafka ]; then
    echo "  brokers' requests: $(awk -v a="$counted_from" -v b="$counted_to" -v n="$n" 'BEGIN {
      k = split(a, x, /[ =]/); split(b, y, /[ =]/); for (i = 1; i < k; i += 2) d[x[i]] = y[i + 1] - x[i + 1]
      if (n < 1) n = 1
      printf "produce %d (%.3f a hook, %.1f records each), follower fetches %d (%.3f a hook), records appended %d, bytes in %.0f a record",
        d["produce"], d["produce"] / n, d["messages_in"] / (d["produce"] > 0 ? d["produce"] : 1), d["fetch_follower"],
        d["fetch_follower"] / n, d["messages_in"], d["bytes_in"] / (d["messages_in"] > 0 ? d["messages_in"] : 1) }')"
  fi
}

# ---- 1. the rounds ---------------------------------------------------------------------
for round in $(seq 1 "$rounds"); do
  run rocksdb "$round"
  run kafka "$round"
done

# ---- 2. the ratios ---------------------------------------------------------------------
awk '
  function millis(v) { if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 } if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
                       if (v ~ /s$/) { sub(/s$/, "", v); return v * 1000 } return v + 0 }
  function median(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  # a line: round R KIND hooks/s=X p50=Y p99=Z ...
  { split($4, h, "="); split($6, q, "="); hps[$2, $3] = h[2]; p99[$2, $3] = millis(q[2]); if (!($2 in seen)) { seen[$2] = 1; order[++rounds] = $2 } }
  END {
    n = 0
    for (i = 1; i <= rounds; i++) {
      r = order[i]
      if (!(((r, "rocksdb") in hps) && ((r, "kafka") in hps))) continue
      n++; ratio[n] = hps[r, "kafka"] / hps[r, "rocksdb"]
      rk[n] = hps[r, "rocksdb"]; kk[n] = hps[r, "kafka"]; rp[n] = p99[r, "rocksdb"]; kp[n] = p99[r, "kafka"]
      printf "round %s: kafka/rocksdb %.2fx hooks/s; p99 kafka %.2f ms, rocksdb %.2f ms\n", r, ratio[n], kp[n], rp[n]
    }
    if (n > 0) printf "INGEST median of %d rounds: rocksdb %.0f hooks/s p99 %.2f ms; kafka %.0f hooks/s p99 %.2f ms; kafka/rocksdb %.2fx (target >= 0.7x, kafka p99 <= 20 ms)\n",
                      n, median(rk, n), median(rp, n), median(kk, n), median(kp, n), median(ratio, n)
  }' "$results"
echo "load after: $(uptime)"
