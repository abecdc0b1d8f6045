#!/usr/bin/env python3
##===----------------------------------------------------------------------===##
#
# This source file is part of the Conveyor open source project
#
# Copyright (c) 2026 the Conveyor project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0
#
##===----------------------------------------------------------------------===##

"""Ranges over several full runs of conveyor-bench, quiet and loaded, as README shows them.

    python3 Benchmarks/summarize.py --quiet q1.json q2.json q3.json --loaded l1.json l2.json l3.json [--svg chart.svg]

Prints a Markdown table: per row, libdispatch's and Conveyor's medians in the last run of
each mode and the range of the ratios over the runs, quiet and loaded side by side (and
the drop-in library's ratios, when the runs measured them); then
the Swift concurrency rows (default executor / Conveyor's global executor) the same way.
With --svg, also draws the chart README shows: per row a quiet bar and a loaded bar (the
last run of each mode), on one log scale, with the range over the runs written beside.
"""
import math
import json
import sys


def load(paths):
    runs = []
    for path in paths:
        run = json.load(open(path))
        if "concurrency" not in run:
            run["concurrency"] = concurrency_from_markdown(path[:-len(".json")] + ".md")
        runs.append(run)
    return runs


def concurrency_from_markdown(path):
    """The Swift concurrency rows of a run whose JSON predates them, from its --markdown file."""
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    rows = []
    started = False
    for line in lines:
        if line.startswith("Swift concurrency"):
            started = True
        elif started and line.startswith("| ") and not line.startswith("| workload") and not line.startswith("| ---"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows.append({"name": cells[0], "unit": cells[1], "cells": cells[2:5],
                         "ratio": float(cells[5]) if cells[5] not in ("n/a", "") else None})
    return rows


def ratio(row, key="ratio"):
    """The row's ratio (or `dropInRatio`) and whether it is a bound (a side gave up), or
    (None, False)."""
    if not row.get(key):
        return None, False
    return row[key]["value"], row[key].get("bound") in ("atLeast", "atMost")


def fmt(value):
    if value is None:
        return "n/a"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def ratio_range(rows, key="ratio"):
    values = [ratio(r, key) for r in rows if r is not None]
    numbers = [v for v, _ in values if v is not None]
    if not numbers:
        return "n/a"
    bound = any(b for _, b in values)
    low, high = min(numbers), max(numbers)
    text = fmt(low) if fmt(low) == fmt(high) else f"{fmt(low)}–{fmt(high)}"
    return ("> " if bound else "") + text


def side(row, name):
    median = row[name]["median"]
    if median is None:
        seconds = row[name].get("timedOutAfterSeconds")
        return f"> {fmt(seconds)} s" if seconds else "FAILED"
    return fmt(median)


def main():
    args = sys.argv[1:]
    if "--quiet" not in args or "--loaded" not in args:
        print(__doc__)
        return 2
    svg = None
    if "--svg" in args:
        svg = args[args.index("--svg") + 1]
        args = args[:args.index("--svg")] + args[args.index("--svg") + 2:]
    quiet = load(args[args.index("--quiet") + 1:args.index("--loaded")])
    loaded = load(args[args.index("--loaded") + 1:])
    if svg:
        open(svg, "w").write(chart(quiet, loaded))
    # The drop-in columns (the libdispatch build under Conveyor's drop-in library) when the
    # runs measured them.
    drop_in = any(r.get("dropInRatio") for run in quiet + loaded for r in run["rows"])
    extra = " quiet: drop-in ratio | loaded: drop-in ratio |" if drop_in else ""
    print("| workload | unit | quiet: libdispatch | quiet: Conveyor | quiet ratio | loaded: libdispatch | loaded: Conveyor | loaded ratio |" + extra)
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if drop_in else ""))
    for row in quiet[-1]["rows"]:
        name = row["name"]
        q = [next((r for r in run["rows"] if r["name"] == name), None) for run in quiet]
        l = [next((r for r in run["rows"] if r["name"] == name), None) for run in loaded]
        last = l[-1]
        cells = f" {ratio_range(q, 'dropInRatio')} | {ratio_range(l, 'dropInRatio')} |" if drop_in else ""
        print(f"| {name} | {row['unit']} | {side(row, 'libdispatch')} | {side(row, 'conveyor')} | {ratio_range(q)} | "
              f"{side(last, 'libdispatch') if last else 'n/a'} | {side(last, 'conveyor') if last else 'n/a'} | {ratio_range(l)} |" + cells)
    if quiet[-1].get("concurrency"):
        print()
        print("| Swift concurrency | unit | quiet: default executor | quiet: Conveyor executor | quiet ratio | loaded: default | loaded: Conveyor | loaded ratio |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in quiet[-1]["concurrency"]:
            def span(runs):
                values = [r["ratio"] for run in runs for r in run.get("concurrency", []) if r["name"] == row["name"] and r["ratio"]]
                if not values:
                    return "n/a"
                return fmt(min(values)) if fmt(min(values)) == fmt(max(values)) else f"{fmt(min(values))}–{fmt(max(values))}"
            last = next((r for r in loaded[-1].get("concurrency", []) if r["name"] == row["name"]), None)
            print(f"| {row['name']} | {row['unit']} | {row['cells'][0]} | {row['cells'][1]} | {span(quiet)} | "
                  f"{last['cells'][0] if last else 'n/a'} | {last['cells'][1] if last else 'n/a'} | {span(loaded)} |")
    return 0


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def chart(quiet, loaded):
    """Two bars per row (quiet, loaded) on one log scale around 1x; ranges written beside."""
    def rows_of(runs, key):
        return [(r["name"], r) for r in runs[-1].get(key, [])]

    def value(entry, key):
        if entry is None:
            return None
        if key == "rows":
            v, _ = ratio(entry)
            return v if v and v > 0 else None
        return entry.get("ratio") if entry.get("ratio") and entry["ratio"] > 0 else None

    def span(runs, key, name):
        values = [value(next((r for r in run.get(key, []) if r["name"] == name), None), key) for run in runs]
        values = [v for v in values if v]
        if not values:
            return "n/a"
        low, high = fmt(min(values)), fmt(max(values))
        return low if low == high else f"{low}–{high}"

    sections = [("Dispatch workloads: libdispatch ÷ Conveyor", "rows"),
                ("Swift concurrency: default executor ÷ Conveyor's global executor", "concurrency")]
    everything = [value(r, key) for key in ("rows", "concurrency") for runs in (quiet, loaded) for _, r in rows_of(runs, key)]
    logs = [math.log2(v) for v in everything if v]
    low = int(max(-6, min(-1, math.floor(min(logs)))))
    high = int(min(9, max(1, math.ceil(max(logs)))))
    left, right, label_right, range_left = 350.0, 860.0, 330.0, 880.0
    def x(v):
        clamped = min(max(math.log2(v), low), high)
        return left + (clamped - low) / (high - low) * (right - left)
    one = x(1)
    row_height, bar = 30.0, 11.0
    out = []
    y = 30.0
    out.append(f'<text x="20" y="{y}" font-size="19" font-weight="bold">Conveyor vs libdispatch, quiet and loaded: libdispatch\'s result ÷ Conveyor\'s (&gt; 1× = Conveyor better)</text>')
    machine = quiet[-1]["machine"]
    facts = [f'{machine.get("cpus", "?")} CPUs · {machine.get("cpuModel", "")} · {machine.get("kernel", "")} · Swift {machine.get("swift", "")}',
             f"dark bars: quiet machine; light bars: {loaded[-1].get('loadThreads', '?')} threads burning CPU beside both libraries (--load); the last of {len(quiet)} runs each, medians of {quiet[-1]['runs']} processes",
             "beside each pair: the range of the ratio over the runs, quiet / loaded; log scale"]
    for fact in facts:
        y += 18
        out.append(f'<text x="20" y="{y}" fill="#444">{escape(fact)}</text>')
    y += 34
    axis = y
    for power in range(low, high + 1):
        if high - low > 10 and power % 2 != 0:
            continue   # every other power of two when they would crowd
        tick = f"{2 ** power}×" if power >= 0 else f"1/{2 ** -power}×"
        weight = ' font-weight="bold"' if power == 0 else ""
        out.append(f'<text x="{x(2.0 ** power):.1f}" y="{axis}" text-anchor="middle" fill="#777"{weight}>{tick}</text>')
    out.append(f'<text x="{range_left}" y="{axis}" fill="#777">range quiet / loaded</text>')
    grid_top = y + 8
    y = grid_top
    for title, key in sections:
        names = [name for name, _ in rows_of(quiet, key)]
        if not names:
            continue
        y += 22
        out.append(f'<text x="20" y="{y}" font-weight="bold">{escape(title)}</text>')
        y += 6
        for name in names:
            mid = y + row_height / 2
            out.append(f'<text x="{label_right}" y="{mid + 4:.1f}" text-anchor="end">{escape(name)}</text>')
            for offset, runs, opacity in ((-bar / 2 - 1, quiet, "1"), (bar / 2 + 1, loaded, "0.45")):
                entry = next((r for n, r in rows_of(runs, key) if n == name), None)
                v = value(entry, key)
                if v is None:
                    continue
                end = x(v)
                color = "#777777" if abs(math.log2(v)) < math.log2(1.03) else "#2e7d32" if v >= 1 else "#c62828"
                out.append(f'<rect x="{min(one, end):.1f}" y="{mid + offset - bar / 2:.1f}" width="{max(1.0, abs(end - one)):.1f}" height="{bar}" fill="{color}" fill-opacity="{opacity}"/>')
                if math.log2(v) > high or math.log2(v) < low:
                    tip = end + 8 if v >= 1 else end - 8
                    out.append(f'<path d="M {end:.1f} {mid + offset - bar / 2:.1f} L {tip:.1f} {mid + offset:.1f} L {end:.1f} {mid + offset + bar / 2:.1f} Z" fill="{color}" fill-opacity="{opacity}"/>')
            out.append(f'<text x="{range_left}" y="{mid + 4:.1f}" fill="#555">{escape(span(quiet, key, name))} / {escape(span(loaded, key, name))}</text>')
            y += row_height
    grid = []
    for power in range(low, high + 1):
        gx = x(2.0 ** power)
        strong = power == 0
        grid.append(f'<line x1="{gx:.1f}" y1="{grid_top}" x2="{gx:.1f}" y2="{y}" stroke="{"#222" if strong else "#ddd"}" stroke-width="{2 if strong else 1}"/>')
    y += 24
    out.append(f'<text x="{one + 8:.1f}" y="{y}" fill="#2e7d32">Conveyor better →</text>')
    out.append(f'<text x="{one - 8:.1f}" y="{y}" text-anchor="end" fill="#c62828">← libdispatch better</text>')
    y += 20
    out.append(f'<text x="20" y="{y}" fill="#444">Green: Conveyor better; red: libdispatch better; grey: within 3%. An arrow marks a ratio beyond the scale. Bounds (a side gave up) are drawn at their bound.</text>')
    width, height = 1160, y + 20
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="Helvetica, Arial, sans-serif" font-size="13">\n<rect width="100%" height="100%" fill="white"/>\n')
    return head + "\n".join(grid + out) + "\n</svg>\n"


if __name__ == "__main__":
    sys.exit(main())
