import Testing

@testable import HumCore

/// `--on-event` and the setting focus.on-event are split as a shell splits a command line, without running one.
struct ShellWordsTests {
    @Test func quotesAndBackslashesAsAShellReadsThem() throws {
        #expect(try ShellWords.split("notify-send  \"hum says\" done") == ["notify-send", "hum says", "done"])
        #expect(
            try ShellWords.split("sh -c 'echo \"$HUM_EVENT\" >> log'") == ["sh", "-c", "echo \"$HUM_EVENT\" >> log"])
        #expect(try ShellWords.split(#"a\ b "c\"d" 'e\f' "g\h""#) == ["a b", "c\"d", "e\\f", "g\\h"])
        #expect(try ShellWords.split(#"x "" '' y"#) == ["x", "", "", "y"])
        #expect(try ShellWords.split("\t a\tb  ") == ["a", "b"])
        #expect(try ShellWords.split("") == [])
    }

    @Test func whatAShellWouldRefuseIsRefused() {
        #expect(throws: ShellWords.Problem.self) { try ShellWords.split("say 'unclosed") }
        #expect(throws: ShellWords.Problem.self) { try ShellWords.split("say \"unclosed") }
        #expect(throws: ShellWords.Problem.self) { try ShellWords.split("say trailing\\") }
        #expect(throws: ShellWords.Problem.self) { try ShellWords.split("two\nlines") }
        #expect(throws: ShellWords.Problem.self) { try ShellWords.split(String(repeating: "a", count: 5000)) }
    }

    /// What join writes, split reads back word for word, whatever the words hold.
    @Test func joinedWordsSplitBackTheSame() throws {
        let samples: [[String]] = [
            ["notify-send", "hum says", "it's done"], ["a\"b", "c'd", "e\\f", "$HOME", "`x`"], [""],
            ["plain", "words"],
            ["tab\there", "ünïcode wörds"],
        ]
        for words in samples {
            #expect(try ShellWords.split(ShellWords.join(words)) == words)
        }
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("ab '\"\\$`\t-")
        for _ in 0..<500 {
            let words = (0..<Int(rng.next() % 4 + 1)).map { _ in
                String((0..<Int(rng.next() % 6)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            }
            #expect(try ShellWords.split(ShellWords.join(words)) == words)
        }
    }
}
