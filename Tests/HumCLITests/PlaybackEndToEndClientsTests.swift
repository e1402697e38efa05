import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bad clients of the control socket cannot harm what plays: garbage, an oversized line and a subscriber that
/// never reads meet a real player while it plays, and the recording has no gap.
@Suite struct PlaybackEndToEndClientsTests {
    func send(_ fd: Int32, _ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func badClientsLeavePlaybackWhole() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        // A second sound at volume 0 or 1 (-120 dB): changing it makes events for subscribers, and no sound.
        let quiet = try box.writeSound("quiet.wav", sine(frequency: 550, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(["play", "\(tone)=50", "\(quiet)=0"], environment: sink.environment)
        defer { reap(hum) }
        let path = ControlSocketPath(environment: box.audioEnvironment.merging(sink.environment) { $1 })
        let client = waitFor { try? ControlClient.connect(to: path) }
        let steady = try #require(client, "the player's socket never answered")
        // The fade in (1 s) is over, so the level measured against is steady.
        #expect(sink.waitForSound() && sink.waitForRecording(1), "the tone was not heard for a second")
        func time(_ date: Date) -> Double { date.timeIntervalSince(sink.recordingStarted) }
        let badFrom = Date()
        // Garbage, a wrong version, an unknown command, a line over the limit.
        let garbage = try rawConnect(path.socket)
        defer { close(garbage) }
        send(garbage, "{not json\n\u{0}\u{1}\u{2}\n{\"v\":9,\"cmd\":\"status\"}\n{\"v\":1,\"cmd\":\"dance\"}\n")
        send(garbage, String(repeating: "x", count: ControlProtocol.maximumMessageBytes + 10))
        // A subscriber that never reads, with a small buffer, while the events pile up for it.
        let sleeper = try rawConnect(path.socket)
        defer { close(sleeper) }
        var size: Int32 = 4096
        setsockopt(sleeper, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        send(sleeper, "{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
        let name = (quiet as NSString).lastPathComponent.replacingOccurrences(of: ".wav", with: "")
        for i in 0..<3000 {
            #expect(try steady.request(.volume(sound: name, volume: Double(i % 2))).ok)
        }
        let badUntil = Date()
        #expect(try steady.request(.status).ok, "the player still answers")
        // The recording holds the window measured (to 0.2 s after the bad clients) before the fade out.
        #expect(eventually { sink.recordedSeconds >= time(badUntil) + 0.3 }, "the recording stalled")
        hum.signal(SIGTERM)
        _ = hum.wait()
        let left = try sink.stop()
        let windows = envelope(left, window: 480)  // 10 ms
        let during = windows.filter { $0.time > time(badFrom) && $0.time < time(badUntil) + 0.2 }
        try #require(during.count > 50, "the bad clients were served in \(badUntil.timeIntervalSince(badFrom)) s")
        let typical = during.map(\.rms).sorted()[during.count / 2]
        #expect(typical > 0.001, "the tone plays")
        let gaps = during.filter { $0.rms < typical * 0.5 }
        #expect(
            gaps.isEmpty,
            "\(gaps.count) windows of 10 ms fell below half the level, first at \(gaps.first?.time ?? 0) s")
    }
}
