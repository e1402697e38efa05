import Foundation
import Testing

@testable import HumCLI

/// `hum completions --install` and `hum manpage --install` write where a fresh account's shells and `man` look,
/// making the folders, and each shell then completes hum from there.
@Suite struct UserFilesInstallTests {
    /// A fresh home with nothing under it, and only the variables a login gives.
    static func account(_ box: Sandbox) -> [String: String] {
        ["HOME": box.root + "/home", "PATH": box.root + "/home/.local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    @Test func completionsAndTheManPageInstallIntoAFreshHome() throws {
        let box = Sandbox()
        let home = box.root + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.local/bin", withIntermediateDirectories: true)
        // hum on the account's PATH, as an installed hum is (fish completes only commands it can find).
        try FileManager.default.createSymbolicLink(atPath: home + "/.local/bin/hum", withDestinationPath: humBinary)
        let env = Self.account(box)
        let completions = try ReleasePackagingTests.bash("\(humBinary) completions --install", env)
        #expect(completions.code == 0, "\(completions.err)")
        for file in [
            ".local/share/bash-completion/completions/hum", ".local/share/zsh/site-functions/_hum",
            ".config/fish/completions/hum.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: home + "/" + file), "\(file)")
            #expect(completions.out.contains(home + "/" + file), "\(completions.out)")
        }
        let man = try ReleasePackagingTests.bash("\(humBinary) manpage --install", env)
        #expect(man.code == 0, "\(man.err)")
        // man-db finds ~/.local/share/man for an account whose PATH holds ~/.local/bin.
        let found = try ReleasePackagingTests.bash("man -w hum", env)
        #expect(found.out == home + "/.local/share/man/man1/hum.1\n", "\(found)")

        // bash: bash-completion loads the script from the per-user folder when `hum` is first completed.
        let bash = try ReleasePackagingTests.bash(
            "bash -c 'source /usr/share/bash-completion/bash_completion; __load_completion hum; "
                + "COMP_WORDS=(hum pl); COMP_CWORD=1; _hum; printf \"%s\\n\" \"${COMPREPLY[@]}\"'", env)
        #expect(bash.out.split(separator: "\n").contains("play"), "\(bash)")
        // zsh: compinit finds _hum through the fpath line `--install` prints.
        let zsh = try ReleasePackagingTests.bash(
            "zsh -f -c 'fpath+=(\(home)/.local/share/zsh/site-functions); autoload -Uz compinit; "
                + "compinit -u -d \(box.root)/zcompdump; print -r -- $_comps[hum]'", env)
        #expect(zsh.out == "_hum\n", "\(zsh)")
        #expect(completions.out.contains("fpath+=(\(home)/.local/share/zsh/site-functions)"))
        // fish reads ~/.config/fish/completions by itself.
        let fish = try ReleasePackagingTests.bash("fish -c 'complete -C\"hum pl\"'", env)
        #expect(fish.out.split(separator: "\n").contains { $0.hasPrefix("play") }, "\(fish)")

        // Installing again replaces the files; one shell alone writes only its own.
        let again = try ReleasePackagingTests.bash("\(humBinary) completions fish --install", env)
        #expect(again.code == 0 && again.out.hasPrefix("fish: ") && !again.out.contains("bash"), "\(again)")
    }

    @Test func completionsWithoutAShellOrInstallIsAUsageError() {
        let box = Sandbox()
        let result = box.run("completions")
        #expect(result.code == 2)
        #expect(result.err == "hum: completions needs a SHELL (bash, zsh or fish) or --install\n")
    }
}
