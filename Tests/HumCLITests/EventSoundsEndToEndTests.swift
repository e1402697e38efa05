import Foundation
import HumCore
import Testing

@testable import HumAudio
@testable import HumCLI

/// One-shot events as a person uses them: `NAME~N` words, user folders with `bed.*` and `events/`, seeds for
/// `hum render --seed` and `HUM_SEED`, through the built binary and real ALSA.
@Suite(.serialized) struct EventSoundsEndToEndTests {
    /// A 0.1 s decaying burst of noise at 44.1 kHz (so it is resampled), as an event file.
    static func burst(_ box: Sandbox, _ name: String = "burst.wav", seed: UInt64 = 4) throws -> String {
        var rng = SplitMix64(seed: seed)
        let frames = 4410
        let samples = (0..<frames).map { i in rng.nextSignedUnit() * 0.5 * Float(frames - i) / Float(frames) }
        return try box.writeSound(name, samples, rate: 44100)
    }

    /// Frames (of the left channel) where sound starts after at least 0.05 s of exact silence.
    static func onsets(_ stereo: [Float], rate: Int = 48000) -> [Int] {
        var starts: [Int] = []
        var quiet = rate
        for i in stride(from: 0, to: stereo.count, by: 2) {
            if stereo[i] == 0 {
                quiet += 1
            } else {
                if quiet >= rate / 20 { starts.append(i / 2) }
                quiet = 0
            }
        }
        return starts
    }

    /// A sibling of `PlaybackEndToEndTests.playToTheFilePluginEqualsRender`, with events: `hum play` with
    /// `HUM_SEED` captured by the ALSA `file` plugin equals `hum render --seed` of the same mix, sample for sample.
    @Test func playWithEventsToTheFilePluginEqualsRenderWithTheSameSeed() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 441, rate: 44100, frames: 44100 * 2), rate: 44100)
        let burst = try Self.burst(box)
        let raw = box.path("played.raw")
        let mix = ["\(tone)=40", "\(burst)~3600=90"]
        let played = try box.hum(
            ["play"] + mix + ["--for", "6s", "--device", "file:FILE=\(raw),FORMAT=raw"],
            environment: ["HUM_SEED": "5"])
        #expect(played.status == 0, "\(played.stderr)")
        func render(_ seed: String, _ name: String) throws -> [Float] {
            let run = try box.hum(
                ["render"] + mix + ["--duration", "6s", "--format", "f32", "--seed", seed, "-o", box.path(name)])
            #expect(run.status == 0, "\(run.stderr)")
            return try AudioFileReader.decode(path: box.path(name)).samples
        }
        let rendered = try render("5", "five.wav")
        let device = try readRawFloat(raw)
        #expect(device.count == 48000 * 6 * 2)
        #expect(rendered == device)
        // The events are there and follow the seed: another seed, other samples (the tone is the same).
        let other = try render("6", "six.wav")
        #expect(other.count == rendered.count)
        #expect(other != rendered)
        // HUM_SEED reaches render too when --seed is not given.
        let fromEnvironment = try box.hum(
            ["render"] + mix + ["--duration", "6s", "--format", "f32", "-o", box.path("env.wav")],
            environment: ["HUM_SEED": "5"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(try AudioFileReader.decode(path: box.path("env.wav")).samples == rendered)
    }

    /// `NAME~N` alone: one-shots with silence between them (no bed), about N an hour, the same for the same seed.
    @Test func anEventMarkedFilePlaysAsOneShotsAloneAtItsRate() throws {
        let box = Sandbox()
        let burst = try Self.burst(box)
        func render(_ seed: String, _ name: String) throws -> [Float] {
            let run = try box.hum([
                "render", "\(burst)~720=100", "--for", "60s", "--fade", "0", "--format", "f32", "--seed", seed,
                "-o", box.path(name),
            ])
            #expect(run.status == 0, "\(run.stderr)")
            return try AudioFileReader.decode(path: box.path(name)).samples
        }
        let out = try render("1", "a.wav")
        let again = try render("1", "b.wav")
        #expect(out == again)
        let starts = Self.onsets(out)
        // 720 an hour: 12 expected in a minute; far from none, far from a bed's one long sound.
        #expect(starts.count >= 4 && starts.count <= 25, "\(starts.count) events")
        let silent = stride(from: 0, to: out.count, by: 2).filter { out[$0] == 0 }.count
        #expect(silent > out.count / 2 / 2)  // mostly silence between the events
        // Each event lasts about the burst's 0.1 s (resampled to 48 kHz), then exact silence again.
        #expect(zip(starts.dropFirst(), starts).allSatisfy { $0 - $1 >= Int(1.25 * 48000) })  // the minimum gap
        let other = Self.onsets(try render("2", "c.wav"))
        #expect(other != starts)
        // The file as a bed and the same file as events are two sounds of one mix, not one sound twice.
        let both = try box.hum(["render", burst, "\(burst)~720", "--for", "2s", "-o", box.path("both.wav")])
        #expect(both.status == 0, "\(both.stderr)")
        let twice = try box.hum(["render", "\(burst)~720", "\(burst)~720=50", "--for", "2s", "-o", box.path("2.wav")])
        #expect(twice.status == 2 && twice.stderr.contains("twice"), "\(twice.stderr)")
    }

    @Test(arguments: ["thunder~0", "thunder~", "thunder~lots", "thunder~3601=50", "thunder~-2"])
    func aBadEventRateIsAUsageErrorOnOneLine(word: String) throws {
        let box = Sandbox()
        for command in [["render", word, "--for", "1s", "-o", box.path("x.wav")], ["play", word, "--for", "1s"]] {
            let run = try box.hum(command)
            #expect(run.status == 2, "\(command): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("hum: ") && run.stderr.contains("~N"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: box.path("x.wav")))
        }
        let seed = try box.hum(["render", "x", "--seed", "many", "--for", "1s", "-o", box.path("x.wav")])
        #expect(seed.status == 2 && seed.stderr.hasPrefix("hum: ") && seed.stderr.contains("--seed"))
        let environment = try box.hum(["play", "--for", "1s"], environment: ["HUM_SEED": "-1"])
        #expect(environment.status == 2 && environment.stderr.contains("HUM_SEED"), "\(environment.stderr)")
    }

    /// A folder in the user folder with `bed.wav`, `events/*.wav` (made by sox) and a `sound.json` is one sound:
    /// listed by `hum sounds`, played by its name, its events on top of its bed, drawn from the seed.
    @Test func aUserFolderWithABedAndEventsIsOneSound() throws {
        let box = Sandbox()
        let folder = "\(box.root)/data/hum/sounds/storm"
        try FileManager.default.createDirectory(atPath: folder + "/events", withIntermediateDirectories: true)
        let sox = [
            "sox -n -r 48000 -c 2 -b 16 '\(folder)/bed.wav' synth 4 brownnoise vol 0.2",
            "sox -n -r 44100 -c 1 -b 16 '\(folder)/events/01.wav' synth 0.3 sine 300 fade 0 0.3 0.25",
            "sox -n -r 22050 -c 1 -b 16 '\(folder)/events/02.flac' synth 0.2 pinknoise fade 0 0.2 0.15",
        ]
        for line in sox { #expect(shell(line) == 0, "\(line)") }
        try Data(#"{"per_hour": 1800, "min_gap_seconds": 1, "gain_db_min": -3}"#.utf8)
            .write(to: URL(fileURLWithPath: folder + "/sound.json"))
        // A folder without a bed or events is said, not hidden.
        try FileManager.default.createDirectory(
            atPath: "\(box.root)/data/hum/sounds/empty", withIntermediateDirectories: true)

        let listed = try box.hum(["sounds"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("storm"))
        #expect((listed.stdout + listed.stderr).contains("empty"))
        // The listing says what the folder holds: its clips and their rate.
        let line = listed.stdout.split(separator: "\n").first { $0.hasPrefix("storm ") } ?? ""
        #expect(line.hasSuffix("+ 2 events, 1800 an hour"), "\(listed.stdout)")
        let asJSON = try box.hum(["sounds", "--json"])
        let storm = (json(asJSON.stdout) as? [[String: Any]])?.first { $0["name"] as? String == "storm" }
        let events = storm?["events"] as? [String: Any]
        #expect(events?["clips"] as? Int == 2 && events?["per_hour"] as? Double == 1800, "\(asJSON.stdout)")

        func render(_ words: [String], _ seed: String, _ name: String) throws -> [Float] {
            let run = try box.hum(
                ["render"] + words + ["--for", "30s", "--format", "f32", "--seed", seed, "-o", box.path(name)])
            #expect(run.status == 0, "\(run.stderr)")
            return try AudioFileReader.decode(path: box.path(name)).samples
        }
        let a = try render(["storm"], "3", "a.wav")
        let b = try render(["storm"], "3", "b.wav")
        let c = try render(["storm"], "4", "c.wav")
        #expect(a.count == 48000 * 30 * 2)
        #expect(a == b)
        #expect(a != c)  // the bed is the same: the events moved
        // The bed alone (the file played as a plain sound) differs from the sound with its events by the events:
        // frames where they differ come in bursts that start at random, about one every two seconds.
        let bed = try render(["\(folder)/bed.wav"], "3", "bed.wav")
        let differing = stride(from: 0, to: a.count, by: 2).filter { abs(a[$0] - bed[$0]) > 1e-4 }.map { $0 / 2 }
        var bursts = 0
        var last = -48000
        for f in differing {
            if f - last > 24000 { bursts += 1 }
            last = f
        }
        #expect(bursts >= 5 && bursts <= 30, "\(bursts) bursts of events")
        // And as events alone, by its name with a mark.
        let alone = try render(["storm~3600"], "3", "alone.wav")
        #expect(Self.onsets(alone).count >= 5)
    }
}
