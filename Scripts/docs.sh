#!/usr/bin/env bash
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

# Builds the documentation of the module users import, `Conveyor`, with the toolchain's
# DocC, and fails on any warning (unresolved links, malformed comments, ...).
#
#   Scripts/docs.sh [output-dir]        default: .build/docs (open index.html through a web server,
#                                       or `docc preview` the same way for live editing)
#
# Why not swift-docc-plugin's `generate-documentation --target Conveyor`: Conveyor's
# declarations live in ConveyorCore (the front module only re-exports them), so the
# plugin's page for Conveyor is empty and ConveyorCore's pages carry the wrong name. Here
# ConveyorCore's symbol graph is extracted and given the name users import, then DocC
# builds it with the catalog Documentation/Conveyor.docc (landing page and articles).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

output="${1:-.build/docs}"
swift build --target Conveyor >/dev/null
bin=$(swift build --show-bin-path)
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT

# The C modules ConveyorCore imports are found through the module maps of this build.
maps=()
for map in "$bin"/*.build/module.modulemap; do maps+=(-Xcc "-fmodule-map-file=$map"); done
swift-symbolgraph-extract -module-name ConveyorCore -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
    -output-dir "$graphs" -minimum-access-level public -skip-inherited-docs "${maps[@]}"

python3 - "$graphs" <<'PY'
import json, os, sys
directory = sys.argv[1]
for name in os.listdir(directory):
    path = os.path.join(directory, name)
    graph = json.load(open(path))
    if graph["module"]["name"] == "ConveyorCore":
        graph["module"]["name"] = "Conveyor"
    os.remove(path)
    json.dump(graph, open(os.path.join(directory, name.replace("ConveyorCore", "Conveyor", 1)), "w"))
PY

docc convert Documentation/Conveyor.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Conveyor --fallback-bundle-identifier conveyor.Conveyor \
    --output-dir "$output" --warnings-as-errors --transform-for-static-hosting
pages=$(find "$output/data/documentation/conveyor" -name '*.json' | wc -l)
echo "documentation: $pages pages under $output/documentation/conveyor (Conveyor and its articles)"
