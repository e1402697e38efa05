import Foundation
import Testing

@testable import HumCore

/// A round's mix volume is kept as a fraction and shown 0–100 (issue 20): the conversion is exact both ways for
/// every volume hum makes, and stable for any other.
@Suite struct MixVolumeTests {
    @Test func aVolumeHumMadeReadsAsItWasGiven() {
        #expect(MixItem(sound: "rain", volume: 0.6).percent == 60)
        #expect(MixItem(sound: "rain", volume: 0.07).percent == 7)
        #expect(MixItem(sound: "rain", volume: -0.0).percent.sign == .plus)
        // Every volume to a hundredth reads as it was written; any other a volume bar gives, as the same fraction.
        for volume in (0...10_000).map({ Double($0) / 100 }) {
            #expect(MixItem.percent(ofFraction: volume / 100) == volume, "\(volume)")
        }
        var rng = SplitMix64(seed: 20)
        for _ in 0..<10_000 {
            let fraction = Double(rng.next() % 1_000_001) / 10_000 * 1.000_001 / 100
            #expect(MixItem.percent(ofFraction: fraction) / 100 == fraction, "\(fraction)")
        }
    }

    @Test func anyFractionShowsAsANumberThatReadsBackTheSame() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let fraction = Double(rng.next() >> 11) / Double(1 << 53)
            let shown = MixItem.percent(ofFraction: fraction)
            #expect(MixItem.percent(ofFraction: shown / 100) == shown, "\(fraction)")
            #expect(abs(shown / 100 - fraction) <= fraction.ulp, "\(fraction)")
        }
        #expect(MixItem.percent(ofFraction: .nan).isNaN)
    }

    @Test func jsonCarriesTheVolume0To100AndReadsTheUnitItIsGiven() throws {
        let item = MixItem(sound: "rain", volume: 0.375)
        #expect(
            String(decoding: try CompactJSONEncoder().encode(item), as: UTF8.self) == #"{"sound":"rain","volume":37.5}"#
        )
        let decoder = JSONDecoder()
        #expect(try decoder.decode(MixItem.self, from: Data(#"{"sound":"rain","volume":37.5}"#.utf8)) == item)
        decoder.userInfo[MixVolumeUnit.key] = MixVolumeUnit.fraction
        #expect(try decoder.decode(MixItem.self, from: Data(#"{"sound":"rain","volume":0.375}"#.utf8)) == item)
        // A document read in a unit that is not its schema's is refused rather than misread.
        let old = #"{"schema":"hum.export/2","exported_at":"2025-01-01T00:00:00Z","sessions":[],"ledger":[]}"#
        #expect(try decoder.decode(ExportDocument.self, from: Data(old.utf8)).schema == "hum.export/2")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExportDocument.self, from: Data(old.utf8)) }
    }
}
