import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The player as a service: in the background, under a service manager, steered by other hums.
@Suite struct PlayerServiceTests {
    func alive(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }

    func client(_ box: Sandbox) throws -> ControlClient? {
        try ControlClient.connect(to: ControlSocketPath(environment: box.audioEnvironment))
    }

    @Test func aDetachedPlayerReturnsOncePlayingAndStopsWhenAsked() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let run = try box.hum(["play", "\(tone)=40", "--detach", "--device", "null"])
        #expect(run.status == 0, "\(run.stderr)")
        let pid = try #require(
            run.stderr.split(separator: "(pid ").last.flatMap { Int32($0.prefix { $0.isNumber }) })
        #expect(alive(pid))
        let status = try #require(try client(box)).request(.status).status
        #expect(status?.pid == pid)
        #expect(status?.mix.tracks.map(\.volume) == [40])
        // Its log is private, and the next bare hum forwards to it instead of opening a second stream.
        var info = stat()
        #expect(stat(box.root + "/state/hum/player.log", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try box.hum(["play", "--device", "null"]).status == 0)
        _ = try #require(try client(box)).request(.stop)
        #expect(eventually { !alive(pid) }, "the player ended")
        #expect(try client(box) == nil, "its socket is gone")
    }

    /// The player's socket is 0600, and making it never sets the umask: the umask belongs to the whole process, and
    /// a folder that another thread made meanwhile came out without its owner's bits (a ledger folder that its owner
    /// could not enter, seen as a flaky test when the suites shared one process).
    @Test func thePlayersSocketIsPrivateAndTheUmaskIsLeftAlone() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else { return }
        let box = Sandbox()
        let trace = box.root + "/umask.trace"
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let run = try runBinary(
            [
                "-f", "-o", trace, "-e", "trace=umask,bind,chmod,listen", humBinary, "play", tone, "--device", "null",
                "--for", "1s",
            ],
            environment: box.audioEnvironment, program: "/usr/bin/strace")
        #expect(run.code == 0, "\(run.err)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let socket = ControlSocketPath(environment: box.audioEnvironment).socket
        // libpulse sets 077 for a moment (pa_make_secure_dir), which keeps the owner's bits; 0177 does not.
        let ownerBits = /umask\(0[1-7][0-7]{2}\)/
        #expect(!calls.contains { $0.contains(ownerBits) }, "\(calls)")
        let order = calls.compactMap { line -> String? in
            if line.contains("bind(") && line.contains(socket) { return "bind" }
            if line.contains("chmod(\"\(socket)\", 0600)") && line.hasSuffix("= 0") { return "chmod" }
            if line.contains("listen(") { return "listen" }
            return nil
        }
        #expect(order == ["bind", "chmod", "listen"], "\(calls)")
    }

    /// Five `hum play … --detach` at once: one of them takes the claim to be the player and plays; the others,
    /// whether they found no player yet or lost the claim to it, wait for its socket and send their mix there (a
    /// second `hum play` while a player runs changes its mix), in the order they arrive. All exit 0, one player runs.
    @Test func detachedPlaysStartedTogetherReachTheOneThatPlays() throws {
        let box = Sandbox()
        let volumes = [20, 30, 40, 50, 60]
        let tones = try volumes.map {
            try box.writeSound("tone\($0).wav", sine(frequency: 200 + Double($0), frames: 48000))
        }
        let runs = try zip(tones, volumes).map { tone, volume in
            try box.startHum(["play", "\(tone)=\(volume)", "--detach", "--device", "null"])
        }
        let codes = runs.map { $0.wait() }
        let players = { humProcesses(labelled: "daemon").filter { cmdline($0).contains { $0.hasPrefix(box.root) } } }
        defer { for pid in players() { kill(pid, SIGKILL) } }
        for (run, code) in zip(runs, codes) { #expect(code == 0, "\(run.stderr)") }
        // The losers' own daemons, if they got that far, end at once.
        #expect(eventually { players().count == 1 }, "players: \(players())")
        let status = try #require(try client(box)?.request(.status).status)
        #expect(status.pid == players().first)
        // The mix is one of those asked for: the last to arrive.
        let tracks = status.mix.tracks.map { ($0.sound, Int($0.volume.rounded())) }
        #expect(tracks.count == 1, "\(tracks)")
        if let (sound, volume) = tracks.first, let i = volumes.firstIndex(of: volume) {
            #expect(sound == tones[i])
        } else {
            Issue.record("the mix is none of those asked for: \(tracks)")
        }
        let pid = status.pid
        _ = try #require(try client(box)).request(.stop)
        #expect(eventually { !alive(pid) }, "the player ended")
    }

    @Test func aDetachedPlayerThatCannotPlaySaysWhy() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let typo = try box.hum(["play", "rian", "--detach"])
        #expect(typo.status == 2 && typo.stderr.hasPrefix("hum: unknown sound \"rian\""), "\(typo.stderr)")
        let device = try box.hum(["play", "\(tone)=40", "--detach", "--device", "hw:99"])
        #expect(device.status == 1)
        #expect(device.stderr.hasPrefix("hum: ") && device.stderr.contains("hw:99"), "\(device.stderr)")
        #expect(try client(box) == nil)
    }

    /// systemd's Type=notify: READY=1 (and the status line) arrives on $NOTIFY_SOCKET once the mix plays; SIGTERM
    /// fades out and ends.
    @Test func theDaemonTellsTheServiceManagerItIsReady() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let path = box.root + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let daemon = try box.startHum(
            ["daemon", "\(tone)=40", "--device", "null"], environment: ["NOTIFY_SOCKET": path])
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 10_000) == 1)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = recv(fd, &buffer, buffer.count, 0)
        // With what it plays, for `systemctl status` (DaemonServiceTests follows its changes).
        let told = String(decoding: buffer[0..<max(0, n)], as: UTF8.self)
        #expect(told == "READY=1\nSTATUS=playing · tone 40", "\(told)")
        #expect(try client(box)?.request(.status).status?.pid == daemon.pid)
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        #expect(daemon.stderr.isEmpty, "\(daemon.stderr)")
    }

    /// A device that takes whatever it is given (ALSA's `null`, the `file` plugin over it) is paced by hum as a
    /// device would pace it: the player does not spin a core (before: 95 % of one), and `--for 2s` plays for 2 s.
    @Test func aDeviceThatIsNotPacedIsPacedByTheClock() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try box.startHum(["play", "\(tone)=40", "--device", "null"])
        // Playing, with its sound loaded (no "loading" note): what follows is the steady state.
        let steady = eventually {
            let status = try? client(box)?.request(.status).status
            return status?.state == .playing && status?.note == nil
        }
        #expect(steady, "\(player.stderr)")
        let before = cpuSeconds(player.pid)
        usleep(2_000_000)  // a time: the CPU the player uses over it is what is measured
        let after = cpuSeconds(player.pid)
        player.signal(SIGKILL)
        player.wait()
        let used = (after ?? 99) - (before ?? 0)
        #expect(used < 0.3, "hum used \(used) s of CPU in 2 s")

        // Alone (a second hum would hand its mix to a running player).
        let raw = box.path("played.raw")
        let started = Date()
        let played = try box.hum(["play", "\(tone)=40", "--for", "2s", "--device", "file:FILE=\(raw),FORMAT=raw"])
        let took = Date().timeIntervalSince(started)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(took >= 1.9, "2 s of sound took \(took) s")
        #expect(try readRawFloat(raw).count == 48000 * 2 * 2)  // every frame still written, none dropped
    }

    @Test(.enabled(if: getuid() == 0, "needs root to take CAP_SYS_NICE away"))
    func verboseSaysHowTheEngineThreadRuns() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let words = ["play", "\(tone)=40", "--for", "0.2s", "--device", "null", "--verbose"]
        let granted = try box.hum(words)
        #expect(
            granted.stderr.contains("hum: audio: the engine thread runs at real-time (SCHED_FIFO"), "\(granted.stderr)")
        #expect(granted.stderr.contains("at 48000 Hz"))
        let refused = try runBinary(
            ["--inh-caps=-sys_nice", "--bounding-set=-sys_nice", humBinary] + words, environment: box.audioEnvironment,
            program: "/usr/bin/setpriv")
        #expect(
            refused.err.contains("hum: audio: the engine thread runs at normal priority; real-time refused"),
            "\(refused.err)")
    }
}

/// A round that ends while the disk is full: hum keeps the round's end and writes it when there is room again,
/// instead of leaving it to be taken for an interrupted round with nothing active.
@Suite(.serialized) struct FullDiskRoundTests {
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "hum-mount-probe-" + UUID().uuidString.prefix(8)
        mkdir(probe, 0o700)
        defer { rmdir(probe) }
        let pid = try? spawnAny("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])
        guard let pid, waitFor(pid) == 0 else { return false }
        if let unmount = try? spawnAny("/bin/umount", [probe]) { waitFor(unmount) }
        return true
    }()

    @Test(.enabled(if: canMount, "needs to mount a small tmpfs (root)"))
    func aRoundEndingOnAFullDiskIsRecordedOnceThereIsRoom() throws {
        let box = Sandbox()
        let data = box.root + "/data"
        mkdir(data, 0o700)
        #expect(waitFor(try spawnAny("/bin/mount", ["-t", "tmpfs", "-o", "size=3m,mode=0700", "tmpfs", data])) == 0)
        defer { waitFor(try! spawnAny("/bin/umount", ["-l", data])) }
        #expect(box.run("bank").code == 0)
        let hum = try box.startHum(["focus", "--no-sound", "--focus", "2s", "--rounds", "1"])
        let begun = eventually {
            (try? ControlClient.connect(to: ControlSocketPath(environment: box.audioEnvironment))?.request(.status))?
                .status?.focus != nil
        }
        #expect(begun, "the round did not begin: \(hum.stderr)")
        // Fill the disk.
        let filler = data + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0, count: 65536)
        while write(fd, block, block.count) > 0 {}
        close(fd)
        // The round ended at 2 s, and its end could not be written.
        #expect(eventually { hum.stderr.contains("cannot record the round yet") }, "\(hum.stderr)")
        #expect(kill(hum.pid, 0) == 0, "hum waits to record the round")
        unlink(filler)
        #expect(hum.wait() == 0)
        #expect(hum.stderr.contains("cannot record the round yet"), "\(hum.stderr)")
        #expect(hum.stderr.contains("the round is recorded now"), "\(hum.stderr)")
        let history = try JSONSerialization.jsonObject(with: Data(box.run("history", "--json").out.utf8))
        let round = ((history as? [String: Any])?["sessions"] as? [[String: Any]])?.first
        #expect(round?["status"] as? String == "completed", "\(String(describing: round))")
        #expect(round?["active_seconds"] as? Int == 2)
    }
}

/// The words of a process's command line.
func cmdline(_ pid: pid_t) -> [String] {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
    return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}
