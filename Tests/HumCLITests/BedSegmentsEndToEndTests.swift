import Foundation
import HumCore
import Testing

@testable import HumAudio
@testable import HumCLI

/// Beds played in random segments as a person uses them: a user folder whose `sound.json` gives `segments`, through
/// the built binary and real ALSA.
@Suite(.serialized) struct BedSegmentsEndToEndTests {
    /// A folder `surf` with a 20 s stereo bed of brown noise and `settings` as its sound.json.
    static func folder(_ box: Sandbox, settings: String) throws -> String {
        let folder = "\(box.root)/data/hum/sounds/surf"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let line = "sox -n -r 48000 -c 2 -b 16 '\(folder)/bed.wav' synth 20 brownnoise vol 0.3"
        #expect(shell(line) == 0, "\(line)")
        try Data(settings.utf8).write(to: URL(fileURLWithPath: folder + "/sound.json"))
        return folder
    }

    static let segments = #"{"segments": {"min_seconds": 2, "max_seconds": 4, "crossfade_seconds": 0.5}}"#

    /// `hum play` with `HUM_SEED` captured by the ALSA `file` plugin equals `hum render --seed` of the same sound,
    /// sample for sample; another seed joins elsewhere; the bed file played as itself loops round and round, and is
    /// the same as the segmented sound only until the first join.
    @Test func playInSegmentsToTheFilePluginEqualsRenderWithTheSameSeed() throws {
        let box = Sandbox()
        let folder = try Self.folder(box, settings: Self.segments)
        let raw = box.path("played.raw")
        let played = try box.hum(
            ["play", "surf=60", "--for", "8s", "--device", "file:FILE=\(raw),FORMAT=raw"],
            environment: ["HUM_SEED": "5"])
        #expect(played.status == 0, "\(played.stderr)")
        func render(_ words: [String], _ seed: String, _ name: String) throws -> [Float] {
            let run = try box.hum(
                ["render"] + words + ["--duration", "8s", "--format", "f32", "--seed", seed, "-o", box.path(name)])
            #expect(run.status == 0, "\(run.stderr)")
            return try AudioFileReader.decode(path: box.path(name)).samples
        }
        let rendered = try render(["surf=60"], "5", "five.wav")
        let device = try readRawFloat(raw)
        #expect(device.count == 48000 * 8 * 2)
        #expect(rendered == device)
        let other = try render(["surf=60"], "6", "six.wav")
        #expect(other.count == rendered.count)
        #expect(other != rendered)
        // The same bed as a plain file: equal up to the first join (at 2 s or later), different after it.
        let plain = try render(["\(folder)/bed.wav=60"], "5", "plain.wav")
        #expect(plain.count == rendered.count)
        #expect(Array(plain[..<(2 * 95000)]) == Array(rendered[..<(2 * 95000)]))
        let late = 2 * 48000 * 5
        #expect(Array(plain[late...]) != Array(rendered[late...]))
    }

    @Test func aSoundJSONWithSegmentsThatCannotBeIsSaid() throws {
        let box = Sandbox()
        _ = try Self.folder(
            box, settings: #"{"segments": {"min_seconds": 0.2, "max_seconds": 4, "crossfade_seconds": 0.5}}"#)
        let listed = try box.hum(["sounds", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let surf = (json(listed.stdout) as? [[String: Any]])?.first { $0["name"] as? String == "surf" }
        let problem = surf?["problem"] as? String ?? ""
        #expect(problem.contains("min_seconds"), "\(listed.stdout)")
        // And it does not play (as any folder `hum sounds` lists with a problem), saying why in one line.
        let folder = "\(box.root)/data/hum/sounds/surf"
        let said =
            "hum: the sound \"surf\" (\(folder)) cannot play: sound.json: segments: need crossfade_seconds < "
            + "min_seconds <= max_seconds <= 3600; correct \(folder)/sound.json (see docs/sounds.md) or remove it\n"
        let run = try box.hum(["render", "surf", "--for", "2s", "-o", box.path("x.wav")])
        #expect(run.status == 1)
        #expect(run.stderr == said)
        let play = try box.hum(["play", "surf", "--for", "1s", "--device", "file:FILE=\(box.path("p.raw")),FORMAT=raw"])
        #expect(play.status == 1)
        #expect(play.stderr == said)
    }

    /// `hum sounds --json` gives each sound's segments: the built-in clock's grid and jitter, the heart's beats,
    /// a folder's from its sound.json.
    @Test func theListingGivesEachSoundsSegments() throws {
        let box = Sandbox()
        _ = try Self.folder(box, settings: Self.segments)
        let listed = try box.hum(["sounds", "--json"], environment: ["HUM_SOUNDS_DIR": builtinSoundsDirectory])
        #expect(listed.status == 0, "\(listed.stderr)")
        let sounds = try #require(json(listed.stdout) as? [[String: Any]])
        func segments(_ name: String) -> [String: Any]? {
            sounds.first { $0["name"] as? String == name }?["segments"] as? [String: Any]
        }
        let surf = try #require(segments("surf"))
        #expect(surf["min_seconds"] as? Double == 2 && surf["crossfade_seconds"] as? Double == 0.5)
        let manifest = try JSONDecoder().decode(
            SoundManifest.self, from: Data(contentsOf: URL(fileURLWithPath: builtinSoundsDirectory + "/sounds.json")))
        let builtins = manifest.sounds.filter { $0.segments != nil }
        #expect(builtins.count == manifest.sounds.count, "every built-in bed plays in segments")
        for entry in builtins {
            let listedSegments = try #require(segments(entry.id), "\(entry.id)")
            let data = try JSONSerialization.data(withJSONObject: listedSegments)
            #expect(try JSONDecoder().decode(SoundManifest.Segments.self, from: data) == entry.segments, "\(entry.id)")
        }
        #expect((segments("heartbeat")?["beats"] as? [Double])?.count == 55)
        #expect(segments("clock")?["jitter_seconds"] as? Double == 0.006)
        #expect(segments("rain")?["beats"] == nil)
    }
}
