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

"""Compares a semantics probe's answers (`name: answer` lines) on libdispatch and on
Conveyor: every answer must be libdispatch's, except those a known-differences file
records (`name<TAB>Conveyor's answer<TAB>where<TAB>why`, where "where" is "both",
"switched" or "drop-in"), which must be the recorded one in the runs they apply to.
Lines without ": " (progress output, crash reports) are ignored; both runs must end with
"done".

Usage: compare-answers.py switched|drop-in KNOWN DISPATCH_OUTPUT CONVEYOR_OUTPUT
"""
import sys


def answers(path):
    found, finished = {}, False
    with open(path, errors="replace") as file:
        for line in file:
            line = line.rstrip("\n")
            if line == "done":
                finished = True
            elif ": " in line:
                name, value = line.split(": ", 1)
                if name in found:
                    sys.exit(f"{path}: {name!r} answered twice")
                found[name] = value
    if not finished:
        sys.exit(f"{path}: the probe did not finish (no 'done' line)")
    return found


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("switched", "drop-in"):
        sys.exit(__doc__)
    run = sys.argv[1]
    known = {}
    with open(sys.argv[2]) as file:
        for line in file:
            if line.strip() and not line.startswith("#"):
                name, answer, where, why = line.rstrip("\n").split("\t")
                if where not in ("both", "switched", "drop-in"):
                    sys.exit(f"{sys.argv[2]}: {name!r}: where is {where!r}, not both, switched or drop-in")
                if where in ("both", run):
                    known[name] = (answer, why)
    dispatch, conveyor = answers(sys.argv[3]), answers(sys.argv[4])
    failures = []
    for name in sorted(set(dispatch) | set(conveyor)):
        expected, answered = dispatch.get(name, "(no answer)"), conveyor.get(name, "(no answer)")
        if name in known:
            if answered != known[name][0]:
                failures.append(f"{name}: Conveyor answered {answered!r}, recorded {known[name][0]!r} ({known[name][1]})")
        elif answered != expected:
            failures.append(f"{name}: Conveyor answered {answered!r}, libdispatch {expected!r}")
    for failure in failures:
        print("FAIL " + failure)
    if failures:
        sys.exit(1)
    print(f"ok   {len(conveyor)} answers as libdispatch's ({len(known)} recorded differences)")


if __name__ == "__main__":
    main()
