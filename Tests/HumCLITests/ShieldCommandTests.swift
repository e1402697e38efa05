import Foundation
import Testing

@testable import HumCLI

/// `hum shield` through the built binary: a shield's round trip (add, list, show, off, on, rm), the `--json` shape,
/// the refusals of a target that names hum or its shell (exit 3), usage errors (exit 2), and strict mode's refusals
/// (exit 3) of what loosens a shield.
@Suite struct ShieldCommandTests {
    func hum(_ box: Sandbox, _ words: String...) throws -> (code: Int32, out: String, err: String) {
        try runBinary(words, environment: box.environment)
    }

    func shields(_ box: Sandbox) throws -> [[String: Any]] {
        let list = try hum(box, "shield", "list", "--json")
        return ((json(list.out) as? [String: Any])?["shields"] as? [[String: Any]]) ?? []
    }

    @Test func aShieldsRoundTrip() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        let empty = try hum(box, "shield")
        #expect(empty.code == 0 && empty.out == "no shields; make one with 'hum shield add games --app steam'\n")

        let add = try hum(box, "shield", "add", "games", "--app", "fakegame", "--match", "java .*minecraft")
        #expect(add.code == 0, "\(add.err)")
        #expect(add.out == "shield games made: --app fakegame, --match java .*minecraft\n")
        let more = try hum(box, "shield", "add", "games", "--app", "fakegame", "--desktop-id", "org.example.Game")
        #expect(more.out == "shield games: added --desktop-id org.example.Game (3 targets)\n", "\(more.err)")

        let list = try hum(box, "shield", "list")
        #expect(list.out == "games  up  --app fakegame, --match java .*minecraft, --desktop-id org.example.Game\n")
        let all = try shields(box)
        #expect(all.count == 1)
        let games = try #require(all.first)
        #expect(Set(games.keys) == ["name", "created", "targets", "state", "offs", "lifts"])
        #expect(games["name"] as? String == "games" && games["state"] as? String == "up")
        let targets = (games["targets"] as? [[String: String]]) ?? []
        #expect(
            targets == [
                ["kind": "app", "value": "fakegame"], ["kind": "match", "value": "java .*minecraft"],
                ["kind": "desktop-id", "value": "org.example.Game"],
            ])
        #expect((games["created"] as? String)?.count == 25)

        let off = try hum(box, "shield", "off", "games", "--for", "1h", "--reason", "friends over")
        #expect(off.code == 0 && off.out.hasPrefix("shield games is off until "), "\(off.err)")
        let show = try hum(box, "shield", "show", "games", "--json")
        let shown = try #require(json(show.out) as? [String: Any])
        #expect(shown["state"] as? String == "off" && shown["until"] is String)
        let offs = (shown["offs"] as? [[String: Any]]) ?? []
        #expect(offs.count == 1 && offs.first?["reason"] as? String == "friends over")
        #expect((offs.first?["end"] as? Int).map { $0 - (offs.first?["start"] as? Int ?? 0) } == 3600)
        let text = try hum(box, "shield", "show", "games")
        #expect(text.out.hasPrefix("shield games: off until "), "\(text.out)")
        #expect(text.out.contains("  --desktop-id org.example.Game\n") && text.out.contains("(friends over)\n"))

        #expect(try hum(box, "shield", "on", "games").out == "shield games is up again\n")
        #expect(try shields(box).first?["state"] as? String == "up")
        let allOff = try hum(box, "shield", "off", "--all")
        #expect(allOff.out == "shield games is off until 'hum shield on' (8784h)\n", "\(allOff.err)")
        #expect(try hum(box, "shield", "on", "--all").out == "shield games is up again\n")

        let dropped = try hum(box, "shield", "rm", "games", "--match", "java .*minecraft")
        #expect(dropped.out == "shield games: removed --match java .*minecraft (2 left)\n", "\(dropped.err)")
        let removed = try hum(box, "shield", "rm", "games")
        #expect(removed.code == 0 && removed.out == "shield games removed\n")
        #expect(try shields(box).isEmpty)
        // Help names every subcommand.
        let help = try hum(box, "shield", "--help")
        for sub in ["add", "list", "show", "rm", "off", "on"] { #expect(help.out.contains("  hum shield \(sub)")) }
    }

    @Test func aTargetThatNamesHumOrItsShellIsRefused() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        let itself = try hum(box, "shield", "add", "x", "--app", "hum")
        #expect(itself.code == 3, "\(itself.err)")
        #expect(itself.err.hasPrefix("hum: \"--app hum\" matches \"hum\" (pid "), "\(itself.err)")
        // hum itself, or another hum the tests run in the same process group: both are never touched.
        #expect(itself.err.contains("which a shield never touches; nothing was changed"))
        // Run by a shell that stays (it has more to do after hum): the shell is hum's parent.
        let tag = "tag\(getpid())"
        let script = ": \(tag); '\(humBinary)' shield add x --match '^/bin/sh -c : \(tag)'; echo rc=$?"
        let shell = try runBinary(["-c", script], environment: box.environment, program: "/bin/sh")
        #expect(shell.out == "rc=3\n", "\(shell.err)")
        #expect(shell.err.contains("a process hum runs under"), "\(shell.err)")
        // The pattern's own text in hum's command line is not a match: this one names no running program. (Made
        // unique: the guard this starts freezes what the pattern names until the test ends.)
        let own = try hum(box, "shield", "add", "x", "--match", "shield add x-\(tag)")
        #expect(own.code == 0, "\(own.err)")
        #expect(try shields(box).map { $0["name"] as? String } == ["x"])
    }

    @Test func badWordsAreUsageErrors() throws {
        let box = Sandbox()
        let cases: [([String], String)] = [
            (["add", "My Games", "--app", "a"], "hum: NAME \"My Games\" is not a shield name"),
            (["add", "g"], "hum: shield add needs a program"),
            (["add", "g", "--app", "/usr/bin/steam"], "hum: --app \"/usr/bin/steam\" is not an executable's name"),
            (["add", "g", "--match", "(x"], "hum: --match \"(x\" is not a regular expression"),
            (["add", "g", "--match", ".*"], "matches an empty command line"),
            (["add", "g", "--desktop-id", "a b"], "is not a desktop application id"),
            (["off", "g"], "hum: shield off needs --for DURATION"),
            (["off", "g", "--all", "--for", "1h"], "hum: shield off takes NAME or --all, not both"),
            (["on"], "hum: shield on needs NAME or --all"),
            (["show", "nope"], "hum: no shield \"nope\": there are none yet"),
            (["rm", "nope"], "hum: no shield \"nope\""),
        ]
        for (words, message) in cases {
            let r = try runBinary(["shield"] + words, environment: box.environment)
            #expect(r.code == 2, "\(words): \(r.err)")
            #expect(r.err.contains(message), "\(words): \(r.err)")
        }
        #expect(try shields(box).isEmpty, "nothing was made")
    }

    @Test func aStrictContractRefusesWhatLoosensAShield() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        #expect(try hum(box, "shield", "add", "games", "--app", "fakegame", "--app", "lutris").code == 0)
        let e2e = ContractEndToEndTests()
        let focus = try e2e.startHum(
            box, ["focus", "--no-sound", "--focus", "1m", "--goal", "g", "--done-when", "x", "--strict"], in: box.root)
        defer {
            focus.signal(SIGTERM)
            focus.wait()
        }
        _ = try #require(e2e.waitUntilRunning(box))
        for words in [
            ["rm", "games"], ["rm", "games", "--app", "lutris"], ["off", "games", "--for", "5m"], ["off", "--all"],
        ] {
            let r = try runBinary(["shield"] + words, environment: box.environment)
            #expect(r.code == 3, "\(words): \(r.err)")
            #expect(r.err.hasPrefix("hum: a strict contract is running"), "\(words): \(r.err)")
        }
        let games = try #require(try shields(box).first)
        #expect(games["state"] as? String == "up" && (games["targets"] as? [Any])?.count == 2, "nothing changed")
        // Tightening stays allowed.
        #expect(try hum(box, "shield", "add", "games", "--app", "heroic").code == 0)
        #expect(try hum(box, "shield", "on", "games").code == 0)
    }
}
