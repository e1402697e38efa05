import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The player on the desktop, each test on a D-Bus daemon of its own: MPRIS as playerctl and busctl see it, the
/// control socket's changes announced on the bus, the notification replaced in place with its buttons, logind's
/// sleep lock, and a player with no bus at all. No audio timing here (`--device null`, the timer alone); the
/// fade heard through the null sink is in MediaKeysPlaybackEndToEndTests.
@Suite struct DesktopBusTests {
    func client(_ box: Sandbox) throws -> ControlClient? {
        try ControlClient.connect(to: ControlSocketPath(environment: box.audioEnvironment))
    }

    func status(_ box: Sandbox) throws -> PlayerStatus? { try client(box)?.request(.status).status }

    /// Kills a player the test has not waited for (never a pid already reaped: it may be someone else's now).
    func stopIfRunning(_ child: Child) {
        guard waitpid(child.pid, nil, WNOHANG) == 0 else { return }
        child.signal(SIGKILL)
        child.wait()
    }

    /// The exit status of a player that ends by itself within `timeout` seconds, or nil (it is left running, for
    /// `stopIfRunning`): a test of what should end it does not hang when it does not.
    func exitStatus(_ child: Child, within timeout: Double = 5) -> Int32? {
        var status: Int32 = 0
        guard eventually(within: timeout, { waitpid(child.pid, &status, WNOHANG) == child.pid }) else { return nil }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    func history(_ box: Sandbox) throws -> [[String: Any]] {
        let run = try box.hum(["history", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return object?["sessions"] as? [[String: Any]] ?? []
    }

    /// Starts a player on the bus and waits until it owns its name.
    func startPlayer(_ box: Sandbox, _ arguments: [String], bus: PrivateBus, environment: [String: String] = [:])
        throws -> Child
    {
        let player = try box.startHum(arguments, environment: bus.environment.merging(environment) { $1 })
        let named = try eventually(within: 10) {
            try busClient("/usr/bin/playerctl", ["-l"], bus: bus).out.contains("hum")
        }
        #expect(named, "the player took its name on the bus: \(player.stderr)")
        return player
    }

    func property(_ name: String, of interface: String = "org.mpris.MediaPlayer2.Player", bus: PrivateBus) throws
        -> String
    {
        try busClient(
            "/usr/bin/busctl",
            ["--user", "get-property", "org.mpris.MediaPlayer2.hum", "/org/mpris/MediaPlayer2", interface, name],
            bus: bus
        ).out
    }

    /// Calls a method of the player's object with busctl; returns busctl's exit status.
    func call(_ method: String, of interface: String = "org.mpris.MediaPlayer2.Player", bus: PrivateBus) throws
        -> Int32
    {
        try busClient(
            "/usr/bin/busctl",
            ["--user", "call", "org.mpris.MediaPlayer2.hum", "/org/mpris/MediaPlayer2", interface, method], bus: bus
        ).code
    }

    /// Position, read on demand, in microseconds.
    func position(bus: PrivateBus) throws -> Int64 {
        Int64(try property("Position", bus: bus).dropFirst(2)) ?? -1
    }

    @Test func playerctlSeesAndSteersThePlayer() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try startPlayer(box, ["play", "\(tone)=40", "--device", "null", "--volume", "80"], bus: bus)
        defer { stopIfRunning(player) }
        #expect(try playerctl("-p", "hum", "status", bus: bus) == "Playing")
        #expect(try playerctl("-p", "hum", "metadata", "--format", "{{title}}|{{artist}}", bus: bus) == "tone|tone 40")
        #expect(try property("CanGoNext", bus: bus) == "b false")
        #expect(try property("CanSeek", bus: bus) == "b false")
        #expect(try property("Rate", bus: bus) == "d 1")

        // Play-pause is the space key: the player pauses, and plays again.
        try steer("-p", "hum", "play-pause", bus: bus)
        #expect(try status(box)?.state == .paused)
        #expect(try playerctl("-p", "hum", "status", bus: bus) == "Paused")
        try steer("-p", "hum", "play-pause", bus: bus)
        #expect(try status(box)?.state == .playing)

        // Volume is the master on hum's own scale: 0.5 is 50, and 50 reads back as 0.5.
        #expect(try playerctl("-p", "hum", "volume", bus: bus) == "0.800000")
        try steer("-p", "hum", "volume", "0.5", bus: bus)
        #expect(try status(box)?.mix.master == 50)
        #expect(try playerctl("-p", "hum", "volume", bus: bus) == "0.500000")

        // Stop is q: the player fades out and ends.
        try steer("-p", "hum", "stop", bus: bus)
        #expect(player.wait() == 0)
        #expect(player.stderr.isEmpty, "\(player.stderr)")
    }

    /// The root interface (what panels show and offer: the name, Quit, no Raise, no track list), and the Player's
    /// separate Play and Pause, which set the state whatever it was; during focus they pause and resume the round.
    @Test func theRootInterfaceAndPlayAndPause() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try startPlayer(box, ["play", "\(tone)=40", "--device", "null"], bus: bus)
        defer { stopIfRunning(player) }
        let root = "org.mpris.MediaPlayer2"
        #expect(try property("Identity", of: root, bus: bus) == "s \"hum\"")
        #expect(try property("CanQuit", of: root, bus: bus) == "b true")
        #expect(try property("CanRaise", of: root, bus: bus) == "b false")
        #expect(try property("HasTrackList", of: root, bus: bus) == "b false")
        // Raise is there, and does nothing.
        #expect(try call("Raise", of: root, bus: bus) == 0)
        #expect(try status(box)?.state == .playing)

        #expect(try call("Pause", bus: bus) == 0)
        #expect(try status(box)?.state == .paused)
        #expect(try call("Pause", bus: bus) == 0)
        #expect(try status(box)?.state == .paused, "Pause again leaves it paused (it is not PlayPause)")
        #expect(try property("PlaybackStatus", bus: bus) == "s \"Paused\"")
        #expect(try call("Play", bus: bus) == 0)
        #expect(try status(box)?.state == .playing)
        #expect(try call("Play", bus: bus) == 0)
        #expect(try status(box)?.state == .playing, "Play again leaves it playing")
        #expect(try property("PlaybackStatus", bus: bus) == "s \"Playing\"")

        // Quit ends the player, as q does.
        #expect(try call("Quit", of: root, bus: bus) == 0)
        #expect(exitStatus(player) == 0)
        #expect(player.stderr.isEmpty, "\(player.stderr)")

        // During focus rounds, Pause pauses the round and Play resumes it; Quit stops them early.
        let focus = try startPlayer(box, ["focus", "--no-sound", "--focus", "1m", "--rounds", "1"], bus: bus)
        defer { stopIfRunning(focus) }
        #expect(try call("Pause", bus: bus) == 0)
        #expect(try status(box)?.focus?.paused == true)
        #expect(try call("Pause", bus: bus) == 0)
        #expect(try status(box)?.focus?.paused == true, "still paused")
        #expect(try property("PlaybackStatus", bus: bus) == "s \"Paused\"")
        #expect(try call("Play", bus: bus) == 0)
        #expect(try status(box)?.focus?.paused == false)
        #expect(try call("Play", bus: bus) == 0)
        #expect(try status(box)?.focus?.paused == false, "still running")
        #expect(try call("Quit", of: root, bus: bus) == 0)
        #expect(exitStatus(focus) == 0)
        #expect(try history(box).map { $0["status"] as? String } == ["interrupted"])
    }

    /// What clients change through the control socket (hum ctl, another hum) is announced on the bus, once per
    /// change, with the properties that changed; the position is never announced.
    @Test func controlSocketChangesAreAnnouncedAsPropertiesChanged() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try startPlayer(box, ["play", "\(tone)=40", "--device", "null"], bus: bus)
        defer { stopIfRunning(player) }
        let monitor = try BusMonitor(box, bus: bus)
        let control = try #require(try client(box))
        _ = try control.request(.master(volume: 30))
        _ = try control.request(.volume(sound: tone, volume: 20))
        _ = try control.request(.pause)
        _ = try control.request(.resume)
        #expect(eventually { monitor.propertiesChanged.count >= 4 }, "\(monitor.text)")
        let changes = monitor.propertiesChanged
        #expect(changes.count == 4, "\(monitor.text)")
        guard changes.count == 4 else { return }
        #expect(changes[0].contains("\"Volume\"") && changes[0].contains("double 0.3"))
        #expect(changes[1].contains("\"Metadata\"") && changes[1].contains("\"tone 20\""))
        #expect(changes[2].contains("\"PlaybackStatus\"") && changes[2].contains("\"Paused\""))
        #expect(changes[3].contains("\"PlaybackStatus\"") && changes[3].contains("\"Playing\""))
        #expect(!monitor.text.contains("\"Position\""))
        // Nothing more while the mix just plays: no announcement every second (nor a change announced twice).
        usleep(2_200_000)  // a time: that nothing is announced in it is what is tested
        #expect(monitor.propertiesChanged.count == 4)
    }

    /// During focus rounds: Next skips (the history shows it), Previous restarts the round (Seeked to 0), an
    /// extension moves the deadline (a new length and Seeked), and the metadata follows the phase.
    @Test func nextPreviousAndExtendDuringFocusRounds() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let player = try startPlayer(
            box, ["focus", "--no-sound", "--focus", "1m", "--short-break", "1m", "--rounds", "2"], bus: bus)
        defer { stopIfRunning(player) }
        let monitor = try BusMonitor(box, bus: bus)
        #expect(
            try playerctl("-p", "hum", "metadata", "--format", "{{title}}|{{mpris:length}}", bus: bus)
                == "Focus 1/2|60000000")
        #expect(try property("CanGoNext", bus: bus) == "b true")
        #expect(try property("CanGoPrevious", bus: bus) == "b true")
        // Two seconds into the round, the position says so (it is read on demand, not as of the last event).
        let early =
            try waitFor(within: 10) { () throws -> Int64? in
                let now = try position(bus: bus)
                return now >= 2_000_000 ? now : nil
            } ?? -1
        #expect((2_000_000..<30_000_000).contains(early), "read on demand, not as of the last event")

        try steer("-p", "hum", "previous", bus: bus)
        #expect(try status(box)?.focus.map { $0.remainingSeconds >= 58 } == true, "the round started again")
        #expect(eventually { monitor.seeked.count == 1 }, "\(monitor.text)")
        #expect(monitor.seeked.first?.contains("int64 0") == true, "\(monitor.text)")
        #expect(try position(bus: bus) < early)

        _ = try client(box)?.request(.extend(seconds: 60))
        #expect(eventually { monitor.seeked.count == 2 }, "\(monitor.text)")
        #expect(try playerctl("-p", "hum", "metadata", "--format", "{{mpris:length}}", bus: bus) == "120000000")

        let announced = monitor.propertiesChanged.count
        try steer("-p", "hum", "next", bus: bus)
        #expect(try status(box)?.focus?.phase == .shortBreak)
        // The phase change is announced: the new metadata (its title and length) in a PropertiesChanged.
        #expect(
            eventually {
                monitor.propertiesChanged.dropFirst(announced).contains {
                    $0.contains("\"Metadata\"") && $0.contains("\"Short break\"")
                }
            }, "\(monitor.text)")
        #expect(
            try playerctl("-p", "hum", "metadata", "--format", "{{title}}|{{mpris:length}}", bus: bus)
                == "Short break|60000000")
        #expect(try property("CanGoPrevious", bus: bus) == "b false")
        // Previous in a break does nothing (playerctl would not even ask: CanGoPrevious is false).
        let previous = try busClient(
            "/usr/bin/busctl",
            [
                "--user", "call", "org.mpris.MediaPlayer2.hum", "/org/mpris/MediaPlayer2",
                "org.mpris.MediaPlayer2.Player", "Previous",
            ], bus: bus)
        #expect(previous.code == 0)
        #expect(try status(box)?.focus?.phase == .shortBreak)

        player.signal(SIGTERM)
        #expect(player.wait() == 0)
        let rounds = try history(box)
        #expect(rounds.map { $0["kind"] as? String } == ["focus", "focus", "short-break"])
        #expect(rounds.map { $0["status"] as? String } == ["interrupted", "skipped", "interrupted"])
        #expect(player.stdout.contains("restart focus 1/2"))
    }

    /// One notification per session, replaced in place, with buttons when the server draws them; a button press
    /// steers the player.
    @Test func theNotificationIsReplacedInPlaceAndItsButtonsWork() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let server = try FakeNotificationServer(bus: bus, capabilities: ["actions", "body"])
        defer { server.stop() }
        let player = try startPlayer(
            box,
            ["focus", "--no-sound", "--focus", "1s", "--short-break", "1m", "--rounds", "2", "--goal", "draft it"],
            bus: bus)
        defer { stopIfRunning(player) }
        #expect(eventually(within: 5) { server.calls.count == 1 })
        let first = try #require(server.calls.first)
        #expect(first.appName == "hum" && first.replacesID == 0)
        // hum's icon and desktop entry, so that desktops group and theme its notifications.
        #expect(first.icon == "hum" && first.hints == ["desktop-entry": "hum"])
        #expect(first.summary == "Focus 1/2 done — 1 min break, then focus 2/2")
        // The first round of a fresh history earns an achievement, announced once in its notification.
        #expect(first.body == "Goal: draft it\nAchievement: First round (a first focus round completed)")
        #expect(first.actions == ["skip", "Skip", "extend", "+5 min"])

        // "+5 min" grows the break by the plan's extension step; what the user did brings no new notification.
        let before = try #require(try status(box)?.focus)
        #expect(before.phase == .shortBreak && before.plannedSeconds == 60)
        server.press("extend", on: first.id)
        #expect(eventually { (try? status(box))??.focus?.plannedSeconds == 60 + 300 }, "\(player.stdout)")
        #expect(try status(box)?.focus?.phase == .shortBreak)
        #expect(server.calls.count == 1)

        // "Skip" skips the break; the last round runs out and the same notification says the session is complete.
        server.press("skip", on: first.id)
        #expect(eventually(within: 5) { server.calls.count == 2 }, "\(player.stdout)")
        let second = try #require(server.calls.last)
        #expect(second.replacesID == first.id)
        #expect(second.summary == "Focus 2/2 done — the session is complete")
        #expect(second.actions == [])
        #expect(player.wait() == 0)
        #expect(try history(box).map { $0["status"] as? String } == ["completed", "skipped", "completed"])
    }

    @Test func aServerWithoutButtonsGetsNone() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let server = try FakeNotificationServer(bus: bus, capabilities: [])
        defer { server.stop() }
        let player = try startPlayer(
            box, ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--goal", "g"], bus: bus)
        #expect(player.wait() == 0)
        #expect(server.calls.count == 1)
        // No "body" capability either: the goal goes into the summary.
        #expect(
            server.calls.first?.summary
                == "Focus 1/1 done — the session is complete (Goal: g\n"
                + "Achievement: First round (a first focus round completed))")
        #expect(server.calls.first?.body == "" && server.calls.first?.actions == [])
        // --quiet: no notification at all.
        let quiet = try box.hum(
            ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--quiet"], environment: bus.environment)
        #expect(quiet.status == 0)
        #expect(server.calls.count == 1)
    }

    /// Without a session bus (ssh, containers, CI) the player plays as before, and says so only when asked.
    @Test func withoutABusThePlayerPlaysAsBefore() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let raw = box.path("out.raw")  // the ALSA file plugin: what hum played
        let nowhere = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(box.root)/no-bus-here"]
        let run = try box.hum(
            ["play", "\(tone)=100", "--for", "1s", "--device", "file:FILE=\(raw),FORMAT=raw"], environment: nowhere)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let samples = try readRawFloat(raw)
        #expect(samples.count == 48000 * 2 && rms(samples[...]) > 0.001)
        let verbose = try box.hum(
            ["play", "\(tone)=40", "--for", "0.2s", "--device", "null", "--verbose"], environment: nowhere)
        #expect(verbose.status == 0)
        let lines = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("hum: desktop:") }
        #expect(lines.count == 1, "\(verbose.stderr)")
        #expect(
            lines.first?.hasPrefix("hum: desktop: no desktop controls (the session bus: sd_bus_start failed") == true)
        // Focus rounds too, with no one to notify.
        let focus = try box.hum(["focus", "--no-sound", "--focus", "1s", "--rounds", "1"], environment: nowhere)
        #expect(focus.status == 0 && focus.stderr.isEmpty, "\(focus.stderr)")
        // A silent player (the shields' guard of 'hum daemon --no-sound') says it too, once, with --verbose.
        let silent = try box.hum(
            ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--verbose"], environment: nowhere)
        #expect(silent.status == 0)
        let said = silent.stderr.split(separator: "\n").filter { $0.hasPrefix("hum: desktop: no desktop controls") }
        #expect(said.count == 1, "\(silent.stderr)")
    }

    /// A second player on the same session bus (another login of the same user) takes the instance name.
    @Test func aSecondPlayerOnTheBusTakesAnInstanceName() throws {
        let one = Sandbox()
        let bus = try PrivateBus(one)
        let two = Sandbox()
        let first = try startPlayer(one, ["focus", "--no-sound", "--focus", "1m"], bus: bus)
        let second = try two.startHum(["focus", "--no-sound", "--focus", "1m"], environment: bus.environment)
        defer { for player in [first, second] { stopIfRunning(player) } }
        #expect(
            eventually(within: 10) {
                (try? busClient("/usr/bin/playerctl", ["-l"], bus: bus).out.split(separator: "\n").sorted())
                    == ["hum", "hum.instance\(second.pid)"]
            })
    }

    /// `--inhibit`: logind's lock is held while a focus round runs, and let go on pause, in breaks, when the rounds
    /// end (the player playing on) and when the player stops; without it, no lock is asked for.
    @Test func theSleepLockIsHeldWhileAFocusRoundRuns() throws {
        let box = Sandbox()
        let session = try PrivateBus(box)
        let system = try PrivateBus(box, name: "system")
        let logind = try FakeLogind(bus: system)
        defer { logind.stop() }
        let environment = session.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": system.address]) { $1 }
        let plain = try box.hum(["focus", "--no-sound", "--focus", "1s", "--rounds", "1"], environment: environment)
        #expect(plain.status == 0 && logind.locks.isEmpty, "\(plain.stderr)")

        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try startPlayer(
            box, ["play", "\(tone)=40", "--device", "null"], bus: session, environment: environment)
        defer { stopIfRunning(player) }
        let control = try #require(try client(box))
        let plan = try FocusPlan(focus: .seconds(60), shortBreak: .seconds(60), rounds: 2)
        let request = FocusRequest(plan: plan, goal: nil, tags: [], quiet: true, onEvent: nil, inhibit: true)
        #expect(try control.request(.focus(request)).ok)
        #expect(eventually { logind.held == 1 }, "\(player.stderr)")
        #expect(logind.locks.first.map { "\($0.what) \($0.who) \($0.mode)" } == "sleep:idle hum block")
        _ = try control.request(.pause)
        #expect(eventually { logind.held == 0 }, "let go on pause")
        _ = try control.request(.resume)
        #expect(eventually { logind.held == 1 }, "held again on resume")
        _ = try control.request(.skip)
        #expect(eventually { logind.held == 0 }, "let go in the break")
        _ = try control.request(.skip)
        #expect(eventually { logind.held == 1 }, "held in round 2")
        _ = try control.request(.endFocus)
        #expect(eventually { logind.held == 0 }, "let go when the rounds end")
        #expect(try status(box)?.state == .playing, "the player plays on")
        #expect(logind.locks.count == 3)
        player.signal(SIGTERM)
        #expect(player.wait() == 0)

        // A player that stops during a round lets go too.
        let focus = try startPlayer(
            box, ["focus", "--no-sound", "--focus", "1m", "--inhibit"], bus: session, environment: environment)
        defer { stopIfRunning(focus) }
        #expect(eventually { logind.held == 1 })
        focus.signal(SIGTERM)
        #expect(focus.wait() == 0)
        #expect(logind.held == 0 && logind.locks.count == 4)
    }

    @Test func withoutLogindTheRoundsRunAndSaySoOnce() throws {
        let box = Sandbox()
        let session = try PrivateBus(box)
        let nowhere = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(box.root)/no-system-bus"]
        let run = try box.hum(
            ["focus", "--no-sound", "--focus", "1s", "--short-break", "1s", "--rounds", "2", "--inhibit"],
            environment: session.environment.merging(nowhere) { $1 })
        #expect(run.status == 0)
        #expect(
            run.stderr.hasPrefix("hum: warning: cannot keep the machine awake: the system bus: sd_bus_start failed"),
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
}
