import Foundation
import HumCore
import Testing

/// One Syncthing instance of Debian's package on 127.0.0.1: its own home, discovery, relays, NAT traversal, global
/// announce, usage and crash reporting all off, sharing one folder with the other instance by address.
final class SyncthingInstance {
    static let program = "/usr/bin/syncthing"
    let home: String
    let folder: String
    let port: Int
    let device: String
    var pid: pid_t = 0

    init(home: String, folder: String, port: Int) throws {
        self.home = home
        self.folder = folder
        self.port = port
        let generated = try runBinary(
            ["generate", "--home", home, "--no-default-folder", "--skip-port-probing"],
            environment: SyncthingInstance.environment(home), program: Self.program)
        let id = (generated.out + generated.err).split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "Device ID: ") else { return nil }
            return String(line[r.upperBound...]).trimmingCharacters(in: .whitespaces)
        }.first
        device = try #require(id, "syncthing generate printed no device id: \(generated.out) \(generated.err)")
        try? FileManager.default.createDirectory(atPath: folder + "/.stfolder", withIntermediateDirectories: true)
    }

    static func environment(_ home: String) -> [String: String] {
        [
            "HOME": home, "PATH": "/usr/bin:/bin", "STNOUPGRADE": "1", "STNODEFAULTFOLDER": "1",
            "STNORESTART": "1",
        ]
    }

    /// Writes the whole configuration: this instance and `peer`, one folder shared by both.
    func configure(peer: SyncthingInstance) throws {
        let devices = [self, peer].map { d in
            """
              <device id="\(d.device)" name="\(d.port)" compression="metadata" introducer="false" autoAcceptFolders="false">
                <address>tcp://127.0.0.1:\(d.port)</address>
              </device>
            """
        }.joined(separator: "\n")
        let config = """
            <configuration version="36">
              <folder id="hum" label="hum" path="\(folder)" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
                <device id="\(device)"></device>
                <device id="\(peer.device)"></device>
              </folder>
            \(devices)
              <gui enabled="false" tls="false"><address>127.0.0.1:0</address></gui>
              <options>
                <listenAddress>tcp://127.0.0.1:\(port)</listenAddress>
                <globalAnnounceServer>default</globalAnnounceServer>
                <globalAnnounceEnabled>false</globalAnnounceEnabled>
                <localAnnounceEnabled>false</localAnnounceEnabled>
                <relaysEnabled>false</relaysEnabled>
                <natEnabled>false</natEnabled>
                <urAccepted>-1</urAccepted>
                <urSeen>3</urSeen>
                <crashReportingEnabled>false</crashReportingEnabled>
                <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                <startBrowser>false</startBrowser>
                <reconnectionIntervalS>1</reconnectionIntervalS>
              </options>
            </configuration>
            """
        try config.write(toFile: home + "/config.xml", atomically: true, encoding: .utf8)
    }

    func start() throws {
        pid = try spawnBinary(
            ["serve", "--home", home, "--no-browser", "--no-restart", "--no-default-folder"],
            environment: Self.environment(home), stdout: home + "/out.log", stderr: home + "/err.log",
            program: Self.program)
    }

    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(50_000)
        }
        pid = 0
    }
}

/// Two machines whose synced folders a real Syncthing keeps equal: rounds, a pass and a saved mix on each side
/// arrive on the other; spending while one is stopped shows as the same debt on both once they meet again.
@Suite(.serialized) struct SyncthingTests {
    /// Polls `condition` (the test's own waiting: hum itself never polls) for up to `seconds`.
    func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(200_000)
        }
        return condition()
    }

    @Test func twoSyncthingInstancesCarryTheLedgerBothWays() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: SyncthingInstance.program), "syncthing is a test dependency")
        let a = SyncMachine()
        let b = SyncMachine()
        for m in [a, b] { try FileManager.default.createDirectory(atPath: m.folder, withIntermediateDirectories: true) }
        let base = 20_000 + Int.random(in: 0..<20_000)
        let sa = try SyncthingInstance(home: a.sandbox.root + "/syncthing", folder: a.folder, port: base)
        let sb = try SyncthingInstance(home: b.sandbox.root + "/syncthing", folder: b.folder, port: base + 1)
        try sa.configure(peer: sb)
        try sb.configure(peer: sa)
        try sa.start()
        try sb.start()
        defer {
            sa.stop()
            sb.stop()
        }
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)

        // Rounds and a pass on one machine, a saved mix on the other.
        #expect(a.run("ledger", "adjust", "+30m", "--reason", "seed").code == 0)
        for _ in 1...2 {
            let focus = try runBinary(
                ["focus", "--no-sound", "--focus", "1s", "--rounds", "1"], environment: a.environment)
            #expect(focus.code == 0, "\(focus.err)")
        }
        #expect(try runBinary(["pass", "1s", "--", "true"], environment: a.environment).code == 0)
        #expect(b.run("mix", "save", "night", "rain=40", "brown=25").code == 0)
        let played = try runBinary(["play", "wind=30", "--for", "1s", "--device", "null"], environment: b.environment)
        #expect(played.code == 0, "\(played.err)")
        let met = eventually(40) {
            a.balance == b.balance && a.entryIDs == b.entryIDs && a.roundIDs == b.roundIDs && a.mixes == b.mixes
                && a.recents == b.recents
        }
        #expect(met, "a: \(a.run("sync", "status").out) b: \(b.run("sync", "status").out)")
        #expect(a.roundIDs.count == 2 && b.mixes == "night\n")
        #expect(a.recents == ["wind=30"], "the mix played on b is among a's recents")
        let balance = try #require(a.balance)
        #expect(balance > 120)

        // Offline: b's Syncthing stopped, both spend all but a minute of what they see.
        sb.stop()
        let each = balance - 60
        #expect(a.run("spend", "\(each)s", "--on", "a").code == 0)
        #expect(b.run("spend", "\(each)s", "--on", "b").code == 0)
        try sb.start()
        let debt = balance - 120
        let shown = eventually(40) {
            [a, b].allSatisfy { m in
                (json(m.run("bank", "--json").out) as? [String: Any])?["debt_seconds"] as? Int == debt
            }
        }
        #expect(shown, "a: \(a.run("bank").out) b: \(b.run("bank").out)")
        #expect(a.entryIDs == b.entryIDs)
    }
}
