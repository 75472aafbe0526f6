# Functions the benchmark scripts share. Sourced, not run:
#
#   source "$(dirname "$0")/lib.sh"
#
# Sets root (the repository), scripts (this folder) and fixtures, and moves to root. The
# Sluice helpers read $work (the script's temp dir), $sluice_jar and, when set,
# SERVER_JAVA_OPTS (default -Xms1g -Xmx1g), and keep the running server's pid in
# $server_pid; the wrk helpers read $secs and $fixtures.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scripts="$root/sluice-bench/scripts"
fixtures="$scripts/fixtures"
server_pid=""
cd "$root"

# ---- processes and ports -----------------------------------------------------------------

wait_port() { # host port: until something accepts connections there (60 s at the most)
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listening on $1:$2" >&2; return 1
}

now_ms() { date +%s%3N; }

stop_pid() { # pid (may be empty): ends that process and reaps it, quietly
  if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi
}

poll() { # tries interval command...: runs the command every interval seconds until it succeeds (status 1 if it never did)
  local tries=$1 interval=$2; shift 2
  for _ in $(seq 1 "$tries"); do
    if "$@"; then return 0; fi
    sleep "$interval"
  done
  return 1
}

# ---- the Kafka bench tool and its broker (broker-bench-kafka.sh, replay-bench-kafka.sh) ----

kafka_bench_setup() { # after the build: sets sluice_jar, tool_cmd (KafkaBenchTool's java command, run it
  # with tool), work (a temp dir), broker_pid and TOKEN (the bench server's admin token); on exit the
  # server and the broker are stopped and work deleted
  sluice_jar="${SLUICE_JAR:-$root/sluice-edge/target/sluice.jar}" # SLUICE_JAR=path: that server jar
  local tool_cp
  tool_cp="$root/sluice-bench/target/test-classes:$root/sluice-bench/target/classes:$(cat "$root/sluice-bench/target/test.cp")"
  tool_cmd=(java -Xmx1g -Dlogback.configurationFile="$root/sluice-bench/src/test/resources/logback-test.xml" -cp "$tool_cp" org.sluice.bench.consuming.KafkaBenchTool)
  work="$(mktemp -d)"
  broker_pid=""
  TOKEN="bench-admin-token-0123456789abcdef"
  trap kafka_bench_cleanup EXIT
}
kafka_bench_cleanup() {
  stop_pid "$server_pid"
  stop_pid "$broker_pid"
  rm -rf "$work"
}
tool() { "${tool_cmd[@]}" "$@"; }

start_kafka_broker() { # [brokers, default 1] [key=value...]: a KRaft cluster (one node, or three brokers
  # with min.insync.replicas=2; each key=value a broker setting more) in one JVM of its own; sets
  # broker_pid and bootstrap (host:port,...)
  # a simple command, not a function, in the background: it is the JVM itself, so $! is its pid
  # and the cleanup's kill reaches it (a backgrounded function is a subshell, and killing that
  # left the broker running after the script)
  "${tool_cmd[@]}" broker "$work/bootstrap" "${1:-1}" "${@:2}" > "$work/broker.out" 2>&1 &
  broker_pid=$!
  for _ in $(seq 1 1200); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
  bootstrap="$(cat "$work/bootstrap")"
}

need_wrk_and_nginx() { # the load tool and the receiver, from Debian's packages when missing
  if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    apt-get install -y wrk nginx-light >/dev/null
  fi
}

# ---- Sluice ----------------------------------------------------------------------------

server_jar() { # sets sluice_jar: $SLUICE_JAR, or else this checkout's server, built now
  if [ -z "${SLUICE_JAR:-}" ]; then
    mvn -B -ntp -q -pl sluice-edge -am package -DskipTests
  fi
  sluice_jar="${SLUICE_JAR:-$root/sluice-edge/target/sluice.jar}"
  echo "server: $sluice_jar"
}


launch_sluice() { # name port...: serves $work/name.yaml (written by the caller), then waits for each port
  local name=$1; shift
  # shellcheck disable=SC2086 # options split on spaces on purpose
  java ${SERVER_JAVA_OPTS:--Xms1g -Xmx1g} -jar "$sluice_jar" serve --config "$work/$name.yaml" \
    > "$work/$name.out" 2> "$work/$name.err" &
  server_pid=$!
  for port in "$@"; do wait_port 127.0.0.1 "$port"; done
}

stop_sluice() {
  kill -TERM "$server_pid" 2>/dev/null || echo "  (the server, pid $server_pid, had already exited: see its log)"
  wait "$server_pid" || true; server_pid=""
}

# ---- wrk -------------------------------------------------------------------------------

wrk_rps() { awk '/Requests\/sec/ {print $2}' "$1"; } # file
wrk_total() { awk '/requests in/ {print $1}' "$1"; } # file
wrk_non2xx() { local n; n=$(awk '/Non-2xx/ {print $5}' "$1"); echo "${n:-0}"; } # file: answers other than 2xx
wrk_latency() { # file (run with --latency): "p50=... p99=..."
  awk '/^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print "p50=" p50 " p99=" p99}' "$1"
}
per_second() { awk -v n="$1" -v ms="$2" 'BEGIN {printf "%.0f", n / (ms / 1000)}'; } # count milliseconds

accepting_load() { # label port: wrk -t2 -c64 posting signed 1 KiB hooks to /hooks/bench for $secs into
  # $work/label.wrk; sets FROM and TO (ms), NON2XX and ACCEPTED (the 2xx answers)
  FROM=$(now_ms)
  wrk -t2 -c64 -d"${secs}s" --latency -s "$fixtures/post-signed-1k.lua" "http://127.0.0.1:$2/hooks/bench" > "$work/$1.wrk"
  TO=$(now_ms)
  NON2XX=$(wrk_non2xx "$work/$1.wrk")
  ACCEPTED=$(( $(wrk_total "$work/$1.wrk") - NON2XX ))
}

# ---- delivery configs ------------------------------------------------------------------

delivery_yaml() { # name node-id admin-yaml port destinations-yaml deliver-to: writes $work/name.yaml, a
  # server on that port taking accepting_load's signed hooks (source bench) and delivering them
  cat > "$work/$1.yaml" <<YAML
node: {id: $2, data_dir: "$work/$1-data"}
admin: $3
http: {listen: "127.0.0.1:$4"${TRANSPORT:+, transport: $TRANSPORT}}
intake: {partitions: 2, max_batch: 256, max_delay_ms: 0, max_queue: 10000}
destinations:
$5
sources:
  bench: {tenant: bench, verify: {scheme: hmac, header: X-Signature, prefix: "sha256=", algorithm: sha256, encoding: hex, secrets: ["bench-secret"]}, dedupe: {header: X-Event-Id}, deliver_to: [$6]}
YAML
}

# ---- a server process's CPU and context switches, from /proc -----------------------------

clock_ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # pid: user + system, every thread
first_pending() { # reads GET /v1/destinations on stdin: the first destination's pending count. awk, not a
  # python3 JSON parse: a python3 start costs about 0.3 s of CPU on this VM, and a drain polls twice a
  # second, which took a fifth of the two cores from the replay it timed. awk reads to the end (no SIGPIPE).
  awk -F'"pending":' 'NR == 1 && NF > 1 {split($2, v, /[^0-9]/); print v[1]}'
}
cpu_snapshot() { # pid...: the CPU ticks of each process (0 for one that is gone), then the machine's
  # busy and total ticks over all cores (/proc/stat: busy = user, nice, system, irq, softirq; total adds idle,
  # iowait and steal). Two snapshots around a phase give cpu_per_item its figures; reading them starts no process.
  local out="" p
  for p in "$@"; do
    if [ -r "/proc/$p/stat" ]; then out+="$(cpu_ticks "$p") "; else out+="0 "; fi
  done
  echo "$out$(awk '/^cpu / {b = $2 + $3 + $4 + $7 + $8; print b, b + $5 + $6 + $9}' /proc/stat)"
}
cpu_per_item() { # before after items names: each named process's CPU microseconds per item between the two
  # snapshots (names: one word per pid of the snapshots, in their order), their sum when more than one, the
  # machine's busy share, and the cores that busy share is
  awk -v before="$1" -v after="$2" -v n="$3" -v names="$4" -v hz="$clock_ticks" -v cores="$(nproc)" 'BEGIN {
    nb = split(before, b, " "); split(after, a, " "); k = split(names, nm, " ")
    for (i = 1; i <= k; i++) { us = (a[i] - b[i]) / hz * 1e6 / (n > 0 ? n : 1); sum += us; printf "%s %.1f us, ", nm[i], us }
    if (k > 1) printf "together %.1f us, ", sum
    busy = (a[nb] - b[nb]) > 0 ? (a[nb - 1] - b[nb - 1]) / (a[nb] - b[nb]) : 0
    printf "machine %.0f%% busy (%.2f of %d cores)", 100 * busy, busy * cores, cores
  }'
}
budget_at_half() { # plain_per_s: CPU microseconds per record, every process together, that the machine's
  # cores allow a replay at 0.5x the plain producer's rate if they were all busy with nothing else
  awk -v p="$1" -v c="$(nproc)" 'BEGIN { printf "%.1f", (p > 0 ? c * 1e6 / (0.5 * p) : 0) }'
}
acked_per_s() { sed -n 's/.*: \([0-9][0-9]*\) \(records\/s acknowledged\|acked\/s\).*/\1/p'; } # a ceiling's line on stdin: its rate
acked_count() { sed -n 's/.*(\([0-9][0-9]*\) \(in\|acked\).*/\1/p'; } # a ceiling's line on stdin: records or messages acked
switches() { # pid: voluntary context switches of every thread
  cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n}'
}

# ---- the nginx receiver of the delivery benchmarks ---------------------------------------

logs=/tmp/nginx-receiver # its access logs: app.log (port 18090), audit.log (18091)
start_receiver() { # a fresh nginx on fixtures/nginx-receiver.conf, with empty logs
  stop_receiver
  sleep 0.5
  rm -rf "$logs"; mkdir -p "$logs"
  nginx -c "$fixtures/nginx-receiver.conf"
  wait_port 127.0.0.1 18090
}
stop_receiver() { nginx -c "$fixtures/nginx-receiver.conf" -s stop 2>/dev/null || true; }
lines() { # log: lines with a webhook-id
  if [ -f "$1" ]; then grep -vc ' -$' "$1" || true; else echo 0; fi
}
logs_hold() { # expected log...: each log has at least expected lines
  local expected=$1; shift
  for log in "$@"; do
    if [ "$(lines "$log")" -lt "$expected" ]; then return 1; fi
  done
}
drain_logs() { # expected log...: wait (up to 300 s) until each log has at least expected lines
  poll 3000 0.1 logs_hold "$@" || echo "  (not drained after 300 s)"
}
