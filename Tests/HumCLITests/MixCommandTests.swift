import Foundation
import HumCore
import HumPlayer
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
        #expect(json.allSatisfy { $0["kind"] as? String == "saved" })
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

    /// `hum mix list` shows the saved mixes, then the ten played most recently (newest first, each once). Without a
    /// database they are kept in the file that also holds the mix for the next bare `hum` (what a hand edit broke
    /// there is left out); the first command that opens a database moves them into it, where they stay.
    @Test func theTenMostRecentMixesFollowTheSavedOnes() throws {
        let s = sandbox()
        var environment = s.environment
        environment["HUM_SOUNDS_DIR"] = builtinSoundsDirectory
        let context = CommandContext(
            environment: environment, stdout: Buffer(), stderr: Buffer(), stdoutIsTerminal: false,
            stdinIsTerminal: false)
        for volume in 1...12 {
            MixSetup.remember([MixToken(name: "rain", volume: Double(volume))], environment: context.runtime)
        }
        MixSetup.remember([MixToken(name: "rain", volume: 5)], environment: context.runtime)  // played again: moves up
        func volumes(_ recent: [MixSetup.RecentMix]) -> [Double] { recent.map { $0.mix[0].volume } }
        #expect(volumes(MixSetup.recentMixes(context.runtime)) == [5, 12, 11, 10, 9, 8, 7, 6, 4, 3])
        #expect(!FileManager.default.fileExists(atPath: s.root + "/data/hum/hum.db"), "playing makes no database")
        // A volume off the scale, written by hand, is not shown, nor moved into the database.
        let path = MixSetup.lastMixPath(context.runtime)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"volume\":12", with: "\"volume\":1200")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(volumes(MixSetup.recentMixes(context.runtime)) == [5, 11, 10, 9, 8, 7, 6, 4, 3])
        _ = run(s, "mix", "save", "night", "wind=10")
        MixSetup.remember([MixToken(name: "rain", volume: 2)], environment: context.runtime)
        let out = run(s, "mix", "list").out
        let recent = out.split(separator: "\n").drop { $0 != "recent:" }.dropFirst().map {
            $0.split(separator: " ").last!
        }
        #expect(out.hasPrefix("@night  wind 10\n\nrecent:\n"), "\(out)")
        #expect(
            recent == [
                "rain=2", "rain=5", "rain=11", "rain=10", "rain=9", "rain=8", "rain=7", "rain=6", "rain=4", "rain=3",
            ])
        #expect(MixSetup.lastMix(context.runtime) == [MixToken(name: "rain", volume: 2)])
        #expect(MixSetup.savedState(context.runtime)?.recent == nil, "moved into the database")
        let json =
            try JSONSerialization.jsonObject(with: Data(run(s, "mix", "list", "--json").out.utf8)) as! [[String: Any]]
        #expect(json.map { $0["kind"] as? String } == ["saved"] + Array(repeating: "recent", count: 10))
        #expect((json[1]["played_at"] as? String).flatMap { Timestamp(rfc3339: $0) } != nil)
        // Played again: moves up, once, and the oldest beyond ten goes.
        MixSetup.remember([MixToken(name: "rain", volume: 8)], environment: context.runtime)
        MixSetup.remember([MixToken(name: "rain", volume: 1)], environment: context.runtime)
        #expect(volumes(MixSetup.recentMixes(context.runtime)) == [1, 8, 2, 5, 11, 10, 9, 7, 6, 4])
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
