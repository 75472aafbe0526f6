#!/usr/bin/env python3
"""Prints the ratios issues 2 and 16 ask for from one JMH JSON result file."""
import json, sys

rows = json.load(open(sys.argv[1]))
score, alloc = {}, {}
for r in rows:
    name = r["benchmark"].rsplit(".", 2)
    cls, meth = name[-2], name[-1]
    p = r.get("params", {})
    key = (cls, p.get("load") or p.get("impl"), meth)
    score[key] = r["primaryMetric"]["score"]
    sec = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    alloc[key] = sec["score"] if sec else None

print(f"{'benchmark':58} {'ops/us':>10} {'B/op':>8}")
for k in sorted(score):
    a = alloc[k]
    print(f"{'/'.join(k):58} {score[k]:10.2f} {('%.1f' % a) if a is not None else '-':>8}")

def ratio(a, b):
    return score[a] / score[b] if a in score and b in score else float("nan")

print()
print("hot key, admitting: sluice / bucket4j    = %.2fx (target >= 2.5)" % ratio(("HotKeyBenchmark", "admit", "sluice"), ("HotKeyBenchmark", "admit", "bucket4j")))
print("hot key, flood:     sluice / bucket4j    = %.2fx (target >= 10)" % ratio(("HotKeyBenchmark", "flood", "sluice"), ("HotKeyBenchmark", "flood", "bucket4j")))
print("1M keys: sluice / bucket4j-caffeine      = %.2fx (target >= 8; issue 16: >= 12)" % ratio(("ManyKeysBenchmark", "sluice", "charge"), ("ManyKeysBenchmark", "bucket4j-caffeine", "charge")))
print("1M keys: sluice / yardstick              = %.2fx (target >= 1.5; issue 16: >= 2)" % ratio(("ManyKeysBenchmark", "sluice", "charge"), ("ManyKeysBenchmark", "yardstick", "charge")))
print("1M keys, Clock.ticking(1 ms): sluice / bucket4j-caffeine = %.2fx" % ratio(("ManyKeysBenchmark", "sluice-ticking", "charge"), ("ManyKeysBenchmark", "bucket4j-caffeine", "charge")))
print("1M keys, Clock.ticking(1 ms): sluice / yardstick         = %.2fx" % ratio(("ManyKeysBenchmark", "sluice-ticking", "charge"), ("ManyKeysBenchmark", "yardstick", "charge")))
print("1M keys, Clock.ticking(1 ms) for both: sluice / yardstick = %.2fx" % ratio(("ManyKeysBenchmark", "sluice-ticking", "charge"), ("ManyKeysBenchmark", "yardstick-ticking", "charge")))
