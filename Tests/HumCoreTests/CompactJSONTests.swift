import Foundation
import Testing

@testable import HumCore

@Suite struct CompactJSONTests {
    func sampleDocument(_ rng: inout SplitMix64) -> ExportDocument {
        let alphabet = Array("ab \"\\\n\t\u{1}é😀/{}[],:")
        func text() -> String {
            String((0..<Int(rng.next() % 12)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
        }
        let t = Timestamp(epochSeconds: 1_700_000_000 + Int64(rng.next() % 1_000_000), offsetSeconds: 3600)
        var sessions: [RoundRecord] = []
        for i in 0..<20 {
            sessions.append(
                RoundRecord(
                    id: "r\(i)" + text(), kind: .focus, status: i % 2 == 0 ? .completed : .running, start: t,
                    end: i % 2 == 0 ? t : nil, plannedSeconds: 1500, activeSeconds: Int64(i), pausedSeconds: -3,
                    mix: [MixItem(sound: text(), volume: Double(rng.next() % 10001) / 100 / 100)],
                    goal: i % 3 == 0 ? nil : text(), tags: [text(), text()], earnedSeconds: 500))
        }
        var entry = LedgerEntry(id: text(), key: nil, kind: .settle, amount: -5, at: t, device: "d", payload: text())
        entry.forfeit = true
        entry.used = Int64.max
        return ExportDocument(exportedAt: t, sessions: sessions, ledger: [entry])
    }

    @Test func foundationDecodesWhatItWrites() throws {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<50 {
            let document = sampleDocument(&rng)
            let bytes = try CompactJSONEncoder().encode(document)
            let decoded = try JSONDecoder().decode(ExportDocument.self, from: Data(bytes))
            #expect(decoded == document)
        }
    }

    @Test func writesCompactJSONInKeyOrder() throws {
        struct Two: Encodable {
            var a = 1, b: String? = nil, c = [1.5, 2], d: [String: Int] = [:]
            enum K: String, CodingKey { case extra }
            func encode(to encoder: any Encoder) throws {
                var c1 = encoder.container(keyedBy: CodingKeys.self)
                try c1.encode(a, forKey: .a)
                try c1.encodeIfPresent(b, forKey: .b)
                try c1.encode(c, forKey: .c)
                try c1.encode(d, forKey: .d)
                var c2 = encoder.container(keyedBy: K.self)
                try c2.encodeNil(forKey: .extra)
                var nested = c1.nestedUnkeyedContainer(forKey: .b)
                try nested.encode(true)
            }
            enum CodingKeys: String, CodingKey { case a, b, c, d }
        }
        let text = String(decoding: try CompactJSONEncoder().encode(Two()), as: UTF8.self)
        #expect(text == #"{"a":1,"c":[1.5,2],"d":{},"extra":null,"b":[true]}"#)
        #expect(throws: EncodingError.self) { try CompactJSONEncoder().encode([Double.nan]) }
        #expect(
            String(decoding: try CompactJSONEncoder().encode("\u{0}\u{1f}\"\\"), as: UTF8.self)
                == #""\u0000\u001f\"\\""#)
    }
}
