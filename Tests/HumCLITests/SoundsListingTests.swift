import Foundation
import HumCore
import Testing

@testable import HumAudio
@testable import HumCLI

/// `hum sounds` lists what plays by the names to type, and apart, with the reason, every file that cannot;
/// a user sound named with `=` plays by the name shown.
@Suite struct SoundsListingTests {
    func userFolder(_ s: Sandbox) throws -> String {
        let dir = s.root + "/data/hum/sounds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for file in ["rain.wav", "a=b.wav", "rain=40.wav", "calm.wav"] {
            let writer = try AudioFileWriter(path: dir + "/" + file, sampleRate: 48000, channels: 1)
            try writer.write([Float](repeating: 0.1, count: 48000))
            try writer.finish()
        }
        try Data("not audio at all".utf8).write(to: URL(fileURLWithPath: dir + "/broken.ogg"))
        #expect(mkfifo(dir + "/pipe.wav", 0o600) == 0)
        return dir
    }

    @Test func unplayableFilesAreListedApartWithTheirReason() throws {
        let s = Sandbox()
        let dir = try userFolder(s)
        let r = try runBinary(["sounds"], environment: s.environment)
        #expect(r.code == 0, "\(r.err)")
        let parts = r.out.components(separatedBy: "\n\n")
        try #require(parts.count == 2, "\(r.out)")
        let playable = parts[0].split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(playable.contains("a=b") && playable.contains("calm") && playable.contains("rain"))
        #expect(!playable.contains("broken") && !playable.contains("pipe") && !playable.contains("rain=40"))
        #expect(playable.filter { $0 == "rain" }.count == 1)
        let apart = parts[1]
        #expect(apart.hasPrefix("4 files left out:\n"))
        for (file, says) in [
            ("broken.ogg", "not an audio file"), ("pipe.wav", "is a FIFO"), ("rain.wav", "built-in sound \"rain\""),
            ("rain=40.wav", "reads as \"rain\" at volume 40"),
        ] {
            #expect(apart.contains("  \(dir)/\(file): ") && apart.contains(says), "\(file)")
        }
        let list = try #require(
            json(try runBinary(["sounds", "--json"], environment: s.environment).out) as? [[String: Any]])
        #expect(list.filter { $0["problem"] is String }.count == 4)
        #expect(list.contains { $0["name"] as? String == "a=b" && $0["problem"] == nil })
    }

    /// Formats libsndfile cannot read were hidden: a user who dropped in an .m4a saw nothing. Real files, made by
    /// ffmpeg, are listed apart with the reason; a file that is not audio by its name (notes.txt) stays unlisted.
    @Test func formatsHumCannotDecodeAreListedWithTheReason() throws {
        let s = Sandbox()
        let dir = s.root + "/data/hum/sounds"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for file in ["song.m4a", "tape.wv", "field.mka"] {
            let ffmpeg = Process()
            ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            ffmpeg.arguments = [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                dir + "/" + file,
            ]
            try ffmpeg.run()
            ffmpeg.waitUntilExit()
            try #require(ffmpeg.terminationStatus == 0, "ffmpeg could not make \(file)")
        }
        try Data("a note".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
        let writer = try AudioFileWriter(path: dir + "/calm.wav", sampleRate: 48000, channels: 1)
        try writer.write([Float](repeating: 0.1, count: 48000))
        try writer.finish()

        let r = try runBinary(["sounds"], environment: s.environment)
        #expect(r.code == 0, "\(r.err)")
        let parts = r.out.components(separatedBy: "\n\n")
        try #require(parts.count == 2, "\(r.out)")
        #expect(parts[0].contains("calm"))
        #expect(parts[1].hasPrefix("3 files left out:\n"), "\(parts[1])")
        for (file, format) in [("song.m4a", "MP4 audio"), ("tape.wv", "WavPack"), ("field.mka", "Matroska audio")] {
            #expect(
                parts[1].contains("  \(dir)/\(file): is \(format)") && parts[1].contains("which hum cannot play"),
                "\(file): \(parts[1])")
        }
        #expect(!r.out.contains("notes"))
        let list = try #require(
            json(try runBinary(["sounds", "--json"], environment: s.environment).out) as? [[String: Any]])
        let problems = list.filter { $0["problem"] is String }
        #expect(problems.count == 3)
        #expect(
            problems.contains {
                $0["name"] as? String == "song" && ($0["problem"] as? String)?.contains("convert") == true
            })
        // Played by path it fails as before, with libsndfile's reason.
        let play = try runBinary(
            ["render", dir + "/song.m4a", "--duration", "0.2s", "-o", s.root + "/out.wav"], environment: s.environment)
        #expect(play.code == 1, "\(play.err)")
        // By its name, it says what the listing says, not "unknown sound".
        let named = try runBinary(
            ["render", "song", "--duration", "0.2s", "-o", s.root + "/out.wav"], environment: s.environment)
        #expect(named.code == 1)
        #expect(
            named.err
                == "hum: the sound \"song\" (\(dir)/song.m4a) cannot play: is MP4 audio (AAC or ALAC), which hum "
                + "cannot play; "
                + "convert it to FLAC, Ogg Vorbis, Opus or MP3 (e.g. ffmpeg -i 'song.m4a' 'song.flac')\n")
    }

    @Test func aNameWithAnEqualsSignPlaysByThatName() throws {
        let s = Sandbox()
        _ = try userFolder(s)
        for words in [["a=b"], ["a=b=30"], ["rain=40"], ["rain=40", "a=b=20"]] {
            let r = try runBinary(
                ["render"] + words + ["--duration", "0.2s", "-o", s.root + "/out.wav"], environment: s.environment)
            #expect(r.code == 0, "\(words): \(r.err)")
        }
        let fifo = try runBinary(
            ["render", s.root + "/data/hum/sounds/pipe.wav", "--duration", "0.2s", "-o", s.root + "/out.wav"],
            environment: s.environment)
        #expect(fifo.code == 1 && fifo.err.contains("is a FIFO") && !fifo.err.contains("empty"), "\(fifo.err)")
    }
}
