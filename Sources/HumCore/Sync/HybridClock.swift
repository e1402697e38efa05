/// A hybrid logical clock's reading (Kulkarni et al., "Logical Physical Clocks", 2014): the wall clock in
/// milliseconds as far as the device knows it, a counter for events within one millisecond (or while the wall clock
/// stands behind what was seen), and the device, so two readings are never equal across devices. Ordered by the
/// three in that order: the order of last-writer-wins.
public struct HybridTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var physicalMs: Int64
    public var logical: Int64
    public var device: String

    public init(physicalMs: Int64, logical: Int64, device: String) {
        self.physicalMs = physicalMs
        self.logical = logical
        self.device = device
    }

    public static func < (a: HybridTime, b: HybridTime) -> Bool {
        if a.physicalMs != b.physicalMs { return a.physicalMs < b.physicalMs }
        if a.logical != b.logical { return a.logical < b.logical }
        return a.device.utf8.lexicographicallyPrecedes(b.device.utf8)
    }

    /// `1767225600000.3@device`.
    public var description: String { "\(physicalMs).\(logical)@\(device)" }

    var json: JournalJSON {
        .object(["ms": .int(physicalMs), "c": .int(logical), "d": .string(device)])
    }

    init?(json: JournalJSON) {
        guard let ms = json["ms"]?.intValue, let c = json["c"]?.intValue, let d = json["d"]?.stringValue,
            ms >= 0, c >= 0, case .object(let members) = json, members.count == 3
        else { return nil }
        self.init(physicalMs: ms, logical: c, device: d)
    }
}

/// One device's hybrid logical clock. It never goes back: a wall clock set back (by hand, by NTP, by a dead RTC
/// battery) cannot order a device's new edit before its old one, and a reading from a device whose clock runs ahead
/// pushes this one forward, so an edit made here after seeing it still wins. Pure: the caller reads the wall clock.
public struct HybridClock: Sendable, Equatable {
    public let device: String
    /// The last reading given or seen.
    public private(set) var last: HybridTime

    public init(device: String) {
        self.device = device
        last = HybridTime(physicalMs: 0, logical: 0, device: device)
    }

    /// A clock that carries on after a reading it gave before (the last line of its own journal, on restart).
    public init(device: String, resumingAfter reading: HybridTime) {
        self.device = device
        last = HybridTime(physicalMs: reading.physicalMs, logical: reading.logical, device: device)
    }

    /// The reading for a local event (the "send" rule): the wall clock when it is ahead of everything seen, else
    /// the last reading's millisecond with the counter one up.
    public mutating func tick(wallMs: Int64) -> HybridTime {
        if wallMs > last.physicalMs {
            last = HybridTime(physicalMs: wallMs, logical: 0, device: device)
        } else {
            last = HybridTime(physicalMs: last.physicalMs, logical: last.logical &+ 1, device: device)
        }
        return last
    }

    /// Takes in a reading from another device's journal (the "receive" rule), so what this device does next is
    /// ordered after it. Returns the clock's new reading.
    @discardableResult
    public mutating func receive(_ remote: HybridTime, wallMs: Int64) -> HybridTime {
        let ms = max(wallMs, last.physicalMs, remote.physicalMs)
        let c: Int64
        if ms == last.physicalMs && ms == remote.physicalMs {
            c = max(last.logical, remote.logical) &+ 1
        } else if ms == last.physicalMs {
            c = last.logical &+ 1
        } else if ms == remote.physicalMs {
            c = remote.logical &+ 1
        } else {
            c = 0
        }
        last = HybridTime(physicalMs: ms, logical: c, device: device)
        return last
    }
}
