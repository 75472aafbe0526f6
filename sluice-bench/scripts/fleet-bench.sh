#!/usr/bin/env bash
# sluice-fleet benchmark: Sluice's fleet admit vs Bucket4j's Lettuce proxy manager on one
# local redis-server (concurrency 64, one hot tenant and 10,000 tenants), the cost of an
# admission while the breaker is open (JMH, vs node-local), and the worst wait while
# Redis is paused.
#
# usage: sluice-bench/scripts/fleet-bench.sh [seconds per run, default 10] [warmup seconds, default 5]
#
# Every scenario prints one RESULT line (decisions/s, p50, p99, p99.9 and max in µs); the
# SUMMARY lines at the end put Sluice beside Bucket4j per tenant count. Optional
# environment: SCENARIOS (space-separated subset to run, e.g. "sluice-10k bucket4j-10k";
# the JMH part runs only with the full set; limiter-10k and limiter-hot run the library's
# FleetLimiter, which the full set leaves out), FLEET_JAVA_OPTS (extra options for the load
# JVM, e.g. -Xlog:gc:file=/tmp/gc.log), JAR (another build's benchmarks.jar, to compare two
# builds in alternating runs). RESULT lines carry the load JVM's and redis-server's CPU
# time per decision over the measured part.
set -euo pipefail
cd "$(dirname "$0")/../.."

SECONDS_PER_RUN=${1:-10}
WARMUP=${2:-5}
THREADS=64
ALL_SCENARIOS="sluice-hot bucket4j-hot sluice-10k bucket4j-10k sluice-hot-dedupe pause"
SCENARIOS=${SCENARIOS:-$ALL_SCENARIOS}
JAR=${JAR:-sluice-bench/target/benchmarks.jar}

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

# Redis's CPU seconds so far (user + sys; CONFIG RESETSTAT does not reset them)
redis_cpu() {
  redis-cli -p "$port" info cpu | tr -d '\r' | awk -F: '$1 == "used_cpu_sys" || $1 == "used_cpu_user" { t += $2 } END { printf "%.2f", t }'
}

run() {
  redis-cli -p "$port" flushall >/dev/null
  redis-cli -p "$port" config resetstat >/dev/null
  local cpu_before
  cpu_before=$(redis_cpu)
  # shellcheck disable=SC2086 # FLEET_JAVA_OPTS is a list of options
  java -Xms512m -Xmx512m ${FLEET_JAVA_OPTS:-} -Dlogback.configurationFile=sluice-bench/scripts/fleet-logback.xml -cp "$JAR" org.sluice.bench.fleet.FleetLoad --redis "$uri" --redis-pid "$redis_pid" \
    --threads "$THREADS" --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" --scenario "$1" 2>"$workdir/$1.err" | grep -E '^(RESULT|#)' | tee -a "$workdir/results"
  # what Redis did for it (warm-up included): commands (a Sluice batch is one evalsha), its
  # time per command, and the CPU seconds it used
  echo "# $1 redis: $(redis-cli -p "$port" info commandstats | tr -d '\r' | grep -E '^cmdstat_' \
    | sed -E 's/,(rejected|failed)_calls=[0-9]+//g' | tr '\n' ' ')cpu_s=$(awk -v a="$cpu_before" -v b="$(redis_cpu)" \
    'BEGIN { printf "%.2f", b - a }')"
}

for scenario in $SCENARIOS; do
  run "$scenario"
done

# Sluice beside Bucket4j, from the RESULT lines above: throughput ratio and the tail
summary() { # $1 label, $2 Sluice's scenario, $3 Bucket4j's scenario
  awk -v label="$1" -v s="$2" -v b="$3" '
    function field(line, key,   n, i, kv, parts) {
      n = split(line, parts, " ")
      for (i = 1; i <= n; i++) { split(parts[i], kv, "="); if (kv[1] == key) return kv[2] }
      return ""
    }
    $1 == "RESULT" && $2 == s { sl = $0 }
    $1 == "RESULT" && $2 == b { bl = $0 }
    END {
      if (sl == "" || bl == "") exit 0
      sr = field(sl, "decisions_per_s"); br = field(bl, "decisions_per_s")
      printf "SUMMARY %s sluice_per_s=%s bucket4j_per_s=%s ratio=%.2f", label, sr, br, (br > 0 ? sr / br : 0)
      printf " p99_us=%s/%s p999_us=%s/%s max_us=%s/%s (sluice/bucket4j)\n", \
        field(sl, "p99_us"), field(bl, "p99_us"), field(sl, "p999_us"), field(bl, "p999_us"), \
        field(sl, "max_us"), field(bl, "max_us")
    }' "$workdir/results"
}
if [ -f "$workdir/results" ]; then
  summary hot sluice-hot bucket4j-hot
  summary 10k sluice-10k bucket4j-10k
  summary limiter-hot limiter-hot bucket4j-hot
  summary limiter-10k limiter-10k bucket4j-10k
fi
echo "# end load:$(uptime | sed 's/.*load average//')"

[ "$SCENARIOS" = "$ALL_SCENARIOS" ] || exit 0

# the breaker-open admission vs the node-local limiter alone (no Redis involved)
java -jar "$JAR" FleetBreakerOpenBench -f 2 -wi 4 -w 2s -i 8 -r 2s -t 1 2>/dev/null \
  | grep -E '^(Benchmark|FleetBreakerOpenBench)'
