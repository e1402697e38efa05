import Foundation
import HumCore
import HumStore
import Testing

@testable import HumCLI

/// A volume reads the same in every output (issue 20): 0–100, as `hum status --json`, `hum mix list --json` and the
/// control protocol write it. Exports of `hum.export/1` and `/2` wrote fractions and are still read as they were.
@Suite struct ExportVolumeTests {
    func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The volumes of each session's mix in a JSON value that holds sessions (an export, `hum history --json`).
    func volumes(_ sessions: Any?) -> [[Double]] {
        (sessions as? [[String: Any]] ?? []).map { session in
            (session["mix"] as? [[String: Any]] ?? []).compactMap { ($0["volume"] as? NSNumber)?.doubleValue }
        }
    }

    /// Every volume in the database, as it is stored (a fraction).
    func stored(_ s: Sandbox) throws -> [[Double]] {
        try HumDatabase(path: s.databasePath).rounds(from: nil, to: nil).map { $0.mix.map(\.volume) }
    }

    @Test func everyOutputWritesTheVolumesThatWereGiven() throws {
        let s = Sandbox()
        let record = s.run(
            "history", "record", "--active", "25m", "--id", "r1", "--sound", "rain=60", "--sound", "brown=37.5",
            "--sound", "fire:0.25", "--start", "2025-03-30T09:00:00+02:00")
        #expect(record.code == 0, "\(record.err)")
        let expected: [[Double]] = [[60, 37.5, 25]]

        let document = try #require(json(s.run("export").out) as? [String: Any])
        #expect(document["schema"] as? String == "hum.export/3")
        #expect(volumes(document["sessions"]) == expected)

        let history = try #require(json(s.run("history", "--since", "2025-03-30", "--json").out) as? [String: Any])
        #expect(volumes(history["sessions"]) == expected)

        let lines = s.run("export", "--format", "jsonl").out.split(separator: "\n").map { json(String($0)) }
        #expect((lines.first as? [String: Any])?["schema"] as? String == "hum.export/3")
        #expect(volumes(lines.filter { ($0 as? [String: Any])?["type"] as? String == "session" }) == expected)

        let csv = s.run("export", "--format", "csv").out
        #expect(
            csv.contains(
                #"[{""sound"":""rain"",""volume"":60},{""sound"":""brown"",""volume"":37.5},{""sound"":""fire"","#
                    + #"""volume"":25}]"#))

        // The command line's word and the outputs agree; the database keeps its fraction.
        #expect(try stored(s) == [[0.6, 0.375, 0.25]])
    }

    /// A file of the old versions imports into the same database as before, and exports on the new scale.
    @Test func anOldExportImportsAsBeforeAndReadsOnTheNewScale() throws {
        func session(_ id: String, _ volume: String, typed: Bool) -> String {
            "{" + (typed ? "\"type\":\"session\"," : "")
                + "\"id\":\"\(id)\",\"kind\":\"focus\",\"status\":\"interrupted\",\"start\":\"2025-01-01T10:00:00Z\","
                + "\"end\":\"2025-01-01T10:25:00Z\",\"planned_seconds\":1500,\"active_seconds\":1500,"
                + "\"paused_seconds\":0,\"mix\":[{\"sound\":\"rain\",\"volume\":\(volume)}],\"goal\":null,\"tags\":[],"
                + "\"earned_seconds\":0}"
        }
        func document(_ schema: String, _ volume: String) -> String {
            "{\"schema\":\"\(schema)\",\"exported_at\":\"2025-01-01T00:00:00Z\",\"sessions\":["
                + session("s", volume, typed: false) + "],\"ledger\":[]}"
        }
        func jsonl(_ schema: String?, _ volume: String) -> String {
            (schema.map { "{\"type\":\"header\",\"schema\":\"\($0)\"}\n" } ?? "") + session("s", volume, typed: true)
                + "\n"
        }
        let old = [
            document("hum.export/1", "0.6"), document("hum.export/2", "0.6"), jsonl("hum.export/1", "0.6"),
            jsonl("hum.export/2", "0.6"), jsonl(nil, "0.6"),
        ]
        let new = [document("hum.export/3", "60"), jsonl("hum.export/3", "60")]
        for (i, text) in (old + new).enumerated() {
            let s = Sandbox()
            let file = s.root + "/old.json"
            try write(text, file)
            let r = s.run("ledger", "import", file)
            #expect(r.code == 0, "\(i): \(r.err)")
            #expect(try stored(s) == [[0.6]], "\(i)")
            let exported = try #require(json(s.run("export").out) as? [String: Any])
            #expect(volumes(exported["sessions"]) == [[60]], "\(i)")
            #expect(s.run("ledger", "check").code == 0)
        }
        // Out of range is named in the unit of the file.
        for (text, range) in [
            (document("hum.export/2", "1.5"), "(0 to 1)"), (jsonl("hum.export/2", "1.5"), "(0 to 1)"),
            (document("hum.export/3", "150"), "(0 to 100)"), (jsonl("hum.export/3", "150"), "(0 to 100)"),
        ] {
            let s = Sandbox()
            try write(text, s.root + "/bad.json")
            let r = s.run("ledger", "import", s.root + "/bad.json")
            #expect(r.code == 1 && r.err.contains("the volume of rain is out of range \(range)"), "\(r.err)")
        }
    }

    /// export → import → export is the same document, whatever the volumes; a file of version 2 gives the same
    /// database as its version 3 export.
    @Test func anExportImportedAgainExportsTheSame() throws {
        let s = Sandbox()
        for (i, sound) in ["rain=60", "rain=37.5", "rain:0.333", "rain=0", "rain=100", "rain=12.345", "rain:0.07"]
            .enumerated()
        {
            let r = s.run(
                "history", "record", "--active", "25m", "--id", "r\(i)", "--sound", sound, "--sound", "brown=33.3",
                "--start", "2025-03-\(10 + i)T09:00:00+02:00")
            #expect(r.code == 0, "\(r.err)")
        }
        // One imported from a version 2 file, with a fraction no round number gives.
        try write(
            "{\"type\":\"header\",\"schema\":\"hum.export/2\"}\n"
                + "{\"type\":\"session\",\"id\":\"odd\",\"kind\":\"focus\",\"status\":\"interrupted\","
                + "\"start\":\"2025-01-01T10:00:00Z\",\"end\":\"2025-01-01T10:25:00Z\",\"planned_seconds\":1500,"
                + "\"active_seconds\":1500,\"paused_seconds\":0,\"mix\":[{\"sound\":\"rain\","
                + "\"volume\":0.12345678901234567}],\"goal\":null,\"tags\":[],\"earned_seconds\":0}\n",
            s.root + "/odd.jsonl")
        #expect(s.run("ledger", "import", s.root + "/odd.jsonl").code == 0)
        func withoutTime(_ text: String) -> String {
            text.replacingOccurrences(of: #""exported_at":"[^"]*""#, with: "", options: .regularExpression)
        }
        for format in ["json", "jsonl"] {
            let first = s.run("export", "--format", format, "-o", s.root + "/one.\(format)")
            #expect(first.code == 0)
            let other = Sandbox()
            #expect(other.run("ledger", "import", s.root + "/one.\(format)").code == 0)
            // The same fractions; the odd one (which no number divided by 100 gives) within one unit in the last place.
            let (theirs, ours) = (try stored(other), try stored(s))
            #expect(theirs.dropFirst() == ours.dropFirst(), "\(format): \(theirs) \(ours)")
            #expect(abs(theirs[0][0] - ours[0][0]) <= ours[0][0].ulp, "\(format): \(theirs) \(ours)")
            let again = other.run("export", "--format", format).out
            let once = try String(contentsOfFile: s.root + "/one.\(format)", encoding: .utf8)
            #expect(withoutTime(again) == withoutTime(once), "\(format)")
        }
    }
}
