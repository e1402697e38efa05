import Foundation
import Testing

@testable import HumCLI

/// The release as a person gets it: scripts/dist.sh's tarball unpacked and installed with its install.sh, and
/// scripts/deb.sh's package taken apart and checked by lintian. Both package the binary the tests run (HUM_BIN, a
/// debug build that loads the Swift runtime from the toolchain, hence HUM_ALLOW_DYNAMIC_SWIFT), or the release
/// binary named by HUM_RELEASE_BIN (`make release-check`: a release build costs more than `make test` can spend
/// in CI), which must carry the Swift runtime inside.
@Suite struct ReleasePackagingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs a bash script in the repository with exactly `environment` (plus a PATH), and returns what it said.
    static func bash(_ script: String, _ environment: [String: String] = [:]) throws -> (
        code: Int32, out: String, err: String
    ) {
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        return try runBinary(["-c", "cd \(root) && " + script], environment: env, program: "/bin/bash")
    }

    /// The release binary to package, when a release check names one.
    static let releaseBinary: String? = ProcessInfo.processInfo.environment["HUM_RELEASE_BIN"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static var packagingEnvironment: [String: String] {
        if let releaseBinary { return ["HUM_BIN": releaseBinary, "HOME": "/nonexistent"] }
        return ["HUM_BIN": humBinary, "HUM_ALLOW_DYNAMIC_SWIFT": "1", "HOME": "/nonexistent"]
    }

    static func lastLine(_ text: String) -> String {
        String(text.split(separator: "\n").last ?? "")
    }

    @Test func theTarballInstallsIntoAPrefixWhereHumFindsEverything() throws {
        let box = Sandbox()
        let dist = try Self.bash("scripts/dist.sh", Self.packagingEnvironment.merging(["DIST_DIR": box.root]) { $1 })
        try #require(dist.code == 0, "\(dist.err)")
        let tarball = Self.lastLine(dist.out)
        let arch = try Self.bash("uname -m").out.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = "hum-\(humVersion)-linux-\(arch)"
        #expect(tarball == "\(box.root)/\(name).tar.gz")

        let unpacked = box.root + "/unpack/" + name
        let untar = try Self.bash("mkdir -p \(box.root)/unpack && tar -C \(box.root)/unpack -xzf \(tarball)")
        try #require(untar.code == 0, "\(untar.err)")
        for file in [
            "install.sh", "LICENSE", "NOTICE", "README.md", "CHANGELOG.md", "bin/hum", "share/hum/sounds/sounds.json",
            "share/hum/sounds/rain.ogg", "share/man/man1/hum.1", "share/bash-completion/completions/hum",
            "share/zsh/site-functions/_hum", "share/fish/vendor_completions.d/hum.fish",
            "share/applications/hum.desktop", "share/icons/hicolor/scalable/apps/hum.svg",
            "share/metainfo/io.github.hum.metainfo.xml", "share/systemd/user/hum.service",
        ] {
            #expect(FileManager.default.fileExists(atPath: unpacked + "/" + file), "\(file) missing")
        }
        // The unpacked folder is a prefix of its own: its hum finds its sounds there.
        let inPlace = try Self.bash("\(unpacked)/bin/hum sounds --names", ["HOME": box.root])
        #expect(inPlace.out.split(separator: "\n").contains("rain"), "\(inPlace)")
        // Stripped: no symbol table left.
        #expect(try Self.bash("readelf -S \(unpacked)/bin/hum").out.contains(".symtab") == false)
        if Self.releaseBinary != nil {
            // The Swift runtime inside: the binary needs only the distribution's C libraries.
            let needed = try Self.bash("readelf -d \(unpacked)/bin/hum").out
            #expect(!needed.contains("libswift") && !needed.contains("libFoundation"), "\(needed)")
        }

        // install.sh into ~/.local of a fresh home (PREFIX given as well, as the README shows for other places).
        let home = box.root + "/home"
        let prefix = home + "/.local"
        let user = ["HOME": home, "PATH": "\(prefix)/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        let install = try Self.bash("PREFIX=\(prefix) \(unpacked)/install.sh", user)
        try #require(install.code == 0, "\(install.err)")
        for place in [
            "lib/hum/bin/hum", "bin/hum -> ../lib/hum/bin/hum", "lib/hum/share/hum/sounds/", "share/man/man1/hum.1",
            "share/bash-completion/completions/hum", "share/zsh/site-functions/_hum",
            "share/fish/vendor_completions.d/hum.fish", "share/applications/hum.desktop",
            "share/icons/hicolor/scalable/apps/hum.svg", "share/metainfo/io.github.hum.metainfo.xml",
            "share/systemd/user/hum.service",
        ] {
            #expect(install.out.contains("\(prefix)/\(place)"), "install.sh does not say it wrote \(place)")
        }
        #expect(install.out.contains("installed hum \(humVersion) ("))
        let unit = try String(contentsOfFile: prefix + "/share/systemd/user/hum.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/hum daemon"))
        let desktop = try String(contentsOfFile: prefix + "/share/applications/hum.desktop", encoding: .utf8)
        #expect(desktop.contains("Exec=\(prefix)/bin/hum ui"))

        // The installed hum finds its own sounds (no HUM_SOUNDS_DIR), and they are not taken for the user's.
        let sounds = try Self.bash("hum sounds --json", user)
        try #require(sounds.code == 0, "\(sounds.err)")
        let listed = try #require(json(sounds.out) as? [[String: Any]])
        let builtins = listed.filter { $0["source"] as? String == "built-in" }
        #expect(builtins.count == 20)
        #expect(
            builtins.allSatisfy { ($0["path"] as? String)?.hasPrefix(prefix + "/lib/hum/share/hum/sounds/") == true })
        #expect(listed.allSatisfy { $0["problem"] == nil }, "\(sounds.out)")
        let render = try Self.bash("hum render rain=50 --for 2s -o \(box.root)/rain.wav", user)
        #expect(render.code == 0, "\(render.err)")
        let rendered = try FileManager.default.attributesOfItem(atPath: box.root + "/rain.wav")[.size] as? Int ?? 0
        #expect(rendered > 2 * 48000 * 2 * 2)

        let man = try Self.bash("MANWIDTH=80 man -l \(prefix)/share/man/man1/hum.1", user)
        #expect(man.code == 0, "\(man.err)")
        #expect(man.out.contains("NAME") && man.out.contains("hum completions"))

        try completionsOffer(prefix: prefix, user: user, box: box)

        // --uninstall takes back what it put, and leaves the user's own sounds alone.
        let mine = home + "/.local/share/hum/sounds"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: mine + "/mine.wav", contents: Data()))
        let uninstall = try Self.bash("PREFIX=\(prefix) \(unpacked)/install.sh --uninstall", user)
        #expect(uninstall.code == 0, "\(uninstall.err)")
        for place in ["bin/hum", "lib/hum", "share/man/man1/hum.1", "share/systemd/user/hum.service"] {
            #expect(!FileManager.default.fileExists(atPath: prefix + "/" + place), "\(place) left behind")
        }
        let left = try Self.bash("cd \(prefix) && find share/[!h]* -type f | sort").out
        #expect(left.isEmpty, "left behind: \(left)")
        #expect(FileManager.default.fileExists(atPath: mine + "/mine.wav"))
    }

    /// The installed completion scripts, loaded by the shells from where install.sh put them, offer `play` and a
    /// built-in sound's name (asked of the installed hum).
    func completionsOffer(prefix: String, user: [String: String], box: Sandbox) throws {
        let bashScript = prefix + "/share/bash-completion/completions/hum"
        let loaded = try Self.bash("source \(bashScript); complete -p hum", user)
        #expect(loaded.out.contains("hum"), "\(loaded.err)")
        for (line, word) in [("'hum' 'pl'", "play"), ("'hum' 'play' 'ra'", "rain")] {
            let words = line.split(separator: " ").count
            let offered = try Self.bash(
                "source \(bashScript); COMP_WORDS=(\(line)); COMP_CWORD=\(words - 1); _hum; "
                    + "printf '%s\\n' \"${COMPREPLY[@]}\"", user)
            #expect(offered.out.split(separator: "\n").contains { $0 == word }, "bash: \(line): \(offered)")
        }
        // zsh: compinit finds _hum through the fpath install.sh tells the user to set.
        if try Self.bash("command -v zsh").code == 0 {
            let zsh = try Self.bash(
                "zsh -f -c 'fpath=(\(prefix)/share/zsh/site-functions $fpath); autoload -Uz compinit; "
                    + "compinit -u -d \(box.root)/zcompdump; print -r -- $_comps[hum]'", user)
            #expect(zsh.out == "_hum\n", "\(zsh)")
        }
        // fish: found in ~/.local/share/fish/vendor_completions.d by itself.
        if try Self.bash("command -v fish").code == 0 {
            for (line, word) in [("hum pl", "play"), ("hum play ra", "rain")] {
                let fish = try Self.bash("fish -c 'complete -C\"\(line)\"'", user)
                let words = fish.out.split(separator: "\n").map { $0.split(separator: "\t").first ?? "" }
                #expect(words.contains { $0 == word }, "fish: \(line): \(fish)")
            }
        }
    }

    @Test func theDebianPackageHasDebiansLayoutItsLibrariesAndNoLintianError() throws {
        let box = Sandbox()
        let env = Self.packagingEnvironment.merging(["DIST_DIR": box.root, "DEB_COMPRESS": "gzip"]) { $1 }
        let built = try Self.bash("scripts/deb.sh", env)
        try #require(built.code == 0, "\(built.err)")
        let deb = Self.lastLine(built.out)
        let arch = try Self.bash("dpkg --print-architecture").out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb == "\(box.root)/hum_\(humVersion)-1_\(arch).deb")

        let listing = try Self.bash("dpkg-deb -c \(deb)")
        try #require(listing.code == 0, "\(listing.err)")
        let entries = listing.out.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: false)
        }
        #expect(entries.allSatisfy { $0.count > 1 && $0[1] == "root/root" }, "not all owned by root")
        let paths = Set(entries.compactMap { $0.last.map(String.init) })
        for path in [
            "./usr/bin/hum", "./usr/share/hum/sounds/sounds.json", "./usr/share/hum/sounds/rain.ogg",
            "./usr/share/man/man1/hum.1.gz", "./usr/share/bash-completion/completions/hum",
            "./usr/share/zsh/vendor-completions/_hum", "./usr/share/fish/vendor_completions.d/hum.fish",
            "./usr/share/applications/hum.desktop", "./usr/share/icons/hicolor/scalable/apps/hum.svg",
            "./usr/share/metainfo/io.github.hum.metainfo.xml", "./usr/lib/systemd/user/hum.service",
            "./usr/share/doc/hum/copyright", "./usr/share/doc/hum/changelog.Debian.gz",
            "./usr/share/doc/hum/changelog.gz",
        ] {
            #expect(paths.contains(path), "\(path) missing from the package")
        }

        let field = { (name: String) in
            try Self.bash("dpkg-deb -f \(deb) \(name)").out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Package") == "hum")
        #expect(try field("Version") == "\(humVersion)-1")
        #expect(try field("Architecture") == arch)
        // Computed from what the binary links: the C libraries of Package.swift's system targets, and libc.
        let depends = try field("Depends").split(separator: ",").map {
            String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        }
        for library in [
            "libasound2", "libc6", "libsndfile1", "libsoxr0", "libebur128-1", "libsqlite3-0", "libsystemd0",
        ] {
            #expect(depends.contains(library), "Depends: \(depends)")
        }
        // Loaded at run time (a native stream to the sound server), so dpkg-shlibdeps does not see it.
        #expect(try field("Recommends") == "libpulse0")

        // The debug binary's RUNPATH to the toolchain is the one error a release binary cannot have
        // (scripts/check-static-swift.sh refuses to package one without HUM_ALLOW_DYNAMIC_SWIFT).
        let suppressed = Self.releaseBinary == nil ? "--suppress-tags custom-library-search-path " : ""
        let lintian = try Self.bash("lintian \(suppressed)\(deb)")
        let errors = lintian.out.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        #expect(errors.isEmpty, "\(lintian.out)")
        #expect(lintian.code == 0, "\(lintian.out)\(lintian.err)")

        let extracted = box.root + "/extracted"
        #expect(try Self.bash("dpkg-deb -x \(deb) \(extracted)").code == 0)
        let version = try Self.bash("\(extracted)/usr/bin/hum --version")
        #expect(version.out.hasPrefix("hum \(humVersion) ("), "\(version)")
        let names = try Self.bash("\(extracted)/usr/bin/hum sounds --names", ["HOME": box.root])
        #expect(names.out.split(separator: "\n").contains("rain"), "\(names)")
        let copyright = try String(contentsOfFile: extracted + "/usr/share/doc/hum/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
    }

    /// A binary that loads the Swift runtime from the toolchain is refused unless a test says otherwise.
    @Test func aBinaryWithoutTheStaticSwiftRuntimeIsNotPackaged() throws {
        let dynamic = try Self.bash("readelf -d \(humBinary)").out.contains("libswiftCore")
        try #require(dynamic, "HUM_BIN is not a debug build: nothing to refuse")
        let refused = try Self.bash("scripts/dist.sh", ["HUM_BIN": humBinary, "DIST_DIR": "/nonexistent"])
        #expect(refused.code == 1)
        #expect(refused.err.contains("make release"))
    }

    /// The version is written once (humVersion); the changelog and the AppStream release name it, and the
    /// desktop files are valid.
    @Test func theVersionAndTheDesktopFilesAgree() throws {
        let changelog = try String(contentsOfFile: Self.root + "/CHANGELOG.md", encoding: .utf8)
        #expect(changelog.contains("\n## \(humVersion) "))
        let metainfo = try String(contentsOfFile: Self.root + "/contrib/io.github.hum.metainfo.xml", encoding: .utf8)
        #expect(metainfo.contains("<release version=\"\(humVersion)\""))
        let validate = try Self.bash("appstreamcli validate --no-net contrib/io.github.hum.metainfo.xml")
        #expect(validate.code == 0, "\(validate.out)")
        let desktop = try String(contentsOfFile: Self.root + "/contrib/hum.desktop", encoding: .utf8)
        for line in ["Exec=hum ui", "Terminal=true", "Icon=hum", "Categories=AudioVideo;Audio;Utility;"] {
            #expect(desktop.split(separator: "\n").contains { $0 == line }, "\(line)")
        }
    }

    /// scripts/stamp-commit.sh writes the commit of the checkout, and leaves an unchanged file untouched (so an
    /// unchanged tree rebuilds nothing).
    @Test func theStampNamesTheCommit() throws {
        let box = Sandbox()
        let out = box.root + "/BuildStamp.swift"
        let head = try Self.bash("git rev-parse --short HEAD")
        try #require(head.code == 0, "not a git checkout")
        #expect(try Self.bash("scripts/stamp-commit.sh \(out)").code == 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let commit = head.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.contains("public static var commit: String { \"\(commit)"))
        #expect(text.contains("extension BuildStamp"))
        let before = try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date
        usleep(20_000)
        #expect(try Self.bash("scripts/stamp-commit.sh \(out)").code == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date == before)
    }
}
