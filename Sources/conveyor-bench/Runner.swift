import BenchCore

/// Runs one workload against both libraries in this process: a warm-up each, then the
/// measured runs interleaved (libdispatch first on even runs, Conveyor first on odd ones) so
/// that a change in the machine's load touches both alike.
///
/// A side whose run fails its check or gives up is not run again for that workload: a
/// timed-out libdispatch run (blocking fan-out) would cost the time limit each time.
struct Runner {
    let runs: Int
    let context: RunContext

    func run(dispatch: Workload, conveyor: Workload) -> [ResultRow] {
        precondition(dispatch.name == conveyor.name, "catalogs differ: \(dispatch.name) vs \(conveyor.name)")
        var rows = dispatch.metrics.map { ResultRow(workload: dispatch, metric: $0) }
        let startNs = BenchClock.now()
        Console.progress("\(dispatch.name) ")

        func attempt(_ workload: Workload, _ side: WritableKeyPath<ResultRow, SideResult>, measured: Bool) {
            let state = rows[0][keyPath: side]
            guard state.failure == nil, state.timedOutAfter == nil else { return }
            var failure: String?
            var timedOut: Double?
            var detail: String?
            var values: [Double] = []
            do {
                values = try workload.body(context)
                if values.count != rows.count {
                    failure = "returned \(values.count) values for \(rows.count) metrics"
                }
            } catch let error as WorkloadError {
                switch error {
                case .invalid(let message): failure = message
                case .timedOut(let seconds, let how):
                    timedOut = seconds
                    detail = how
                }
            } catch {
                failure = "\(error)"
            }
            for index in rows.indices {
                if let failure { rows[index][keyPath: side].failure = failure }
                if let timedOut {
                    rows[index][keyPath: side].timedOutAfter = timedOut
                    rows[index][keyPath: side].timeoutDetail = detail
                }
                if failure == nil, timedOut == nil, measured {
                    rows[index][keyPath: side].samples.append(values[index])
                }
            }
            let mark = side == \ResultRow.dispatch ? "d" : "c"
            Console.progress(failure != nil ? "\(mark)!" : timedOut != nil ? "\(mark)~" : mark)
        }

        switch dispatch.schedule {
        case .repeated:
            attempt(dispatch, \.dispatch, measured: false)
            attempt(conveyor, \.conveyor, measured: false)
            for run in 0..<runs {
                if run % 2 == 0 {
                    attempt(dispatch, \.dispatch, measured: true)
                    attempt(conveyor, \.conveyor, measured: true)
                } else {
                    attempt(conveyor, \.conveyor, measured: true)
                    attempt(dispatch, \.dispatch, measured: true)
                }
            }
        case .once:
            attempt(dispatch, \.dispatch, measured: true)
            attempt(conveyor, \.conveyor, measured: true)
        }
        let seconds = Double(BenchClock.now() - startNs) / 1e9
        Console.progress(" \(Format.fixed(seconds, 1)) s\n")
        return rows
    }
}
