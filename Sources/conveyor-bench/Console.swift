//===----------------------------------------------------------------------===//
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

#if canImport(Glibc)
import Glibc
#endif

/// Terminal and file output without Foundation: progress goes to standard error (so that
/// standard output holds only the table), files are written whole.
enum Console {
    /// Writes `text` to standard error at once (no buffering, no newline added).
    static func progress(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Writes `contents` to the file at `path`, replacing it; returns an error message or nil.
    static func writeFile(_ path: String, _ contents: String) -> String? {
        guard let file = fopen(path, "w") else {
            return "cannot open \(path) for writing: \(String(cString: strerror(errno)))"
        }
        let ok = fputs(contents, file) >= 0
        let closed = fclose(file) == 0
        return ok && closed ? nil : "cannot write \(path): \(String(cString: strerror(errno)))"
    }
}
