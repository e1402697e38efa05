import Foundation
import HumCore
import HumTestSupport
import Testing

/// The live line and the keys, in a real terminal (tmux), as a person sees them.
@Suite(.serialized) struct TerminalEndToEndTests {
    final class Tmux {
        let session = "hum-test-" + UUID().uuidString.prefix(8)

        init(command: String, environment: [String: String]) throws {
            let exports = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
            _ = try Tmux.run([
                "new-session", "-d", "-s", session, "-x", "160", "-y", "10", "env \(exports) \(command); sleep 5",
            ])
        }

        deinit { _ = try? Tmux.run(["kill-session", "-t", session]) }

        func keys(_ keys: String...) throws { _ = try Tmux.run(["send-keys", "-t", session] + keys) }

        func screen() throws -> String { try Tmux.run(["capture-pane", "-p", "-t", session]) }

        /// Waits until the screen shows `text` (up to `timeout` seconds); returns the last screen.
        func waitUntil(shows text: String, timeout: Double = 10) throws -> String {
            var last = ""
            // Each look starts a tmux client: not too often.
            try eventually(within: timeout, pausingAtMost: 0.1) {
                last = try screen()
                return last.contains(text)
            }
            return last
        }

        /// Runs tmux on the session's own server (`-L` its name): tests run at once, and on one shared server a
        /// session started as another test's last one ended met a server on its way out (`new-session` failed).
        static func run(_ arguments: [String]) throws -> String {
            let out = NSTemporaryDirectory() + "tmux-" + UUID().uuidString
            defer { unlink(out) }
            let named = arguments.firstIndex { $0 == "-t" || $0 == "-s" }.map { arguments.index(after: $0) }
            let server = named.flatMap { $0 < arguments.endIndex ? arguments[$0].split(separator: ":").first : nil }
            let status = waitFor(
                try spawnAny("/usr/bin/tmux", (server.map { ["-L", String($0)] } ?? []) + arguments, stdout: out))
            guard status == 0 else { throw SpawnFailure(command: "tmux \(arguments.first ?? "")", status: status) }
            return (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        }
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio daemon started by scripts/test.sh"))
    func playShowsALiveLineThatKeysChange() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let other = try box.writeSound("other.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let env = box.terminalEnvironment(sink)
        let tmux = try Tmux(command: "\(humBinary) play \(tone)=40 \(other)=20; echo exit=$?", environment: env)
        var screen = try tmux.waitUntil(shows: "master 100")
        #expect(screen.contains("♪ ›tone 40‹ · other 20 │ master 100 │ 00:0"), "\(screen)")
        try tmux.keys("Right")
        screen = try tmux.waitUntil(shows: "tone 45")
        #expect(screen.contains("›tone 45‹"), "\(screen)")
        try tmux.keys("Down", "m", "-")
        screen = try tmux.waitUntil(shows: "master 95")
        #expect(screen.contains("›other muted‹ │ master 95"), "\(screen)")
        try tmux.keys("q")
        screen = try tmux.waitUntil(shows: "exit=")
        #expect(screen.contains("exit=0"), "\(screen)")
        _ = try sink.stop()
    }

    @Test func focusShowsTheCountdownAndSpacePauses() throws {
        let box = Sandbox()
        let env = box.environment.merging(["NO_COLOR": "1"]) { $1 }
        let tmux = try Tmux(
            command: "\(humBinary) focus --no-sound --focus 10m --rounds 2; echo exit=$?", environment: env)
        var screen = try tmux.waitUntil(shows: "focus 1/2")
        #expect(screen.contains("start focus 1/2 10:00"), "\(screen)")
        #expect(screen.contains("focus 1/2 09:5") || screen.contains("focus 1/2 10:00"), "\(screen)")
        try tmux.keys("Space")
        screen = try tmux.waitUntil(shows: "(paused)")
        #expect(screen.contains("pause focus 1/2"), "\(screen)")
        try tmux.keys("e")
        screen = try tmux.waitUntil(shows: "extend")
        #expect(screen.contains("focus 1/2 14:5") || screen.contains("focus 1/2 15:00"), "\(screen)")
        try tmux.keys("q")
        screen = try tmux.waitUntil(shows: "exit=")
        #expect(screen.contains("stop focus 1/2"), "\(screen)")
        #expect(screen.contains("exit=0"), "\(screen)")
        // The extension is kept in the round's planned time, as docs/focus.md says.
        let history = try JSONSerialization.jsonObject(with: Data(box.run("history", "--json").out.utf8))
        let round = ((history as? [String: Any])?["sessions"] as? [[String: Any]])?.first
        #expect(round?["planned_seconds"] as? Int == 15 * 60, "\(String(describing: round))")
        #expect(round?["status"] as? String == "interrupted")
    }

    @Test func questionMarkShowsTheKeysAndPlayForShowsTheTimeLeft() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let env = box.environment.merging(["NO_COLOR": "1"]) { $1 }
        let tmux = try Tmux(
            command: "\(humBinary) play \(tone)=40 --for 10m --device null; echo exit=$?", environment: env)
        var screen = try tmux.waitUntil(shows: "left")
        #expect(screen.contains("│ 10:00 left") || screen.contains("│ 09:5"), "\(screen)")
        try tmux.keys("?")
        screen = try tmux.waitUntil(shows: "keys:")
        #expect(screen.contains("space pause"), "\(screen)")
        try tmux.keys("q")
        screen = try tmux.waitUntil(shows: "exit=")
        #expect(screen.contains("exit=0"), "\(screen)")
    }
}
