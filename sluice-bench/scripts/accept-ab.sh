#!/usr/bin/env bash
# Two server jars, alternating, under the accepting load of edge-bench.sh (wrk -t2 -c64, signed
# 1 KiB hooks, fsync group commit, max_batch 256): per run a fresh server and store, WARM_UP
# seconds of the load not counted (20: the JIT compiles the accept path for about 12 s), then
# SECONDS counted. Per run it prints wrk's hooks/s and p99, and from /proc the server's CPU
# (user + system, every thread) and voluntary context switches per accepted hook: figures a
# change moves even when the machine's speed moves the rate by more than the change does.
# Usage (from anywhere): sluice-bench/scripts/accept-ab.sh JAR_A JAR_B [pairs, default 3] [seconds, default 10]
#   SERVER_JAVA_OPTS  JVM options for the servers (default: -Xms1g -Xmx1g)
#   PARTITIONS_A, PARTITIONS_B  intake.partitions of each side's server (default 2; the same jar
#                     twice with PARTITIONS_A=1 compares one partition with two)
#   KEYED=1           the source has dedupe {header: X-Event-Id} and every request a new key
#                     (post-signed-1k-keyed.lua): each hook is also looked up for a duplicate
#   TRACING_A, TRACING_B  a telemetry.sampling_ratio (e.g. 0.01): that side's server traces every hook
#                     and exports the sampled ones over OTLP/HTTP to a sink this script starts (a
#                     Python server that answers 200 and keeps nothing); unset, tracing is off.
#                     Tracing off against on at 1%, one jar: TRACING_B=0.01 accept-ab.sh JAR JAR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 JAR_A JAR_B [pairs] [seconds]" >&2; exit 2; }
jar_a=$(realpath "$1"); jar_b=$(realpath "$2")
pairs="${3:-3}"; secs="${4:-10}"; warm="${WARM_UP:-20}"
if [ -n "${KEYED:-}" ]; then
  fixture=post-signed-1k-keyed.lua; dedupe=", dedupe: {header: X-Event-Id}"
else
  fixture=post-signed-1k.lua; dedupe=""
fi
command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
work="$(mktemp -d)"
otlp_pid=""
cleanup() { stop_pid "$server_pid"; stop_pid "$otlp_pid"; rm -rf "$work"; }
trap cleanup EXIT
if [ -n "${TRACING_A:-}${TRACING_B:-}" ]; then
  cat > "$work/otlp-sink.py" <<'PY'
import http.server
class Sink(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", 14318), Sink).serve_forever()
PY
  python3 "$work/otlp-sink.py" & otlp_pid=$!
  wait_port 127.0.0.1 14318
fi


echo "load before: $(uptime)"; echo "cores: $(nproc)"
for i in $(seq 1 "$pairs"); do
  for side in A B; do
    if [ "$side" = A ]; then sluice_jar=$jar_a; parts=${PARTITIONS_A:-2}; ratio=${TRACING_A:-}
    else sluice_jar=$jar_b; parts=${PARTITIONS_B:-2}; ratio=${TRACING_B:-}; fi
    telemetry=""
    [ -z "$ratio" ] || telemetry="telemetry: {otlp: {endpoint: \"http://127.0.0.1:14318\"}, sampling_ratio: $ratio}"
    rm -rf "$work/accept-data"
    cat > "$work/accept.yaml" <<YAML
node: {id: bench-accept-ab, data_dir: "$work/accept-data"}
admin: {listen: "127.0.0.1:0"}
http: {listen: "127.0.0.1:18093"}
intake: {partitions: $parts, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}$dedupe}
$telemetry
YAML
    launch_sluice accept 18093
    wrk -t2 -c64 -d"${warm}s" -s "$fixtures/$fixture" "http://127.0.0.1:18093/hooks/bench" > /dev/null
    cpu0=$(cpu_ticks "$server_pid"); sw0=$(switches "$server_pid")
    wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/$fixture" "http://127.0.0.1:18093/hooks/bench" > "$work/run.wrk"
    cpu1=$(cpu_ticks "$server_pid"); sw1=$(switches "$server_pid")
    n=$(( $(wrk_total "$work/run.wrk") - $(wrk_non2xx "$work/run.wrk") ))
    awk -v side="$side" -v pair="$i" -v rps="$(wrk_rps "$work/run.wrk")" -v lat="$(wrk_latency "$work/run.wrk")" \
        -v n="$n" -v non="$(wrk_non2xx "$work/run.wrk")" -v cpu=$((cpu1 - cpu0)) -v hz="$clock_ticks" -v sw=$((sw1 - sw0)) \
        -v parts="$parts" -v tracing="${ratio:-off}" 'BEGIN { printf "pair %d %s (partitions %s, tracing %s): hooks/s=%s %s non_2xx=%s server_cpu_us_per_hook=%.1f context_switches_per_hook=%.2f\n",
                 pair, side, parts, tracing, rps, lat, non, cpu / hz * 1e6 / n, sw / n }'
    stop_sluice
  done
done
echo "A = $jar_a"; echo "B = $jar_b"
echo "load after: $(uptime)"
