#!/usr/bin/env bash
# sluice-fleet benchmark: Sluice's fleet admit vs Bucket4j's Lettuce proxy manager on one
# local redis-server (concurrency 64, one hot tenant and 10,000 tenants), the cost of an
# admission while the breaker is open (JMH, vs node-local), and the worst wait while
# Redis is paused.
#
# usage: sluice-bench/scripts/fleet-bench.sh [seconds per run, default 10] [warmup seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/../.."

SECONDS_PER_RUN=${1:-10}
WARMUP=${2:-5}
THREADS=64
JAR=sluice-bench/target/benchmarks.jar

if [ ! -f "$JAR" ] || [ -n "${REBUILD:-}" ]; then
  mvn -B -ntp -q -o -pl sluice-bench -am package -DskipTests
fi

# a free loopback port
port=""
for _ in $(seq 1 50); do
  candidate=$(( 20000 + RANDOM % 40000 ))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "fleet-bench: no free port found" >&2; exit 1; }

workdir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
  --dir "$workdir" --logfile "$workdir/redis.log" &
redis_pid=$!
cleanup() { kill -CONT "$redis_pid" 2>/dev/null || true; kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; rm -rf "$workdir"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.05
done

uri="redis://127.0.0.1:$port"
echo "# $(date -u +%FT%TZ) $(redis-server --version | cut -d' ' -f1-3) load:$(uptime | sed 's/.*load average//')"
echo "# java: $(java -version 2>&1 | head -1); cores: $(nproc); threads=$THREADS seconds=$SECONDS_PER_RUN warmup=$WARMUP"

run() {
  redis-cli -p "$port" flushall >/dev/null
  java -Xms512m -Xmx512m -Dlogback.configurationFile=sluice-bench/scripts/fleet-logback.xml -cp "$JAR" org.sluice.bench.fleet.FleetLoad --redis "$uri" --redis-pid "$redis_pid" \
    --threads "$THREADS" --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" --scenario "$1" 2>"$workdir/$1.err" | grep -E '^(RESULT|#)'
}

run sluice-hot
run bucket4j-hot
run sluice-10k
run bucket4j-10k
run sluice-hot-dedupe
run pause

# the breaker-open admission vs the node-local limiter alone (no Redis involved)
java -jar "$JAR" FleetBreakerOpenBench -f 2 -wi 4 -w 2s -i 8 -r 2s -t 1 2>/dev/null \
  | grep -E '^(Benchmark|FleetBreakerOpenBench)'
