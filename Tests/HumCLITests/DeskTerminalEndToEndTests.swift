import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

/// `hum` on a terminal: the full screen in a real terminal (tmux at 80×24), driven as a person would, as issue 13's
/// "Done means" lists. The player plays to ALSA's null device, so no sound server is needed.
@Suite(.serialized) struct DeskTerminalEndToEndTests {
    /// A shell in a detached tmux session of a given size, with a known prompt.
    final class Shell {
        let session = "hum-desk-" + UUID().uuidString.prefix(8)

        init(columns: Int, rows: Int, environment: [String: String]) throws {
            let exports = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
            _ = try TerminalEndToEndTests.Tmux.run([
                "new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)",
                "env -i \(exports) PS1='PROMPT> ' bash --norc --noprofile",
            ])
        }

        deinit { _ = try? TerminalEndToEndTests.Tmux.run(["kill-session", "-t", session]) }

        func keys(_ keys: String...) throws {
            _ = try TerminalEndToEndTests.Tmux.run(["send-keys", "-t", session] + keys)
        }
        /// Types text as it is (no key names).
        func type(_ text: String) throws {
            _ = try TerminalEndToEndTests.Tmux.run(["send-keys", "-t", session, "-l", text])
        }
        func resize(columns: Int, rows: Int) throws {
            _ = try TerminalEndToEndTests.Tmux.run([
                "resize-window", "-t", session, "-x", "\(columns)", "-y", "\(rows)",
            ])
        }
        func screen() throws -> String { try TerminalEndToEndTests.Tmux.run(["capture-pane", "-p", "-t", session]) }

        /// Brings the controls back if they hid (a slow machine can take longer than the idle time between two
        /// steps): Escape does nothing else on the main screen.
        func reveal() throws {
            try keys("Escape")
            _ = try waitUntil(timeout: 10) { $0.contains("? keys") }
        }

        /// Waits until the screen passes `check` (up to `timeout` seconds); returns the last screen.
        func waitUntil(timeout: Double = 30, _ check: (String) -> Bool) throws -> String {
            var last = ""
            // Each look starts a tmux client: not too often beside the real-time tests.
            try eventually(within: timeout, pausingAtMost: 0.15) {
                last = try screen()
                return check(last)
            }
            return last
        }

        func waitUntil(shows text: String, timeout: Double = 30) throws -> String {
            try waitUntil(timeout: timeout) { $0.contains(text) }
        }
    }

    /// A small built-in library in the sandbox: the default mix's rain and brown and a few to add, each a second of
    /// quiet tone with a manifest entry, so loading them costs next to nothing beside the real-time tests.
    static func library(in box: Sandbox) throws -> String {
        let directory = box.root + "/library"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sounds = [
            ("rain", "Steady rain on a roof."), ("brown", "A deep, soft rumble."),
            ("birds", "Birds waking a wood at dawn."), ("stream", "A brook over stones."),
            ("fire", "A wood fire, crackling."),
        ]
        var entries: [SoundManifest.Entry] = []
        for (index, (name, description)) in sounds.enumerated() {
            let file = try box.writeSound(
                "\(name).wav", sine(frequency: 200 + 50 * Double(index), frames: 48000, amplitude: 0.05))
            try FileManager.default.moveItem(atPath: file, toPath: "\(directory)/\(name).wav")
            entries.append(
                SoundManifest.Entry(
                    id: name, title: name.capitalized, category: "test", description: description, file: "\(name).wav",
                    durationSeconds: 1, sampleRate: 48000, channels: 1, loudnessLUFS: -23, truePeakDBTP: -20,
                    loop: .crossfade, license: "test", recipe: "sine", seed: 0))
        }
        let manifest = SoundManifest(targetLUFS: -23, sounds: entries)
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: directory + "/sounds.json"))
        return directory
    }

    /// An 80×24 shell at its prompt, in the sandbox with its small library, playing to ALSA's null device.
    /// How many clients follow the player of `environment` (nil when none answers).
    static func watchers(_ environment: [String: String]) -> Int? {
        let socket = ControlSocketPath(environment: environment)
        return try? ControlClient.connect(to: socket)?.request(.status).status?.subscribers
    }

    static func shell(for box: Sandbox, _ extra: [String: String] = [:]) throws -> (Shell, [String: String]) {
        var env = box.environment
        env["HUM_SOUNDS_DIR"] = try library(in: box)
        env["HUM_DEVICE"] = "null"
        env["TERM"] = "screen"
        env.merge(extra) { _, new in new }
        let shell = try Shell(columns: 80, rows: 24, environment: env)
        _ = try shell.waitUntil(shows: "PROMPT>")
        return (shell, env)
    }

    static func line(_ screen: String, containing text: String) -> String {
        screen.split(separator: "\n").map(String.init).first { $0.contains(text) } ?? ""
    }

    /// The number after the volume bar on the mixer line of `sound` ("muted", or nil when it is not shown).
    static func volume(_ screen: String, _ sound: String) -> String? {
        let line = Self.line(screen, containing: " \(sound) ")
        guard let end = line.lastIndex(where: { $0 == "█" || $0 == "░" }) else { return nil }
        return line[line.index(after: end)...].split(separator: " ").first.map(String.init)
    }

    @Test func theFullScreenDoesWhatIssue13Lists() throws {
        let box = Sandbox()
        let (shell, env) = try Self.shell(for: box)
        try shell.type("\(humBinary)")
        try shell.keys("Enter")

        // The clock in big digits and the default mix.
        var screen = try shell.waitUntil { $0.contains("master") && $0.contains("brown") }
        #expect(screen.contains("██████"), "\(screen)")
        #expect(screen.contains("f starts focus rounds"), "\(screen)")
        #expect(Self.volume(screen, "rain") == "75", "\(screen)")
        #expect(Self.volume(screen, "brown") == "50", "\(screen)")
        #expect(screen.contains("balance"), "\(screen)")

        // A click on the end of brown's volume bar (row 13; the bar takes columns 15–42) sets it to 100: the
        // press and release as an xterm reports them (ESC [ M, then button, column and row, each + 32, 1-based).
        func click(column: Int, row: Int) -> String {
            "\u{1B}[M" + String(UnicodeScalar(UInt8(32))) + String(UnicodeScalar(UInt8(33 + column)))
                + String(UnicodeScalar(UInt8(33 + row))) + "\u{1B}[M" + String(UnicodeScalar(UInt8(35)))
                + String(UnicodeScalar(UInt8(33 + column))) + String(UnicodeScalar(UInt8(33 + row)))
        }
        try shell.reveal()
        try shell.type(click(column: 42, row: 13))
        screen = try shell.waitUntil { Self.volume($0, "brown") == "100" }
        #expect(Self.volume(screen, "brown") == "100", "\(screen)")
        #expect(screen.contains("› brown"), "\(screen)")

        // A sound added through the filter, then its volume changed.
        try shell.keys("a")
        _ = try shell.waitUntil(shows: "add a sound")
        try shell.type("bir")
        // The whole filter drawn (after "b" alone the list also holds stream, "A brook over stones.").
        screen = try shell.waitUntil { $0.contains("add a sound: bir▏") && $0.contains("› birds") }
        #expect(!screen.contains("stream"), "\(screen)")
        try shell.keys("Enter")
        _ = try shell.waitUntil { Self.volume($0, "birds") == "75" || $0.contains("birds 75 │") }
        try shell.reveal()
        screen = try shell.waitUntil { Self.volume($0, "birds") == "75" }
        #expect(Self.volume(screen, "birds") == "75", "\(screen)")
        #expect(screen.contains("› birds"), "\(screen)")  // the new sound is selected
        try shell.keys("Right")
        screen = try shell.waitUntil { Self.volume($0, "birds") == "80" }
        #expect(Self.volume(screen, "birds") == "80", "\(screen)")

        // Saved as a mix, changed, and loaded back.
        try shell.keys("S")
        _ = try shell.waitUntil(shows: "save the mix as")
        try shell.type("desk")
        try shell.keys("Enter")
        screen = try shell.waitUntil(shows: "saved @desk")
        #expect(screen.contains("saved @desk: rain 75 · brown 100 · birds 80"), "\(screen)")
        try shell.keys("x")
        screen = try shell.waitUntil { !$0.contains("birds") }
        #expect(!screen.contains("birds"), "\(screen)")
        try shell.keys("l")
        screen = try shell.waitUntil(shows: "@desk")
        #expect(screen.contains("load a saved mix"), "\(screen)")
        try shell.keys("Enter")
        screen = try shell.waitUntil {
            ($0.contains("hum · @desk") && Self.volume($0, "birds") == "80") || $0.contains("birds 80 │")
        }
        try shell.reveal()
        screen = try shell.waitUntil { $0.contains("hum · @desk") && Self.volume($0, "birds") == "80" }
        #expect(screen.contains("hum · @desk"), "\(screen)")

        // Focus rounds with the plan of the settings: the countdown, pause, skip.
        try shell.keys("f")
        screen = try shell.waitUntil(shows: "focus · round 1/4")
        #expect(screen.contains("focus · round 1/4"), "\(screen)")
        #expect(screen.contains("░░░░"), "\(screen)")  // the progress bar
        try shell.keys("Space")
        screen = try shell.waitUntil(shows: "round 1/4 · paused")
        #expect(screen.contains("round 1/4 · paused"), "\(screen)")
        try shell.keys("Space")
        _ = try shell.waitUntil { !$0.contains("paused") }
        try shell.keys("s")
        screen = try shell.waitUntil(shows: "break · next: focus 2/4")
        #expect(screen.contains("break · next: focus 2/4"), "\(screen)")

        // A second hum on another terminal attaches to the same player and shows the same state.
        let second = try Shell(columns: 80, rows: 24, environment: env)
        _ = try second.waitUntil(shows: "PROMPT>")
        try second.type("\(humBinary)")
        try second.keys("Enter")
        _ = try second.waitUntil { $0.contains("break · next: focus 2/4") && $0.contains("birds") }
        try second.reveal()
        let other = try second.waitUntil { $0.contains("break · next: focus 2/4") && $0.contains("hum · @desk") }
        #expect(other.contains("hum · @desk"), "\(other)")
        #expect(other.contains("break · next: focus 2/4"), "\(other)")
        #expect(Self.volume(other, "birds") == "80", "\(other)")
        try second.keys("q")
        let left = try second.waitUntil(shows: "PROMPT> ")
        #expect(left.contains("PROMPT> "), "\(left)")

        // `?` shows the keys.
        try shell.keys("?")
        screen = try shell.waitUntil(shows: "select a sound")
        #expect(screen.contains("start or end focus rounds"), "\(screen)")
        try shell.keys("Escape")
        _ = try shell.waitUntil { !$0.contains("select a sound") }

        // 40×12 stays readable: normal digits, the countdown, the mixer, the keys.
        try shell.resize(columns: 40, rows: 12)
        try shell.reveal()
        screen = try shell.waitUntil { $0.contains("? keys · q quit") && $0.contains("master") }
        let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.allSatisfy { $0.count <= 40 }, "\(screen)")
        #expect(!screen.contains("██████  "), "\(screen)")
        #expect(screen.contains("break · next: focus 2/4"), "\(screen)")
        #expect(screen.contains("birds"), "\(screen)")

        // q while another client watches the player this screen started: the player plays on.
        let follower = try box.startHum(["status", "--follow"])
        var status = box.run("status")
        eventually {
            status = box.run("status")
            return status.out.contains("birds")
        }
        // The follower's subscription has reached the player: it counts two watchers, this screen and the follower.
        #expect(eventually(within: 10) { Self.watchers(env) == 2 }, "\(String(describing: Self.watchers(env)))")
        try shell.keys("q")
        _ = try shell.waitUntil(shows: "PROMPT> ")
        // The player has seen the screen go (one watcher left), and plays on.
        #expect(eventually { Self.watchers(env) == 1 }, "\(String(describing: Self.watchers(env)))")
        status = box.run("status")
        #expect(!status.out.hasPrefix("idle") && !status.out.contains("stopping"), "\(status)")  // nor fading out
        follower.signal(SIGTERM)
        follower.wait()

        // Bare hum again attaches to it: a player this screen did not start plays on after q, even with no one else
        // watching; Q stops it.
        try shell.type("\(humBinary)")
        try shell.keys("Enter")
        screen = try shell.waitUntil { $0.contains("break · next: focus 2/4") && $0.contains("master") }
        #expect(screen.contains("break · next: focus 2/4"), "\(screen)")
        try shell.keys("q")
        _ = try shell.waitUntil(shows: "PROMPT> ")
        // The player has seen the screen go (no watcher left), and plays on.
        #expect(eventually { Self.watchers(env) == 0 }, "\(String(describing: Self.watchers(env)))")
        let after = box.run("status").out
        #expect(!after.hasPrefix("idle") && !after.contains("stopping"), "\(after)")
        try shell.type("\(humBinary)")
        try shell.keys("Enter")
        _ = try shell.waitUntil { $0.contains("break · next: focus 2/4") && $0.contains("master") }
        try shell.keys("Q")
        _ = try shell.waitUntil(shows: "PROMPT> ")

        // The terminal is restored.
        try shell.keys("C-l")
        try shell.type("stty -a | tr ' ' '\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo; tput cols")
        try shell.keys("Enter")
        screen = try shell.waitUntil { $0.contains("\n40\n") }
        #expect(screen.contains("icanon echo"), "\(screen)")
        #expect(!screen.contains("-icanon") && !screen.contains("-echo"), "\(screen)")
        #expect(screen.contains("\n40\n"), "\(screen)")

        // The history has the rounds as hum focus records them: the focus round skipped, the break cut short.
        eventually {
            status = box.run("status")
            return status.out.hasPrefix("idle")
        }
        #expect(status.out.hasPrefix("idle"), "\(status)")
        let history = try JSONSerialization.jsonObject(with: Data(box.run("history", "--json").out.utf8))
        let sessions = (history as? [String: Any])?["sessions"] as? [[String: Any]] ?? []
        let phases = sessions.map { "\($0["kind"] ?? "")=\($0["status"] ?? "")" }
        #expect(phases.contains("focus=skipped"), "\(sessions)")
        #expect(phases.contains("short-break=interrupted"), "\(sessions)")
        #expect(sessions.first { $0["kind"] as? String == "focus" }?["planned_seconds"] as? Int == 25 * 60)

        // A crash gives the terminal back too: the shell's screen, not the clock, once the screen is killed by SEGV.
        let pidFile = box.path("ui.pid")
        try shell.keys("C-l")
        try shell.type("sh -c 'echo $$ > \(pidFile); exec \(humBinary)'")
        try shell.keys("Enter")
        screen = try shell.waitUntil { $0.contains("██████") && $0.contains("master") }
        let pid = Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.split(separator: "\n").first ?? "")
        #expect(pid != nil)
        if let pid { kill(pid, SIGSEGV) }
        screen = try shell.waitUntil { $0.contains("Segmentation fault") }
        #expect(screen.contains("Segmentation fault"), "\(screen)")
        #expect(!screen.contains("██"), "\(screen)")
        // The player it started plays on after a crash; stopped here.
        #expect(box.run("ctl", "stop").code == 0)
    }

    /// Leaving the screen never costs a round: q while focus rounds run leaves them running in the player, even one
    /// started for this screen with no one else watching, and says so; before, the player stopped and the round
    /// was recorded as interrupted.
    @Test func leavingDuringFocusLeavesTheRoundsRunning() throws {
        let box = Sandbox()
        let (shell, env) = try Self.shell(for: box)
        try shell.type("\(humBinary)")
        try shell.keys("Enter")
        _ = try shell.waitUntil { $0.contains("master") && $0.contains("brown") }
        try shell.keys("f")
        var screen = try shell.waitUntil(shows: "focus · round 1/4")
        #expect(screen.contains("focus · round 1/4"), "\(screen)")
        try shell.keys("q")
        screen = try shell.waitUntil(shows: "PROMPT> ")
        #expect(screen.contains("focus 1/4 runs on in the player"), "\(screen)")
        // The player has seen the screen go (no watcher left), and runs the rounds on.
        #expect(eventually { Self.watchers(env) == 0 }, "\(String(describing: Self.watchers(env)))")
        let status = box.run("status")
        #expect(status.out.contains("focus 1/4") && !status.out.contains("stopping"), "\(status)")
        #expect(box.run("ctl", "stop").code == 0)
    }

    /// A round that earns shows it briefly, in the accent (reverse video with NO_COLOR), and the bank counts it.
    @Test func aRoundThatEarnsShowsIt() throws {
        let box = Sandbox()
        let (shell, _) = try Self.shell(
            for: box, ["HUM_FOCUS_LENGTH": "3s", "HUM_FOCUS_ROUNDS": "1", "HUM_FOCUS_FADE": "1s"])
        let pidFile = box.path("ui.pid")
        try shell.type("sh -c 'echo $$ > \(pidFile); exec \(humBinary)'")
        try shell.keys("Enter")
        _ = try shell.waitUntil { $0.contains("master") && $0.contains("f starts focus rounds") }
        try shell.keys("f")
        _ = try shell.waitUntil(shows: "focus · round 1/1")
        let screen = try shell.waitUntil(shows: "+1s earned")
        #expect(screen.contains("+1s earned"), "\(screen)")
        let styled = try TerminalEndToEndTests.Tmux.run(["capture-pane", "-p", "-e", "-t", shell.session])
        #expect(Self.line(styled, containing: "+1s earned").contains("\u{1B}[7m"), "\(styled)")
        try shell.reveal()
        let bank = try shell.waitUntil(shows: "today    1s / 3h")
        #expect(bank.contains("balance  1s"), "\(bank)")

        // SIGTERM leaves as q does: the terminal given back, and the player this screen started (no one else
        // watching) stopped.
        let pid = Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.split(separator: "\n").first ?? "")
        #expect(pid != nil)
        if let pid { kill(pid, SIGTERM) }
        let after = try shell.waitUntil { $0.contains("PROMPT> ") && !$0.contains("██") }
        #expect(after.contains("PROMPT> ") && !after.contains("██"), "\(after)")
        var status = box.run("status")
        eventually {
            status = box.run("status")
            return status.out.hasPrefix("idle")
        }
        #expect(status.out.hasPrefix("idle"), "\(status)")
    }
}
