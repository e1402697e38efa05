import CSndFile
import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumAudio

/// `AudioFileWriter.problem` says in advance which containers, sample formats and rates libsndfile cannot write;
/// here the table is checked against libsndfile itself, on every combination at a spread of rates.
@Suite struct WritableFormatTests {
    static let containers = ["wav", "flac", "ogg", "opus"]

    /// Whether libsndfile writes this for real: open, 2048 frames, close, all without error.
    func libsndfileWrites(_ ext: String, rate: Int, format: SampleFormat, path: String) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = 2
        let pcm: Int32 =
            switch format {
            case .s16: Int32(SF_FORMAT_PCM_16)
            case .s24: Int32(SF_FORMAT_PCM_24)
            case .f32: Int32(SF_FORMAT_FLOAT)
            }
        switch ext {
        case "wav": info.format = Int32(SF_FORMAT_WAV) | pcm
        case "flac": info.format = Int32(SF_FORMAT_FLAC) | pcm
        case "ogg": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        default: info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        }
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { return false }
        var frames = [Float](repeating: 0.1, count: 4096)
        let written = sf_writef_float(file, &frames, 2048)
        let closed = sf_close(file)
        return written == 2048 && closed == 0
    }

    @Test func theTableAgreesWithLibsndfile() {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rates = [
            8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 65535, 65536, 65540, 65541, 88200,
            96000, 176_400, 192_000, 199_999, 200_000, 200_001, 352_800, 384_000,
        ]
        var rng = SplitMix64(seed: 11)
        for _ in 0..<40 { rates.append(8000 + Int(rng.next() % 376_001)) }
        for ext in Self.containers {
            for format in SampleFormat.allCases {
                for rate in rates {
                    let expected = AudioFileWriter.problem(
                        formatName: "x.\(ext)", sampleRate: rate, sampleFormat: format, seekable: true)
                    let real = libsndfileWrites(ext, rate: rate, format: format, path: "\(dir)/probe.\(ext)")
                    #expect(real == (expected == nil), "\(ext) \(format) \(rate) Hz: \(expected ?? "no problem")")
                }
            }
        }
    }

    /// A .wav cannot go to a pipe; the streaming containers can.
    @Test func onlyWavNeedsToSeek() throws {
        for ext in Self.containers {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let readEnd = ends[0]
            let drain = Thread {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while read(readEnd, &buffer, buffer.count) > 0 {}
                close(readEnd)
            }
            drain.start()
            var works = true
            do {
                let writer = try AudioFileWriter(descriptor: ends[1], name: "x.\(ext)", sampleRate: 48000, channels: 2)
                try writer.write([Float](repeating: 0.1, count: 4096))
                try writer.finish()
            } catch {
                works = false
            }
            close(ends[1])
            let expected = AudioFileWriter.problem(
                formatName: "x.\(ext)", sampleRate: 48000, sampleFormat: .s16, seekable: false)
            #expect(works == (expected == nil), "\(ext): \(expected ?? "no problem")")
        }
    }
}
