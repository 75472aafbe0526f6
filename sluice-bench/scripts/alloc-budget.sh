#!/usr/bin/env bash
# Allocation budgets of record (issue 16, target 5), against a real server in this JVM:
#   refusal <= 256 bytes per request (bodiless POSTs, then 1 KiB bodies, default http.refused_body),
#   accept  <= 4 KiB per request plus the body (signed 1 KiB hooks, fsync group commit).
# Bytes are those the server's threads allocated (ThreadMXBean) over a fixed number of
# requests, after a warm-up: a count, not a timing, so a loaded machine does not change it.
# Exits non-zero, naming the budget, when one is broken.
# Usage (from anywhere): sluice-bench/scripts/alloc-budget.sh [refusals] [accepts]
#   TRANSPORT=t   http.transport of both servers: auto (the default), io_uring, epoll or nio
#   SKIP_BUILD=1  use the jars already built (a second run on another transport)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
case "${TRANSPORT:-}" in ''|auto|io_uring|epoll|nio) ;; *) echo "TRANSPORT must be auto, io_uring, epoll or nio, got '$TRANSPORT'" >&2; exit 2 ;; esac
[ -n "${SKIP_BUILD:-}" ] || mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package -DskipTests
# The same heap flags as edge-bench.sh gives the server.
SLUICE_TRANSPORT="${TRANSPORT:-}" java -Xms1g -Xmx1g -cp "$root/sluice-bench/target/benchmarks.jar" \
  org.sluice.bench.edge.AllocBudget "${1:-200000}" "${2:-20000}" || {
  echo "alloc-budget: FAILED (see the budget named above)" >&2
  exit 1
}
