import FoundationEssentials
import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads what `hum ledger import` accepts: `hum ledger export --jsonl` (one entry per line), `hum export --format
/// jsonl` (typed lines) and `hum export --format json` (one document). Read as a stream with bounds: a line longer
/// than `maximumLineBytes`, or a document larger than `maximumDocumentBytes`, is refused as soon as it is seen (so
/// `/dev/zero` is refused after a megabyte, not read to the end). Every record is range-checked here and named by its
/// place in the file. Never traps on bad input.
enum ImportReader {
    struct Parsed {
        var entries: [LedgerEntry] = []
        var sessions: [RoundRecord] = []
        var contracts: [ContractRecord] = []
        /// Where each entry and session is in the file ("line 12", "ledger entry 3"), by id.
        var entryPlaces: [String: String] = [:]
        var sessionPlaces: [String: String] = [:]
        var contractPlaces: [String: String] = [:]

        /// The place in the file of what a failure is about, when the file holds it.
        func place(of subject: LedgerAudit.Failure.Subject) -> String? {
            switch subject {
            case .entry(let id): return entryPlaces[id]
            case .round(let id):
                return sessionPlaces[id]
                    ?? entries.first { $0.kind == .grant && $0.roundID == id }.flatMap {
                        entryPlaces[$0.id]
                    }
            case .contract(let id):
                return contractPlaces[id]
                    ?? entries.first { $0.kind == .grant && $0.contractID == id }.flatMap { entryPlaces[$0.id] }
            case .pass(let id):
                return entries.first { $0.passID == id }.flatMap { entryPlaces[$0.id] }
            case .day(let day):
                return entries.first { $0.localDay.description == day }.flatMap { entryPlaces[$0.id] }
            case .week(let week):
                return entries.first { $0.isoWeek.description == week }.flatMap { entryPlaces[$0.id] }
            case .ledger: return nil
            }
        }
    }

    /// The longest line of JSON lines: far beyond any entry or session hum writes.
    static let maximumLineBytes = 1 << 20
    /// The largest single JSON document (`hum export --format json` is one line).
    static let maximumDocumentBytes = 256 << 20

    struct Failure: UserFacingError {
        var message: String
    }

    /// Reads and parses `file` (`-` is stdin), refusing early what cannot be an export.
    static func read(_ file: String) throws -> Parsed {
        let fd = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw Failure(message: "cannot open \(file): \(String(cString: strerror(errno))); check the path")
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var source = Source(fd: fd, name: file)
        return try parse(&source)
    }

    /// Bytes from a descriptor (or from memory, for tests), in chunks.
    struct Source {
        var fd: Int32 = -1
        var name: String
        var memory: [UInt8]? = nil
        var buffer: [UInt8] = []
        var start = 0
        var ended = false

        init(fd: Int32, name: String) {
            self.fd = fd
            self.name = name
        }

        init(bytes: [UInt8], name: String) {
            self.name = name
            buffer = bytes
            ended = true
        }

        /// Reads one more chunk into the buffer; false at the end.
        mutating func fill() throws -> Bool {
            if ended { return false }
            if start > 0 && start >= buffer.count / 2 {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(message: "cannot read \(name): \(String(cString: strerror(errno)))")
                }
                if n == 0 {
                    ended = true
                    return false
                }
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
        }

        /// The next line without its newline, or nil at the end; refuses a line longer than `limit`.
        mutating func line(limit: Int, number: Int) throws -> ArraySlice<UInt8>? {
            var scanned = start
            while true {
                if let newline = buffer[scanned...].firstIndex(of: 10) {
                    let line = buffer[start..<newline]
                    start = newline + 1
                    guard line.count <= limit else { throw tooLong(number) }
                    return line
                }
                scanned = buffer.count
                if buffer.count - start > limit { throw tooLong(number) }
                let base = start
                if try !fill() {
                    if start >= buffer.count { return nil }
                    let line = buffer[start...]
                    start = buffer.count
                    return line
                }
                scanned -= base - start  // fill() may have dropped what was read before `start`
            }
        }

        func tooLong(_ number: Int) -> Failure {
            Failure(
                message:
                    "\(name) line \(number) is longer than \(ImportReader.maximumLineBytes >> 20) MiB, more than any "
                    + "entry or session; nothing was imported"
            )
        }
    }

    private struct Probe: Decodable {
        var type: String?
        var schema: String?
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 10 || b == 13 || b == 9 }

    static func parse(_ bytes: [UInt8], name: String) throws -> Parsed {
        var source = Source(bytes: bytes, name: name)
        return try parse(&source)
    }

    static func parse(_ source: inout Source) throws -> Parsed {
        let name = source.name
        // The first thing that is not white space tells a JSON value from anything else at once.
        while true {
            if let first = source.buffer[source.start...].first(where: { !isSpace($0) }) {
                guard first == UInt8(ascii: "{") else {
                    throw Failure(
                        message: "\(name) is not a hum export (it does not begin with JSON); nothing was imported")
                }
                break
            }
            if try !source.fill() { return Parsed() }
        }
        let decoder = JSONDecoder()
        // Session lines before (or without) a header are read as hum read them before version 3: volumes 0–1.
        var unit = MixVolumeUnit.fraction
        decoder.userInfo[MixVolumeUnit.key] = unit
        var parsed = Parsed()
        var number = 0
        var seenRecord = false
        // Set when the file is one JSON document rather than JSON lines: what was consumed of it so far.
        var document: [UInt8]? = nil
        while true {
            let line: ArraySlice<UInt8>
            do {
                guard let next = try source.line(limit: maximumLineBytes, number: number + 1) else { break }
                line = next
            } catch let failure as Failure {
                // A first line longer than any entry can only be a single document (`hum export --format json`).
                guard !seenRecord else { throw failure }
                document = []
                break
            }
            number += 1
            if line.allSatisfy(isSpace) { continue }
            let data = Data(line)
            let probe = try? decoder.decode(Probe.self, from: data)
            if !seenRecord && (probe == nil || (probe?.schema != nil && probe?.type == nil)) {
                // Not one JSON value per line (a pretty-printed document), or a one-line document: read it whole.
                document = Array(line) + [10]
                break
            }
            seenRecord = true
            do {
                switch probe?.type {
                case "header":
                    if let schema = probe?.schema {
                        guard ExportDocument.readable.contains(schema) else {
                            throw Failure(message: unreadable(name, schema))
                        }
                        unit = ExportDocument.volumeUnit(schema: schema)
                        decoder.userInfo[MixVolumeUnit.key] = unit
                    }
                case "session":
                    let session = try decoder.decode(RoundRecord.self, from: data)
                    try add(session, at: "line \(number)", to: &parsed, name: name, unit: unit)
                case "contract":
                    let contract = try decoder.decode(ContractRecord.self, from: data)
                    try add(contract, at: "line \(number)", to: &parsed, name: name)
                case nil, "entry":
                    let entry = try decoder.decode(LedgerEntry.self, from: data)
                    try add(entry, at: "line \(number)", to: &parsed, name: name)
                case let other?:
                    throw Failure(
                        message: "\(name) line \(number): unknown record type \(other.quoted); nothing was imported")
                }
            } catch let error as Failure {
                throw error
            } catch {
                throw Failure(
                    message: "\(name) line \(number) is not a ledger entry: \(describe(error)); nothing was imported")
            }
        }
        guard var document else { return parsed }
        // One document: the rest of the file, within its bound.
        repeat {
            document.append(contentsOf: source.buffer[source.start...])
            source.start = source.buffer.count
            guard document.count <= maximumDocumentBytes else {
                throw Failure(
                    message:
                        "\(name) is larger than \(maximumDocumentBytes >> 20) MiB for one JSON document; export it as "
                        + "JSON lines (hum export --format jsonl); nothing was imported"
                )
            }
        } while try source.fill()
        let data = Data(document)
        guard let probe = try? decoder.decode(Probe.self, from: data), let schema = probe.schema else {
            throw Failure(
                message:
                    "\(name) line \(max(1, number)) is not a ledger entry, nor the file a hum export document; "
                    + "nothing was imported"
            )
        }
        guard ExportDocument.readable.contains(schema) else { throw Failure(message: unreadable(name, schema)) }
        unit = ExportDocument.volumeUnit(schema: schema)
        decoder.userInfo[MixVolumeUnit.key] = unit
        let exported: ExportDocument
        do {
            exported = try decoder.decode(ExportDocument.self, from: data)
        } catch {
            throw Failure(message: "\(name) is not a valid hum export: \(describe(error)); nothing was imported")
        }
        for (i, session) in exported.sessions.enumerated() {
            try add(session, at: "session \(i + 1)", to: &parsed, name: name, unit: unit)
        }
        for (i, entry) in exported.ledger.enumerated() {
            try add(entry, at: "ledger entry \(i + 1)", to: &parsed, name: name)
        }
        for (i, contract) in exported.contracts.enumerated() {
            try add(contract, at: "contract \(i + 1)", to: &parsed, name: name)
        }
        return parsed
    }

    static func unreadable(_ name: String, _ schema: String) -> String {
        "\(name) has schema \(schema.quoted); this hum reads \(ExportDocument.readable.joined(separator: " and "))"
    }

    static func add(_ contract: ContractRecord, at place: String, to parsed: inout Parsed, name: String) throws {
        if let problem = contract.validationProblem() {
            throw Failure(message: "\(name) \(place) is invalid: \(problem); nothing was imported")
        }
        try once(contract, "contract", at: place, in: &parsed.contracts, places: &parsed.contractPlaces, name: name)
    }

    static func add(_ entry: LedgerEntry, at place: String, to parsed: inout Parsed, name: String) throws {
        if let problem = entry.validationProblem() {
            throw Failure(message: "\(name) \(place) is invalid: \(problem); nothing was imported")
        }
        try once(entry, "entry", at: place, in: &parsed.entries, places: &parsed.entryPlaces, name: name)
    }

    /// A session, its volumes checked in the `unit` the file writes them.
    static func add(
        _ session: RoundRecord, at place: String, to parsed: inout Parsed, name: String, unit: MixVolumeUnit
    ) throws {
        if let problem = session.validationProblem(unit: unit) {
            throw Failure(message: "\(name) \(place) is invalid: \(problem); nothing was imported")
        }
        try once(session, "session", at: place, in: &parsed.sessions, places: &parsed.sessionPlaces, name: name)
    }

    /// Adds a record that has an id (an entry, a session, a contract), once per id: a second copy that is the same
    /// record is kept (the import counts it as already here, as it does an entry already in the database); one that
    /// differs is refused, naming both places, whichever kind of record it is. Nothing decides between two versions of
    /// one record silently.
    static func once<Record: Identified>(
        _ record: Record, _ what: String, at place: String, in records: inout [Record], places: inout [String: String],
        name: String
    ) throws {
        if let first = places[record.id] {
            let earlier = records.first { $0.id == record.id }
            guard earlier == record else {
                throw Failure(
                    message:
                        "\(name) \(place) is \(what) \(record.id) again, unlike at \(first): one id, two "
                        + "\(what == "entry" ? "entries" : what + "s"); nothing was imported"
                )
            }
        } else {
            places[record.id] = place
        }
        records.append(record)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \(key.stringValue.quoted)"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
            DecodingError.dataCorrupted(let c):
            let path = c.codingPath.map { $0.stringValue }.joined(separator: ".")
            return (path.isEmpty ? "" : "\(path): ")
                + c.debugDescription.split(whereSeparator: \.isNewline).joined(separator: " ")
        default: return "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }
}

/// A record of an import that has an id of its own.
protocol Identified: Equatable {
    var id: String { get }
}

extension LedgerEntry: Identified {}
extension RoundRecord: Identified {}
extension ContractRecord: Identified {}
