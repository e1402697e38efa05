import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// The CSV of `hum ledger --csv` and `hum export --format csv`, through the built binary: formulas neutralised,
/// hum's numbers left as numbers, lists unambiguous, and the whole parseable by RFC 4180.
@Suite struct CSVOutputTests {
    @Test func ledgerCSVNeutralisesFormulasButNotAmounts() throws {
        let s = Sandbox()
        let env = s.environment
        #expect(
            try runBinary(["ledger", "adjust", "+1h", "--reason", "-1+1", "--key", "@key"], environment: env).code == 0)
        #expect(
            try runBinary(["spend", "5m", "--on", "=HYPERLINK(\"http://evil\",\"x\")"], environment: env).code == 0)
        #expect(try runBinary(["spend", "1m", "--on", "\tplain, with comma"], environment: env).code == 0)
        let r = try runBinary(["ledger", "--csv"], environment: env)
        #expect(r.code == 0)
        let rows = try #require(CSVReader.parse(r.out), "\(r.out)")
        try #require(rows.count == 4)
        #expect(rows[0].joined(separator: ",") == LedgerCommand.csvHeader)
        let header = rows[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        try #require(rows.dropFirst().allSatisfy { $0.count == header.count })
        #expect(rows[1][column("reason")] == "'-1+1" && rows[1][column("key")] == "'@key")
        #expect(rows[2][column("label")] == "'=HYPERLINK(\"http://evil\",\"x\")")
        #expect(rows[3][column("label")] == "'\tplain, with comma")
        #expect(rows[2][column("amount_seconds")] == "-300" && rows[3][column("amount_seconds")] == "-60")
        #expect(rows[1][column("amount_seconds")] == "3600" && rows[3][column("balance_seconds")] == "3240")
        for row in rows.dropFirst() {
            for name in ["label", "reason", "key", "id", "device"] {
                if let first = row[column(name)].first { #expect(!"=+-@\t\r".contains(first), "\(name): \(row)") }
            }
        }
        // The raw text: a neutralised cell is quoted, a number is not.
        #expect(r.out.contains(",\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",") && r.out.contains(",-300,"))
    }

    @Test func exportCSVListsAreJSONArrays() throws {
        let s = Sandbox()
        let env = s.environment
        // Three rounds one after the other: rounds recorded by hand may not overlap.
        func start(_ hour: Int) -> [String] { ["--start", "2025-03-30T0\(hour):00:00+02:00", "--active", "25m"] }
        _ = try runBinary(
            ["history", "record", "--id", "two", "--tag", "a", "--tag", "b", "--sound", "rain:0.5"] + start(7),
            environment: env)
        _ = try runBinary(
            ["history", "record", "--id", "one", "--tag", "a;b", "--sound", "a;b:c:0.25", "--goal", "=1+1"] + start(8),
            environment: env)
        _ = try runBinary(["history", "record", "--id", "=none"] + start(9), environment: env)
        let r = try runBinary(["export", "--format", "csv"], environment: env)
        #expect(r.code == 0)
        let rows = try #require(CSVReader.parse(r.out), "\(r.out)")
        #expect(rows.first?.joined(separator: ",") == ExportCommand.csvHeader)
        let header = rows[0]
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        try #require(rows.allSatisfy { $0.count == header.count })
        let byID = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[column("id")], $0) })
        let two = try #require(byID["two"])
        let one = try #require(byID["one"])
        let none = try #require(byID["'=none"])
        func decode<T: Decodable>(_ cell: String, as: T.Type) throws -> T {
            try JSONDecoder().decode(T.self, from: Data(cell.utf8))
        }
        #expect(try decode(two[column("tags")], as: [String].self) == ["a", "b"])
        #expect(try decode(one[column("tags")], as: [String].self) == ["a;b"])
        #expect(try decode(none[column("tags")], as: [String].self) == [])
        #expect(try decode(one[column("mix")], as: [MixItem].self) == [MixItem(sound: "a;b:c", volume: 0.25)])
        #expect(two[column("tags")] != one[column("tags")])
        #expect(one[column("goal")] == "'=1+1")
    }
}
