import Foundation
import HumCore
import HumTestSupport
import Testing

/// Which way the mix leaves hum: a native stream to the sound server when ALSA's `default` is the device and a
/// server answers, ALSA through its pulse plugin when `HUM_AUDIO=alsa` says so, and ALSA's `default` as it is
/// configured when no server answers.
@Suite(.serialized) struct SoundServerRouteTests {
    /// The properties of the server's stream (sink input) that the process `pid` plays, nil while there is none.
    static func streamProperties(of pid: pid_t) -> [String: String]? {
        let text = try? IsolatedSink.pactl(["-f", "json", "list", "sink-inputs"])
        guard let inputs = json(text ?? "") as? [[String: Any]] else { return nil }
        for input in inputs {
            guard let properties = input["properties"] as? [String: String],
                properties["application.process.id"] == "\(pid)"
            else { continue }
            return properties
        }
        return nil
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func theDefaultDevicePlaysAsANativeStreamToTheServer() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(["play", "\(tone)=50", "--verbose"], environment: sink.environment)
        defer { reap(hum) }
        #expect(sink.waitForSound(), "hum never played: \(hum.stderr)")
        let properties = try #require(Self.streamProperties(of: hum.pid), "no stream of hum's on the server")
        // libpulse names the client and the stream as hum asked; the ALSA plugin would say "ALSA plug-in [hum]".
        #expect(properties["application.name"] == "hum", "\(properties)")
        #expect(properties["media.name"] == "hum", "\(properties)")
        #expect(hum.stderr.contains("native stream"), "\(hum.stderr)")
        hum.signal(SIGTERM)
        #expect(exitTime(hum, within: 5) != nil)
        _ = try sink.stop()
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func humAudioAlsaGoesThroughAlsasPulsePlugin() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(
            ["play", "\(tone)=50"], environment: sink.environment.merging(["HUM_AUDIO": "alsa"]) { $1 })
        defer { reap(hum) }
        #expect(sink.waitForSound(), "hum never played: \(hum.stderr)")
        let properties = try #require(Self.streamProperties(of: hum.pid), "no stream of hum's on the server")
        #expect(properties["application.name"]?.hasPrefix("ALSA plug-in") == true, "\(properties)")
        hum.signal(SIGTERM)
        #expect(exitTime(hum, within: 5) != nil)
        _ = try sink.stop()
    }

    /// No server at PULSE_SERVER: hum plays to ALSA's `default`, here (the sandbox's ~/.asoundrc) a file.
    @Test func withoutASoundServerTheDefaultDeviceIsAlsas() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let home = box.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let captured = box.path("default.raw")
        try """
        pcm.!default {
            type file
            slave.pcm "null"
            file "\(captured)"
            format "raw"
        }

        """.write(toFile: home + "/.asoundrc", atomically: true, encoding: .utf8)
        let run = try box.hum(
            ["play", "\(tone)=50", "--for", "1s", "--fade", "0", "--verbose"],
            environment: ["HOME": home, "PULSE_SERVER": "unix:\(box.path("no-server"))"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("not the sound server natively"), "\(run.stderr)")
        // The file plugin takes what its client's format is: float32 stereo, 1 s of the tone.
        let samples = try readRawFloat(captured)
        #expect(samples.count >= 2 * 47_000, "\(samples.count) samples")
        #expect(rms(channel(samples, 0)[...]) > 0.001, "silence: the tone did not reach ALSA's default")
    }
}
