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

"""Every source file carries the project's licence header (Apache 2.0, as LICENSE says).

    python3 Scripts/license-header.py --check   # CI: list files without it, exit 1 if any
    python3 Scripts/license-header.py --fix     # add it where it is missing

Covers the Swift, C, C++ and header files, shell and Python scripts of the repository
(symbolic links are skipped: their targets are checked where they live). The header goes
first, after a `#!` line or Package.swift's `// swift-tools-version` line when there is one.
"""
import os
import subprocess
import sys

SLASH = """//===----------------------------------------------------------------------===//
//
// This source file is part of the Conveyor open source project
//
// Copyright (c) 2026 the Conveyor project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
"""
HASH = "\n".join(
    ("##" + line[2:-2] + "##") if line.startswith("//===") else ("#" + line[2:]) if line.startswith("//") else line
    for line in SLASH.splitlines()) + "\n"
MARK = "SPDX-License-Identifier: Apache-2.0"
STYLES = {".swift": SLASH, ".c": SLASH, ".S": SLASH, ".h": SLASH, ".cpp": SLASH, ".sh": HASH, ".py": HASH}


def files():
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True, check=True)
    for path in listed.stdout.splitlines():
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        base = os.path.basename(path)
        if base == ".ci" or path.startswith(".ci/"):
            yield path, HASH   # .ci/run: a shell script without an extension
            continue
        extension = os.path.splitext(base)[1]
        if extension in STYLES:
            yield path, STYLES[extension]


def has_header(text):
    return MARK in "\n".join(text.splitlines()[:20])


def add_header(text, header):
    lines = text.splitlines(keepends=True)
    keep = 0
    if lines and (lines[0].startswith("#!") or lines[0].startswith("// swift-tools-version")):
        keep = 1
    return "".join(lines[:keep]) + header + ("\n" if lines[keep:] and lines[keep].strip() else "") + "".join(lines[keep:])


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("--check", "--fix"):
        print(__doc__)
        return 2
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    missing = []
    for path, header in files():
        text = open(path, encoding="utf-8").read()
        if has_header(text):
            continue
        if sys.argv[1] == "--fix":
            open(path, "w", encoding="utf-8").write(add_header(text, header))
        else:
            missing.append(path)
    for path in missing:
        print(f"no licence header: {path} (python3 Scripts/license-header.py --fix)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
