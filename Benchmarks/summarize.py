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

    python3 Benchmarks/summarize.py --quiet q1.json q2.json q3.json --loaded l1.json l2.json l3.json

Prints a Markdown table: per row, libdispatch's and Conveyor's medians in the last run of
each mode and the range of the ratios over the runs, quiet and loaded side by side; then
the Swift concurrency rows (default executor / Conveyor's global executor) the same way.
"""
import json
import sys


def load(paths):
    return [json.load(open(path)) for path in paths]


def ratio(row):
    """The row's ratio and whether it is a bound (a side gave up), or (None, False)."""
    if not row.get("ratio"):
        return None, False
    return row["ratio"]["value"], row["ratio"].get("bound") in ("atLeast", "atMost")


def fmt(value):
    if value is None:
        return "n/a"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def ratio_range(rows):
    values = [ratio(r) for r in rows if r is not None]
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
    quiet = load(args[args.index("--quiet") + 1:args.index("--loaded")])
    loaded = load(args[args.index("--loaded") + 1:])
    print("| workload | unit | quiet: libdispatch | quiet: Conveyor | quiet ratio | loaded: libdispatch | loaded: Conveyor | loaded ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in quiet[-1]["rows"]:
        name = row["name"]
        q = [next((r for r in run["rows"] if r["name"] == name), None) for run in quiet]
        l = [next((r for r in run["rows"] if r["name"] == name), None) for run in loaded]
        last = l[-1]
        print(f"| {name} | {row['unit']} | {side(row, 'libdispatch')} | {side(row, 'conveyor')} | {ratio_range(q)} | "
              f"{side(last, 'libdispatch') if last else 'n/a'} | {side(last, 'conveyor') if last else 'n/a'} | {ratio_range(l)} |")
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


if __name__ == "__main__":
    sys.exit(main())
