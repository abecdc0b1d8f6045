import BenchCore
import Conveyor
#if canImport(Glibc)
import Glibc
#endif

/// The Swift concurrency section of the benchmark: each workload of `ConcurrencyWorkload`
/// in each of its setups, every run a fresh child process (`--concurrency-child SETUP
/// WORKLOAD`), medians printed as a table with one column per setup.
enum ConcurrencySection {
    /// Runs as the child: installs Conveyor as the global executor first if asked (before
    /// any task exists, as a program must), runs the workload once, prints its values.
    static func serve(variant: String, workload name: String, quick: Bool) -> Never {
        guard let setup = ConcurrencyVariant(rawValue: variant),
              let workload = ConcurrencyWorkload.all.first(where: { $0.name == name }) else {
            Console.progress("conveyor-bench --concurrency-child: unknown setup or workload\n")
            exit(2)
        }
        if setup == .conveyorGlobal, !ConveyorConcurrency.installGlobalExecutor() {
            Console.progress("conveyor-bench: could not install Conveyor as the global executor\n")
            exit(3)
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var values: [Double] = []
        Task.detached {
            values = await workload.body(setup, quick)
            done.signal()
        }
        done.wait()
        print("values " + values.map { String($0) }.joined(separator: " "))
        fflush(nil)
        exit(0)
    }

    /// Runs the selected workloads `runs` times per setup and returns the rendered table.
    static func run(runs: Int, quick: Bool, selects: (String) -> Bool) -> String {
        let workloads = ConcurrencyWorkload.all.filter { selects($0.name) }
        guard !workloads.isEmpty else { return "" }
        var lines = [
            "Swift concurrency (median of \(runs) runs, a fresh process per run; ratio = default / Conveyor executor)",
            "",
            "| workload | unit | default executor | Conveyor executor | actors on Conveyor queues | ratio |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for workload in workloads {
            Console.progress("\(workload.name) ")
            var samples: [ConcurrencyVariant: [[Double]]] = [:]
            for _ in 0..<runs {
                for variant in workload.variants {
                    if let values = child(variant: variant, workload: workload.name, quick: quick),
                       values.count == workload.metrics.count {
                        samples[variant, default: []].append(values)
                        Console.progress(".")
                    } else {
                        Console.progress("!")
                    }
                }
            }
            Console.progress("\n")
            for (index, metric) in workload.metrics.enumerated() {
                func median(_ variant: ConcurrencyVariant) -> Double? {
                    guard let runs = samples[variant], !runs.isEmpty else { return nil }
                    return Statistics.median(runs.map { $0[index] })
                }
                let cells = ConcurrencyVariant.allCases.map { variant -> String in
                    guard workload.variants.contains(variant) else { return "n/a" }
                    return median(variant).map { Format.fixed($0, $0 < 10 ? 2 : 0) } ?? "FAILED"
                }
                var ratio = "n/a"
                if let base = median(.defaultExecutor), let conveyor = median(.conveyorGlobal), conveyor > 0 {
                    ratio = Format.fixed(base / conveyor, 2)
                }
                let label = metric.label.isEmpty ? workload.name : "\(workload.name) \(metric.label)"
                lines.append("| \(label) | \(metric.unit) | \(cells.joined(separator: " | ")) | \(ratio) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One child run; nil when it failed.
    private static func child(variant: ConcurrencyVariant, workload: String, quick: Bool) -> [Double]? {
        let words = [ChildProcess.executable, "--concurrency-child", variant.rawValue, workload] + (quick ? ["--quick"] : [])
        guard let (output, status) = ChildProcess.capture(words), status == 0,
              let line = output.split(separator: "\n").last(where: { $0.hasPrefix("values ") }) else { return nil }
        return line.dropFirst("values ".count).split(separator: " ").compactMap { Double($0) }
    }
}
