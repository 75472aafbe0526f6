#!/usr/bin/env bash
# sluice-shm benchmarks, side by side in one run:
#   1. JMH: SharedRate.allow (1 and 2 threads, distinct keys and one hot key), a Redis
#      EVALSHA token bucket on loopback, and a token bucket file under FileChannel locks;
#   2. two processes on one hot key (combined checks per second), and one alone;
#   3. the multi-process soak tests tagged "slow" (SLOW_TESTS=0 skips them).
# The script starts redis-server on a free loopback port and stops it on exit.
#
#   sluice-bench/scripts/shm-bench.sh            # full run (~3 minutes plus the build)
#   QUICK=1 sluice-bench/scripts/shm-bench.sh    # one short iteration each, to check it works
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

QUICK=${QUICK:-0}
SLOW_TESTS=${SLOW_TESTS:-1}
MVN_FLAGS=${MVN_FLAGS:--B -ntp -q}
out="$root/sluice-bench/target/shm-bench"
mkdir -p "$out"

echo "== build"
mvn $MVN_FLAGS -pl sluice-bench -am package -DskipTests
jar="$root/sluice-bench/target/benchmarks.jar"

redis_pid=""
cleanup() {
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -f /dev/shm/sluice-bench-hot-$$-* /dev/shm/sluice-bench-go-$$-*
}
trap cleanup EXIT

echo "== redis-server"
port=$(java -cp "$jar" org.sluice.bench.shm.FreePort)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$out/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
echo "redis-server pid $redis_pid on 127.0.0.1:$port"

echo "== conditions"
uptime
nproc

if [ "$QUICK" = 1 ]; then
  jmh_opts=(-f 1 -wi 1 -w 1s -i 1 -r 1s)
  proc_seconds=2
else
  jmh_opts=(-f 1 -wi 3 -w 2s -i 5 -r 2s)
  proc_seconds=10
fi

echo "== JMH (ns per check; lower is better)"
# JMH runs one benchmark at a time per machine (/tmp/jmh.lock): wait for another run to end
for attempt in $(seq 1 60); do
  java -jar "$jar" 'org\.sluice\.bench\.shm\.(SharedRateBench|RedisBucketBench|FileLockBucketBench)\.' \
    -p redisPort="$port" "${jmh_opts[@]}" -rf json -rff "$out/jmh.json" > "$out/jmh.txt" 2>&1 || true
  if grep -q 'Unable to acquire the JMH lock' "$out/jmh.txt"; then
    echo "another JMH run holds the lock; waiting (attempt $attempt)"
    sleep 30
    continue
  fi
  break
done
grep -E '^(Benchmark|[A-Za-z]+Bench\.)' "$out/jmh.txt" | tee "$out/jmh-summary.txt"
grep -q '^SharedRateBench\.' "$out/jmh-summary.txt" || { echo "JMH produced no results, see $out/jmh.txt" >&2; exit 1; }

echo "== processes on one hot key (checks per second, higher is better)"
run_procs() {
  local n=$1
  local arena="/dev/shm/sluice-bench-hot-$$-$n"
  local go="/dev/shm/sluice-bench-go-$$-$n"
  rm -f "$arena" "$go"
  local pids=()
  for i in $(seq 1 "$n"); do
    java -cp "$jar" org.sluice.bench.shm.HotKeyProcessMain "$arena" "$proc_seconds" "$go" >"$out/proc-$n-$i.txt" 2>&1 &
    pids+=($!)
  done
  sleep 3   # let every process map the arena and warm up before the start gate opens
  touch "$go"
  for p in "${pids[@]}"; do wait "$p"; done
  local total=0
  for i in $(seq 1 "$n"); do
    cat "$out/proc-$n-$i.txt"
    r=$(sed -n 's/.* rate \([0-9]*\)\/s.*/\1/p' "$out/proc-$n-$i.txt")
    total=$((total + r))
  done
  echo "$n process(es) combined: $total checks/s"
  rm -f "$arena" "$go"
}
run_procs 1 | tee "$out/procs-1.txt"
run_procs 2 | tee "$out/procs-2.txt"

if [ "$SLOW_TESTS" = 1 ]; then
  echo "== slow multi-process tests (tag slow)"
  mvn $MVN_FLAGS -pl sluice-shm -am verify -Dgroups=slow -DexcludedTestGroups=none -Dtest='org.sluice.shm.*Test' -Dsurefire.failIfNoSpecifiedTests=false
  echo "slow tests passed"
fi
echo "== results in $out"
