import Foundation
import HumTestSupport
import Testing

@testable import HumCore

@Suite struct CSVTextTests {
    /// What a reader does to get the text back: drop one leading quote from a text cell that starts with one.
    func undo(_ cell: String) -> String { cell.hasPrefix("'") ? String(cell.dropFirst()) : cell }

    @Test func formulaCellsAreNeutralisedAndQuoted() {
        #expect(CSVText.text("=HYPERLINK(\"http://x\",\"y\")") == "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"")
        #expect(CSVText.text("+1") == "\"'+1\"")
        #expect(CSVText.text("-2+3") == "\"'-2+3\"")
        #expect(CSVText.text("@SUM(A1)") == "\"'@SUM(A1)\"")
        #expect(CSVText.text("\tx") == "\"'\tx\"")
        #expect(CSVText.text("\rx") == "\"'\rx\"")
        #expect(CSVText.text("'quoted") == "\"''quoted\"")
        #expect(CSVText.text("youtube") == "youtube")
        #expect(CSVText.text("a,b") == "\"a,b\"")
        #expect(CSVText.text("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVText.text("") == "")
        #expect(CSVText.text("x=1") == "x=1")
    }

    /// A number hum wrote is a number: -300 stays -300, not a neutralised text.
    @Test func numbersHumWroteStayNumbers() {
        #expect(CSVText.number(Int64(-300)) == "-300")
        #expect(CSVText.number(Int64?.none) == "")
        #expect(CSVText.number(Int64?.some(42)) == "42")
    }

    @Test func listsAreJSONArraysSoSeparatorsCannotBeConfused() throws {
        let two = try CSVText.list(["a", "b"])
        let one = try CSVText.list(["a;b"])
        let comma = try CSVText.list(["a,b"])
        #expect(two == "\"[\"\"a\"\",\"\"b\"\"]\"")
        #expect(Set([two, one, comma, try CSVText.list(["a", "", "b"]), try CSVText.list([])]).count == 5)
        #expect(
            try CSVText.mix([MixItem(sound: "rain", volume: 0.4)])
                == "\"[{\"\"sound\"\":\"\"rain\"\",\"\"volume\"\":40}]\"")
        #expect(throws: (any Error).self) { try CSVText.mix([MixItem(sound: "x", volume: .nan)]) }
    }

    /// Random text in every cell: the rows parse back (RFC 4180), no cell starts with a formula character, and
    /// the text comes back exactly, lists included.
    @Test func randomRowsParseBackExactly() throws {
        var rng = SplitMix64(seed: 77)
        let alphabet = Array("=+-@'\t\r\n\",; ab9é😀[]{}\\")
        func text() -> String {
            String((0..<Int(rng.next() % 8)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
        }
        for _ in 0..<2000 {
            let texts = (0..<3).map { _ in text() }
            let tags = (0..<Int(rng.next() % 4)).map { _ in text() }
            let amount = Int64(bitPattern: rng.next()) % 100_000
            let row = CSVText.row(texts.map { CSVText.text($0) } + [CSVText.number(amount), try CSVText.list(tags)])
            let records = try #require(CSVReader.parse(row + "\r\n"), "\(row.debugDescription)")
            #expect(records.count == 1)
            let cells = try #require(records.first)
            #expect(cells.count == 5)
            for (cell, original) in zip(cells, texts) {
                #expect(undo(cell) == original)
                if let first = cell.unicodeScalars.first { #expect(!["=", "+", "-", "@", "\t", "\r"].contains(first)) }
            }
            #expect(cells[3] == String(amount))
            let decoded = try JSONDecoder().decode([String].self, from: Data(cells[4].utf8))
            #expect(decoded == tags)
        }
    }
}
