import Foundation
import HumCore
import Testing

@testable import HumCLI

@Suite struct MixCommandTests {
    /// A sandbox whose built-in sounds are the repository's.
    func sandbox() -> Sandbox { Sandbox() }

    func run(_ s: Sandbox, _ words: String...) -> (code: Int32, out: String, err: String) {
        let out = Buffer()
        let err = Buffer()
        var environment = s.environment
        environment["HUM_SOUNDS_DIR"] = builtinSoundsDirectory
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        return (HumMain.run(arguments: ["hum"] + words, context: context), out.text, err.text)
    }

    @Test func savedMixesAreListedAndRemovedByName() throws {
        let s = sandbox()
        #expect(
            run(s, "mix", "save", "night", "rain=40", "brown=25", "--volume", "80").out
                == "saved @night: rain 40 · brown 25\n")
        #expect(run(s, "mix", "save", "@deep", "storm").code == 0)
        #expect(run(s, "mix", "list").out == "@deep   storm 75\n@night  rain 40 · brown 25  (master 80)\n")
        #expect(run(s, "mix", "list", "--names").out == "deep\nnight\n")
        let json =
            try JSONSerialization.jsonObject(with: Data(run(s, "mix", "list", "--json").out.utf8)) as! [[String: Any]]
        #expect(json.map { $0["name"] as? String } == ["deep", "night"])
        // Saving again replaces.
        #expect(run(s, "mix", "save", "night", "wind=10").code == 0)
        #expect(run(s, "mix", "list").out.contains("@night  wind 10\n"))
        #expect(run(s, "mix", "rm", "night").out == "removed @night\n")
        let gone = run(s, "mix", "rm", "night")
        #expect(gone.code == 1 && gone.err == "hum: there is no saved mix \"night\"; see 'hum mix list'\n")
    }

    @Test(arguments: [
        (
            ["mix", "save", "bad name", "rain"],
            "hum: NAME \"bad name\" cannot name a mix: use 1 to 64 letters, digits, '-', '_' or '.'\n"
        ),
        (["mix", "save", "-x", "rain"], "hum: unknown option -x in \"-x\"; see 'hum mix save --help'\n"),
        (
            ["mix", "save", "n", "rian"],
            "hum: unknown sound \"rian\" in \"rian\"; did you mean \"rain\"? see 'hum sounds' for the list\n"
        ),
        (["play", "@nope"], "hum: there is no saved mix \"nope\"; see 'hum mix list'\n"),
        (["@nope"], "hum: there is no saved mix \"nope\"; see 'hum mix list'\n"),
    ])
    func badNamesAndMissingMixesAreUsageErrors(words: [String], expected: String) {
        let s = sandbox()
        let out = Buffer()
        let err = Buffer()
        var environment = s.environment
        environment["HUM_SOUNDS_DIR"] = builtinSoundsDirectory
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        #expect(HumMain.run(arguments: ["hum"] + words, context: context) == 2)
        #expect(err.text == expected)
    }

    @Test func aSavedMixRendersAsItsSounds() throws {
        let s = sandbox()
        _ = run(s, "mix", "save", "pair", "rain=40", "brown=25", "--volume", "80")
        let a = s.root + "/a.wav"
        let b = s.root + "/b.wav"
        #expect(run(s, "render", "@pair", "--for", "1s", "-o", a).code == 0)
        #expect(run(s, "render", "rain=40", "brown=25", "--volume", "80", "--for", "1s", "-o", b).code == 0)
        #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b))
    }

    @Test func completingNamesCreatesNoDatabase() {
        let s = sandbox()
        #expect(run(s, "mix", "list", "--names") == (0, "", ""))
        #expect(!FileManager.default.fileExists(atPath: s.databasePath))
    }
}

/// The repository's built-in sounds.
let builtinSoundsDirectory: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sounds").path
