/// The command line of `conveyor-bench`, parsed by hand (no dependency beyond the toolchain).
struct Options: Sendable {
    var runs = 5
    var only: [String] = []
    var jsonPath: String?
    var svgPath: String?
    var list = false
    var quick = false
    var help = false
    /// Seconds a workload that can hang (blocking fan-out) waits before giving up.
    var timeLimitSeconds: Double?

    static let usage = """
        USAGE: conveyor-bench [options]

        Runs every workload against the toolchain's Dispatch (libdispatch) and against
        Conveyor in the same process and prints medians side by side.

        OPTIONS:
          --runs N            measured runs per workload and library after one warm-up (default 5)
          --only NAME         run only workloads whose name contains NAME (repeatable)
          --json PATH         also write the results as JSON to PATH
          --svg PATH          also write an SVG bar chart of the ratios to PATH
          --list              list the workloads and exit
          --quick             smaller sizes (CI smoke test, under a minute)
          --time-limit SECS   give up on a hanging workload after SECS (default 5; 2 with --quick)
          -h, --help          show this help
        """

    /// Parses `arguments` (without the program name); throws a message for bad input.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            // Accept --flag=value as well as --flag value.
            var flag = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                rest.insert(String(argument[argument.index(after: equals)...]), at: rest.startIndex)
            }
            switch flag {
            case "--runs":
                let text = try value(for: flag)
                guard let runs = Int(text), runs >= 1 else { throw UsageError("--runs needs a positive integer, not '\(text)'") }
                options.runs = runs
            case "--only": options.only.append(try value(for: flag))
            case "--json": options.jsonPath = try value(for: flag)
            case "--svg": options.svgPath = try value(for: flag)
            case "--list": options.list = true
            case "--quick": options.quick = true
            case "--time-limit":
                let text = try value(for: flag)
                guard let seconds = Double(text), seconds > 0 else { throw UsageError("--time-limit needs seconds > 0, not '\(text)'") }
                options.timeLimitSeconds = seconds
            case "-h", "--help": options.help = true
            default: throw UsageError("unknown argument '\(argument)'")
            }
        }
        return options
    }

    /// Whether the workload named `name` was selected by `--only` (all are by default).
    func selects(_ name: String) -> Bool {
        only.isEmpty || only.contains { name.lowercased().contains($0.lowercased()) }
    }
}

/// A command-line mistake, reported with the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
