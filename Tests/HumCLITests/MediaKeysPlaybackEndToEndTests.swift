import Foundation
import HumCore
import HumTestSupport
import Testing

/// The play-pause media key heard: through ALSA `default` into a null sink of the test's own, on a private session
/// bus. Real time (scripts/test.sh runs it in its real-time phase: the name holds "PlaybackEndToEnd").
@Suite(.serialized) struct MediaKeysPlaybackEndToEndTests {
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func playPauseFadesTheMixOutAndBackIn() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let player = try box.startHum(
            ["play", "\(tone)=100", "--fade", "0.2s"], environment: sink.environment.merging(bus.environment) { $1 })
        #expect(
            try eventually(within: 10) { try playerctl("-p", "hum", "status", bus: bus) == "Playing" },
            "\(player.stderr)")
        #expect(sink.waitForSound(), "the player was not heard")
        #expect(sink.waitForRecording(1), "the recording stalled")  // the level before the key, over 0.7 s of it
        let paused = Date().timeIntervalSince(sink.recordingStarted)
        try steer("-p", "hum", "play-pause", bus: bus)
        #expect(try playerctl("-p", "hum", "status", bus: bus) == "Paused")
        usleep(2_000_000)  // a time: that it stays silent through it is what is tested
        let resumed = Date().timeIntervalSince(sink.recordingStarted)
        try steer("-p", "hum", "play-pause", bus: bus)
        #expect(try playerctl("-p", "hum", "status", bus: bus) == "Playing")
        // The recording holds the window measured after the key (to 1.3 s after it).
        #expect(eventually { sink.recordedSeconds >= resumed + 1.4 }, "the recording stalled")
        try steer("-p", "hum", "stop", bus: bus)
        #expect(player.wait() == 0)
        #expect(player.stderr.isEmpty, "\(player.stderr)")
        let windows = envelope(try sink.stop())
        func level(_ from: Double, _ to: Double) -> [Float] {
            windows.filter { $0.time >= from && $0.time + 0.05 <= to }.map(\.rms)
        }
        // Playing before the key, silent while paused (the pause fades over half a second), playing after.
        let before = level(paused - 0.8, paused - 0.1)
        let during = level(paused + 0.8, resumed - 0.1)
        let after = level(resumed + 0.8, resumed + 1.3)
        #expect(!before.isEmpty && before.allSatisfy { $0 > 0.005 }, "before \(before)")
        #expect(!during.isEmpty && during.allSatisfy { $0 < 0.0005 }, "during \(during)")
        #expect(!after.isEmpty && after.allSatisfy { $0 > 0.005 }, "after \(after)")
    }
}
