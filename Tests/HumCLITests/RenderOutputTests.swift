import Foundation
import HumAudio
import HumCore
import Testing

@testable import HumCLI

/// What `hum render` cannot write is a usage error (exit 2), refused before any work, with nothing created.
@Suite struct RenderOutputTests {
    @Test func impossibleCombinationsAreUsageErrors() throws {
        let s = Sandbox()
        let dir = s.root + "/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (file, options, says) in [
            ("a.flac", ["--format", "f32"], "FLAC cannot hold float samples"),
            ("a.opus", ["--rate", "44100"], "Opus encodes only"),
            ("a.ogg", ["--rate", "250000"], "at most 200000 Hz"),
            ("a.flac", ["--rate", "65537"], "multiples of 10"),
            ("a.ogg", ["--format", "s24"], "applies to .wav and .flac only"),
            ("a.opus", ["--format", "s16"], "applies to .wav and .flac only"),
        ] {
            let started = Date()
            let r = try runBinary(
                ["render", "rain", "--duration", "10h", "-o", dir + "/" + file] + options, environment: s.environment)
            #expect(r.code == 2, "\(file) \(options): \(r.err)")
            #expect(r.err.hasPrefix("hum: ") && r.err.contains(says) && r.err.split(separator: "\n").count == 1)
            #expect(Date().timeIntervalSince(started) < 5, "refused before rendering 10 hours")
        }
        #expect((try FileManager.default.contentsOfDirectory(atPath: dir)).isEmpty)
        // Rates that work.
        for (file, rate) in [("b.flac", "96000"), ("b.opus", "24000"), ("b.ogg", "200000")] {
            let r = try runBinary(
                ["render", "rain", "--duration", "0.2s", "--rate", rate, "-o", dir + "/" + file],
                environment: s.environment)
            #expect(r.code == 0, "\(file) at \(rate): \(r.err)")
        }
    }

    /// 16-bit renders are dithered; `--no-dither` and `HUM_DITHER=off` (read from the command's environment) both
    /// round instead, to the same file.
    @Test func ditherIsTurnedOffByTheFlagOrTheEnvironment() throws {
        let s = Sandbox()
        let tone = try s.writeSound("tone.wav", sine(frequency: 330, frames: 24000, amplitude: 0.3))
        func render(_ name: String, _ extra: [String], _ environment: [String: String] = [:]) throws -> Data? {
            let path = s.root + "/" + name
            let r = try runBinary(
                ["render", "\(tone)=60", "--for", "0.5s", "-o", path] + extra,
                environment: s.environment.merging(environment) { $1 })
            #expect(r.code == 0, "\(r.err)")
            return FileManager.default.contents(atPath: path)
        }
        let dithered = try render("a.wav", [])
        let flag = try render("b.wav", ["--no-dither"])
        let environment = try render("c.wav", [], ["HUM_DITHER": "off"])
        #expect(flag != nil && flag == environment)
        #expect(dithered != nil && dithered != flag && dithered?.count == flag?.count)
        #expect(try render("d.wav", []) == dithered, "the dither's seed is fixed: the same render, the same file")
    }

    /// `-o` onto a pipe (here a link to /dev/stdout, so the name has an extension): FLAC streams into it; a .wav
    /// is refused at once, as a usage error; the same link onto a regular file takes the .wav.
    @Test func aPipeTakesStreamsButNotWav() throws {
        let s = Sandbox()
        func piped(_ link: String) throws -> (code: String, bytes: Int, err: String) {
            let r = try shell(
                "{ \"$HUM\" render rain --duration 1s -o '\(link)'; echo $? > '\(s.root)/code'; } | wc -c",
                environment: s.environment)
            return (
                contents(s.root + "/code").trimmingCharacters(in: .whitespacesAndNewlines),
                Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, r.err
            )
        }
        let flacLink = s.root + "/stdout.flac"
        symlink("/dev/stdout", flacLink)
        let flac = try piped(flacLink)
        #expect(flac.code == "0" && flac.bytes > 1000, "\(flac.err)")
        let wavLink = s.root + "/stdout.wav"
        symlink("/dev/stdout", wavLink)
        let wav = try piped(wavLink)
        #expect(wav.code == "2" && wav.bytes == 0 && wav.err.contains("cannot be written to a pipe"), "\(wav.err)")
        let toFile = try shell(
            "\"$HUM\" render rain --duration 1s -o '\(wavLink)' > '\(s.root)/out.wav'", environment: s.environment)
        #expect(toFile.code == 0, "\(toFile.err)")
        #expect((fileInfo(s.root + "/out.wav").map { $0.st_size } ?? 0) > 96000)
        #expect(fileInfo(wavLink, follow: false).map { $0.st_mode & S_IFMT } == S_IFLNK)
    }

    /// A render builds its loops on all cores and syncs their files while it mixes: when it has exited every loop
    /// is in the cache under its name (nothing left temporary), and a second render maps them and writes the same
    /// file, byte for byte.
    @Test func aRenderLeavesEveryLoopInTheCacheAndASecondOneTheSameFile() throws {
        let s = Sandbox()
        var words: [String] = []
        for (i, (rate, channels)) in [(44100, 1), (44100, 2), (48000, 2)].enumerated() {
            let path = s.root + "/t\(i).wav"
            let tone = (0..<(rate * 3)).flatMap { k in
                [Float](repeating: 0.3 * Float(sin(Double(k) * (0.02 + Double(i) / 100))), count: channels)
            }
            let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: channels, dither: false)
            try writer.write(tone)
            try writer.finish()
            words.append(path + "=60")
        }
        let loops = s.root + "/cache/hum/loops"
        let environment = s.environment.merging(["XDG_CACHE_HOME": s.root + "/cache"]) { $1 }
        var outputs: [Data] = []
        for run in 0..<2 {
            let out = s.root + "/out\(run).wav"
            let r = try runBinary(
                ["render"] + words + ["--duration", "5s", "--seed", "3", "-o", out], environment: environment)
            #expect(r.code == 0, "\(r.err)")
            let files = try FileManager.default.contentsOfDirectory(atPath: loops)
            #expect(files.filter { $0.hasSuffix(".pcm") }.count == 3 && files.count == 3, "\(files)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(outputs[0] == outputs[1])
    }
}
