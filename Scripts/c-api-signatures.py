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

"""Checks that Conveyor's C headers declare the libdispatch API with compatible types.

Preprocesses the toolchain's <dispatch/dispatch.h> and keeps what its dispatch headers
declare: function prototypes, extern objects and typedefs of plain types. Writes a C file
that includes Conveyor's <dispatch/dispatch.h> first and then repeats those declarations
word for word; C rejects a redeclaration whose type differs, so the file compiles only if
every function, object and typedef has libdispatch's type. Also fails if one of them is
not declared by Conveyor at all. Runs with and without blocks (-fblocks), and for C++
(where an extern "C" function redeclared with other parameters is an error too).
Usage: Scripts/c-api-signatures.py [toolchain header root, default /opt/swift/usr/lib/swift]
"""
import pathlib
import re
import subprocess
import sys
import tempfile

root = sys.argv[1] if len(sys.argv) > 1 else "/opt/swift/usr/lib/swift"
repo = pathlib.Path(__file__).resolve().parent.parent
ours = repo / "Sources/CConveyorDispatch/include"
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)")


def toolchain_declarations(flags, language):
    source = '#include <dispatch/dispatch.h>\n'
    text = subprocess.run(["clang", *flags, "-x", language, "-E", "-I", root, "-"], input=source,
                          capture_output=True, text=True, check=True).stdout
    kept, keep = [], False
    for line in text.splitlines():
        marker = re.match(r'^# \d+ "([^"]+)"', line)
        if marker:
            keep = "/dispatch/" in marker.group(1)
            continue
        if keep and not line.startswith("#"):
            kept.append(line)
    # Attributes go, except noescape, which C++ counts as part of a function's type.
    body = ATTRIBUTE.sub(lambda m: m.group(0) if "noescape" in m.group(0) else "", " ".join(kept))
    body = body.replace('extern "C" {', " ").replace("#pragma clang assume_nonnull begin", " ")
    declarations = []
    depth, current = 0, ""
    for char in body:
        current += char
        if char == "{":
            depth += 1
        elif char == "}":
            # The end of an inline function body, a union, an enum or a C++ struct (skipped,
            # with what follows up to its ';'), or of an extern "C" block (depth below 0).
            depth = max(depth - 1, 0)
            if depth == 0:
                current = ""
        elif char == ";" and depth == 0:
            declarations.append(" ".join(current.split()))
            current = ""
    result = []
    for declaration in declarations:
        if re.fullmatch(r"\*?\s*\w+\s*;", declaration):
            continue   # the name after a union or struct body: `dispatch_object_t ;`
        if re.search(r"\bdispatch_(wait|notify|cancel|testcancel)\(", declaration):
            continue   # unavailable as functions; both headers make them _Generic macros
        if declaration in (";", "") or declaration.startswith(("typedef union", "typedef struct", "enum", "}")):
            continue
        if "dispatch_" not in declaration:
            continue   # os_retain and the like: not the dispatch API
        if declaration.startswith("typedef") and "(" not in declaration and "struct" in declaration:
            continue   # handle typedefs: Conveyor's C++ hierarchy differs in spelling only
        if re.search(r"\b_dispatch_once(_f)?\b", declaration):
            continue   # libdispatch's inline fast path, an implementation detail
        result.append(declaration)
    return result


def declared_name(declaration):
    """The identifier a declaration declares."""
    pointer = re.search(r"\(\s*[\^*]\s*(\w+)\s*\)", declaration)
    if declaration.startswith("typedef") and pointer:
        return pointer.group(1)
    if not declaration.startswith("typedef"):
        function = re.search(r"(\w+)\s*\(", declaration)
        if function:
            return function.group(1)
    return re.findall(r"\w+", declaration)[-1]


def presence_checks(declarations):
    """Uses of every declared name before any redeclaration: an undeclared one fails."""
    lines = []
    for number, declaration in enumerate(declarations):
        name = declared_name(declaration)
        if declaration.startswith("typedef"):
            lines.append(f"typedef {name} cnv_present_{number};")
        else:
            lines.append(f"static const void *cnv_present_{number} = (const void *)&{name};")
    return lines


def check(flags, language, label):
    declarations = toolchain_declarations(flags, language)
    uses = presence_checks(declarations) if language == "c" else []
    program = "#include <dispatch/dispatch.h>\n" + "\n".join(uses + declarations) + "\n"
    suffix = ".cpp" if language == "c++" else ".c"
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as handle:
        handle.write(program)
        path = handle.name
    compiler = "clang++" if language == "c++" else "clang"
    run = subprocess.run([compiler, *flags, "-fsyntax-only", "-Wno-nullability-completeness", "-Wno-unused-variable", "-I", str(ours), path],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"c-api-signatures ({label}): declarations that differ from libdispatch's:")
        print(run.stderr)
        return False
    print(f"c-api-signatures ({label}): ok ({len(declarations)} declarations have libdispatch's types)")
    return True


ok = all([
    check(["-fblocks"], "c", "C, blocks"),
    check([], "c", "C, no blocks"),
    check(["-fblocks"], "c++", "C++, blocks"),
])
sys.exit(0 if ok else 1)
