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

"""Checks that Conveyor's C headers are its own text, not copies of libdispatch's.

Every line of Sources/CConveyorDispatch/include longer than 40 characters (surrounding
white space ignored) is looked up among the lines of the toolchain's dispatch/*.h and
os/*.h. A line found there fails the check unless it is a plain C declaration that the
API forces on any implementation: a prototype, typedef or extern declaration (no
comment), or the definition of one of the API's constants as a single value
(`#define DISPATCH_QUEUE_PRIORITY_DEFAULT 0`). Any line with the marks of libdispatch's
files (its copyright and licence lines, its HeaderDoc tags such as @discussion) fails too. Usage: Scripts/c-api-headers-check.py [toolchain
header root, default /opt/swift/usr/lib/swift]. Exits 1 and lists the lines on failure.
"""
import pathlib
import re
import sys

MIN_LENGTH = 40
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/opt/swift/usr/lib/swift")
ours = pathlib.Path(__file__).resolve().parent.parent / "Sources/CConveyorDispatch/include"


def normalised(line):
    return " ".join(line.split())


theirs = set()
toolchain_files = sorted(root.glob("dispatch/*.h")) + sorted(root.glob("os/*.h"))
if not toolchain_files:
    sys.exit(f"c-api-headers-check: no toolchain headers under {root}")
for path in toolchain_files:
    for line in path.read_text(errors="replace").splitlines():
        text = normalised(line)
        if len(text) > MIN_LENGTH:
            theirs.add(text)

# A declaration forced by the API: C tokens only, ending a declaration or its first line.
DECLARATION = re.compile(r"^(extern |typedef |const |struct |[A-Za-z_][A-Za-z0-9_ *]*\()[^/#\"]*[;,(]?$")
CONSTANT = re.compile(r"^#define (DISPATCH|QOS_CLASS|NSEC|USEC|MSEC)_[A-Z_]+ [^ ]+$")
COMMENT = re.compile(r"/\*|\*/|//|^\*")

# Marks of libdispatch's files that no line of ours has any reason to carry.
FOREIGN = re.compile(r"Apple Inc|APPLE_APACHE|Licensed under the Apache|@(abstract|discussion|function|typedef|const|param)\b")

copied, forced = [], 0
for path in sorted(ours.rglob("*.h")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = normalised(line)
        if FOREIGN.search(text):
            copied.append(f"{path.relative_to(ours)}:{number}: {text}")
            continue
        if len(text) <= MIN_LENGTH or text not in theirs:
            continue
        if CONSTANT.match(text) or (DECLARATION.match(text) and not COMMENT.search(text)
                                    and not text.startswith("#")):
            forced += 1
            continue
        copied.append(f"{path.relative_to(ours)}:{number}: {text}")

if copied:
    print("c-api-headers-check: lines copied from the toolchain's libdispatch headers:")
    print("\n".join(copied))
    sys.exit(1)
print(f"c-api-headers-check: ok ({forced} lines longer than {MIN_LENGTH} characters match the "
      "toolchain's, all API declarations or constants; no other line does)")
