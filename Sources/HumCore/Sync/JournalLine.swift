/// One line of a device's sync journal: a self-describing, versioned JSON object, one event per line, written only
/// by its device.
///
/// ```
/// {"device":"k3v9…","event":{…},"format":"hum.journal","hash":"9f…","hlc":{"c":0,"d":"k3v9…","ms":1767225600000},
///  "kind":"grant","prev":"00…","seq":1,"v":1}
/// ```
///
/// - `seq` counts the device's lines from 1, without gaps.
/// - `hlc` is the device's hybrid logical clock at the event (`HybridTime`).
/// - `prev` is the `hash` of the line before (64 zeros on the first), so a line cut, dropped, moved or edited breaks
///   the chain where it happened.
/// - `hash` is SHA-256 of the line's canonical bytes without the `hash` member. Every line is in canonical form
///   (`JournalJSON`): a reader writes it again and must get the same bytes.
public struct JournalLine: Sendable, Equatable {
    public static let format = "hum.journal"
    public static let version: Int64 = 1
    /// `prev` of a journal's first line.
    public static let genesis = String(repeating: "0", count: 64)

    public var device: String
    public var seq: Int64
    public var time: HybridTime
    public var prev: String
    public var event: JournalEvent
    public var hash: String
    /// The line as written, without its newline. A line read from a journal keeps a slice of the file's bytes it
    /// was read from (one buffer for all of them, not a copy per line).
    var storage: ArraySlice<UInt8>
    /// The line as written, without its newline.
    public var bytes: [UInt8] {
        get { Array(storage) }
        set { storage = newValue[...] }
    }

    /// Makes the line for an event: computes its hash and its canonical bytes. Written straight into bytes in the
    /// canonical order of its members (`device`, `event`, `format`, `hash`, `hlc`, `kind`, `prev`, `seq`, `v`); the
    /// hash covers the same bytes without the `hash` member.
    public init(device: String, seq: Int64, time: HybridTime, prev: String, event: JournalEvent) throws {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        func raw(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        raw(#"{"device":"#)
        JSONByteWriter.appendString(device, to: &out)
        raw(#","event":"#)
        try event.writePayload(to: &out)
        raw(#","format":"#)
        JSONByteWriter.appendString(Self.format, to: &out)
        let hashAt = out.count
        raw(#","hlc":{"c":"#)
        JSONByteWriter.appendInteger(time.logical, to: &out)
        raw(#","d":"#)
        JSONByteWriter.appendString(time.device, to: &out)
        raw(#","ms":"#)
        JSONByteWriter.appendInteger(time.physicalMs, to: &out)
        raw(#"},"kind":"#)
        JSONByteWriter.appendString(event.kind.rawValue, to: &out)
        raw(#","prev":"#)
        JSONByteWriter.appendString(prev, to: &out)
        raw(#","seq":"#)
        JSONByteWriter.appendInteger(seq, to: &out)
        raw(#","v":"#)
        JSONByteWriter.appendInteger(Self.version, to: &out)
        raw("}")
        let hash = SHA256.hex(out)
        out.insert(contentsOf: Array(#","hash":"#.utf8) + Array("\"\(hash)\"".utf8), at: hashAt)
        self.init(device: device, seq: seq, time: time, prev: prev, event: event, hash: hash, bytes: out)
    }

    init(device: String, seq: Int64, time: HybridTime, prev: String, event: JournalEvent, hash: String, bytes: [UInt8])
    {
        self.device = device
        self.seq = seq
        self.time = time
        self.prev = prev
        self.event = event
        self.hash = hash
        self.storage = bytes[...]
    }

    /// The line with its newline, as appended to the journal file.
    public var fileBytes: [UInt8] { storage + [0x0A] }

    /// Why one line cannot be read on its own (the chain is the reader's).
    public enum Problem: Error, Sendable, Equatable {
        case notJSON(String)
        case notCanonical
        case unknownVersion(String)
        case malformed(String)
        case hashMismatch
    }

    /// Reads one line (without its newline). A line as hum writes it is read in one pass over its bytes
    /// (`readWritten`); anything else goes the general way (`readChecked`), which says what is wrong with it.
    /// `device` and `prev`: what the reader expects the line to hold (its device's id, the hash of the line before);
    /// a line that holds them shares those strings instead of making its own. They change nothing in what is read.
    public static func parse(_ bytes: ArraySlice<UInt8>, device: String? = nil, prev: String? = nil) -> Result<
        JournalLine, Problem
    > {
        if var line = bytes.withUnsafeBufferPointer({ readFields($0, device: device, prev: prev) }) {
            line.storage = bytes
            return .success(line)
        }
        return readChecked(bytes)
    }

    /// Reads a line exactly as `init` writes it, or says nil (`readFields`), keeping a copy of its bytes.
    static func readWritten(_ bytes: UnsafeBufferPointer<UInt8>) -> JournalLine? {
        guard var line = readFields(bytes) else { return nil }
        line.storage = Array(bytes)[...]
        return line
    }

    /// Reads a line exactly as `init` writes it, or says nil; the line's bytes are left empty for the caller to set.
    /// Accepts only what `readChecked` accepts, with the same result: the members in their canonical order and form,
    /// the hash over the line without its `hash` member, the event only in the form `writePayload` writes
    /// (`JournalEvent.readWritten`). `expected` and `before`: the hints of `parse`.
    static func readFields(
        _ bytes: UnsafeBufferPointer<UInt8>, device expected: String? = nil, prev before: String? = nil
    )
        -> JournalLine?
    {
        var r = CanonicalReader(bytes)
        guard r.take(#"{"device":"#) else { return nil }
        let device: String
        if let expected, !expected.isEmpty, r.take(string: expected) {
            device = expected
        } else {
            guard let read = r.string(), !read.isEmpty else { return nil }
            device = read
        }
        guard r.take(#","event":"#), let event = r.skipValue(depthLimit: 63), r.take(#","format":"hum.journal""#)
        else { return nil }
        let hashFrom = r.at
        guard r.take(#","hash":""#) else { return nil }
        let hashStart = r.at
        r.at += 64
        guard r.at < bytes.count, r.take("\""), r.take(#","hlc":{"c":"#), let c = r.integer(), c >= 0,
            r.take(#","d":"#), r.take(string: device), r.take(#","ms":"#), let ms = r.integer(), ms >= 0,
            r.take(#"},"kind":"#), let kind = r.string().flatMap(JournalEvent.Kind.init(rawValue:)),
            r.take(#","prev":"#)
        else { return nil }
        let prev: String
        if let before, r.take(string: before) {
            prev = before
        } else {
            guard let read = r.string() else { return nil }
            prev = read
        }
        guard prev.utf8.count == 64, r.take(#","seq":"#), let seq = r.integer(), seq >= 1, r.take(#","v":1}"#),
            r.atEnd
        else { return nil }
        let hash = SHA256.hex(
            UnsafeBufferPointer(rebasing: bytes[..<hashFrom]), UnsafeBufferPointer(rebasing: bytes[(hashStart + 65)...])
        )
        var check = CanonicalReader(UnsafeBufferPointer(rebasing: bytes[(hashStart - 1)..<(hashStart + 65)]))
        guard check.take(string: hash),
            let read = JournalEvent.readWritten(kind: kind, payload: UnsafeBufferPointer(rebasing: bytes[event]))
        else { return nil }
        return JournalLine(
            device: device, seq: seq, time: HybridTime(physicalMs: ms, logical: c, device: device), prev: prev,
            event: read, hash: hash, bytes: [])
    }

    /// Reads one line through a `JournalJSON` value, checking each rule in turn: says which one a line breaks.
    static func readChecked(_ bytes: ArraySlice<UInt8>) -> Result<JournalLine, Problem> {
        let value: JournalJSON
        do {
            value = try JournalJSONParser.parse(bytes)
        } catch {
            return .failure(.notJSON(error.reason))
        }
        guard case .object(var members) = value else { return .failure(.notJSON("not an object")) }
        guard members["format"] == .string(format) else { return .failure(.malformed("not a line of hum's journal")) }
        guard members["v"] == .int(version) else {
            return .failure(.unknownVersion(members["v"].map { $0.canonicalText } ?? "none"))
        }
        guard value.canonicalBytes == Array(bytes) else { return .failure(.notCanonical) }
        guard let hash = members.removeValue(forKey: "hash")?.stringValue else {
            return .failure(.malformed("no hash"))
        }
        guard SHA256.hex(JournalJSON.object(members).canonicalBytes) == hash else { return .failure(.hashMismatch) }
        guard members.count == 8, let device = members["device"]?.stringValue, !device.isEmpty,
            let seq = members["seq"]?.intValue, seq >= 1, let hlc = members["hlc"].flatMap(HybridTime.init(json:)),
            hlc.device == device, let prev = members["prev"]?.stringValue, prev.utf8.count == 64,
            let kind = members["kind"]?.stringValue.flatMap(JournalEvent.Kind.init(rawValue:)),
            let payload = members["event"]
        else { return .failure(.malformed("a field is missing or of the wrong type")) }
        guard let event = JournalEvent.read(kind: kind, payload: payload) else {
            return .failure(.malformed("its \(kind.rawValue) event cannot be read"))
        }
        var line = try? JournalLine(device: device, seq: seq, time: hlc, prev: prev, event: event)
        // The event as read must write the same bytes: a payload with fields hum does not know is not taken as
        // something else than it says.
        guard line?.bytes == Array(bytes) else {
            return .failure(.malformed("its event holds fields hum does not know"))
        }
        line?.bytes = Array(bytes)
        return line.map { .success($0) } ?? .failure(.malformed("unreadable"))
    }
}

/// What a device needs to append to its own journal: the next sequence number, the hash of its last line and its
/// clock. The store keeps it (or rebuilds it from the journal's last line) and writes each line it returns. Pure.
public struct JournalWriter: Sendable, Equatable {
    public let device: String
    public private(set) var nextSeq: Int64
    public private(set) var lastHash: String
    public private(set) var clock: HybridClock

    /// A new journal.
    public init(device: String) {
        self.device = device
        nextSeq = 1
        lastHash = JournalLine.genesis
        clock = HybridClock(device: device)
    }

    /// Carries on from what the store kept: the next sequence number, the last line's hash and the clock's last
    /// reading.
    public init(device: String, nextSeq: Int64, lastHash: String, clock last: HybridTime) {
        self.device = device
        self.nextSeq = nextSeq
        self.lastHash = lastHash
        clock = HybridClock(device: device, resumingAfter: last)
    }

    /// Carries on after the journal's last line.
    public init(device: String, after last: JournalLine) {
        self.device = device
        nextSeq = last.seq + 1
        lastHash = last.hash
        clock = HybridClock(device: device, resumingAfter: last.time)
    }

    /// The next line, for an event that happened with the wall clock at `wallMs`.
    public mutating func append(_ event: JournalEvent, wallMs: Int64) throws -> JournalLine {
        var clock = self.clock
        let line = try JournalLine(
            device: device, seq: nextSeq, time: clock.tick(wallMs: wallMs), prev: lastHash, event: event)
        self.clock = clock
        nextSeq += 1
        lastHash = line.hash
        return line
    }

    /// Takes in the clock of a line merged from another device, so what this device writes next is ordered after it.
    public mutating func receive(_ time: HybridTime, wallMs: Int64) { clock.receive(time, wallMs: wallMs) }
}
