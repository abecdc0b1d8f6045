import BenchConveyor
import BenchCore
import BenchDispatch
#if canImport(Glibc)
import Glibc
#endif

/// `conveyor-bench`: runs every workload against the toolchain's Dispatch and against
/// Conveyor in one process and prints the medians side by side (see Benchmarks/README.md).
///
/// The two columns come from two modules built from the same source directory:
/// `BenchDispatch` (compiled against Dispatch) and `BenchConveyor` (compiled against
/// Conveyor: the `CONVEYOR` define on that target).
@main
enum ConveyorBench {
    static func main() {
        _ = Machine.threadsAtLaunch  // before any workload starts a thread
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            Console.progress("conveyor-bench: \(error.message)\n\n\(Options.usage)\n")
            exit(2)
        }
        if options.help {
            print(Options.usage)
            return
        }
        let pairs = Array(zip(BenchDispatch.Catalog.all, BenchConveyor.Catalog.all))
        precondition(
            BenchDispatch.Catalog.all.count == BenchConveyor.Catalog.all.count,
            "the two workload modules differ; they must be built from the same source")
        if options.list {
            print(TableReport.list(BenchDispatch.Catalog.all), terminator: "")
            return
        }
        let selected = pairs.filter { options.selects($0.0.name) }
        guard !selected.isEmpty else {
            Console.progress("conveyor-bench: no workload matches \(options.only); try --list\n")
            exit(2)
        }

        let timeLimit = options.timeLimitSeconds ?? (options.quick ? 2 : 5)
        let context = RunContext(quick: options.quick, timeLimitSeconds: timeLimit)
        let runner = Runner(runs: options.runs, context: context)
        Console.progress("conveyor-bench: \(selected.count) workloads; calibrating… ")
        _ = SpinWork.roundsPer10Microseconds
        Console.progress("done (progress: d = libdispatch run, c = Conveyor run, ! failed, ~ gave up)\n")

        var rows: [ResultRow] = []
        for (dispatch, conveyor) in selected {
            rows += runner.run(dispatch: dispatch, conveyor: conveyor)
        }
        let report = Report(
            rows: rows, runs: options.runs, quick: options.quick, timeLimitSeconds: timeLimit,
            candidateLibrary: BenchConveyor.Catalog.library)

        print("")
        print(TableReport.render(report), terminator: "")
        var status: Int32 = report.failures.isEmpty ? 0 : 1
        if let path = options.jsonPath {
            if let problem = Console.writeFile(path, JSONReport.render(report)) {
                Console.progress("conveyor-bench: \(problem)\n")
                status = 1
            } else {
                Console.progress("wrote \(path)\n")
            }
        }
        if let path = options.svgPath {
            if let problem = Console.writeFile(path, SVGChart.render(report)) {
                Console.progress("conveyor-bench: \(problem)\n")
                status = 1
            } else {
                Console.progress("wrote \(path)\n")
            }
        }
        exit(status)
    }
}
