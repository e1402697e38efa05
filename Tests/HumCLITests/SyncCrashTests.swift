import Foundation
import HumCore
import Testing

/// A command killed at any of its fsyncs leaves this device's journal whole: every event the database committed is
/// in the journal once the next command ran (the outbox is flushed), none is in it twice, and the chain holds.
@Suite struct SyncCrashTests {
    static let commands: [[String]] = [
        ["ledger", "adjust", "+1m", "--reason", "x"],
        ["mix", "save", "night", "rain=40"],
        ["history", "record", "--active", "25m"],
    ]

    @Test(arguments: commands.indices)
    func aCommandKilledAtAnySyncLosesNoLineAndWritesNoneTwice(index: Int) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: KillAtEverySyncTests.strace), "strace is a test dependency")
        var killedAt = 0
        for n in 1...40 {
            let m = SyncMachine()
            #expect(
                try runBinary(["ledger", "adjust", "+1h", "--reason", "seed"], environment: m.environment).code == 0)
            #expect(try runBinary(["sync", "init", m.folder], environment: m.environment).code == 0)
            let run = try runBinary(
                [
                    "-f", "-o", "/dev/null", "-e", "trace=fsync,fdatasync", "-e",
                    "inject=fsync,fdatasync:signal=KILL:when=\(n)", humBinary,
                ] + Self.commands[index], environment: m.environment, program: "/usr/bin/strace")
            let what = "\(Self.commands[index]) killed at sync \(n)"
            #expect(try runBinary(["bank"], environment: m.environment).code == 0, "\(what)")
            let device = m.device
            let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: m.journalPath(device)))) ?? Data())
            let read = JournalReader.read(bytes, device: device)
            #expect(read.damage == nil, "\(what): \(read.damage?.message ?? "")")
            let report = json(try runBinary(["sync", "status", "--json"], environment: m.environment).out)
            let here = ((report as? [String: Any])?["devices"] as? [[String: Any]])?.first
            #expect(here?["last_seq"] as? Int == read.lines.count, "\(what)")
            #expect(here?["behind"] as? Int == 0, "\(what)")
            let journalled = Set(read.lines.compactMap { if case .entry(let e) = $0.event { e.id } else { nil } })
            #expect(journalled == m.entryIDs, "\(what)")
            #expect(read.lines.filter { if case .mixSave = $0.event.kind { true } else { false } }.count <= 1)
            guard run.code == 128 + SIGKILL else { break }
            killedAt = n
        }
        #expect(killedAt >= 2, "killed at too few syncs to reach the journal's")
        #expect(killedAt < 40)
    }
}
