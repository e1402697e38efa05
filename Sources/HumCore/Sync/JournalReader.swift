/// Where a reader stopped in a device's journal: just after the last good line. The store keeps one per device, so
/// the next read starts there (only new lines are read) and checks that what it merged is still what the journal
/// says.
public struct JournalCursor: Sendable, Equatable {
    /// Bytes of the file read so far (up to and with the last good line's newline).
    public var offset: Int
    /// The last good line's sequence number (0 before the first).
    public var lastSeq: Int64
    /// The last good line's hash (`JournalLine.genesis` before the first).
    public var lastHash: String
    /// The last good line's clock.
    public var lastTime: HybridTime?

    public static let start = JournalCursor(offset: 0, lastSeq: 0, lastHash: JournalLine.genesis, lastTime: nil)

    public init(offset: Int, lastSeq: Int64, lastHash: String, lastTime: HybridTime?) {
        self.offset = offset
        self.lastSeq = lastSeq
        self.lastHash = lastHash
        self.lastTime = lastTime
    }
}

/// The first damage in a journal. Nothing at or after it is read; what came before it was read and may be merged.
public struct JournalDamage: Sendable, Equatable, Hashable {
    public enum Kind: Sendable, Equatable, Hashable {
        /// The last line has no newline yet: the sync tool copied the file mid-append. Expected to heal with the
        /// next copy, so shown as pending rather than as damage.
        case partialLine
        case notJSON(String)
        /// Valid JSON, but not as hum writes it (edited by hand, or by another program).
        case notCanonical
        /// A line of a newer journal format than this hum reads.
        case unknownVersion(String)
        case malformed(String)
        /// The line's own hash does not match what it holds: edited after it was written.
        case hashMismatch
        /// A line of another device in this device's journal.
        case otherDevice(String)
        /// Sequence numbers must go 1, 2, 3, …: one is missing (and never comes later in the file).
        case gap(expected: Int64, found: Int64)
        /// A number that comes back (a line duplicated, or the journal's end pasted twice).
        case repeated(expected: Int64, found: Int64)
        /// The expected line is further down: lines were moved.
        case reordered(expected: Int64, found: Int64)
        /// `prev` is not the hash of the line before: a line was replaced, inserted or rewritten with its hash.
        case brokenChain(seq: Int64)
        /// The clock of a device went back between two of its own lines, which its clock never does.
        case clockBackwards(seq: Int64)
        /// The journal says something else at a line already merged than what was merged: two databases wrote as
        /// this device (a copied database), or the journal was rewritten.
        case forked(seq: Int64)
        /// The journal is shorter than what was merged from it (restored from an old copy).
        case shrunk(merged: Int64, found: Int64)
    }

    public var kind: Kind
    /// The sequence number the reader expected at the damage.
    public var expectedSeq: Int64
    /// The byte offset of the damaged line in the file.
    public var offset: Int

    /// A partial last line is not damage: the rest of it is on its way.
    public var isPending: Bool { kind == .partialLine }

    public var message: String {
        let at = "at line \(expectedSeq)"
        switch kind {
        case .partialLine: return "line \(expectedSeq) is still arriving (no newline yet)"
        case .notJSON(let why): return "\(at): not JSON (\(why))"
        case .notCanonical: return "\(at): not written as hum writes it (edited by hand?)"
        case .unknownVersion(let v): return "\(at): journal version \(v), newer than this hum reads; upgrade hum"
        case .malformed(let why): return "\(at): \(why)"
        case .hashMismatch: return "\(at): the line was changed after it was written (its hash does not match)"
        case .otherDevice(let d): return "\(at): a line of device \(d)"
        case .gap(let e, let f): return "line \(e) is missing (line \(f) comes next)"
        case .repeated(let e, let f): return "\(at): line \(f) again"
        case .reordered(let e, let f): return "line \(e) is out of order (line \(f) comes before it)"
        case .brokenChain(let s): return "line \(s) does not follow the line before it (the chain is broken)"
        case .clockBackwards(let s): return "line \(s): its clock is behind the line before it"
        case .forked(let s):
            return
                "line \(s) differs from the one merged before: two databases write as this device (a copied "
                + "database?) or the journal was rewritten"
        case .shrunk(let merged, let found):
            return "the journal has \(found) lines, \(merged) were merged from it (restored from an old copy?)"
        }
    }
}

/// What one read of a journal gave.
public struct JournalRead: Sendable, Equatable {
    /// The good lines read, in order, after the cursor it started from.
    public var lines: [JournalLine]
    /// Just after the last good line: where the next read starts.
    public var cursor: JournalCursor
    /// The byte offset just after each line of `lines` (its newline included).
    public var lineEnds: [Int] = []
    /// The first damage, if any; nothing after it was read.
    public var damage: JournalDamage?
}

/// Reads a device's journal up to its first damage. Pure: the caller reads the file.
public enum JournalReader {
    /// Reads `bytes` (the whole file) from `cursor` on. When the file no longer continues what the cursor merged
    /// (rewritten, replaced by a clone's, cut), it is read again from the start and compared with the cursor: the
    /// line the cursor ended on must still be there, with the same hash.
    public static func read(_ bytes: [UInt8], device: String, from cursor: JournalCursor = .start) -> JournalRead {
        if cursor.lastSeq > 0 {
            let continues = cursor.offset <= bytes.count && (cursor.offset == 0 || bytes[cursor.offset - 1] == 0x0A)
            if continues {
                let next = scan(bytes, device: device, from: cursor, stopAfter: 1)
                if next.damage == nil || next.damage?.isPending == true || !next.lines.isEmpty {
                    return scan(bytes, device: device, from: cursor, stopAfter: nil)
                }
            }
            let whole = scan(bytes, device: device, from: .start, stopAfter: nil)
            if let merged = whole.lines.first(where: { $0.seq == cursor.lastSeq }) {
                guard merged.hash == cursor.lastHash else {
                    return JournalRead(
                        lines: [], cursor: cursor,
                        damage: JournalDamage(kind: .forked(seq: merged.seq), expectedSeq: merged.seq, offset: 0))
                }
                // Same lines, another layout of the file (a sync tool rewrote it whole): carry on after the cursor.
                let first = whole.lines.firstIndex { $0.seq > cursor.lastSeq } ?? whole.lines.count
                return JournalRead(
                    lines: Array(whole.lines[first...]), cursor: whole.cursor,
                    lineEnds: Array(whole.lineEnds[first...]),
                    damage: whole.damage)
            }
            let found = whole.lines.last?.seq ?? 0
            let kind: JournalDamage.Kind =
                whole.damage == nil || whole.damage?.isPending == true
                ? .shrunk(merged: cursor.lastSeq, found: found) : whole.damage!.kind
            return JournalRead(
                lines: [], cursor: cursor,
                damage: JournalDamage(kind: kind, expectedSeq: found + 1, offset: whole.damage?.offset ?? bytes.count))
        }
        return scan(bytes, device: device, from: cursor, stopAfter: nil)
    }

    static func scan(_ bytes: [UInt8], device: String, from cursor: JournalCursor, stopAfter limit: Int?)
        -> JournalRead
    {
        var lines: [JournalLine] = []
        var ends: [Int] = []
        if limit == nil {
            // Room for every line up front (a line as hum writes it is rarely under 256 bytes): growing an array of
            // 30,000 lines step by step copies them again and again.
            let room = max(0, bytes.count - cursor.offset) / 256
            lines.reserveCapacity(room)
            ends.reserveCapacity(room)
        }
        var at = cursor
        var start = cursor.offset
        func stop(_ kind: JournalDamage.Kind) -> JournalRead {
            JournalRead(
                lines: lines, cursor: at, lineEnds: ends,
                damage: JournalDamage(kind: kind, expectedSeq: at.lastSeq + 1, offset: start))
        }
        while start < bytes.count {
            if let limit, lines.count >= limit { break }
            guard let end = bytes[start...].firstIndex(of: 0x0A) else { return stop(.partialLine) }
            let line: JournalLine
            switch JournalLine.parse(bytes[start..<end], device: device, prev: at.lastHash) {
            case .failure(let problem):
                switch problem {
                case .notJSON(let why): return stop(.notJSON(why))
                case .notCanonical: return stop(.notCanonical)
                case .unknownVersion(let v): return stop(.unknownVersion(v))
                case .malformed(let why): return stop(.malformed(why))
                case .hashMismatch: return stop(.hashMismatch)
                }
            case .success(let l): line = l
            }
            let expected = at.lastSeq + 1
            guard line.device == device else { return stop(.otherDevice(line.device)) }
            if line.seq < expected { return stop(.repeated(expected: expected, found: line.seq)) }
            if line.seq > expected {
                let later = laterSeqs(bytes, after: end + 1).contains(expected)
                return stop(
                    later ? .reordered(expected: expected, found: line.seq) : .gap(expected: expected, found: line.seq))
            }
            guard line.prev == at.lastHash else {
                // Either this line or the one before it is not what its device wrote (a line rewritten with a hash
                // of its own breaks the chain at the line after it): neither is merged.
                if let suspect = lines.popLast() {
                    ends.removeLast()
                    start = at.offset - suspect.storage.count - 1
                    at = JournalCursor(
                        offset: start, lastSeq: suspect.seq - 1, lastHash: suspect.prev,
                        lastTime: lines.last?.time ?? (suspect.seq - 1 == cursor.lastSeq ? cursor.lastTime : nil))
                }
                return stop(.brokenChain(seq: line.seq))
            }
            if let last = at.lastTime, !(last < line.time) { return stop(.clockBackwards(seq: line.seq)) }
            lines.append(line)
            ends.append(end + 1)
            start = end + 1
            at = JournalCursor(offset: start, lastSeq: line.seq, lastHash: line.hash, lastTime: line.time)
        }
        return JournalRead(lines: lines, cursor: at, lineEnds: ends, damage: nil)
    }

    /// The sequence numbers of the lines after `offset` that parse, to tell a moved line from a missing one.
    static func laterSeqs(_ bytes: [UInt8], after offset: Int) -> Set<Int64> {
        var seqs: Set<Int64> = []
        var start = offset
        while start < bytes.count, let end = bytes[start...].firstIndex(of: 0x0A) {
            if case .success(let l) = JournalLine.parse(bytes[start..<end]) { seqs.insert(l.seq) }
            start = end + 1
        }
        return seqs
    }

    /// The first sequence number at which two readings of one device's journal disagree (a conflict copy made by
    /// the sync tool, or the journals of two databases writing as one device), or nil when one continues the other.
    public static func fork(between a: [JournalLine], and b: [JournalLine]) -> Int64? {
        let bySeq = Dictionary(b.map { ($0.seq, $0.hash) }, uniquingKeysWith: { first, _ in first })
        return a.first { line in bySeq[line.seq].map { $0 != line.hash } ?? false }?.seq
    }
}
