#!/usr/bin/env bash
# How fast the dispatcher works off a backlog under the full accepting load (issue 13), for
# each max_in_flight of a list, alternating, ROUNDS times:
#  - one HTTP destination at nginx on loopback, wrk -t2 -c64 posting signed 1 KiB hooks
#    (as delivery-bench.sh), 20 s not counted to warm the server up;
#  - then 60 s of the same load: 8 s of it measured as the steady state, then the destination
#    paused for PAUSE seconds (the backlog builds) and resumed;
#  - reported: delivered/s and accepted/s in the steady state; the backlog at the resume; how
#    long until the pending deliveries fall under DRAINED (default 2000) again; delivered/s
#    and accepted/s over that catch-up; the server's CPU (cores) over each window, and each of
#    its ingest event loops' (which carry the HTTP client's sockets too).
# Figures come from the server's own metrics on its admin port (sluice_delivery_pending,
# sluice_delivery_attempts_total{outcome="delivered"}); accepted = delivered + the change in
# pending, since every accepted hook adds one pending delivery.
# Usage: sluice-bench/scripts/delivery-catchup.sh [rounds, default 2]
#   MAX_IN_FLIGHT_LIST="256 1024"   the max_in_flight values, run in this order each round
#   PAUSE=s                          how long the destination is paused (default 5)
#   SLUICE_JAR=path                  run that server jar instead of building this checkout's
set -euo pipefail
source "$(dirname "$0")/lib.sh"
rounds="${1:-2}"
pause="${PAUSE:-5}"
drained="${DRAINED:-2000}"

need_wrk_and_nginx
server_jar
work="$(mktemp -d)"
load_pid=""
cleanup() { stop_pid "$load_pid"; stop_pid "$server_pid"; stop_receiver; rm -rf "$work"; }
trap cleanup EXIT

token=delivery-bench-token-0123456789
admin_post() { curl -sf -X POST -H "Authorization: Bearer $token" "http://127.0.0.1:18082$1" > /dev/null; }
metric() { # name-prefix: the first sample of that metric on the admin port (awk reads to the end: no SIGPIPE for curl)
  curl -sf "http://127.0.0.1:18082/metrics" | awk -v m="$1" 'index($0, m) == 1 && !done {printf "%.0f", $2; done = 1}'
}
pending() { metric 'sluice_delivery_pending{'; }
delivered() { metric 'sluice_delivery_attempts_total{destination="app",outcome="delivered"'; }
loop_ticks() { # pid: "name ticks" of each ingest event loop thread (sluice-io-N), which also carry the HTTP client
  for t in /proc/"$1"/task/*; do
    case "$(cat "$t/comm")" in sluice-io-*) echo "$(cat "$t/comm") $(awk '{print $14 + $15}' "$t/stat")" ;; esac
  done | sort
}
loop_cores() { # before-file after-file ms: each loop's cores between the two
  join "$1" "$2" | awk -v ms="$3" -v hz="$clock_ticks" '{printf "%s%s %.2f", sep, $1, ($3 - $2) / hz / (ms / 1000); sep = ", "}'
}
cores() { awk -v t="$1" -v ms="$2" -v hz="$clock_ticks" 'BEGIN {printf "%.2f", t / hz / (ms / 1000)}'; } # ticks ms

echo "load before: $(uptime)"
echo "cores: $(nproc); pause ${pause} s; drained when pending < $drained"

run_one() { # max_in_flight
  local mif=$1
  start_receiver
  delivery_yaml "catchup-$mif" bench-delivery "{listen: \"127.0.0.1:18082\", token: \"$token\"}" 18081 \
    "  app: {url: \"http://127.0.0.1:18090/hooks\", max_in_flight: $mif}" app
  launch_sluice "catchup-$mif" 18081 18082
  wrk -t2 -c64 -d20s -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > /dev/null
  sleep 3
  wrk -t2 -c64 -d60s -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/load.wrk" &
  load_pid=$!
  sleep 2
  local t0 c0 d0 p0 t1 c1 d1 p1
  t0=$(now_ms); c0=$(cpu_ticks "$server_pid"); d0=$(delivered); p0=$(pending); loop_ticks "$server_pid" > "$work/l0"
  sleep 8
  t1=$(now_ms); c1=$(cpu_ticks "$server_pid"); d1=$(delivered); p1=$(pending); loop_ticks "$server_pid" > "$work/l1"
  local tp tq tr cr dr pr td cd dd pd
  tp=$(now_ms)
  admin_post /v1/destinations/app/pause
  tq=$(now_ms)
  sleep "$pause"
  tr=$(now_ms); cr=$(cpu_ticks "$server_pid"); dr=$(delivered); pr=$(pending); loop_ticks "$server_pid" > "$work/lr"
  admin_post /v1/destinations/app/resume
  local resume_ms=$(($(now_ms) - tr))
  td=""
  while kill -0 "$load_pid" 2>/dev/null; do
    sleep 0.5
    pd=$(pending)
    if [ "$pd" -lt "$drained" ]; then
      td=$(now_ms); cd=$(cpu_ticks "$server_pid"); dd=$(delivered); loop_ticks "$server_pid" > "$work/ld"
      break
    fi
  done
  wait "$load_pid" || true
  load_pid=""
  local steady_ms=$((t1 - t0))
  echo "max_in_flight $mif: steady delivered/s=$(per_second $((d1 - d0)) $steady_ms)" \
    "accepted/s=$(per_second $((d1 - d0 + p1 - p0)) $steady_ms) server cores=$(cores $((c1 - c0)) $steady_ms);" \
    "event loops: $(loop_cores "$work/l0" "$work/l1" $steady_ms);" \
    "backlog at the resume $pr (the pause answered in $((tq - tp)) ms, the resume in $resume_ms ms)"
  if [ -n "$td" ]; then
    local cu_ms=$((td - tr))
    echo "  drained in $cu_ms ms: delivered/s=$(per_second $((dd - dr)) $cu_ms)" \
      "accepted/s=$(per_second $((dd - dr + pd - pr)) $cu_ms) server cores=$(cores $((cd - cr)) $cu_ms)," \
      "event loops: $(loop_cores "$work/lr" "$work/ld" $cu_ms)"
  else
    echo "  not drained before the load ended (pending $(pending))"
  fi
  stop_sluice
}

for round in $(seq 1 "$rounds"); do
  for mif in ${MAX_IN_FLIGHT_LIST:-256 1024}; do
    run_one "$mif"
  done
done
echo "load after: $(uptime)"
