@testable import ConveyorCore
import Synchronization
import Testing

/// A worker that runs jobs of one group back to back holds their leaves and gives them in
/// one step (`Worker.leaveLater`); these check that the hold never changes what a waiter
/// sees.
@Suite struct HeldGroupLeavesTests {
    /// Bursts submitted from outside the pool, as `dispatch_group_async` loops do: every
    /// burst empties its group (a hold left behind when the workers run out of work would
    /// keep the group non-empty for ever).
    @Test func burstsFromOutsideEmptyTheirGroup() {
        let ran = Counter()
        for round in 1...20 {
            let group = DispatchGroup()
            for _ in 0..<2_000 {
                DispatchQueue.global().async(group: group) { ran.increment() }
            }
            guard group.wait(timeout: deadline()) == .success else {
                Issue.record("round \(round): the group did not empty (\(group.currentCount) tasks in)")
                return
            }
            #expect(group.currentCount == 0)
            #expect(ran.current == round * 2_000)
        }
    }

    /// Jobs of a group, then on the same worker a job outside it that waits for the group:
    /// the held leaves must be given before that job runs, or it waits on leaves that its
    /// own thread holds (its wait times out instead of succeeding).
    @Test func aJobOutsideTheGroupSeesTheGroupEmpty() {
        waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: nil)
    }

    /// The same with the waiter in another group: holds are per group.
    @Test func aJobOfAnotherGroupSeesTheFirstGroupEmpty() {
        let other = DispatchGroup()
        waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: other)
        #expect(other.wait(timeout: deadline()) == .success)
    }

    private func waitersAfterGroupJobsSeeTheGroupEmpty(waiterGroup: DispatchGroup?) {
        let results = TestLog<DispatchTimeoutResult>()
        let finished = DispatchSemaphore(value: 0)
        let rounds = 30
        for _ in 0..<rounds {
            // Submitted from inside a pool job, the jobs go to that worker's own ring, first
            // in, first out, so the waiter most often runs right after the group's jobs on
            // the worker that holds their leaves.
            DispatchQueue.global().async {
                let group = DispatchGroup()
                for _ in 0..<16 {
                    DispatchQueue.global().async(group: group) {}
                }
                DispatchQueue.global().async(group: waiterGroup) {
                    results.append(group.wait(timeout: .now() + .seconds(5)))
                    finished.signal()
                }
            }
        }
        for _ in 0..<rounds { #expect(finished.wait(timeout: deadline(seconds: 120)) == .success) }
        let timedOut = results.values.filter { $0 != .success }.count
        #expect(results.count == rounds)
        #expect(timedOut == 0, "\(timedOut) of \(rounds) waits timed out")
    }
}
