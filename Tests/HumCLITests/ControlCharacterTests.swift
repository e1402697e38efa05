import Foundation
import HumCore
import Testing

@testable import HumCLI

/// Labels, reasons, goals, tags, ids and names reach the terminal with their control characters escaped; JSON
/// keeps them exact. Run through the built binary, as a person would see it.
@Suite struct ControlCharacterTests {
    static let hostile = "x\u{1B}[2J\ny\u{9B}31m\u{7}"
    static let shown = "x\\e[2J\\ny\\u{9b}31m\\u{7}"

    func expectClean(
        _ text: String, _ what: String, lines: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            !text.unicodeScalars.contains { $0 != "\n" && VisibleText.needsEscape($0) },
            "\(what): \(text.debugDescription)", sourceLocation: sourceLocation)
        if let lines {
            #expect(
                text.split(separator: "\n").count == lines, "\(what): \(text.debugDescription)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func humanReadableOutputEscapesWhatPeopleTyped() throws {
        let s = Sandbox()
        let env = s.environment
        let h = Self.hostile
        let adjust = try runBinary(["ledger", "adjust", "+1h", "--reason", h, "--key", "k\u{1B}[2J"], environment: env)
        #expect(adjust.code == 0)
        expectClean(adjust.out, "adjust", lines: 1)
        #expect(adjust.out.contains(Self.shown))
        let spend = try runBinary(["spend", "5m", "--on", h], environment: env)
        expectClean(spend.out, "spend", lines: 1)
        #expect(spend.out.contains("on \(Self.shown);"))
        let again = try runBinary(["ledger", "adjust", "+1h", "--reason", h, "--key", "k\u{1B}[2J"], environment: env)
        expectClean(again.out, "adjust replay", lines: 1)
        let record = try runBinary(
            [
                "history", "record", "--active", "25m", "--id", h, "--goal", h, "--tag", h, "--tag", "b", "--sound",
                "\(h):0.5",
            ],
            environment: env)
        #expect(record.code == 0)
        expectClean(record.out, "history record", lines: 1)
        let history = try runBinary(["history"], environment: env)
        expectClean(history.out, "history")
        let long = try runBinary(["history", "--long"], environment: env)
        expectClean(long.out, "history --long")
        #expect(long.out.contains("  \(Self.shown)  #\(Self.shown)  #b  (recorded by hand)\n      id \(Self.shown)\n"))
        #expect(long.out.contains("\n      mix \(Self.shown)=50\n"))
        let register = try runBinary(["ledger"], environment: env)
        expectClean(register.out, "ledger register", lines: 4)  // 3 entries and the corrections line
        #expect(register.out.contains("\\e[2J"))
        let emergency = try runBinary(["emergency", "1m", "--reason", h], environment: env)
        expectClean(emergency.err, "emergency", lines: 1)
        let pass = try runBinary(["pass", "1s", "--on", h, "--", "true"], environment: env)
        expectClean(pass.err, "pass")
        #expect(pass.err.contains("held for \(Self.shown) until"))

        // JSON keeps the text exact.
        let list = try #require(json(try runBinary(["ledger", "--json"], environment: env).out) as? [[String: Any]])
        #expect(list.contains { $0["reason"] as? String == h } && list.contains { $0["label"] as? String == h })
        let rounds = try #require(json(try runBinary(["history", "--json"], environment: env).out) as? [String: Any])
        let session = try #require((rounds["sessions"] as? [[String: Any]])?.first)
        #expect(session["goal"] as? String == h && session["id"] as? String == h)
    }

    @Test func errorsAndWarningsQuotingInputStayOneLine() throws {
        let s = Sandbox()
        for words in [
            ["spend", "5\u{1B}[2J\n", "--on", "x"], ["ledger", "--since", Self.hostile], ["play", Self.hostile],
            ["bogus\u{1B}]0;title\u{7}"], ["config", "get", Self.hostile],
        ] {
            let r = try runBinary(words, environment: s.environment)
            #expect(r.code == 2, "\(words)")
            expectClean(r.err, "\(words)", lines: 1)
            #expect(r.err.hasPrefix("hum: "))
        }
    }
}
