import CBenchSupport

/// What the C library's allocator knows: bytes in use and a count of allocation calls.
///
/// Counting works because `CBenchSupport` defines `malloc` and its siblings in the
/// executable, which the dynamic linker then uses for every library in the process; the
/// count therefore covers all threads (the dispatch library's workers included).
public enum Heap {
    /// Bytes malloc has handed out and not taken back, over all arenas (mallinfo2's
    /// `uordblks + hblkhd`). Thread stacks and other direct mmaps are not included.
    public static func bytesInUse() -> Int { Int(cbs_heap_bytes_in_use()) }

    /// Whether allocation calls from every library are being counted (see the type's note).
    public static var countingWorks: Bool { cbs_alloc_interposed() != 0 }

    /// Runs `body` and returns how many allocation calls all threads made meanwhile.
    public static func countAllocations<T>(_ body: () throws -> T) rethrows -> (allocations: Int, result: T) {
        cbs_alloc_counting_begin()
        let result: T
        do {
            result = try body()
        } catch {
            _ = cbs_alloc_counting_end()
            throw error
        }
        return (Int(cbs_alloc_counting_end()), result)
    }
}
