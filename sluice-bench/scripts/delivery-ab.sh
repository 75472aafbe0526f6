#!/usr/bin/env bash
# Two server jars, alternating, under the full accepting load of delivery-bench.sh (wrk -t2
# -c64, signed 1 KiB hooks, fsync group commit) with one HTTP destination served by nginx on
# loopback: per run a fresh server, store and receiver, WARM_UP seconds of the load not
# counted and their backlog drained, then SECONDS counted and their backlog drained. Per run
# it prints accepted/s, the delivery lag of the hooks received in the counted window (p50,
# p99), and from /proc the server's CPU (user + system, every thread) and voluntary context
# switches per accepted hook, from the start of the counted window until its last hook was
# delivered: the cost of taking a hook in and handing it on, a figure a change moves even
# when the machine's speed moves the rate and the lag by more than the change does.
# Usage (from anywhere): sluice-bench/scripts/delivery-ab.sh JAR_A JAR_B [pairs, default 3] [seconds, default 20]
#   WARM_UP=s          seconds of load before each counted window (default 20)
#   MAX_IN_FLIGHT=n    the destination's max_in_flight (default 256, as delivery-bench.sh)
#   SERVER_JAVA_OPTS   JVM options for the servers (default: -Xms1g -Xmx1g)
#   DEST_EXTRA_A, DEST_EXTRA_B  more keys of that side's destination, in YAML flow style (e.g.
#                      'transform: {method: PUT, path: "/t/{tenant}/{$.type}"}'): one jar twice
#                      with DEST_EXTRA_B set compares a destination setting with its absence,
#                      e.g. a transformation against plain delivery (the cost per delivered hook)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 JAR_A JAR_B [pairs] [seconds]" >&2; exit 2; }
jar_a=$(realpath "$1"); jar_b=$(realpath "$2")
pairs="${3:-3}"; secs="${4:-20}"; warm="${WARM_UP:-20}"
need_wrk_and_nginx
work="$(mktemp -d)"
cleanup() { stop_pid "$server_pid"; stop_receiver; rm -rf "$work"; }
trap cleanup EXIT


echo "load before: $(uptime)"; echo "cores: $(nproc)"
mif="${MAX_IN_FLIGHT:-256}"
for i in $(seq 1 "$pairs"); do
  for side in A B; do
    if [ "$side" = A ]; then sluice_jar=$jar_a; extra="${DEST_EXTRA_A:-}"; else sluice_jar=$jar_b; extra="${DEST_EXTRA_B:-}"; fi
    rm -rf "$work/ab-data"
    start_receiver
    delivery_yaml ab bench-delivery-ab '{listen: "127.0.0.1:0"}' 18081 \
      "  app: {url: \"http://127.0.0.1:18090/hooks\", max_in_flight: $mif${extra:+, $extra}}" app
    launch_sluice ab 18081
    wrk -t2 -c64 -d"${warm}s" -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/warm.wrk"
    before=$(( $(wrk_total "$work/warm.wrk") - $(wrk_non2xx "$work/warm.wrk") ))
    drain_logs "$before" "$logs/app.log"
    cpu0=$(cpu_ticks "$server_pid"); sw0=$(switches "$server_pid")
    accepting_load counted 18081
    drain_logs "$((before + ACCEPTED))" "$logs/app.log"
    cpu1=$(cpu_ticks "$server_pid"); sw1=$(switches "$server_pid")
    lag=$(python3 "$scripts/delivery-lag.py" "$logs/app.log" "$FROM" "$TO" "$FROM" | grep -o 'repeats=[0-9]* .*')
    awk -v side="$side" -v pair="$i" -v rate="$(per_second "$ACCEPTED" "$((TO - FROM))")" -v n="$ACCEPTED" \
        -v non="$NON2XX" -v cpu=$((cpu1 - cpu0)) -v hz="$clock_ticks" -v sw=$((sw1 - sw0)) -v lag="$lag" \
        'BEGIN { printf "pair %d %s: accepted/s=%s non_2xx=%s %s server_cpu_us_per_hook=%.1f context_switches_per_hook=%.2f\n",
                 pair, side, rate, non, lag, cpu / hz * 1e6 / n, sw / n }'
    stop_sluice
  done
done
echo "A = $jar_a${DEST_EXTRA_A:+ with $DEST_EXTRA_A}"; echo "B = $jar_b${DEST_EXTRA_B:+ with $DEST_EXTRA_B}"
echo "load after: $(uptime)"
