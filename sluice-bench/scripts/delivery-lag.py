#!/usr/bin/env python3
"""Delivery figures from an nginx arrival log ("<epoch seconds.millis> <webhook-id>" per line).

Usage: delivery-lag.py LOG FROM_MS TO_MS [RECEIVED_FROM_MS]
Prints: attempts logged, distinct hooks, repeats, deliveries per second between FROM_MS
and TO_MS (the accepting window), and the lag (arrival - receipt, the receipt read from the
UUIDv7 webhook-id) p50 / p99 / max in ms over every hook, or, with RECEIVED_FROM_MS, over
the hooks received from then on (a warm-up before it is left out; attempts, hooks and
repeats still count every hook).
"""
import sys


def receipt_ms(uuid):
    h = uuid.replace("-", "")
    return int(h[:12], 16)


def pct(sorted_values, p):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[i]


def main():
    log, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    received_from = int(sys.argv[4]) if len(sys.argv) > 4 else None
    first = {}
    lines = 0
    in_window = 0
    with open(log) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 2 or parts[1] == "-":
                continue
            lines += 1
            at = int(float(parts[0]) * 1000)
            if lo <= at < hi:
                in_window += 1
            first.setdefault(parts[1], at)
    lags = sorted(at - receipt_ms(uid) for uid, at in first.items()
                  if received_from is None or receipt_ms(uid) >= received_from)
    secs = max(1e-9, (hi - lo) / 1000.0)
    print("attempts=%d hooks=%d repeats=%d delivered_per_s_in_window=%.0f lag_ms p50=%d p99=%d max=%d"
          % (lines, len(first), lines - len(first), in_window / secs, pct(lags, 50), pct(lags, 99),
             lags[-1] if lags else -1))


if __name__ == "__main__":
    main()
