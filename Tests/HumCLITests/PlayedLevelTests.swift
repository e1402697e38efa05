import Foundation
import HumCore
import HumPlayer
import Testing

@testable import HumAudio
@testable import HumCLI

/// The level of the library as hum plays it: rendered by `hum render` (the playback engine, offline) from the
/// repository's Sounds/ and measured with libebur128.
@Suite struct PlayedLevelTests {
    static func manifest() throws -> SoundManifest {
        let data = try Data(contentsOf: URL(fileURLWithPath: builtinSoundsDirectory + "/sounds.json"))
        return try JSONDecoder().decode(SoundManifest.self, from: data)
    }

    /// Renders `words` for `seconds` (from the library in `sounds`, the repository's unless given; with events
    /// drawn from `seed` if given) and returns the file's integrated loudness.
    static func renderedLoudness(
        _ words: [String], seconds: Int, fade: Bool, seed: Int? = nil, sounds: String = builtinSoundsDirectory
    ) throws -> LoudnessMeasurement {
        let s = Sandbox()
        let out = Buffer()
        let err = Buffer()
        var environment = s.environment
        environment["HUM_SOUNDS_DIR"] = sounds
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        let path = s.root + "/mix.wav"
        let arguments =
            ["hum", "render"] + words + ["--for", "\(seconds)s", "--format", "f32", "-o", path]
            + (fade ? [] : ["--fade", "0"]) + (seed.map { ["--seed", "\($0)"] } ?? [])
        let code = HumMain.run(arguments: arguments, context: context)
        try #require(code == 0, "hum render \(words): \(err.text)")
        return try LoudnessMeter.measure(try AudioFileReader.decode(path: path))
    }

    static func leastCommonMultiple(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return a / x * b
    }

    /// A first `hum` (no mix given, none played before) is heard at an ordinary system volume: about -30 LUFS.
    /// (It was -50.7 LUFS with rain=40 brown=25 on a library at -27 LUFS.)
    @Test func theDefaultMixPlaysAtAboutMinus30LUFS() throws {
        let manifest = try Self.manifest()
        // Whole loops of every sound in it (the fade-in of a real start included: it is what is heard).
        var seconds = 1
        for token in MixSetup.defaultMix {
            let entry = try #require(manifest.sounds.first { $0.id == token.name }, "\(token.name) is not built in")
            seconds = Self.leastCommonMultiple(seconds, Int(entry.durationSeconds))
        }
        seconds = min(seconds, 240)
        let words = MixSetup.defaultMix.map { "\($0.name)=\(MixSpec.formatVolume($0.volume))" }
        let m = try Self.renderedLoudness(words, seconds: seconds, fade: true)
        #expect(abs(m.integratedLUFS - -30) <= 2, "the default mix \(words) plays at \(m.integratedLUFS) LUFS")
    }

    /// The repository's library with every bank of events taken out (the files linked, the manifest rewritten),
    /// in `box`: the beds alone; looping unless `segments` (one loop's length of random segments is a random part
    /// of the loop, so a loop's loudness is measured on the loop).
    static func bedsOnly(in box: Sandbox, segments: Bool = false) throws -> String {
        let dir = box.root + "/beds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: builtinSoundsDirectory)
        where file != "sounds.json" {
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/" + file, withDestinationPath: builtinSoundsDirectory + "/" + file)
        }
        var manifest = try manifest()
        for i in manifest.sounds.indices {
            manifest.sounds[i].events = nil
            if !segments { manifest.sounds[i].segments = nil }
        }
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: dir + "/sounds.json"))
        return dir
    }

    /// At the same volume every built-in sound is as loud as any other, as heard: mono ones on both speakers,
    /// after the mixer. All within 0.5 LU, on the reference level. A sound with events is matched by its bed: the
    /// events stand out above it by design (the next test bounds what they add).
    @Test func everyBuiltinIsHeardAtTheReferenceLevelAtVolume100() throws {
        let manifest = try Self.manifest()
        #expect(manifest.targetLUFS == ReferenceLevel.loudnessLUFS)
        let box = Sandbox()
        defer { withExtendedLifetime(box) {} }  // its folder holds the beds until the test ends
        let beds = try Self.bedsOnly(in: box)
        var levels: [(String, Double)] = []
        for entry in manifest.sounds {
            let m = try Self.renderedLoudness(
                ["\(entry.id)=100"], seconds: Int(entry.durationSeconds), fade: false, sounds: beds)
            levels.append((entry.id, m.integratedLUFS))
            #expect(
                abs(m.integratedLUFS - ReferenceLevel.loudnessLUFS) <= 0.25,
                "\(entry.id) plays at \(m.integratedLUFS) LUFS at volume 100")
        }
        let spread = (levels.map(\.1).max() ?? 0) - (levels.map(\.1).min() ?? 0)
        #expect(levels.count == manifest.sounds.count && levels.count >= 13)
        #expect(spread <= 0.5, "built-ins as heard: \(levels)")
    }

    /// A sound's events, scattered over its bed, add little to its loudness over ten minutes: at most 0.5 LU (thunder,
    /// 36 strokes an hour, read +0.4 with seed 1), so a mix keeps its balance while a stroke still stands out.
    @Test func eventsAddAtMostHalfAnLUOverTenMinutes() throws {
        let manifest = try Self.manifest()
        let withEvents = manifest.sounds.filter { $0.events != nil }
        #expect(!withEvents.isEmpty)
        let box = Sandbox()
        defer { withExtendedLifetime(box) {} }  // its folder holds the beds until the test ends
        let beds = try Self.bedsOnly(in: box, segments: true)  // the same segments as with events, by the seed
        for entry in withEvents {
            let bed = try Self.renderedLoudness(["\(entry.id)=100"], seconds: 600, fade: false, seed: 1, sounds: beds)
            let heard = try Self.renderedLoudness(["\(entry.id)=100"], seconds: 600, fade: false, seed: 1)
            let added = heard.integratedLUFS - bed.integratedLUFS
            #expect(added > 0.01 && added <= 0.5, "\(entry.id): events add \(added) LU over ten minutes")
        }
    }

    /// The mixes the README and the commands' examples show are heard, like the default mix: none more than 4 LU
    /// below it. (`hum play rain=40 brown=25`, the first example, was 16.5 LU below it: volumes are on a cubic
    /// curve, so 40 is −24 dB.)
    @Test func theExamplesPlayNearTheDefaultLevel() throws {
        let manifest = try Self.manifest()
        let builtins = Set(manifest.sounds.map(\.id))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8)
        let examples =
            readme.components(separatedBy: "`").filter { $0.hasPrefix("hum ") }
            + PlayCommand.examples + RenderCommand.examples + UICommand.examples + FocusCommand.examples
        // The built-in sounds at a volume, per example that names some.
        var mixes = Set<[String]>()
        for example in examples
        where example.hasPrefix("hum play") || example.hasPrefix("hum render")
            || example.hasPrefix("hum ui") || example.hasPrefix("hum focus") || example.hasPrefix("hum mix save")
        {
            let words = example.split(separator: " ").map(String.init).filter { word in
                let parts = word.split(separator: "=")
                return parts.count == 2 && builtins.contains(String(parts[0])) && Int(parts[1]) != nil
            }
            if !words.isEmpty { mixes.insert(words) }
        }
        #expect(mixes.contains(["rain=70", "brown=40"]), "the README's first example: \(mixes)")
        let words = MixSetup.defaultMix.map { "\($0.name)=\(MixSpec.formatVolume($0.volume))" }
        let reference = try Self.renderedLoudness(words, seconds: 20, fade: false).integratedLUFS
        for mix in mixes {
            let level = try Self.renderedLoudness(mix, seconds: 20, fade: false).integratedLUFS
            #expect(level >= reference - 4, "\(mix) plays at \(level) LUFS, the default mix at \(reference)")
        }
    }
}
