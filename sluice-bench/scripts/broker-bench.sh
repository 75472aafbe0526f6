#!/usr/bin/env bash
# Broker delivery benchmark (issue 14), one destination type at a time, in one run:
# the Kafka part (broker-bench-kafka.sh) then the NATS JetStream part
# (broker-bench-nats.sh). Each reports accepted/s, delivered/s, lag p50/p99, the plain
# client's ceiling on the same machine and a backlog replay rate.
# Usage (from anywhere): sluice-bench/scripts/broker-bench.sh [seconds, default 60]
set -euo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-60}"
echo "== broker-bench: $(date -u +%FT%TZ), $(nproc) cores, ${secs} s per section"
"$scripts/broker-bench-kafka.sh" "$secs"
SKIP_BUILD=1 "$scripts/broker-bench-nats.sh" "$secs"
