import FoundationEssentials
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads what `hum ledger import` accepts: `hum ledger export --jsonl` (one entry per line), `hum export --format
/// jsonl` (typed lines) and `hum export --format json` (one document). Never traps on bad input.
enum ImportReader {
    struct Parsed {
        var entries: [LedgerEntry] = []
        var sessions: [RoundRecord] = []
    }

    /// The largest file read: far beyond any real ledger, small enough not to exhaust memory.
    static let maximumBytes = 2 << 30

    static func read(_ file: String) throws -> [UInt8] {
        let fd = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw HumError.failure("cannot open \(file): \(String(cString: strerror(errno))); check the path")
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HumError.failure("cannot read \(file): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= maximumBytes else { throw HumError.failure("\(file) is larger than 2 GiB; split it") }
        }
        return bytes
    }

    private struct Probe: Decodable {
        var type: String?
        var schema: String?
    }

    static func parse(_ bytes: [UInt8], name: String) throws -> Parsed {
        let decoder = JSONDecoder()
        var parsed = Parsed()
        let trimmed = bytes.drop { $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }
        if trimmed.isEmpty { return parsed }
        // One document?
        if trimmed.first == UInt8(ascii: "{"), let probe = try? decoder.decode(Probe.self, from: Data(trimmed)),
            probe.schema != nil
        {
            guard probe.schema == ExportDocument.schemaName else {
                throw HumError.failure(
                    "\(name) has schema \"\(probe.schema ?? "")\"; this hum reads \(ExportDocument.schemaName)")
            }
            do {
                let document = try decoder.decode(ExportDocument.self, from: Data(trimmed))
                parsed.entries = document.ledger
                parsed.sessions = document.sessions
                return parsed
            } catch {
                throw HumError.failure("\(name) is not a valid hum export: \(describe(error))")
            }
        }
        var lineNumber = 0
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            lineNumber += 1
            let data = Data(line)
            if line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { continue }
            do {
                let probe = try decoder.decode(Probe.self, from: data)
                switch probe.type {
                case "header":
                    if let schema = probe.schema, schema != ExportDocument.schemaName {
                        throw HumError.failure(
                            "\(name) has schema \"\(schema)\"; this hum reads \(ExportDocument.schemaName)")
                    }
                case "session": parsed.sessions.append(try decoder.decode(RoundRecord.self, from: data))
                case nil, "entry": parsed.entries.append(try decoder.decode(LedgerEntry.self, from: data))
                case let other?: throw HumError.failure("\(name) line \(lineNumber): unknown record type \"\(other)\"")
                }
            } catch let error as HumError {
                throw error
            } catch {
                throw HumError.failure(
                    "\(name) line \(lineNumber) is not a ledger entry: \(describe(error)); nothing was imported")
            }
        }
        return parsed
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
            DecodingError.dataCorrupted(let c):
            let path = c.codingPath.map { $0.stringValue }.joined(separator: ".")
            return (path.isEmpty ? "" : "\(path): ")
                + c.debugDescription.split(whereSeparator: \.isNewline).joined(separator: " ")
        default: return "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
        }
    }
}
