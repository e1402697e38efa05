import Foundation
import HumCore
import Testing

@testable import HumCLI

/// `hum ui` where it cannot show a screen: off a terminal, and on a terminal that cannot move the cursor.
@Suite struct UICommandTests {
    func run(_ words: [String], terminal: Bool, term: String?) -> (code: Int32, out: String, err: String) {
        let box = Sandbox()
        var environment = box.environment
        environment["TERM"] = term
        let out = Buffer()
        let err = Buffer()
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: terminal, stdinIsTerminal: terminal)
        let code = HumMain.run(arguments: ["hum"] + words, context: context)
        return (code, out.text, err.text)
    }

    @Test func offATerminalItSaysToUsePlay() {
        let result = run(["ui"], terminal: false, term: "xterm")
        #expect(result.code == 2)
        #expect(result.err == "hum: hum ui needs a terminal; 'hum play' plays without one\n")
    }

    @Test func aDumbTerminalGetsNoScreen() {
        let result = run(["ui"], terminal: true, term: "dumb")
        #expect(result.code == 2)
        #expect(result.err.contains("TERM=dumb"), "\(result.err)")
    }

    @Test func theHelpNamesTheKeys() {
        let result = run(["ui", "--help"], terminal: false, term: nil)
        #expect(result.code == 0)
        #expect(result.out.contains("Usage:\n  hum ui [SOUND[=VOLUME]...]"), "\(result.out)")
        #expect(result.out.contains("f start or end focus rounds"), "\(result.out)")
        let overview = run(["--help"], terminal: false, term: nil).out
        #expect(overview.contains("ui ") && overview.contains("on a terminal, bare 'hum' is 'hum ui'"), "\(overview)")
    }
}
