import Foundation
import Testing

/// docs/architecture.md stays true: every target its table lists is in Package.swift (and every target of hum's own
/// is listed), and every file or folder it names exists.
@Suite struct ArchitectureDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func read(_ path: String) throws -> String { try String(contentsOfFile: root + "/" + path, encoding: .utf8) }

    /// The table's rows: the target, and the paths in backticks of its "owns" cell.
    static func rows(_ doc: String) -> [(target: String, owns: String)] {
        doc.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count == 5, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { return nil }
            return (String(cells[1].dropFirst().dropLast()), cells[2])
        }
    }

    /// Every text in backticks that looks like a file or folder of the repository.
    static func paths(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { index, part in
            guard index % 2 == 1, !part.contains(" "), !part.contains("*"),
                part.hasSuffix(".swift") || part.hasSuffix("/")
            else {
                return nil
            }
            return String(part)
        }
    }

    @Test func theTargetsAreThoseOfThePackage() throws {
        let doc = try Self.read("docs/architecture.md")
        let package = try Self.read("Package.swift")
        let listed = Self.rows(doc).map(\.target)
        #expect(listed.count >= 10, "\(listed)")
        for target in listed {
            #expect(
                package.contains("name: \"\(target)\""), "docs/architecture.md lists \(target), not in Package.swift")
        }
        // Every target of hum's own (not a C shim, not a test target) has a row.
        let declared = package.split(separator: "\n").compactMap { line -> String? in
            guard line.contains(".target(name:") || line.contains(".executableTarget(name:") else { return nil }
            return line.split(separator: "\"").dropFirst().first.map(String.init)
        }
        #expect(declared.count >= 10, "\(declared)")
        for target in declared { #expect(listed.contains(target), "\(target) has no row in docs/architecture.md") }
    }

    @Test func everyFileItNamesExists() throws {
        let doc = try Self.read("docs/architecture.md")
        var checked = 0
        for row in Self.rows(doc) {
            for path in Self.paths(row.owns) {
                let full = path.hasPrefix("Sources/") ? path : "Sources/\(row.target)/\(path)"
                #expect(FileManager.default.fileExists(atPath: Self.root + "/" + full), "\(row.target): \(path)")
                checked += 1
            }
        }
        for path in Self.paths(doc) where path.hasPrefix("Sources/") || path.hasPrefix("Tests/") {
            #expect(FileManager.default.fileExists(atPath: Self.root + "/" + path), "\(path)")
            checked += 1
        }
        #expect(checked > 40)
    }
}
