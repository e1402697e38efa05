import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A unix datagram socket standing in for systemd's $NOTIFY_SOCKET: what hum sends through sd_notify.
final class NotifyListener {
    let path: String
    let fd: Int32

    init(_ path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    deinit { close(fd) }

    /// The next datagram, or nil after `timeout` milliseconds.
    func next(timeout: Int32 = 10_000) -> String? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeout) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Datagrams until one contains `text` (true), or none comes in time (false).
    func waitFor(_ text: String, seen: inout [String]) -> Bool {
        while let message = next() {
            seen.append(message)
            if message.contains(text) { return true }
        }
        return false
    }
}

/// `hum daemon` under a service manager: what it tells systemd, how it starts paused, how it meets another player,
/// and the user unit it installs.
@Suite struct DaemonServiceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func client(_ box: Sandbox) throws -> ControlClient? {
        try ControlClient.connect(to: ControlSocketPath(environment: box.audioEnvironment))
    }

    /// A terminal hum plays: the daemon started then (at login, or restarted by systemd) exits 3 at once, which the
    /// unit does not restart, so it cannot start the sound again seconds after that hum quits.
    @Test func theDaemonLeavesAnotherPlayerAloneAndTheUnitDoesNotRestartIt() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try box.startHum(["play", "\(tone)=40", "--device", "null"])
        defer {
            player.signal(SIGKILL)
            player.wait()
        }
        #expect(eventually { (try? client(box)?.request(.status).status) != nil }, "\(player.stderr)")
        let notify = NotifyListener(box.root + "/notify")
        let daemon = try box.hum(["daemon", "--device", "null"], environment: ["NOTIFY_SOCKET": notify.path])
        #expect(daemon.status == 3, "\(daemon.stderr)")
        #expect(daemon.stderr.hasPrefix("hum: another hum player is running, so this one does not start"))
        #expect(notify.next(timeout: 1000) == "STATUS=not started: another hum player runs")
        #expect(kill(player.pid, 0) == 0, "the terminal hum plays on")
        let unit = try String(contentsOf: Self.repository.appending(path: "contrib/hum.service"), encoding: .utf8)
        let service = unit.split(separator: "\n").drop { $0 != "[Service]" }.prefix { $0 != "[Install]" }
        #expect(service.contains("Restart=on-failure") && service.contains("RestartPreventExitStatus=3"))
    }

    /// `--paused`: the mix loaded, the device open and fed silence; systemd told READY=1 with what it holds;
    /// `hum ctl resume` fades it in, and systemd hears of it (STATUS= at each change).
    @Test func aPausedDaemonIsReadyAndSilentUntilResumed() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let raw = box.path("played.raw")
        let notify = NotifyListener(box.root + "/notify")
        let daemon = try box.startHum(
            ["daemon", "\(tone)=40", "--paused", "--device", "file:FILE=\(raw),FORMAT=raw"],
            environment: ["NOTIFY_SOCKET": notify.path])
        defer {
            daemon.signal(SIGKILL)
            daemon.wait()
        }
        #expect(notify.next() == "READY=1\nSTATUS=paused · tone 40", "\(daemon.stderr)")
        #expect(try client(box)?.request(.status).status?.state == .paused)
        usleep(500_000)
        let silent = try readRawFloat(raw)
        #expect(silent.count >= 48000 / 2, "the device is fed while paused: \(silent.count) samples")
        #expect(silent.allSatisfy { $0 == 0 }, "paused is silent")
        _ = try #require(try client(box)).request(.resume)
        var seen: [String] = []
        #expect(notify.waitFor("STATUS=playing · tone 40", seen: &seen), "\(seen)")
        #expect(eventually { ((try? readRawFloat(raw)) ?? []).contains { $0 != 0 } }, "resumed, it sounds")
        _ = try #require(try client(box)).request(.master(volume: 80))
        #expect(notify.waitFor("STATUS=playing · tone 40 · master 80", seen: &seen), "\(seen)")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }

    /// `--install` writes contrib/hum.service for this binary; with no user manager (this machine) it says what to
    /// run; with one it runs systemctl (a stand-in that logs its words) to enable it, and `--uninstall` undoes it.
    @Test func installWritesTheUnitForThisHumAndEnablesItWhenAManagerAnswers() throws {
        let box = Sandbox()
        let unitPath = box.root + "/config/systemd/user/hum.service"
        let alone = try box.hum(["daemon", "--install", "--paused"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("systemctl --user daemon-reload && systemctl --user enable --now hum"))
        #expect(alone.stdout.contains("to undo: hum daemon --uninstall"))
        let binary = URL(fileURLWithPath: humBinary).resolvingSymlinksInPath().path
        let contrib = try String(contentsOf: Self.repository.appending(path: "contrib/hum.service"), encoding: .utf8)
        let written = try String(contentsOfFile: unitPath, encoding: .utf8)
        #expect(
            written
                == contrib.replacingOccurrences(
                    of: "ExecStart=@PREFIX@/bin/hum daemon", with: "ExecStart=\(binary) daemon --paused"))

        // A user manager: its private socket listens; systemctl is a script that notes what it was asked.
        let manager = box.runtimeDirectory + "/systemd"
        mkdir(manager, 0o700)
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listening) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array((manager + "/private").utf8)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(listen(listening, 8) == 0)
        let bin = box.root + "/bin"
        mkdir(bin, 0o755)
        let log = box.root + "/systemctl.log"
        try "#!/bin/sh\necho \"$*\" >> \(log)\n".write(toFile: bin + "/systemctl", atomically: true, encoding: .utf8)
        chmod(bin + "/systemctl", 0o755)
        let path = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let enabled = try box.hum(["daemon", "--install"], environment: path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(enabled.stdout.contains("enabled and started") && enabled.stdout.contains("hum daemon --uninstall"))
        #expect(try String(contentsOfFile: unitPath, encoding: .utf8).contains("ExecStart=\(binary) daemon\n"))
        let removed = try box.hum(["daemon", "--uninstall"], environment: path)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(access(unitPath, F_OK) != 0)
        let calls = try String(contentsOfFile: log, encoding: .utf8)
        #expect(
            calls
                == "--user daemon-reload\n--user enable --now hum\n--user disable --now hum\n--user daemon-reload\n")
    }
}
