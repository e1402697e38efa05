import Foundation
import HumCore
import Testing

/// A second hum on a terminal, while a player runs in the background: it shows the player's line, its keys steer
/// that player, and `q` leaves the screen with the player still playing.
@Suite(.serialized) struct TerminalEndToEndAttachTests {
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio daemon started by scripts/test.sh"))
    func aSecondHumShowsAndSteersTheRunningPlayer() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        defer { _ = try? sink.stop() }
        let started = try box.hum(["play", "\(tone)=40", "--detach"], environment: sink.environment)
        #expect(started.status == 0, "\(started.stderr)")
        defer { _ = try? box.hum(["ctl", "stop", "--quiet"], environment: sink.environment) }
        let env = box.terminalEnvironment(sink)
        let tmux = try TerminalEndToEndTests.Tmux(command: "\(humBinary) play; echo exit=$?", environment: env)
        var screen = try tmux.waitUntil(shows: "master 100")
        #expect(screen.contains("›tone 40‹"), "\(screen)")
        try tmux.keys("Right")
        screen = try tmux.waitUntil(shows: "tone 45")
        #expect(screen.contains("›tone 45‹"), "\(screen)")
        // The change was made in the player, not only on this screen.
        let status = try box.hum(["status", "--json"], environment: sink.environment)
        #expect(status.stdout.contains("\"volume\":45"), "\(status.stdout)")
        // A change from elsewhere shows here.
        #expect(try box.hum(["ctl", "master", "70", "--quiet"], environment: sink.environment).status == 0)
        screen = try tmux.waitUntil(shows: "master 70")
        #expect(screen.contains("master 70"), "\(screen)")
        try tmux.keys("q")
        screen = try tmux.waitUntil(shows: "exit=")
        #expect(screen.contains("exit=0"), "\(screen)")
        let after = try box.hum(["status"], environment: sink.environment)
        #expect(after.stdout.hasPrefix("playing"), "the player plays on: \(after.stdout)")
    }
}
