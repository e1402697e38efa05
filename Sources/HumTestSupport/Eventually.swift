#if canImport(Glibc)
    import Glibc
#endif

/// Waits until `condition` holds or `seconds` have passed, and says whether it held. A test waits this way for what
/// a fixed sleep only stood for (a player answering, a line printed, a process gone): it goes on as soon as the
/// thing is true, and a loaded machine gets the whole deadline instead of a guess.
///
/// The condition is asked at once, then again after a pause that starts at 1 ms and doubles up to `longestPause`
/// (50 ms: quick for what is nearly there, cheap for what takes seconds; longer for a look that costs a process),
/// and once more at the deadline.
@discardableResult
public func eventually(
    within seconds: Double = 5, pausingAtMost longestPause: Double = 0.05, _ condition: () throws -> Bool
) rethrows -> Bool {
    try waitFor(within: seconds, pausingAtMost: longestPause) { try condition() ? true : nil } ?? false
}

/// Waits until `value` gives something or `seconds` have passed, and returns the first thing it gave (nil when the
/// deadline passed first). For a wait whose answer the test then looks at: a status, a line, a reply.
public func waitFor<T>(
    within seconds: Double = 5, pausingAtMost longestPause: Double = 0.05, _ value: () throws -> T?
) rethrows -> T? {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .microseconds(Int64(seconds * 1_000_000)))
    let longest = max(1_000, Int64(longestPause * 1_000_000))
    var pause: Int64 = 1_000
    while true {
        if let found = try value() { return found }
        let left = clock.now.duration(to: deadline)
        if left <= .zero { return nil }
        let leftMicroseconds = left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000
        usleep(UInt32(max(1, min(pause, leftMicroseconds))))
        pause = min(pause * 2, longest)
    }
}
