#!/usr/bin/env bash
# sluice-core against Bucket4j, Guava, Resilience4j and the CHM yardstick, in one JMH run.
# Usage: sluice-bench/scripts/core-bench.sh [extra JMH args]   (from the repository root)
#        BENCH=ManyKeys sluice-bench/scripts/core-bench.sh -wi 2 -i 5 -r 3s   (one benchmark class)
set -euo pipefail
cd "$(dirname "$0")/../.."
mvn -B -ntp -q -pl sluice-bench -am package -DskipTests
jar=sluice-bench/target/benchmarks.jar
out=sluice-bench/target/core-bench
mkdir -p "$out"
echo "load before: $(uptime)"
java -jar "$jar" "org.sluice.bench.core.${BENCH:-(HotKey|ManyKeys)}Benchmark" -prof gc \
  -rf json -rff "$out/jmh.json" "$@" | tee "$out/jmh.txt"
for impl in sluice yardstick bucket4j-map bucket4j-caffeine; do
  java -XX:+UseSerialGC -Xms4g -Xmx4g -cp "$jar" org.sluice.bench.core.HeapPerRow 1000000 "$impl"
done | tee "$out/heap.txt"
python3 sluice-bench/scripts/core-ratios.py "$out/jmh.json" | tee "$out/ratios.txt"
