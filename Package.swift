// swift-tools-version:6.0
import PackageDescription

// Every target builds in the Swift 6 language mode (complete strict concurrency checking, set below in
// swiftLanguageModes); `strict` adds the settings we hold every target to on top of it.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "hum",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hum", targets: ["hum"]),
        .executable(name: "hum-soundgen", targets: ["hum-soundgen"]),
        .executable(name: "hum-shieldd", targets: ["hum-shieldd"]),
    ],
    targets: [
        system("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        system("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        system("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        system("CEbur128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        system("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        system("CCurses", pkgConfig: "ncursesw", apt: "libncurses-dev"),
        system("CSystemd", pkgConfig: "libsystemd", apt: "libsystemd-dev"),
        // The C library's Linux parts that the Glibc module leaves out: timerfd, signalfd, eventfd, prctl, the
        // GNU parts of posix_spawn, accept4 and SO_PEERCRED.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // PulseAudio's client library (PipeWire serves its protocol too), for a native stream to the sound server:
        // only its headers at build time (libpulse-dev); hum loads libpulse.so.0 with dlopen when it plays, so it
        // starts without it and plays through ALSA then. No pkgConfig, so nothing links -lpulse.
        .systemLibrary(name: "CPulse", path: "Sources/CPulse"),

        // HumCore imports no C module; it links libm only because the standard library's rounding and math need it.
        .target(name: "HumCore", swiftSettings: strict, linkerSettings: [.linkedLibrary("m")]),
        .target(name: "HumAudio", dependencies: ["HumCore", "CALSA", "CPulse", "CSndFile", "CSoxr", "CEbur128"], swiftSettings: strict),
        .target(name: "HumStore", dependencies: ["HumCore", "CSQLite"], swiftSettings: strict),
        // The machine's clocks, time zone and /proc, behind HumCore's seams (WallClock, TimeZoneSeam, ProcessProbe);
        // the event loop; and processes: a command in a group of its own, a process tree, a command run for its
        // output (git, a reviewer), the supervisor of a pass's command. Its errors are its own (ProcessError).
        .target(name: "HumSystem", dependencies: ["HumCore", "CLinux"], swiftSettings: strict),
        .target(name: "HumTerminal", dependencies: ["HumCore", "CCurses"], swiftSettings: strict),
        // The control socket: the player's server and its clients (hum status, hum ctl, an attached screen).
        .target(name: "HumControl", dependencies: ["HumCore", "HumSystem", "CLinux"], swiftSettings: strict),
        // The desktop's own controls over D-Bus (sd-bus): MPRIS for media keys and panels, notifications, and
        // logind's sleep inhibitor, in the player's event loop.
        .target(name: "HumBus", dependencies: ["HumCore", "HumSystem", "CSystemd"], swiftSettings: strict),
        // What runs: the player and its interpreter, the playback session and sound loading, the mix's resolution and
        // the last mix, focus rounds, contracts at run time, the pass run and its watchdog, detaching. Its inputs are
        // an injected PlayerEnvironment and event loop; its errors are its own (PlayerError). Never the CLI's.
        .target(
            name: "HumPlayer",
            dependencies: ["HumCore", "HumAudio", "HumStore", "HumSystem", "HumControl", "HumBus", "CLinux"],
            swiftSettings: strict),
        .target(
            name: "HumCLI",
            dependencies: [
                "HumCore", "HumAudio", "HumStore", "HumSystem", "HumControl", "HumTerminal", "HumBus", "HumPlayer",
                "CLinux",
            ],
            swiftSettings: strict),
        .executableTarget(name: "hum", dependencies: ["HumCLI"], swiftSettings: strict),
        // Strong mode's root helper (docs/shields.md): shields sites with nftables for every user who asks, each by
        // the uid its socket says. Small on purpose: the decisions are HumCore's (StrongShield), running nft is
        // HumSystem's; nothing of the player or the CLI.
        .executableTarget(name: "hum-shieldd", dependencies: ["HumCore", "HumSystem", "CLinux"], swiftSettings: strict),
        // In-memory doubles of the outside world (clocks, zones, an audio sink, a process probe), as swift-log ships
        // its in-memory handler: for tests only, never linked into hum.
        .target(name: "HumTestSupport", dependencies: ["HumCore"], swiftSettings: strict),
        // The built-in sounds' recipes and their mastering: linked only by hum-soundgen and the tests, never by hum.
        .target(name: "HumSynth", dependencies: ["HumCore", "HumAudio"], swiftSettings: strict),
        .executableTarget(name: "hum-soundgen", dependencies: ["HumSynth", "HumCore", "HumAudio"], swiftSettings: strict),

        .testTarget(name: "HumCoreTests", dependencies: ["HumTestSupport", "HumCore"], swiftSettings: strict),
        .testTarget(
            name: "HumAudioTests", dependencies: ["HumTestSupport", "HumAudio", "HumSynth", "HumCore"], swiftSettings: strict),
        .testTarget(name: "HumSynthTests", dependencies: ["HumSynth", "HumCore"], swiftSettings: strict),
        .testTarget(name: "HumStoreTests", dependencies: ["HumTestSupport", "HumStore", "HumCore"], swiftSettings: strict),
        .testTarget(
            name: "HumSystemTests", dependencies: ["HumTestSupport", "HumSystem", "HumCore"], swiftSettings: strict),
        .testTarget(
            name: "HumControlTests", dependencies: ["HumTestSupport", "HumControl", "HumSystem", "HumCore"], swiftSettings: strict),
        .testTarget(name: "HumTerminalTests", dependencies: ["HumTestSupport", "HumTerminal", "HumCore"], swiftSettings: strict),
        .testTarget(
            name: "HumPlayerTests",
            dependencies: ["HumTestSupport", "HumPlayer", "HumCore", "HumAudio", "HumStore", "HumSystem"],
            swiftSettings: strict),
        .testTarget(
            name: "HumCLITests",
            dependencies: [
                "HumTestSupport", "HumCLI", "HumPlayer", "HumCore", "HumAudio", "HumControl", "HumBus", "HumSystem",
                "CSystemd",
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
