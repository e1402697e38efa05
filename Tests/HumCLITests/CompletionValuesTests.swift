import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

#if canImport(Glibc)
    import Glibc
#endif

/// What the completions offer in place of a value: a setting's words after `hum config set KEY `, contract ids
/// after `hum proof ` and `hum contract show `, and nothing (not file names) after `rain=`.
@Suite struct CompletionValuesTests {
    typealias Shells = DocsCommandTests.Shells

    @Test(arguments: [
        ("hum config set focus.auto-advance ", ["all", "none", "to-break", "to-focus"]),
        ("hum config set focus.auto-advance to-", ["to-break", "to-focus"]),
        ("hum config set notify.bell ", ["off", "on"]),
        ("hum config set ui.blink o", ["off", "on"]),
        ("hum config set earn.ratio ", []),
    ])
    func configSetCompletesTheSettingsValues(line: String, expected: [String]) throws {
        let shells = try Shells()
        #expect(try shells.bash(line).sorted() == expected, "bash: \(line)")
        #expect(try shells.zsh(line).sorted() == expected, "zsh: \(line)")
        #expect(try shells.fish(line).sorted() == expected, "fish: \(line)")
    }

    /// bash falls back to file names (`complete -o default`) when hum offers nothing; where a value is not a file
    /// (a setting's value, a volume after `rain=`), the script turns that off for the word.
    @Test func bashOffersNoFileNamesWhereAValueIsNotAFile() throws {
        let shells = try Shells()
        func bash(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program =
                "compopt() { printf '<compopt %s %s>\\n' \"$1\" \"$2\"; }; source \(shells.box.root)/hum.bash; COMP_WORDS=(\(quoted)); "
                + "COMP_CWORD=\(words.count - 1); _hum; printf '%s\\n' \"${COMPREPLY[@]}\""
            return try shells.run("/bin/bash", ["-c", program]).filter { !$0.isEmpty }
        }
        // As bash splits `hum play rain=4`: `=` is a word of its own.
        #expect(try bash(["hum", "play", "rain", "=", ""]) == ["<compopt +o default>"])
        #expect(try bash(["hum", "play", "rain", "=", "4"]) == ["<compopt +o default>"])
        #expect(try bash(["hum", "play", "rain="]) == ["<compopt +o default>"])
        #expect(try bash(["hum", "config", "set", "earn.ratio", ""]) == ["<compopt +o default>"])
        // A sound name is still offered, and file names stay possible there (a path is a sound).
        #expect(try bash(["hum", "play", "ra"]) == [])  // no sounds in the test's library: nothing, no compopt
        for complete in [shells.zsh, shells.fish] {
            #expect(try complete("hum play rain=") == [])
        }
    }

    /// Contract ids, asked of `hum contract list --ids` when completing, as sound names are.
    @Test func proofAndContractShowCompleteContractIds() throws {
        let shells = try Shells()
        for complete in [shells.bash, shells.zsh, shells.fish] {
            #expect(try complete("hum proof ") == [], "no contracts yet")
        }
        let e2e = ContractEndToEndTests()
        let repo = try e2e.repository(shells.box, files: ["a.md": "a\n"])
        let hum = try e2e.startHum(
            shells.box, ["focus", "--no-sound", "--focus", "10m", "--goal", "Grow a", "--done-when", "a.md grows"],
            in: repo)
        defer {
            kill(hum.pid, SIGTERM)
            hum.wait()
        }
        let id = try #require(e2e.waitUntilRunning(shells.box), "\(hum.stderr)")
        let short = String(id.prefix(8))
        #expect(shells.box.run("contract", "list", "--ids").out == short + "\n")
        for complete in [shells.bash, shells.zsh, shells.fish] {
            #expect(try complete("hum proof ") == [short])
            #expect(try complete("hum contract show ") == [short])
            #expect(try complete("hum contract show \(short.prefix(3))") == [short])
        }
    }
}
