import Testing

@testable import HumCore

/// A process as /proc would show it, for the shield tests: a user's program in a group of its own by default.
func facts(
    _ pid: Int32, comm: String, exe: String? = nil, cmdline: [String]? = nil, ppid: Int32 = 500, pgid: Int32? = nil,
    sid: Int32 = 400, uid: UInt32 = 1000, state: Character = "S", desktopID: String? = nil, kernel: Bool = false
) -> ProcessFacts {
    ProcessFacts(
        pid: pid, ppid: ppid, pgid: pgid ?? pid, sid: sid, uid: uid, comm: comm, exe: exe ?? comm,
        cmdline: cmdline ?? ["/usr/bin/\(comm)"], desktopID: desktopID, start: Int64(pid) * 10, state: state,
        isKernelThread: kernel)
}

@Suite struct ShieldModelTests {
    @Test func namesAreCheckedWhereTheyEnter() throws {
        #expect(try Shield.checkedName("games") == "games")
        #expect(try Shield.checkedName("social_2") == "social_2")
        #expect(try Shield.checkedName(String(repeating: "a", count: 32)).count == 32)
        for bad in ["", "Games", "-x", "_x", "a b", "ga/mes", "jeux-é", String(repeating: "a", count: 33)] {
            #expect(throws: ShieldProblem.self) { try Shield.checkedName(bad) }
        }
        let problem = #expect(throws: ShieldProblem.self) { try Shield.checkedName("My Games") }
        #expect(problem?.message.contains("\"My Games\" is not a shield name") == true)
        #expect(problem?.kind == .usage)
    }

    @Test func targetsAreCheckedWhereTheyEnter() throws {
        #expect(try ShieldTarget.checked(.app, "steam") == .app("steam"))
        #expect(try ShieldTarget.checked(.match, "java .*minecraft") == .match("java .*minecraft"))
        #expect(
            try ShieldTarget.checked(.desktopID, "org.telegram.desktop.desktop") == .desktopID("org.telegram.desktop"))
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.app, "/usr/bin/steam") }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.app, "") }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.app, "a\nb") }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.app, String(repeating: "x", count: 256)) }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.match, "(unclosed") }
        // Patterns that match an empty command line match everything.
        for everything in [".*", "x?", "^", "a*|b"] {
            #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.match, everything) }
        }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.match, String(repeating: "a", count: 501)) }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.desktopID, "org telegram") }
        #expect(throws: ShieldProblem.self) { try ShieldTarget.checked(.desktopID, ".desktop") }
    }

    @Test func appTargetsMatchTheExecutableTheCommandNameOrArgvZero() {
        let steam = ShieldTarget.app("steam")
        #expect(steam.matches(facts(10, comm: "steam")))
        // A script: the interpreter's executable, the script's command name.
        #expect(steam.matches(facts(11, comm: "steam", exe: "bash", cmdline: ["/bin/bash", "/usr/bin/steam"])))
        // A wrapper called by the name.
        #expect(steam.matches(facts(12, comm: "ld-linux", exe: "ld-linux", cmdline: ["/opt/steam/steam", "-x"])))
        #expect(!steam.matches(facts(13, comm: "steamwebhelper")))
        #expect(!steam.matches(facts(14, comm: "bash", cmdline: ["bash", "-c", "steam"])))
        // The kernel cuts command names to 15 bytes.
        let long = ShieldTarget.app("minecraft-launcher")
        #expect(long.matches(facts(15, comm: "minecraft-launc", exe: nil, cmdline: ["python3", "x"])))
        #expect(!long.matches(facts(16, comm: "minecraft-la", exe: nil, cmdline: ["python3", "x"])))
    }

    @Test func matchTargetsSearchTheCommandLine() {
        let minecraft = ShieldTarget.match("java .*minecraft")
        #expect(minecraft.matches(facts(20, comm: "java", cmdline: ["java", "-jar", "/games/minecraft.jar"])))
        #expect(!minecraft.matches(facts(21, comm: "java", cmdline: ["java", "-jar", "/work/ide.jar"])))
        #expect(!minecraft.matches(facts(22, comm: "kworker", cmdline: [])))
        let anchored = ShieldTarget.match("^/usr/bin/telegram")
        #expect(anchored.matches(facts(23, comm: "telegram", cmdline: ["/usr/bin/telegram-desktop"])))
        #expect(!anchored.matches(facts(24, comm: "vim", cmdline: ["vim", "/usr/bin/telegram"])))
    }

    @Test func desktopTargetsMatchTheDesktopID() {
        let telegram = ShieldTarget.desktopID("org.telegram.desktop")
        #expect(telegram.matches(facts(30, comm: "Telegram", desktopID: "org.telegram.desktop")))
        #expect(!telegram.matches(facts(31, comm: "Telegram")))
        #expect(!telegram.matches(facts(32, comm: "x", desktopID: "org.telegram.desktop.beta")))
    }

    @Test func aMatcherNamesEveryShieldHoldingAProcess() throws {
        let t = Timestamp(epochSeconds: 0, offsetSeconds: 0)
        let matcher = ShieldMatcher(shields: [
            Shield(name: "games", targets: [.app("steam"), .match("lutris")], created: t),
            Shield(name: "all", targets: [.app("vim"), .match("lutris")], created: t),
            Shield(name: "chat", targets: [.desktopID("org.telegram.desktop")], created: t),
        ])
        #expect(matcher.shields(holding: facts(1, comm: "lutris", cmdline: ["/usr/bin/lutris"])) == ["games", "all"])
        #expect(matcher.shields(holding: facts(2, comm: "steam")) == ["games"])
        #expect(matcher.shields(holding: facts(3, comm: "bash")) == [])
    }

    @Test func desktopIDsAreReadFromDesktopFilesAndScopes() {
        #expect(
            DesktopAppID.fromDesktopFile("/usr/share/applications/org.telegram.desktop.desktop")
                == "org.telegram.desktop")
        #expect(DesktopAppID.fromDesktopFile("/usr/share/applications/firefox") == nil)
        #expect(
            DesktopAppID.fromCgroup(
                "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.telegram.desktop-4123.scope")
                == "org.telegram.desktop")
        #expect(DesktopAppID.fromCgroup("0::/user.slice/app-org.gnome.Terminal-99.scope") == "org.gnome.Terminal")
        #expect(
            DesktopAppID.fromCgroup("/app.slice/app-flatpak-com.valvesoftware.Steam@12.service")
                == "com.valvesoftware.Steam")
        #expect(DesktopAppID.fromCgroup("/app.slice/app-gnome-my\\x2dgame-77.scope") == "my-game")
        #expect(DesktopAppID.fromCgroup("/user.slice/session-2.scope") == nil)
        #expect(DesktopAppID.fromCgroup("/app.slice/app-nodash.scope") == nil)
    }
}
