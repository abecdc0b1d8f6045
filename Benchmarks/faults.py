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

"""Issue 11's runtime-fault scenarios on Conveyor and on the toolchain's libdispatch.

    python3 Benchmarks/faults.py [--runs N] [--quick] [--only SCENARIO ...]

Builds conveyor-faults-dispatch and conveyor-faults-conveyor (one source,
Benchmarks/Faults, compiled against each library), runs every scenario in a fresh
process per library, the libraries taking turns, N times each (default 3), and prints a
Markdown table: the median of each numeric figure, or each run's word for a yes/no
finding. A scenario that ends without its figure (a trap) is reported as "trapped".
Exits 1 if a Conveyor process fails to start or a figure is missing on Conveyor.
"""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = [("libdispatch", "conveyor-faults-dispatch"), ("Conveyor", "conveyor-faults-conveyor")]
TIMEOUT = 120


def build():
    subprocess.run(["swift", "build", "-c", "release", "--product", LIBRARIES[0][1]], cwd=ROOT, check=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", LIBRARIES[1][1]], cwd=ROOT, check=True)
    out = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def run(binary, scenario, quick):
    """Runs one scenario once; returns {figure: (value, unit)} and the exit status."""
    args = [binary, scenario] + (["--quick"] if quick else [])
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT, env=env)
        output, status = done.stdout, done.returncode
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        status = "timeout"
    figures = {}
    for line in output.splitlines():
        fields = line.split("\t")
        if len(fields) == 4 and fields[0] == "RESULT":
            figures[fields[1]] = (fields[2], fields[3])
    return figures, status


def summarize(values, unit):
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        distinct = sorted(set(values))
        return "/".join(distinct) if len(distinct) > 1 else distinct[0]
    median = statistics.median(numbers)
    text = f"{median:.3g}" if median < 1000 else f"{median:.0f}"
    spread = f" ({min(numbers):.3g}-{max(numbers):.3g})" if len(numbers) > 1 and min(numbers) != max(numbers) else ""
    return f"{text}{spread} {unit}" if unit != "-" else text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (CI smoke run)")
    parser.add_argument("--only", action="append", help="run only this scenario (repeatable)")
    options = parser.parse_args()

    bin_path = build()
    binaries = {name: os.path.join(bin_path, product) for name, product in LIBRARIES}
    scenarios = subprocess.run([binaries["Conveyor"], "--list"], capture_output=True, text=True,
                               check=True).stdout.split()
    if options.only:
        scenarios = [s for s in scenarios if s in options.only]

    rows = []
    failed = False
    for scenario in scenarios:
        collected = {name: {} for name, _ in LIBRARIES}
        statuses = {name: [] for name, _ in LIBRARIES}
        for _ in range(options.runs):
            for name, _ in LIBRARIES:
                figures, status = run(binaries[name], scenario, options.quick)
                statuses[name].append(status)
                for figure, (value, unit) in figures.items():
                    collected[name].setdefault(figure, ([], unit))[0].append(value)
        figure_names = []
        for name, _ in LIBRARIES:
            for figure in collected[name]:
                if figure not in figure_names:
                    figure_names.append(figure)
        if not collected["Conveyor"]:
            failed = True
        for figure in figure_names:
            cells = []
            for name, _ in LIBRARIES:
                if figure in collected[name]:
                    values, unit = collected[name][figure]
                    missing = options.runs - len(values)
                    cell = summarize(values, unit)
                    if missing:
                        cell += f"; trapped or hung in {missing} of {options.runs} runs"
                else:
                    cell = "trapped" if any(s not in (0, "timeout") for s in statuses[name]) else "hung" if "timeout" in statuses[name] else "missing"
                    if name == "Conveyor":
                        failed = True
                cells.append(cell)
            rows.append((scenario, figure, *cells))
        print(f"{scenario}: done", file=sys.stderr, flush=True)

    print(f"| scenario | figure | {LIBRARIES[0][0]} | {LIBRARIES[1][0]} |")
    print("| --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\n{options.runs} run(s) each, a fresh process per run{', quick sizes' if options.quick else ''}; "
          "median (min-max) of numeric figures.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
