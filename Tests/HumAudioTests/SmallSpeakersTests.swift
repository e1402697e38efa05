import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// `play.speakers = small`: every loop high-passed at 150 Hz at load and lifted by what it lost, so the sounds stay
/// matched to each other as small speakers play them. The speakers are modelled, independently of hum's code, by
/// ffmpeg's second-order 150 Hz high-pass before its BS.1770 meter.
@Suite struct SmallSpeakersTests {
    static let directory =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Sounds"
    /// The bass-heavy sounds (13, 8 and 4 LU down through a 150 Hz high-pass) and two that are not.
    static let ids = ["heartbeat", "train", "thunder", "rain", "white"]
    /// How far from each other the sounds may be on small speakers with the setting (LU).
    static let toleranceLU = 0.5

    static func load(_ id: String, speakers: SpeakerSize? = nil) throws -> Mixer.Track {
        let catalog = SoundCatalog(builtinDirectory: directory, userDirectory: temporaryDirectory())
        let sound = try #require(catalog.builtins.first { $0.name == id })
        guard let speakers else { return try TrackLoader.load(sound, outputRate: 48000) }
        return try TrackLoader.load(sound, outputRate: 48000, speakers: speakers)
    }

    /// The integrated loudness of the track as played at volume 100 (its loop times its gain), by ffmpeg, through
    /// a 150 Hz second-order high-pass (the small speakers) or not.
    static func loudness(_ track: Mixer.Track, smallSpeakers: Bool) throws -> Double {
        let loop = track.loop
        // 20 dB down, so a lifted peak stays under full scale in the file (20 dB added back below).
        let samples = loop.withSamples { s in s.map { Float($0) / 32768 * track.normalization * 0.1 } }
        // A mono loop plays on both channels (ffmpeg's meter would count a mono file once, 3 dB low).
        let stereo = loop.channels == 2 ? samples : samples.flatMap { [$0, $0] }
        let path = temporaryDirectory() + "/loop.wav"
        try writeFile(path, stereo, rate: 48000, channels: 2)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        child.arguments = [
            "-nostdin", "-hide_banner", "-nostats", "-i", path, "-af",
            smallSpeakers ? "highpass=f=150,ebur128" : "ebur128",
            "-f", "null", "-",
        ]
        let pipe = Pipe()
        child.standardError = pipe
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let summary = try #require(log.range(of: "Integrated loudness:", options: .backwards), "\(log)")
        let line = try #require(log[summary.upperBound...].split(separator: "\n").first { $0.contains("I:") })
        return try #require(line.split(separator: " ").compactMap { Double($0) }.first, "\(line)") + 20
    }

    @Test func bassHeavySoundsStayMatchedOnSmallSpeakers() throws {
        var full: [String: Double] = [:]
        var small: [String: Double] = [:]
        var lifts: [String: Double] = [:]
        for id in Self.ids {
            full[id] = try Self.loudness(Self.load(id, speakers: .full), smallSpeakers: true)
            let track = try Self.load(id, speakers: .small)
            small[id] = try Self.loudness(track, smallSpeakers: true)
            lifts[id] = 20 * log10(Double(track.normalization))
        }
        // Without the setting, small speakers lose the heartbeat and the train behind the rest (white noise, with
        // nothing below 150 Hz worth the name, loses nothing; rain, with body since rain/2, and thunder, whose bed
        // since thunder/2 is mostly rain and wind, lose a little).
        #expect(full["white"]! - full["heartbeat"]! > 8, "\(full)")  // 15 LU
        #expect(full["white"]! - full["train"]! > 5, "\(full)")  // 9 LU
        // With it, they stay together, at the library's loudness.
        let spread = small.values.max()! - small.values.min()!
        #expect(spread <= Self.toleranceLU, "\(small)")
        for (id, lufs) in small { #expect(abs(lufs - -23) <= Self.toleranceLU, "\(id): \(lufs)") }
        print("small speakers, LUFS through a 150 Hz high-pass: without \(full), with \(small); lifts \(lifts) dB")
        #expect(lifts["heartbeat"]! > 8 && lifts["heartbeat"]! <= SpeakerSize.maximumLiftDB, "\(lifts)")
        #expect(lifts["white"]! < 0.2, "\(lifts)")
    }

    @Test func fullRangeSpeakersChangeNothing() throws {
        for id in ["heartbeat", "rain"] {
            let plain = try Self.load(id)
            let full = try Self.load(id, speakers: .full)
            #expect(full.normalization == plain.normalization && full.normalization == 1)
            #expect(full.loop.withSamples { Array($0) } == plain.loop.withSamples { Array($0) })
        }
    }

    /// The high-pass runs over the loop as a loop: the wrap is as smooth as the rest of the filtered loop.
    @Test func theFilteredLoopWrapsSmoothly() throws {
        let track = try Self.load("heartbeat", speakers: .small)
        let samples = track.loop.withSamples { s in s.map { Float($0) / 32768 } }
        let channels = track.loop.channels
        let left = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
        let steps = zip(left.dropFirst(), left).map { abs($0 - $1) }.sorted()
        let wrap = abs(left[0] - left[left.count - 1])
        #expect(wrap <= steps[steps.count * 999 / 1000], "wrap step \(wrap)")
    }
}
