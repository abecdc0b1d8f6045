@testable import Conveyor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A generous deadline for tests that wait on other threads: long enough never to fire on
/// a loaded 2-core machine, short enough that a lost wake-up fails the test instead of
/// hanging CI.
let generousTimeout: DispatchTime = .now() + .seconds(30)

func deadline(seconds: Int = 30) -> DispatchTime { .now() + .seconds(seconds) }

/// A thread-safe counter and log for tests.
final class TestLog<Element: Sendable>: @unchecked Sendable {
    private let storage = Mutex<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

final class Counter: @unchecked Sendable {
    let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var current: Int { value.load(ordering: .relaxed) }
}

/// The kernel id of the calling thread.
func currentThreadID() -> Int32 { ThreadInfo.currentID }

/// Spins (politely) until `condition` holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let end = DispatchTime.now() + seconds
    while DispatchTime.now() < end {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}
