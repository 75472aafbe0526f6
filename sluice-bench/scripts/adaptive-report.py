#!/usr/bin/env python3
"""Per-phase figures of adaptive-bench.sh from the receiver's per-second CSV and the pace samples.

Usage: adaptive-report.py receiver.csv pace.log started_ms
  receiver.csv: second,capacity,answered_200,answered_429 (CapacityReceiver)
  pace.log:     "<epoch ms> <pace per second>" lines, one a second ("-" when the scrape failed)
  started_ms:   the receiver's first request (its second 0), to put each pace sample in its second
For each phase of constant capacity: its seconds, the delivered rate (200s) per second over the
whole phase and over its second half, the 429s, and the seconds from the phase's start until the
first second in which the delivered rate reached 70% of the capacity with 429s under 10% of it.
"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
started = int(sys.argv[3])
paces = {}  # second of the schedule (1-based, as the CSV's) -> pace sampled in it
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 2 and parts[1] != "-":
        second = (int(parts[0]) - started) // 1000 + 1
        if second >= 1:
            paces[second] = float(parts[1])

phases = []
for r in rows:
    cap = int(r["capacity"])
    if not phases or phases[-1]["capacity"] != cap:
        phases.append({"capacity": cap, "rows": []})
    phases[-1]["rows"].append(r)

total_ok = total_429 = 0
for p in phases:
    ok = [int(r["answered_200"]) for r in p["rows"]]
    no = [int(r["answered_429"]) for r in p["rows"]]
    n = len(ok)
    half = ok[n // 2:]
    sampled = [paces[int(r["second"])] for r in p["rows"] if int(r["second"]) in paces]
    follow = next((i + 1 for i in range(n) if ok[i] >= 0.7 * p["capacity"] and no[i] <= 0.1 * p["capacity"]), None)
    total_ok += sum(ok)
    total_429 += sum(no)
    print("capacity %4d/s for %3d s: delivered %6.1f/s (second half %6.1f/s, %3.0f%% of capacity), 429s %6d (%5.1f/s),"
          " followed after %s, pace %s" % (p["capacity"], n, sum(ok) / n, sum(half) / max(1, len(half)),
                                  100.0 * sum(half) / max(1, len(half)) / p["capacity"], sum(no), sum(no) / n,
                                  "%d s" % follow if follow else "never",
                                  "mean %.0f/s (min %.0f, max %.0f)" % (sum(sampled) / len(sampled), min(sampled), max(sampled))
                                  if sampled else "not sampled"))
print("whole run: %d delivered, %d answered 429 (%.1f%% of attempts)" % (total_ok, total_429,
      100.0 * total_429 / max(1, total_ok + total_429)))
