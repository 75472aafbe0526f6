#!/usr/bin/env bash
# sluice-edge benchmarks, on this machine, in one run:
#  1. refusing a per-IP flood: the same wrk command (-t2 -c64, keep-alive) against nginx
#     limit_req (rate 1/s, burst 5, status 429) and against Sluice with
#     rate_limits.per_ip {rate: 1, burst: 5}: requests (nearly all 429) per second, for
#     (a) bodiless POSTs (Content-Length: 0, post-empty.lua): nginx and Sluice (default);
#     (b) 1 KiB POST bodies (post-1k.lua): nginx, and Sluice with each http.refused_body:
#         close_if_incomplete (the default: a body that arrived with its headers is dropped
#         and the connection kept), close (every refusal closes its connection), discard;
#     (a) and (b) with the default run in ROUNDS interleaved rounds (nginx, then Sluice, in each),
#     both servers up side by side, and end in two FLOOD lines with the ratios;
#     after each flood, the CPU per request of the server (nginx: its master and workers;
#     Sluice: its JVM), user and system apart, and of wrk, over the measured run, and how
#     busy the machine was (from /proc and bash's times; nothing started for it); the same
#     per hook for the accepting wrk run below;
#  2. accepting signed hooks: 64 keep-alive connections posting 1 KiB bodies with a valid
#     HMAC-SHA256 signature, fsync group commit (max_batch 256), then max_batch 1:
#     acknowledged hooks per second, p50 and p99 latency, from two load generators in turn
#     against the same server: AcceptLoad (64 blocking Java threads, HdrHistogram) and
#     wrk -t2 -c64 with post-signed-1k.lua (the same request, a lighter client on the
#     same two cores).
#     With max_batch 256 it also reads the store's metrics around the wrk run: group commits
#     (hooks per commit, time inside commits) and the store's real fsyncs, RocksDB's log syncs
#     (sluice_store_wal_syncs_total). Commits that reach RocksDB together share one sync, so
#     there are fewer syncs than commits and more hooks per sync than per commit. It then runs
#     FsyncBench in the same directory as the store's data: one writer appending the bytes of
#     one sync's hooks and fdatasync-ing each, back to back.
#     disk_ratio = accepted hooks/s / (FsyncBench syncs/s x hooks per real sync)
#     near 1 says the disk is what is left. FsyncBench runs on an idle machine, and a sync takes
#     longer on a busy one, so the server's own figures come first: sync_busy, the share of the
#     run a commit's sync was in progress (sluice_store_commit_sync_seconds_total; the syncs run
#     one at a time, so near 1 they are back to back), and the mean sync as the server saw it.
#     Then FsyncBench again with both cores kept busy by two spinning shells (the server idle),
#     and disk_ratio_busy from it: the disk as a writer on a busy machine gets it.
#     (A server without the syncs metric, see SLUICE_JAR, falls back to one sync per commit.)
#     Rerun alone: edge-bench.sh 10 accept
#  3. (only when asked: `open`) the same accepting server (max_batch 256) under an open-loop
#     load from `sluice load`: a fixed arrival rate (OPEN_RATE, default 2000 per second),
#     latency from each request's intended send time, a report and a JSON summary in
#     OPEN_OUT (default ./open-loop). See docs/load.md.
# Usage (from anywhere): sluice-bench/scripts/edge-bench.sh [seconds] [all|flood|accept|open]
#   SLUICE_JAR=path   run that server jar instead of building this checkout's (e.g. an older
#                     build kept aside, for a before/after comparison in the same conditions)
#   SERVER_JAVA_OPTS  JVM options for the Sluice server (default: -Xms1g -Xmx1g)
#   PARTITIONS=n      intake.partitions of the accepting server (default 2, the server's own default)
#   ROUNDS=n          rounds of the interleaved floods (default 3): each round floods nginx, then Sluice,
#                     bodiless and with bodies; a FLOOD line per body gives each round's ratio, the
#                     median and the ratio of all rounds together
#   FLOOD_WARM_UP=s   seconds of each flood against each server before round 1, not counted
#                     (default 15; 0 for none: then each flood's own 3 s warm-up alone)
#   TRANSPORT=t       http.transport of every Sluice server of the run: auto, io_uring, epoll or nio
#                     (default: not set, the server's own default, auto); each server's boot line
#                     says which transport it runs on and why. Compare two transports with two
#                     runs, one after the other, each against nginx in its own rounds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
secs="${1:-10}"
only="${2:-all}"
rounds="${ROUNDS:-3}"
case "$only" in all|flood|accept|open) ;; *) echo "unknown section $only (all, flood, accept or open)" >&2; exit 2 ;; esac
flood_warm_up=${FLOOD_WARM_UP:-15}
case "$flood_warm_up" in ''|*[!0-9]*) echo "FLOOD_WARM_UP must be whole seconds, got '$flood_warm_up'" >&2; exit 2 ;; esac
case "${TRANSPORT:-}" in ''|auto|io_uring|epoll|nio) ;; *) echo "TRANSPORT must be auto, io_uring, epoll or nio, got '$TRANSPORT'" >&2; exit 2 ;; esac
transport_key="${TRANSPORT:+, transport: $TRANSPORT}" # appended to each server's http: {...}

need_wrk_and_nginx
if [ -z "${SLUICE_JAR:-}" ] || [ "$only" != flood ]; then
  mvn -B -ntp -q -pl sluice-edge,sluice-bench -am package -DskipTests
fi
sluice_jar="${SLUICE_JAR:-$root/sluice-edge/target/sluice.jar}"
bench_jar="$root/sluice-bench/target/benchmarks.jar"
work="$(mktemp -d)"
burners=() # CPU burners of the busy FsyncBench run (accept section)
# FsyncBench in the store's directory, syncs of one real sync's hooks (a hook is about its body
# plus 300 bytes in the write-ahead log: record, id index, batch framing), then
# name = accepted hooks/s / (its syncs/s x hooks per real sync). Reads rps, per_sync, secs.
disk_ratio() { # name, what the syncs/s are, prefix of FsyncBench's line
  local out f
  out="$(java -cp "$bench_jar" org.sluice.bench.edge.FsyncBench "$work" "$(awk -v b="$per_sync" 'BEGIN {printf "%d", b * 1324}')" "$secs")"
  echo "  ${3:-}$out"
  f=$(echo "$out" | sed -n 's/.*syncs_per_s=\([0-9.]*\).*/\1/p')
  echo "  $1 = accepted hooks/s / ($2 x hooks per real sync) = $rps / ($f x $per_sync) = $(awk -v r="$rps" -v f="$f" -v b="$per_sync" 'BEGIN {printf "%.2f", (f * b > 0 ? r / (f * b) : 0)}')"
}
cleanup() {
  for b in "${burners[@]}"; do kill "$b" 2>/dev/null || true; done
  stop_pid "$server_pid"
  nginx -c "$fixtures/nginx-limit-req.conf" -s stop 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start_sluice() { # name yaml-text: serves it on 18081, then prints the transport its boot line names
  printf '%s\n' "$2" > "$work/$1.yaml"
  launch_sluice "$1" 18081
  poll 100 0.1 grep -q 'sluice-edge started' "$work/$1.err" || true
  echo "$1: $(grep -o 'transport [^|]*' "$work/$1.err" | head -1)"
}

commit_metrics() { # "commits hooks seconds syncs sync-seconds" so far: the intake's group commits, the store's
  # WAL syncs, and the time the commits' syncs took (0 from a server without that metric)
  curl -s http://127.0.0.1:18082/metrics | awk '
    /^sluice_intake_commit_batch_size_count/ {c += $2} /^sluice_intake_commit_batch_size_sum/ {h += $2}
    /^sluice_intake_commit_seconds_sum/ {t += $2} /^sluice_store_wal_syncs_total/ {w += $2}
    /^sluice_store_commit_sync_seconds_total/ {y += $2}
    END {printf "%d %d %.6f %d %.6f\n", c, h, t, w, y}'
}

summarise_wrk() { # label file
  errors=$(grep -o 'Socket errors:.*' "$2" || echo "Socket errors: none")
  echo "$1: requests/s=$(wrk_rps "$2") total=$(wrk_total "$2") non_2xx=$(wrk_non2xx "$2") ($errors)"
}

echo "server: $sluice_jar ($(date -r "$sluice_jar" -u +%FT%TZ)), options: ${SERVER_JAVA_OPTS:--Xms1g -Xmx1g}, http.transport: ${TRANSPORT:-(default)}"
echo "load before: $(uptime)"
echo "cores: $(nproc), ephemeral ports: $(tr '\t' - < /proc/sys/net/ipv4/ip_local_port_range)"

# ---- CPU per request, from /proc and bash's times (nothing started to measure) ---------
user_system() { # pid...: user and system ticks, summed over the processes (nothing for one that is gone)
  local p
  for p in "$@"; do [ -r "/proc/$p/stat" ] && awk '{print $14, $15}' "/proc/$p/stat"; done |
    awk '{u += $1; s += $2} END {print u + 0, s + 0}'
}
children_ticks() { # file: the user and system ticks of the children that bash's times wrote there (its
  # second line: the waited-for children of the shell that ran times, which must be the script's own shell,
  # not a $(...) subshell)
  awk -v hz="$clock_ticks" 'NR == 2 {
    split($0, t, " "); for (i = 1; i <= 2; i++) { split(t[i], ms, /[ms]/); v[i] = (ms[1] * 60 + ms[2]) * hz }
    printf "%.0f %.0f\n", v[1], v[2] }' "$1"
}
cpu_begin() { # pid...: opens a CPU window. Call it, and cpu_stop, in the script's own shell (not in $(...)):
  # bash's times counts the waited-for children of the shell that runs it; it runs last here, after the
  # snapshots' own subshells, and first in cpu_stop, so the only child inside the window is the load tool
  cpu_server_before=$(user_system "$@"); cpu_machine_before=$(cpu_snapshot); times > "$work/times.before"
}
cpu_stop() { # pid...: closes the window, right after the load tool exits
  times > "$work/times.after"; cpu_server_after=$(user_system "$@"); cpu_machine_after=$(cpu_snapshot)
}
cpu_report() { # noun items: the last window's CPU per item of the server's processes and of the load tool,
  # and how busy the machine was
  awk -v b="$cpu_server_before" -v a="$cpu_server_after" -v wb="$(children_ticks "$work/times.before")" \
      -v wa="$(children_ticks "$work/times.after")" -v mb="$cpu_machine_before" -v ma="$cpu_machine_after" \
      -v n="$2" -v noun="$1" -v hz="$clock_ticks" -v cores="$(nproc)" 'BEGIN {
    split(b, x, " "); split(a, y, " "); split(wb, p, " "); split(wa, q, " "); split(mb, m0, " "); split(ma, m1, " ")
    k = 1e6 / hz / (n > 0 ? n : 1)
    su = (y[1] - x[1]) * k; ss = (y[2] - x[2]) * k; wu = (q[1] - p[1]) * k; ws = (q[2] - p[2]) * k
    busy = (m1[2] - m0[2]) > 0 ? (m1[1] - m0[1]) / (m1[2] - m0[2]) : 0
    printf "  cpu per %s: server %.2f us (user %.2f, system %.2f), load tool %.2f us (user %.2f, system %.2f), together %.2f us; machine %.0f%% busy (%.2f of %d cores)\n",
      noun, su + ss, su, ss, wu + ws, wu, ws, su + ss + wu + ws, 100 * busy, busy * cores, cores }'
}

# ---- 1. refusing a flood -------------------------------------------------------------
if [ "$only" = all ] || [ "$only" = flood ]; then
time_wait() { # sockets in TIME_WAIT now: a server that closes first leaves one per connection
  # for 60 s, and each holds one of the client's ephemeral ports to that server address
  echo $(( $(ss -tan state time-wait | wc -l) - 1 ))
}

flood() { # label port lua-fixture pid...: a 3 s warm-up (JIT for Sluice), then the measured run; the CPU
  # per request of the server's processes (pid...) and of wrk over the measured run, from /proc and bash's times
  local label=$1 port=$2 lua=$3; shift 3
  wrk -t2 -c64 -d3s -s "$fixtures/$lua" "http://127.0.0.1:$port/hooks/gh" > /dev/null
  tw_before=$(time_wait)
  cpu_begin "$@"
  wrk -t2 -c64 -d"${secs}s" -s "$fixtures/$lua" "http://127.0.0.1:$port/hooks/gh" > "$work/$label.wrk"
  cpu_stop "$@"
  summarise_wrk "$label" "$work/$label.wrk"
  flood_rps=$(wrk_rps "$work/$label.wrk") # the measured run's requests/s, for the rounds' ratios
  cpu_report request "$(wrk_total "$work/$label.wrk")"
  echo "  time_wait sockets: $tw_before before the measured run, $(time_wait) after"
}

mkdir -p /tmp/nginx-anchor
nginx -c "$fixtures/nginx-limit-req.conf"
wait_port 127.0.0.1 18080
nginx_pids="$(cat /tmp/nginx-anchor/nginx.pid) $(pgrep -P "$(cat /tmp/nginx-anchor/nginx.pid)" | tr '\n' ' ')"
refuse_yaml() { # refused_body policy
  cat <<YAML
node: {id: bench-refuse, data_dir: "$work/refuse-$1-data"}
admin: {listen: "127.0.0.1:0"}
http: {listen: "127.0.0.1:18081", refused_body: $1$transport_key}
rate_limits:
  per_ip: {rate: 1, burst: 5}
sources:
  gh: {verify: {scheme: none}}
YAML
}
# The two servers side by side (each idle while the other is flooded), the floods interleaved round
# by round: this VM's speed moves by a quarter within minutes, and one nginx run followed by one
# Sluice run measured that drift as much as the servers. Each round floods nginx, then Sluice, with
# the same wrk command, bodiless and then with 1 KiB bodies (Sluice's default refused_body).
start_sluice refuse-close_if_incomplete "$(refuse_yaml close_if_incomplete)"
# Before round 1, each server takes FLOOD_WARM_UP seconds (default 15) of each flood, not counted.
# The JIT compiles Sluice's refusal path while wrk keeps both cores busy, so its compilers get
# little of them: after a fresh start and only each flood's own 3 s warm-up, round 1 measured
# Sluice still compiling (more user time a refusal than in the rounds after it).
if [ "$flood_warm_up" -gt 0 ]; then
  for lua in post-empty.lua post-1k.lua; do
    for port in 18080 18081; do
      wrk -t2 -c64 -d"${flood_warm_up}s" -s "$fixtures/$lua" "http://127.0.0.1:$port/hooks/gh" > /dev/null
    done
  done
fi
declare -a nginx_bare sluice_bare nginx_body sluice_body
for round in $(seq 1 "$rounds"); do
  # shellcheck disable=SC2086 # the master and its workers, one word each
  flood "round $round: refuse nginx limit_req, bodiless" 18080 post-empty.lua $nginx_pids
  nginx_bare+=("$flood_rps")
  flood "round $round: refuse sluice per_ip, bodiless (refused_body: close_if_incomplete)" 18081 post-empty.lua "$server_pid"
  sluice_bare+=("$flood_rps")
  # shellcheck disable=SC2086
  flood "round $round: refuse nginx limit_req, 1 KiB body" 18080 post-1k.lua $nginx_pids
  nginx_body+=("$flood_rps")
  flood "round $round: refuse sluice per_ip, 1 KiB body (refused_body: close_if_incomplete)" 18081 post-1k.lua "$server_pid"
  sluice_body+=("$flood_rps")
done
stop_sluice
nginx -c "$fixtures/nginx-limit-req.conf" -s stop
ratios() { # label "nginx rates" "sluice rates": each round's Sluice / nginx, their median, and total / total
  awk -v label="$1" -v n="$2" -v s="$3" 'BEGIN {
    k = split(n, a, " "); split(s, b, " "); line = ""
    for (i = 1; i <= k; i++) { r[i] = b[i] / a[i]; line = line sprintf(" %.2fx", r[i]); ta += a[i]; tb += b[i] }
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
    med = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2
    printf "FLOOD %s: Sluice / nginx per round%s; median %.2fx; all rounds %.0f / %.0f req/s = %.2fx\n",
      label, line, med, tb / k, ta / k, tb / ta }'
}
ratios bodiless "${nginx_bare[*]}" "${sluice_bare[*]}"
ratios "1 KiB body" "${nginx_body[*]}" "${sluice_body[*]}"

for policy in close discard; do
  start_sluice "refuse-$policy" "$(refuse_yaml "$policy")"
  flood "refuse sluice per_ip, 1 KiB body (refused_body: $policy)" 18081 post-1k.lua "$server_pid"
  stop_sluice
done
fi

# ---- 2. accepting signed hooks ---------------------------------------------------------
if [ "$only" = all ] || [ "$only" = accept ]; then
for batch in 256 1; do
  start_sluice "accept-$batch" "$(cat <<YAML
node: {id: bench-accept, data_dir: "$work/accept-$batch-data"}
admin: {listen: "127.0.0.1:18082"}
http: {listen: "127.0.0.1:18081"$transport_key}
intake: {partitions: ${PARTITIONS:-2}, max_batch: $batch, max_delay_ms: 0, max_queue: 10000}
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}}
YAML
)"
  echo -n "max_batch=$batch "
  java -Xmx512m -cp "$bench_jar" org.sluice.bench.edge.AcceptLoad 127.0.0.1 18081 /hooks/bench bench-secret "$secs" 64 5
  commits_before="$(commit_metrics)"
  cpu_begin "$server_pid"
  wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:18081/hooks/bench" > "$work/accept-$batch.wrk"
  cpu_stop "$server_pid"
  commits_after="$(commit_metrics)"
  summarise_wrk "max_batch=$batch wrk (every answer should be 202: non_2xx 0)" "$work/accept-$batch.wrk"
  cpu_report hook "$(wrk_total "$work/accept-$batch.wrk")"
  echo "  latency $(wrk_latency "$work/accept-$batch.wrk")"
  if [ "$batch" = 256 ]; then
    # commits: synced WriteBatches (one per group commit); syncs: the WAL syncs RocksDB really did,
    # one for every group of commits it wrote together; busy = share of the run inside commits
    read -r commits hooks commit_s syncs sync_s < <(echo "$commits_before $commits_after" | awk '{print $6-$1, $7-$2, $8-$3, $9-$4, $10-$5}')
    if [ "$syncs" -le 0 ]; then
      echo "  (no sluice_store_wal_syncs_total from this server: counting one sync per commit)"
      syncs=$commits
    fi
    mean_batch=$(awk -v c="$commits" -v h="$hooks" 'BEGIN {printf "%.1f", (c > 0 ? h / c : 0)}')
    per_sync=$(awk -v w="$syncs" -v h="$hooks" 'BEGIN {printf "%.1f", (w > 0 ? h / w : 0)}')
    rps=$(wrk_rps "$work/accept-$batch.wrk")
    echo "  store: commits=$commits wal_syncs=$syncs hooks=$hooks mean_batch=$mean_batch hooks_per_sync=$per_sync commits/s=$(awk -v c="$commits" -v s="$secs" 'BEGIN {printf "%.0f", c / s}') syncs/s=$(awk -v w="$syncs" -v s="$secs" 'BEGIN {printf "%.0f", w / s}') commit_busy=$(awk -v t="$commit_s" -v s="$secs" 'BEGIN {printf "%.2f", t / s}') mean_commit_ms=$(awk -v t="$commit_s" -v c="$commits" 'BEGIN {printf "%.2f", (c > 0 ? 1000 * t / c : 0)}')"
    # sync_busy: the share of the run a commit's log sync was in progress (they run one at a time); near 1,
    # ingest waits on syncs back to back, each as long as the disk and a busy machine make it
    echo "  commit syncs in the server: sync_busy=$(awk -v y="$sync_s" -v s="$secs" 'BEGIN {printf "%.2f", y / s}') mean_sync_ms=$(awk -v y="$sync_s" -v w="$syncs" 'BEGIN {printf "%.3f", (w > 0 ? 1000 * y / w : 0)}')"
    disk_ratio disk_ratio "FsyncBench syncs/s"
    # the same syncs with both cores kept busy (two spinning shells), as the accepting load keeps
    # them: a sync's writer then waits for a core once the disk is done, as the server's writers do
    for _ in 1 2; do sh -c 'while :; do :; done' & burners+=($!); done
    disk_ratio disk_ratio_busy "busy FsyncBench syncs/s" "both cores busy: "
    for b in "${burners[@]}"; do kill "$b" 2>/dev/null || true; wait "$b" 2>/dev/null || true; done
    burners=()
  fi
  stop_sluice
done
fi
# ---- 3. open loop: sluice load at a fixed rate ------------------------------------------
if [ "$only" = open ]; then
  out="${OPEN_OUT:-$PWD/open-loop}"
  mkdir -p "$out"
  start_sluice open "$(cat <<YAML
node: {id: bench-open, data_dir: "$work/open-data"}
admin: {listen: "127.0.0.1:0"}
http: {listen: "127.0.0.1:18081"$transport_key}
intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}, dedupe: {header: X-Event-Id}}
YAML
)"
  SLUICE_LOAD_SECRET=bench-secret java -Xmx512m -jar "$sluice_jar" load --url http://127.0.0.1:18081/hooks --source bench --scheme hmac \
    --rate "${OPEN_RATE:-2000}" --duration "${secs}s" --connections 64 --body-bytes 1024 \
    --report "$out/report.html" --json > "$out/summary.json"
  echo "open loop at ${OPEN_RATE:-2000}/s: $out/summary.json, $out/report.html"
  stop_sluice
fi
echo "load after: $(uptime)"
