#!/usr/bin/env bash
# The durable commit path alone (Intake + HookStore with fsync, no HTTP): acknowledged hooks
# per second and submit-to-ack latency with group commit (max_batch 256) and without (1).
# Usage: sluice-bench/scripts/intake-load.sh [seconds]   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/../.."
secs="${1:-10}"
mvn -B -ntp -q -pl sluice-bench -am package -DskipTests
jar=sluice-bench/target/benchmarks.jar
echo "load before: $(uptime)"
# args: seconds submitters in-flight-per-submitter max-batch partitions body-bytes
for batch in 256 1; do
  java -Xmx1g -cp "$jar" org.sluice.bench.edge.IntakeLoad "$secs" 4 16 "$batch" 2 1024
done
echo "load after: $(uptime)"
