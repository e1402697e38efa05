import Foundation
import Testing

@testable import HumAudio
@testable import HumCore
@testable import HumSynth

/// Every built-in sound is clearly its own: no two have near the same average spectrum. The old aeroplane cabin was
/// brown noise by another name (3.8 dB apart by this measure) and the old waves were the storm's spectrum
/// (2.3 dB); nobody can tell such pairs apart by their colour.
@Suite struct LibraryDistinctnessTests {
    /// The least root-mean-square difference of 1/3-octave band levels (31.5 Hz to 16 kHz, the files as shipped,
    /// all at the reference loudness) between any two built-ins, dB.
    static let minimumDistanceDB = 5.0

    @Test func everyTwoBuiltinsDifferInTheirAverageSpectrum() throws {
        let manifest = try BuiltinSoundsTests.manifest()
        var spectra: [(String, BandSpectrum)] = []
        for entry in manifest.sounds {
            let audio = try AudioFileReader.decode(path: BuiltinSoundsTests.directory + "/" + entry.file)
            spectra.append((entry.id, BandSpectrum(audio)))
        }
        #expect(spectra.count >= 20)
        var closest: [(Double, String)] = []
        for i in spectra.indices {
            for j in spectra.indices where j > i {
                let d = spectra[i].1.distance(to: spectra[j].1)
                closest.append((d, "\(spectra[i].0)/\(spectra[j].0)"))
            }
        }
        closest.sort { $0.0 < $1.0 }
        let tooClose = closest.filter { $0.0 < Self.minimumDistanceDB }
        #expect(
            tooClose.isEmpty,
            "too alike: \(tooClose.map { "\($0.1) \(String(format: "%.1f", $0.0)) dB" }.joined(separator: ", "))")
        let nearest = closest.prefix(5).map { "\($0.1) \(String(format: "%.1f", $0.0))" }
        print("nearest pairs (dB): \(nearest.joined(separator: ", "))")
    }

    /// The measure itself: a tone lands in its band, white noise rises 1 dB a band (3 dB an octave, per 1/3-octave
    /// band), the same sound is 0 dB from itself and white is far from pink.
    @Test func theMeasureSeesBandsAndSlopes() throws {
        let rate = 48_000
        let frames = 4 * 16384
        var tone = [Float](repeating: 0, count: frames)
        for i in 0..<frames { tone[i] = Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / Double(rate))) }
        let toneBands = BandSpectrum(DecodedAudio(samples: tone, channels: 1, sampleRate: rate)).levels
        let loudest = toneBands.indices.max { toneBands[$0] < toneBands[$1] }!
        #expect(abs(BandSpectrum.centres[loudest] - 1000) < 10)
        // A sine of amplitude 0.5 has a mean square of 0.125: -9 dB.
        #expect(abs(toneBands[loudest] - -9.03) < 0.5)

        var rng = SplitMix64(seed: 1)
        let white = Loop.whiteNoise(frames: 40 * 16384, rng: &rng)
        let whiteSpectrum = BandSpectrum(DecodedAudio(samples: white, channels: 1, sampleRate: rate))
        let slope = (whiteSpectrum.levels[24] - whiteSpectrum.levels[12]) / 12  // 1 kHz-ish to 6.3 kHz-ish
        #expect(abs(slope - 1) < 0.1)
        #expect(whiteSpectrum.distance(to: whiteSpectrum) == 0)
        let pink = Loop.filtered(white, PinkingFilter(sampleRate: 48_000))
        let pinkSpectrum = BandSpectrum(DecodedAudio(samples: pink, channels: 1, sampleRate: rate))
        #expect(whiteSpectrum.distance(to: pinkSpectrum) > 5)
    }
}
