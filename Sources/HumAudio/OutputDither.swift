import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Whether 16-bit output is dithered: yes, unless `HUM_DITHER` says `off` (or `0`, `no`, `false`), which tests
/// that compare rendered samples with expected ones use. The frontend reads it from the command's environment and
/// hands the answer to the writer or the device.
public enum OutputDither {
    public static func enabled(environment: [String: String]) -> Bool {
        guard let value = environment["HUM_DITHER"] else { return true }
        return !["off", "0", "no", "false"].contains(value.lowercased())
    }
}

/// A 16-bit conversion with room for one block, for the thread that writes (a file writer's, or the audio
/// thread, which must not allocate: the buffer is made up front).
final class SixteenBitBuffer: @unchecked Sendable {
    // @unchecked: used by one thread at a time (the writer's, or the device's), handed over before use.
    let samples: UnsafeMutablePointer<Int16>
    let capacity: Int
    var converter: SixteenBit

    init(capacity: Int, dither: Bool) {
        self.capacity = capacity
        samples = .allocate(capacity: capacity)
        samples.initialize(repeating: 0, count: capacity)
        converter = SixteenBit(dither: dither)
    }

    deinit { samples.deallocate() }

    /// Converts up to `capacity` samples into `samples`.
    @inline(__always)
    func convert(_ source: UnsafePointer<Float>, count: Int) {
        converter.convert(source, count: min(count, capacity), into: samples)
    }
}
