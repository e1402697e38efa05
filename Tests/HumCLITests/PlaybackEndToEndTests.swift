import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

@testable import HumAudio

/// `hum play` and `hum render` run as a person runs them, through real ALSA.
@Suite(.serialized) struct PlaybackEndToEndTests {
    /// (a) The ALSA `file` plugin captures exactly what hum wrote to the device: it must equal `hum render` of
    /// the same mix, sample for sample (different source rates, mono and stereo, a ramped fade at both ends).
    @Test func playToTheFilePluginEqualsRender() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 441, rate: 44100, frames: 44100 * 2), rate: 44100)
        var rng = SplitMix64(seed: 9)
        let noise = (0..<(48000 * 3 * 2)).map { _ in rng.nextSignedUnit() * 0.2 }
        let stereo = try box.writeSound("noise.wav", noise, channels: 2)
        let raw = box.path("played.raw")
        let mix = ["\(tone)=80", "\(stereo)=60"]
        let played = try box.hum(["play"] + mix + ["--for", "3s", "--device", "file:FILE=\(raw),FORMAT=raw"])
        #expect(played.status == 0, "\(played.stderr)")
        let rendered = try box.hum(
            ["render"] + mix + ["--duration", "3s", "--format", "f32", "-o", box.path("rendered.wav")])
        #expect(rendered.status == 0, "\(rendered.stderr)")

        let device = try readRawFloat(raw)
        let file = try AudioFileReader.decode(path: box.path("rendered.wav"))
        #expect(device.count == 48000 * 3 * 2)
        #expect(file.samples.count == device.count)
        #expect(file.samples == device)
        #expect(rms(device[48000...]) > 0.005)  // not silence
    }

    /// (b) ALSA `default` into a PulseAudio null sink: paced in real time, audible, and a forced underrun
    /// (SIGSTOP, then SIGCONT) does not end playback.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func realTimeThroughPulseSurvivesAStop() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let started = Date()
        let hum = try box.startHum(
            ["play", "\(tone)=100", "--for", "4s", "--fade", "0.2s"], environment: sink.environment)
        #expect(sink.waitForSound(), "hum was not heard: \(hum.stderr)")
        hum.signal(SIGSTOP)
        usleep(700_000)  // a time: stopped this long, the device runs dry (the underrun under test)
        hum.signal(SIGCONT)
        let continued = Date().timeIntervalSince(sink.recordingStarted)
        let status = hum.wait()
        let elapsed = Date().timeIntervalSince(started)
        let left = try sink.stop()

        #expect(status == 0, "\(hum.stderr)")
        // Recovered as an underrun, not treated as a lost device (which would have been reported).
        #expect(hum.stderr.isEmpty)
        // Paced: 4 s of audio take at least 4 s (plus the 0.7 s stop), and not much more.
        #expect(elapsed >= 4.0 && elapsed < 8.5, "took \(elapsed) s")
        // Windows of 50 ms with sound in them; playback continued after the stop: sound lasts ≥ 3.5 s in all.
        let window = 2400
        let loud = stride(from: 0, to: left.count - window, by: window).filter { rms(left[$0..<($0 + window)]) > 0.005 }
        #expect(Double(loud.count) * 0.05 >= 3.5, "only \(Double(loud.count) * 0.05) s had sound")
        // Sound went on well after the player was continued: the underrun did not end playback.
        let lastSound = Double(loud.last ?? 0) / 48000
        #expect(lastSound >= continued + 1.0, "last sound at \(lastSound) s, continued at \(continued) s")
    }

    /// A player in the background, steered from another process: `hum ctl volume SOUND 0` is heard (the recording
    /// goes quiet) within a fraction of a second, and `hum ctl volume` back brings it back.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func aDetachedPlayerFollowsCtlAtOnce() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let env = sink.environment
        let started = try box.hum(["play", "\(tone)=50", "--detach"], environment: env)
        #expect(started.status == 0, "\(started.stderr)")
        #expect(sink.waitForSound(), "the detached player was not heard")
        // A steady level before the request, measured over 0.6 s to compare with.
        #expect(sink.waitForRecording(0.7), "the recording stalled")
        let heard = sink.level() ?? 0
        let quiet = Date()
        #expect(try box.hum(["ctl", "volume", "tone", "0", "--quiet"], environment: env).status == 0)
        let quietApplied = Date()  // the reply comes once the player has applied the change
        #expect(sink.waitForLevel { $0 < heard * 0.05 }, "the player did not go quiet")
        let loud = Date()
        #expect(try box.hum(["ctl", "volume", "tone", "50", "--quiet"], environment: env).status == 0)
        let loudApplied = Date()
        #expect(sink.waitForLevel { $0 > heard * 0.5 }, "the player did not come back")
        #expect(try box.hum(["ctl", "stop", "--quiet"], environment: env).status == 0)
        let left = try sink.stop()
        let windows = envelope(left, window: 480)  // 10 ms
        func time(_ date: Date) -> Double { date.timeIntervalSince(sink.recordingStarted) }
        let before = windows.filter { $0.time > time(quiet) - 0.6 && $0.time < time(quiet) - 0.1 }.map(\.rms)
        #expect(!before.isEmpty)
        let typical = before.sorted()[before.count / 2]
        #expect(typical > 0.0001)
        // The first window near silence after the request, and the first loud again after the second one.
        let silent = windows.first { $0.time > time(quiet) && $0.rms < typical * 0.05 }?.time
        let back = windows.first { $0.time > time(loud) && $0.rms > typical * 0.5 }?.time
        let toSilence = (silent ?? 99) - time(quiet)
        let toSound = (back ?? 99) - time(loud)
        #expect(toSilence < 0.3, "quiet \(toSilence) s after the request")
        #expect(toSound < 0.3, "back \(toSound) s after the request")
        // Heard: the level has fallen by half (6 dB) after the player's reply (the change is applied, then ramps
        // over 30 ms and passes the 80 ms device buffer, PulseAudio's own and the recording's; 123-144 ms measured
        // with two builds running, of which 20-40 ms is the recording's: its first sample is older than the moment its
        // file is first seen to grow, which is the recording's zero here).
        let halved = windows.first { $0.time > time(quiet) && $0.rms < typical * 0.5 }?.time
        let toHeard = (halved ?? 99) - time(quietApplied)
        #expect(toHeard < 0.2, "heard \(toHeard) s after the reply")
        print(
            "hum ctl volume: from starting hum ctl, silent after \(Int(toSilence * 1000)) ms and back after "
                + "\(Int(toSound * 1000)) ms; from the reply (\(Int(quietApplied.timeIntervalSince(quiet) * 1000)) ms "
                + "and \(Int(loudApplied.timeIntervalSince(loud) * 1000)) ms after starting), down 6 dB after "
                + "\(Int(toHeard * 1000)) ms"
        )
    }

    /// SIGTERM fades out and exits 0 promptly.
    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func sigtermFadesOutAndExitsCleanly() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(["play", "\(tone)=50"], environment: sink.environment)
        // Once it plays (its control socket answers: it opens after the audio), a second of sound.
        let socket = ControlSocketPath(environment: box.audioEnvironment.merging(sink.environment) { $1 })
        #expect(eventually(within: 10) { (try? ControlClient.connect(to: socket)) != nil }, "\(hum.stderr)")
        #expect(sink.waitForSound() && sink.waitForRecording(1), "hum was not heard for a second")
        let sent = Date()
        hum.signal(SIGTERM)
        let status = hum.wait()
        #expect(status == 0, "\(hum.stderr)")
        #expect(!hum.signaled)
        #expect(Date().timeIntervalSince(sent) < 3)
        #expect(hum.stderr.isEmpty)
        let left = try sink.stop()
        #expect(rms(left[...]) > 0.001)  // it played
        #expect(left.suffix(4800).allSatisfy { $0 == 0 })  // and ended in silence after the fade
    }

    /// A file with a deliberate jump between its last and first sample loops with no step larger than its own.
    @Test func aJumpAtTheWrapLoopsWithoutAClick() throws {
        let box = Sandbox()
        var rng = SplitMix64(seed: 21)
        var y: Float = 0
        var brown = (0..<48000).map { _ -> Float in
            let gaussian = (0..<12).reduce(Float(0)) { sum, _ in sum + rng.nextSignedUnit() } / 2
            y = 0.995 * y + 0.01 * gaussian
            return y
        }
        brown[brown.count - 1] = brown[0] + 0.5  // the jump
        let ownLargest = largestStep(Array(brown.dropLast()))
        let file = try box.writeSound("jump.wav", brown)
        let run = try box.hum([
            "render", "\(file)=100", "--raw", "--duration", "5s", "--fade", "0", "--format", "f32", "-o",
            box.path("out.wav"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let out = channel(try AudioFileReader.decode(path: box.path("out.wav")).samples, 0)
        #expect(out.count == 5 * 48000)
        #expect(largestStep(out) <= ownLargest)
        #expect(largestStep(brown + brown) > 0.4)  // the file itself clicks at the wrap
    }

    @Test func badSoundsAreReportedAndTheRestPlays() throws {
        let box = Sandbox()
        let good = try box.writeSound("good.wav", sine(frequency: 220, frames: 4800))
        _ = FileManager.default.createFile(atPath: box.path("empty.wav"), contents: Data())
        let raw = box.path("out.raw")
        let run = try box.hum([
            "play", good, box.path("empty.wav"), box.path("missing.flac"), "--for", "1s",
            "--device", "file:FILE=\(raw),FORMAT=raw",
        ])
        #expect(run.status == 0)
        #expect(
            run.stderr.contains(
                "hum: warning: cannot play \(box.path("empty.wav")): the file is empty; playing the others"))
        #expect(
            run.stderr.contains(
                "hum: warning: cannot play \(box.path("missing.flac")): no such file; playing the others"))
        #expect(try readRawFloat(raw).count == 48000 * 2)

        let none = try box.hum(["play", box.path("empty.wav"), "--device", "null"])
        #expect(none.status == 1)
        #expect(none.stderr == "hum: cannot play \(box.path("empty.wav")): the file is empty\n")
    }

    @Test func aMissingDeviceIsOneClearLine() throws {
        let box = Sandbox()
        let good = try box.writeSound("good.wav", sine(frequency: 220, frames: 4800))
        let run = try box.hum(["play", good, "--device", "hw:97"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("hum: no audio device \"hw:97\""))
        #expect(run.stderr.contains("aplay -L"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }

    @Test func soundsListsUserSoundsAndTheLastMixIsRemembered() throws {
        let box = Sandbox()
        try FileManager.default.createDirectory(
            atPath: "\(box.root)/data/hum/sounds", withIntermediateDirectories: true)
        let writer = try AudioFileWriter(path: "\(box.root)/data/hum/sounds/cafe.flac", sampleRate: 44100, channels: 2)
        try writer.write([Float](repeating: 0.1, count: 44100 * 2))
        try writer.finish()
        let list = try box.hum(["sounds", "--json"])
        #expect(list.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [[String: Any]]
        let cafe = try #require(json.first { $0["name"] as? String == "cafe" })
        #expect(cafe["source"] as? String == "user")
        #expect(cafe["sample_rate"] as? Int == 44100)
        #expect(cafe["channels"] as? Int == 2)
        #expect(cafe["duration_seconds"] as? Double == 1)

        let raw = box.path("a.raw")
        #expect(try box.hum(["play", "cafe=30", "--for", "1s", "--device", "file:FILE=\(raw),FORMAT=raw"]).status == 0)
        // No sounds given: the last mix plays again.
        let again = try box.hum(["play", "--for", "1s", "--device", "file:FILE=\(box.path("b.raw")),FORMAT=raw"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try readRawFloat(raw) == readRawFloat(box.path("b.raw")))
        // The user file goes away: reported, and the saved mix is left as it was.
        try FileManager.default.removeItem(atPath: "\(box.root)/data/hum/sounds/cafe.flac")
        let gone = try box.hum(["play", "--for", "1s", "--device", "null"])
        #expect(gone.stderr.contains("the sound \"cafe\" of your last mix is missing"))
        #expect(
            FileManager.default.contents(atPath: "\(box.root)/state/hum/last-mix.json").map {
                String(decoding: $0, as: UTF8.self)
            }?.contains("cafe") == true)
    }

    /// A user sound plays at the built-in loudness (measured once, cached); --raw plays it at its own level.
    @Test func userSoundsAreLoudnessMatchedUnlessRaw() throws {
        let box = Sandbox()
        try FileManager.default.createDirectory(atPath: "\(box.root)/sounds", withIntermediateDirectories: true)
        try Data(#"{"schema":"hum.sounds/1","target_lufs":-27,"sounds":[]}"#.utf8).write(
            to: URL(fileURLWithPath: "\(box.root)/sounds/sounds.json"))
        var rng = SplitMix64(seed: 4)
        let loud = (0..<(48000 * 4)).map { _ in rng.nextSignedUnit() * 0.3 }  // about −15 LUFS
        try box.writeSound("loud.wav", loud)
        func loudness(_ extra: [String]) throws -> Double {
            let out = box.path("out-\(extra.count).wav")
            let run = try box.hum(
                ["render", "\(box.path("loud.wav"))=100", "--duration", "4s", "--fade", "0", "-o", out] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let audio = try AudioFileReader.decode(path: out)
            let meter = try LoudnessMeter(channels: 2, sampleRate: 48000)
            try meter.add(audio.samples)
            return try meter.measurement().integratedLUFS
        }
        let matched = try loudness([])
        #expect(abs(matched - -27) < 1, "matched at \(matched) LUFS")
        let raw = try loudness(["--raw"])
        #expect(raw > -20, "raw at \(raw) LUFS")
        #expect(FileManager.default.fileExists(atPath: "\(box.root)/cache/hum/loudness.json"))
    }
}
