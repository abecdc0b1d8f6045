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

"""Fails, listing them, when the toolchain's `Dispatch` module has public declarations that
Conveyor lacks.

Both modules are dumped with `swift-api-digester -dump-sdk` (ConveyorCore the way
Scripts/front-module.py does it) and compared by declaration: the owning types' names,
the member's printed name (`read(offset:length:queue:ioHandler:)`), its kind and whether it
is static. Types of parameters are not compared (Dispatch spells some through its C module:
`dispatch_fd_t` is `Int32`).

    python3 Scripts/api-coverage.py            # list what is missing; exit 1 if anything is
    python3 Scripts/api-coverage.py --verbose  # also count what matched
"""
import importlib.util, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECL_KINDS = {"Class", "Struct", "Enum", "Protocol", "TypeAlias", "Func", "Var", "Constructor",
              "Subscript", "EnumElement", "AssociatedType"}
# Names the compiler adds or that no client spells.
IGNORED_NAMES = {"deinit"}
# Dispatch re-exports its C module's builtin typealiases (`__builtin_va_list`, …).
IGNORED_PREFIX = "__"


def front_module():
    spec = importlib.util.spec_from_file_location("front_module", os.path.join(ROOT, "Scripts/front-module.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dump_dispatch(front):
    tool = os.path.join(front.swift_bin(), "swift-api-digester") if front.swift_bin() else "swift-api-digester"
    toolchain_lib = os.path.join(os.path.dirname(front.swift_bin() or "/opt/swift/usr/bin"), "lib/swift/linux")
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    subprocess.run([tool, "-dump-sdk", "-module", "Dispatch", "-I", toolchain_lib, "-o", out], check=True)
    with open(out) as f:
        return json.load(f)["ABIRoot"]["children"]


def declarations(nodes, path=()):
    """(owner path, kind, printed name, static) for every public declaration, members included."""
    found = set()
    for node in nodes:
        kind = node.get("declKind")
        if kind not in DECL_KINDS or node.get("implicit"):
            continue
        name = node.get("printedName", "")
        if name in IGNORED_NAMES or name.startswith(IGNORED_PREFIX) or "SPI" in node.get("declAttributes", []):
            continue
        if kind == "Func" and not path and not (name[0].isalpha() or name[0] == "_"):
            # A free operator: name it with its operand types (Dispatch has `==` for DispatchQoS).
            operands = [local(c.get("printedName", "")) for c in node.get("children", [])[1:]]
            name = name.split("(")[0] + "(" + ", ".join(operands) + ")"
        found.add((".".join(path), kind, name, bool(node.get("static"))))
        if kind in ("Class", "Struct", "Enum", "Protocol"):
            found |= declarations(node.get("children", []), path + (node["name"],))
    return found


def local(printed):
    return printed.replace("ConveyorCore.", "").replace("Dispatch.", "")


def equatable_types(nodes):
    """Nominal types that conform to Equatable (a free `==` on them is then covered)."""
    names = set()
    for node in nodes:
        if node.get("declKind") in ("Class", "Struct", "Enum"):
            if any(c.get("name") == "Equatable" for c in node.get("conformances", [])):
                names.add(node["name"])
    return names


def covered_by_conformance(key, equatable):
    """A free `==(T, T)` of Dispatch is what `T: Equatable` gives Conveyor's clients."""
    owner, kind, name, _ = key
    if owner or kind != "Func" or not name.startswith("==("):
        return False
    operands = name[3:-1].split(", ")
    return len(operands) == 2 and operands[0] == operands[1] and operands[0] in equatable


def describe(key):
    owner, kind, name, static = key
    return "%s%s %s" % ("static " if static else "", kind, owner + "." + name if owner else name)


def main():
    front = front_module()
    dispatch = declarations(dump_dispatch(front))
    core = front.dump_api(os.environ.get("FRONT_MODULE_SCRATCH", ".build"))
    conveyor = declarations(core)
    equatable = equatable_types(core)
    missing = sorted(key for key in dispatch - conveyor if not covered_by_conformance(key, equatable))
    if "--verbose" in sys.argv:
        print("Dispatch: %d declarations; Conveyor has %d of them" % (len(dispatch), len(dispatch) - len(missing)))
    if missing:
        print("Conveyor lacks %d declaration(s) of the toolchain's Dispatch:" % len(missing))
        for key in missing:
            print("  " + describe(key))
        sys.exit(1)
    print("Conveyor has all %d public declarations of the toolchain's Dispatch" % len(dispatch))


if __name__ == "__main__":
    main()
