#!/usr/bin/env bash
# The edge before the structure split of issue 44 and after it, in one run on one machine.
#
# Builds the runnable jar (sluice-edge/target/sluice.jar) of each revision in a temporary git
# worktree (offline Maven, tests not compiled, Error Prone's checks off as ./sluice builds: they
# change no bytecode), then runs ROUNDS rounds, each:
#   1. accepting: accept-ab.sh with one pair (before, then after): fsynced, signed 1 KiB hooks,
#      wrk -t2 -c64, WARM_UP seconds not counted, ACCEPT_SECONDS counted;
#   2. delivery at full load: delivery-ab.sh with one pair (before, then after): the same load
#      with one HTTP destination (nginx on loopback), WARM_UP seconds and their backlog not
#      counted, DELIVERY_SECONDS counted and their backlog drained.
# The sides interleave within each round so that what else the machine is doing falls on both.
# Prints a table per round with the machine's load average at its start, then a summary: the
# median of the rounds per side and the ratio after/before.
#
# Usage (from anywhere): sluice-bench/scripts/split-bench.sh [AFTER_REV] [ROUNDS] [ACCEPT_SECONDS] [DELIVERY_SECONDS]
#   AFTER_REV         the revision after the split (default HEAD)
#   ROUNDS            rounds of both benchmarks (default 3)
#   ACCEPT_SECONDS    counted seconds of each accepting run (default 10)
#   DELIVERY_SECONDS  counted seconds of each delivery run (default 15)
#   BEFORE_REV=rev    the revision before the split (default 613d2b3, main before issue 44)
#   WARM_UP=s         seconds of load before each counted window, not counted (default 15)
#   SERVER_JAVA_OPTS  JVM options for the servers (default: -Xms1g -Xmx1g, as the scripts it runs)
# Exit status 2 for a bad argument (the message names it and its value), 1 when a build or a
# benchmark fails (its output is shown).
set -euo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$scripts/../.." && pwd)"

usage() { echo "usage: $0 [AFTER_REV] [ROUNDS] [ACCEPT_SECONDS] [DELIVERY_SECONDS]" >&2; }
bad() { echo "split-bench: $1" >&2; usage; exit 2; }
whole() { # name value min: value is a whole number of at least min
  [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] || bad "$1 must be a whole number of at least $3, got '$2'"
}
commit_of() { # name rev: the full hash of rev's commit
  git -C "$root" rev-parse --verify --quiet "$2^{commit}" || bad "$1 must name a commit of this repository, got '$2'"
}

[ $# -le 4 ] || bad "at most 4 arguments, got $#: $*"
after_rev="${1:-HEAD}"; rounds="${2:-3}"; accept_secs="${3:-10}"; delivery_secs="${4:-15}"
before_rev="${BEFORE_REV:-613d2b3}"; warm="${WARM_UP:-15}"
whole ROUNDS "$rounds" 1
whole ACCEPT_SECONDS "$accept_secs" 1
whole DELIVERY_SECONDS "$delivery_secs" 1
whole WARM_UP "$warm" 0
before=$(commit_of BEFORE_REV "$before_rev")
after=$(commit_of AFTER_REV "$after_rev")

work="$(mktemp -d)"
trees=()
cleanup() {
  for t in "${trees[@]}"; do git -C "$root" worktree remove --force "$t" 2>/dev/null || true; done
  git -C "$root" worktree prune 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

describe() { git -C "$root" log -1 --format='%h (%cs) %s' "$1" | cut -c1-100; }

build() { # side commit: copies that commit's runnable jar to $work/side.jar
  local side=$1 commit=$2 tree="$work/src-$1" start
  start=$(date +%s)
  git -C "$root" worktree add --detach --quiet "$tree" "$commit"
  trees+=("$tree")
  if ! grep -q '{errorprone.checks}' "$tree/pom.xml"; then
    # a revision older than the pom property errorprone.checks: the same flag, written into this
    # temporary copy's compiler arguments
    sed -i 's|\(-Xplugin:ErrorProne[^<]*\)</arg>|\1 -XepDisableAllChecks</arg>|' "$tree/pom.xml"
  fi
  if ! (cd "$tree" && mvn -B -ntp -o -q -pl sluice-edge -am package -Dmaven.test.skip=true \
        -Derrorprone.checks=-XepDisableAllChecks) > "$work/build-$side.log" 2>&1; then
    tail -n 40 "$work/build-$side.log" >&2
    echo "split-bench: building $side ($commit) failed" >&2
    exit 1
  fi
  cp "$tree/sluice-edge/target/sluice.jar" "$work/$side.jar"
  echo "built $side: $(describe "$commit") in $(( $(date +%s) - start )) s"
}

run() { # output-file script args...: runs one of the A/B scripts, or shows its output and stops
  local out=$1; shift
  if ! WARM_UP="$warm" "$@" > "$out" 2>&1; then
    cat "$out" >&2
    echo "split-bench: $(basename "$1") failed" >&2
    exit 1
  fi
}

echo "split-bench: before $before_rev, after $after_rev; $rounds rounds, warm-up $warm s, accepting $accept_secs s, delivery $delivery_secs s"
echo "machine: $(nproc) cores, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
build before "$before"
build after "$after"

for r in $(seq 1 "$rounds"); do
  echo "round $r $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/loads"
  run "$work/accept-$r.out" "$scripts/accept-ab.sh" "$work/before.jar" "$work/after.jar" 1 "$accept_secs"
  run "$work/delivery-$r.out" "$scripts/delivery-ab.sh" "$work/before.jar" "$work/after.jar" 1 "$delivery_secs"
  echo "round $r end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/loads"
  python3 - "$work" "$r" table <<'PY'
import re, sys
work, r = sys.argv[1], int(sys.argv[2])

def ms(v, unit):  # wrk writes 850.12us, 12.34ms or 1.02s
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

def sides(path, pattern):
    out = {}
    for line in open(path):
        m = re.match(r"pair \d+ ([AB])\b", line)
        if m:
            out["before" if m.group(1) == "A" else "after"] = pattern(line)
    if set(out) != {"before", "after"}:
        sys.exit("split-bench: no figures for both sides in " + path + ":\n" + open(path).read())
    return out

def grab(line, key):
    m = re.search(key, line)
    if not m:
        sys.exit("split-bench: no " + key + " in: " + line)
    return m

def accept(line):
    p99 = grab(line, r"p99=([0-9.]+)(us|ms|s)\b")
    return {"accept hooks/s": float(grab(line, r"hooks/s=([0-9.]+)").group(1)),
            "accept p99 ms": ms(p99.group(1), p99.group(2)),
            "accept server cpu us/hook": float(grab(line, r"server_cpu_us_per_hook=([0-9.]+)").group(1))}

def delivery(line):
    return {"delivery accepted/s": float(grab(line, r"accepted/s=([0-9.]+)").group(1)),
            "delivery delivered/s": float(grab(line, r"delivered_per_s_in_window=([0-9.]+)").group(1)),
            "delivery lag p50 ms": float(grab(line, r"lag_ms p50=([0-9]+)").group(1)),
            "delivery lag p99 ms": float(grab(line, r"lag_ms p50=[0-9]+ p99=([0-9]+)").group(1)),
            "delivery server cpu us/hook": float(grab(line, r"server_cpu_us_per_hook=([0-9.]+)").group(1))}

a = sides(f"{work}/accept-{r}.out", accept)
d = sides(f"{work}/delivery-{r}.out", delivery)
with open(f"{work}/figures.tsv", "a") as f:
    for side in ("before", "after"):
        for k, v in {**a[side], **d[side]}.items():
            f.write(f"{r}\t{side}\t{k}\t{v}\n")
loads = [l.split()[2:] for l in open(f"{work}/loads") if l.split()[1] == str(r)]
start, end = " ".join(loads[0]), " ".join(loads[1][1:])
print(f"\nround {r}: load average (1, 5, 15 min) {start} at its start, {end} at its end")
print(f"  {'':28} {'before':>10} {'after':>10} {'after/before':>13}")
for k in list(a["before"]) + list(d["before"]):
    b, x = {**a["before"], **d["before"]}[k], {**a["after"], **d["after"]}[k]
    print(f"  {k:28} {b:>10.2f} {x:>10.2f} {(x / b if b else float('nan')):>13.3f}")
PY
done

python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
rows = [l.rstrip("\n").split("\t") for l in open(f"{work}/figures.tsv")]
keys = list(dict.fromkeys(r[2] for r in rows))
rounds = len({r[0] for r in rows})
print(f"\nsummary: median of {rounds} rounds per side (every round's figures above)")
print(f"  {'':28} {'before':>10} {'after':>10} {'after/before':>13}")
for k in keys:
    med = {s: statistics.median(float(r[3]) for r in rows if r[2] == k and r[1] == s) for s in ("before", "after")}
    b, a = med["before"], med["after"]
    print(f"  {k:28} {b:>10.2f} {a:>10.2f} {(a / b if b else float('nan')):>13.3f}")
print("  (hooks/s, accepted/s and delivered/s: higher is better; p99, lag and CPU per hook: lower is better)")
PY
echo "before = $(describe "$before")"
echo "after  = $(describe "$after")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
