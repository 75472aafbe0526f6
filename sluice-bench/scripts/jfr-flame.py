#!/usr/bin/env python3
"""A JFR recording's CPU samples (jdk.ExecutionSample) as a flame graph, offline.

Usage: jfr-flame.py RECORDING.jfr OUT.svg [THREAD_PREFIX] [TITLE]
Reads `jfr print --events jdk.ExecutionSample --stack-depth 96`, keeps the samples of threads
whose name starts with THREAD_PREFIX (default: every thread), writes OUT.svg (a static flame
graph: root at the bottom, a frame's width its share of the samples) and prints the top
frames by self and by total samples. OUT.collapsed holds the folded stacks beside the SVG.
"""
import collections
import html
import re
import subprocess
import sys


def samples(recording, prefix):
    text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "96", recording],
                          check=True, capture_output=True, text=True).stdout
    thread, frames, in_stack = None, [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("sampledThread"):
            m = re.search(r'"(.*)"', s)
            thread = m.group(1) if m else ""
        elif s.startswith("stackTrace = ["):
            frames, in_stack = [], True
        elif in_stack and s == "]":
            in_stack = False
            if thread is not None and thread.startswith(prefix) and frames:
                yield list(reversed(frames))  # root first
        elif in_stack and s and s != "...":
            frames.append(re.sub(r"\s+line:.*$", "", s).replace(";", ","))


def short(frame):
    name = frame.split("(")[0]
    parts = name.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else name


def main():
    recording, out = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    title = sys.argv[4] if len(sys.argv) > 4 else recording
    folded = collections.Counter(";".join(short(f) for f in st) for st in samples(recording, prefix))
    total = sum(folded.values())
    if total == 0:
        sys.exit("no jdk.ExecutionSample events for threads starting with '%s'" % prefix)
    with open(out.rsplit(".", 1)[0] + ".collapsed", "w") as f:
        for stack, n in folded.most_common():
            f.write("%s %d\n" % (stack, n))

    self_count, total_count = collections.Counter(), collections.Counter()
    tree = {}
    for stack, n in folded.items():
        frames = stack.split(";")
        self_count[frames[-1]] += n
        for fr in set(frames):
            total_count[fr] += n
        node = tree
        for fr in frames:
            entry = node.setdefault(fr, [0, {}])
            entry[0] += n
            node = entry[1]
    print("%d samples (threads '%s*')" % (total, prefix))
    print("top frames by self samples:")
    for fr, n in self_count.most_common(20):
        print("  %5.1f%%  %s" % (100.0 * n / total, fr))
    print("top frames by total samples (frame or its callees):")
    for fr, n in total_count.most_common(25):
        print("  %5.1f%%  %s" % (100.0 * n / total, fr))

    width, row = 1600.0, 16
    rects = []

    def depth_of(node):
        return 1 + max((depth_of(child[1]) for child in node.values()), default=0)

    levels = depth_of(tree)
    height = (levels + 3) * row

    def draw(node, x, level):
        for fr, (n, children) in sorted(node.items()):
            w = width * n / total
            if w >= 0.5:
                y = height - (level + 2) * row
                hue = 10 + (hash(fr) % 40)
                label = html.escape(fr) if w > 60 else ""
                cut = int(w / 7)
                rects.append('<g><title>%s (%d samples, %.1f%%)</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                             'fill="hsl(%d,85%%,60%%)" stroke="white" stroke-width="0.5"/>'
                             '<text x="%.1f" y="%d" font-size="11" font-family="monospace">%s</text></g>'
                             % (html.escape(fr), n, 100.0 * n / total, x, y, w, row - 1, hue, x + 2, y + 12,
                                label[:cut]))
            draw(children, x, level + 1)
            x += w

    draw(tree, 0.0, 0)
    with open(out, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
                % (width, height, width, height))
        f.write('<rect width="100%" height="100%" fill="white"/>')
        f.write('<text x="4" y="14" font-size="13" font-family="sans-serif">%s: %d CPU samples</text>'
                % (html.escape(title), total))
        f.write("".join(rects))
        f.write("</svg>\n")


if __name__ == "__main__":
    main()
