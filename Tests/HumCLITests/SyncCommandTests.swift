import Foundation
import HumCore
import HumPlayer
import Testing

@testable import HumCLI

/// A machine for the sync tests: a hum home of its own, a machine id of its own (`HUM_MACHINE_ID_PATH`) and a synced
/// folder of its own, which `exchange` copies the other machines' journals into as a sync tool would.
final class SyncMachine {
    let sandbox = Sandbox()
    let machineID: String
    var folder: String { sandbox.root + "/Sync" }

    init(machineID: String = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()) {
        self.machineID = machineID
        try? (machineID + "\n").write(toFile: sandbox.root + "/machine-id", atomically: true, encoding: .utf8)
    }

    var environment: [String: String] {
        var environment = sandbox.environment
        environment["HUM_SOUNDS_DIR"] = builtinSoundsDirectory
        environment[SyncHook.machineIDVariable] = sandbox.root + "/machine-id"
        return environment
    }

    @discardableResult
    func run(_ words: String...) -> (code: Int32, out: String, err: String) {
        let out = Buffer()
        let err = Buffer()
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        return (HumMain.run(arguments: ["hum"] + words, context: context), out.text, err.text)
    }

    /// This machine's device id (empty while sync is off).
    var device: String {
        let report = json(run("sync", "status", "--json").out) as? [String: Any]
        let devices = report?["devices"] as? [[String: Any]] ?? []
        return devices.first { $0["here"] as? Bool == true }?["device"] as? String ?? ""
    }

    var devicesFolder: String { folder + "/hum-sync/v1/devices" }

    func journalPath(_ device: String) -> String { devicesFolder + "/\(device)/journal.jsonl" }

    /// Copies every other device's journal from `other`'s folder into this one's (never this device's own), as a
    /// sync tool does.
    func receive(from other: SyncMachine) {
        let mine = device
        let names = (try? FileManager.default.contentsOfDirectory(atPath: other.devicesFolder)) ?? []
        for name in names where name != mine {
            try? FileManager.default.createDirectory(
                atPath: devicesFolder + "/" + name, withIntermediateDirectories: true)
            if let data = FileManager.default.contents(atPath: other.journalPath(name)) {
                FileManager.default.createFile(atPath: journalPath(name), contents: data)
            }
        }
    }

    var balance: Int? {
        (json(run("bank", "--json").out) as? [String: Any])?["balance_seconds"] as? Int
    }

    var entryIDs: Set<String> {
        return Set(((json(run("ledger", "--json").out) as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
    }

    var roundIDs: Set<String> {
        let sessions = (json(run("history", "--json").out) as? [String: Any])?["sessions"] as? [[String: Any]]
        return Set((sessions ?? []).compactMap { $0["id"] as? String })
    }

    var mixes: String { run("mix", "list", "--names").out }
}

func exchange(_ machines: [SyncMachine]) {
    for a in machines { for b in machines where a !== b { a.receive(from: b) } }
}

@Suite struct SyncCommandTests {
    @Test func twoMachinesConvergeOnOneLedger() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("ledger", "adjust", "+2h", "--reason", "seed").code == 0)
        #expect(a.run("history", "record", "--active", "25m").code == 0)
        #expect(a.run("mix", "save", "night", "rain=40", "brown=25").code == 0)
        #expect(a.run("config", "set", "earn.ratio", "4").code == 0)
        let initA = a.run("sync", "init", a.folder)
        #expect(initA.code == 0, "\(initA.err)")
        #expect(initA.out.contains("this machine writes its journal as device"))
        #expect(b.run("config", "set", "sync.dir", b.folder).code == 0)
        #expect(!a.device.isEmpty && !b.device.isEmpty && a.device != b.device)
        #expect(b.run("spend", "1m", "--on", "x").code == 3)  // nothing merged yet: nothing to spend
        exchange([a, b])
        #expect(b.balance == a.balance)
        #expect(b.run("mix", "save", "day", "rain=20").code == 0)
        #expect(b.run("spend", "30m", "--on", "tea").code == 0)
        exchange([a, b])
        #expect(a.balance == b.balance)
        #expect(a.balance != nil && a.balance! > 2 * 3600 - 30 * 60)
        #expect(a.entryIDs == b.entryIDs)
        #expect(a.roundIDs == b.roundIDs && a.roundIDs.count == 1)
        #expect(a.mixes == "day\nnight\n" && b.mixes == a.mixes)
        #expect(b.run("config", "get", "earn.ratio").out == "4\n")
        // A removal travels too, and an older save does not bring it back.
        #expect(a.run("mix", "rm", "night").code == 0)
        exchange([a, b])
        #expect(b.mixes == "day\n")
        exchange([a, b])
        #expect(a.mixes == "day\n")
    }

    /// Hours logged by hand (`hum log --productive/--distracting`) travel: those from before sync with the history
    /// `sync init` writes, the later ones as they are logged; each is added once however often journals cross.
    @Test func hoursLoggedByHandTravelAndAreAddedOnce() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("log", "1h", "--productive").code == 0)
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        #expect(a.run("log", "30m", "--distracting").code == 0)
        exchange([a, b])
        exchange([a, b])
        let onB = json(b.run("log", "1m", "--productive", "--json").out) as? [String: Any]
        #expect(onB?["day_productive_seconds"] as? Int == 3660)
        #expect(onB?["day_distracting_seconds"] as? Int == 1800)
        exchange([a, b])
        exchange([a, b])
        let onA = json(a.run("log", "1m", "--distracting", "--json").out) as? [String: Any]
        #expect(onA?["day_productive_seconds"] as? Int == 3660)
        #expect(onA?["day_distracting_seconds"] as? Int == 1860)
    }

    @Test func offlineSpendingOnTwoMachinesShowsAsDebtOnBoth() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        #expect(a.run("ledger", "adjust", "+1h", "--reason", "seed").code == 0)
        exchange([a, b])
        #expect(b.balance == 3600)
        // Offline: each spends what it sees.
        #expect(a.run("spend", "50m", "--on", "a").code == 0)
        #expect(b.run("spend", "50m", "--on", "b").code == 0)
        exchange([a, b])
        for m in [a, b] {
            let bank = json(m.run("bank", "--json").out) as? [String: Any]
            #expect(bank?["debt_seconds"] as? Int == 40 * 60)
            #expect(bank?["balance_seconds"] as? Int == 0)
        }
        let bank = a.run("bank")
        #expect(bank.out.lowercased().contains("debt"), "\(bank.out)")
        #expect(a.run("spend", "1m", "--on", "more").code == 3)
    }

    @Test func aHalfCopiedLastLineWaitsAndADamagedLineIsReportedOnceAndNotMerged() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        for n in 1...3 { #expect(a.run("ledger", "adjust", "+\(n)m", "--reason", "r\(n)").code == 0) }
        exchange([a, b])
        let path = b.journalPath(a.device)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        // The sync tool copied the file mid-append: the last line has no newline yet.
        #expect(a.run("ledger", "adjust", "+4m", "--reason", "r4").code == 0)
        let longer = try Data(contentsOf: URL(fileURLWithPath: a.journalPath(a.device)))
        try longer.prefix(whole.count + 40).write(to: URL(fileURLWithPath: path))
        #expect(b.balance == 6 * 60)
        #expect(b.run("sync", "status", "--json").out.contains("\"problem\"") == false)
        try longer.write(to: URL(fileURLWithPath: path))
        #expect(b.balance == 10 * 60)

        // A line edited by hand (its amount changed, the hash left): merged up to it, reported once.
        #expect(a.run("ledger", "adjust", "+5m", "--reason", "r5").code == 0)
        #expect(a.run("ledger", "adjust", "+6m", "--reason", "r6").code == 0)
        var text = try String(contentsOfFile: a.journalPath(a.device), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let forgedAt = lines.count - 3  // the +5m line
        lines[forgedAt] = lines[forgedAt].replacingOccurrences(
            of: "\"amount_seconds\":300", with: "\"amount_seconds\":30000")
        text = lines.joined(separator: "\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let first = b.run("bank", "--json")
        #expect(first.err.contains("merged only up to the damage"), "\(first.err)")
        #expect(b.balance == 10 * 60)
        #expect(!b.run("bank").err.contains("damage"))  // once
        let status = b.run("sync", "status")
        #expect(status.out.contains("problem:") && status.out.contains("hash"), "\(status.out)")
        // The true journal arrives again: the rest merges, and the problem is gone.
        b.receive(from: a)
        #expect(b.balance == 21 * 60)
        #expect(!b.run("sync", "status").out.contains("problem:"))

        // Two lines swapped.
        #expect(a.run("ledger", "adjust", "+7m", "--reason", "r7").code == 0)
        #expect(a.run("ledger", "adjust", "+8m", "--reason", "r8").code == 0)
        lines = try String(contentsOfFile: a.journalPath(a.device), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        lines.swapAt(lines.count - 1, lines.count - 2)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(b.balance == 21 * 60)
        #expect(b.run("sync", "status").out.contains("out of order"))
    }

    @Test func aDatabaseCopiedToAnotherMachineIsRefusedUntilReinitialised() throws {
        let a = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(a.run("ledger", "adjust", "+1h", "--reason", "seed").code == 0)
        let clone = SyncMachine()
        try FileManager.default.createDirectory(
            atPath: clone.sandbox.root + "/data/hum", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: a.sandbox.databasePath, toPath: clone.sandbox.databasePath)
        let refused = clone.run("spend", "5m", "--on", "x")
        #expect(refused.code == 3, "\(refused.err)")
        #expect(refused.err.contains("copied from another machine"), "\(refused.err)")
        #expect(refused.err.contains("hum sync init"))
        #expect(clone.balance == 3600)  // reading still works
        #expect(clone.run("sync", "init", clone.folder).code == 0)
        #expect(clone.device != a.device)
        #expect(clone.run("spend", "5m", "--on", "x").code == 0)
        exchange([a, clone])
        #expect(a.balance == 55 * 60 && clone.balance == 55 * 60)
    }

    /// A running player merges as soon as a journal arrives in the folder (inotify), before any command runs.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3"))
    func aRunningPlayerMergesWhenAJournalArrives() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        #expect(a.run("ledger", "adjust", "+1h", "--reason", "seed").code == 0)
        let player = try spawnBinary(
            ["focus", "--no-sound", "--focus", "20s", "--rounds", "1"], environment: b.environment,
            stdout: b.sandbox.root + "/player.out", stderr: b.sandbox.root + "/player.err")
        defer {
            kill(player, SIGKILL)
            waitFor(player)
        }
        // The player is up once its focus round is recorded as running.
        func query(_ sql: String) -> String {
            (try? runBinary([b.sandbox.databasePath, sql], environment: b.environment, program: "/usr/bin/sqlite3").out)
                ?? ""
        }
        var up = false
        for _ in 0..<100 where !up {
            up = query("SELECT count(*) FROM rounds WHERE status = 'running'") == "1\n"
            if !up { usleep(50_000) }
        }
        #expect(up)
        usleep(200_000)
        b.receive(from: a)
        var merged = false
        for _ in 0..<100 where !merged {
            merged = query("SELECT balance FROM totals") == "3600\n"
            if !merged { usleep(50_000) }
        }
        #expect(merged, "\(query("SELECT balance FROM totals"))")
    }

    @Test func strictSpendingTakesOnlyWhatThisDeviceHolds() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        #expect(a.run("ledger", "adjust", "+1h", "--reason", "seed").code == 0)
        exchange([a, b])
        #expect(b.balance == 3600)
        #expect(b.run("config", "set", "sync.strict", "on").code == 0)
        let refused = b.run("spend", "10m", "--on", "x")
        #expect(refused.code == 3, "\(refused.err)")
        #expect(b.run("config", "set", "sync.strict", "off").code == 0)
        #expect(b.run("spend", "10m", "--on", "x").code == 0)
        #expect(a.run("config", "get", "sync.strict").out == "off\n")
    }

    @Test func aSettingOfThisMachineDoesNotTravel() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        #expect(a.run("config", "set", "play.device", "hw:1").code == 0)
        #expect(a.run("config", "set", "focus.length", "50m").code == 0)
        exchange([a, b])
        #expect(b.run("config", "get", "focus.length").out == "50m\n")
        #expect(b.run("config", "get", "play.device").out == "default\n")
        #expect(b.run("config", "get", "sync.dir").out == b.folder + "\n")
    }
}
