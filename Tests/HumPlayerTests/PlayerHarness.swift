import Foundation
import HumAudio
import HumCore
import HumStore
import HumSystem
import HumTestSupport

@testable import HumPlayer

/// A player in the test's own process: the manual loop's time, a sandbox's XDG home (the real ledger in SQLite),
/// the recording audio and buffers for stdout and stderr. Nothing sleeps: time moves when the test says.
final class PlayerHarness {
    let box = Sandbox()
    let loop = ManualEventLoop()
    let stdout = Buffer()
    let stderr = Buffer()
    let environment: PlayerEnvironment
    private(set) var player: Player!
    /// The player's audio, once it opened it (nil for the timer alone).
    private(set) var audio: RecordingAudio?
    /// The session's presence, as logind would tell it (the test says when it locks).
    let presence = ScriptedPresence()

    /// Sounds of the sandbox's library (`tone`, `hiss`), so the mix and `add` name them as a user would.
    init(sounds: [String] = ["tone", "hiss"]) throws {
        let folder = box.root + "/data/hum/sounds"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in sounds {
            let path = try box.writeSound("\(name).wav", sine(frequency: 330, frames: 4800, amplitude: 0.2))
            try FileManager.default.moveItem(atPath: path, toPath: "\(folder)/\(name).wav")
        }
        var variables = box.variables
        variables["XDG_RUNTIME_DIR"] = box.root + "/run"
        environment = PlayerEnvironment(
            variables: variables, paths: HumPaths(environment: variables), stdout: stdout, stderr: stderr,
            calendar: LocalCalendar(clock: loop.clock, zone: FixedZone(offsetSeconds: 0)))
    }

    /// Starts a player on `mix` (sound=volume words; none: the timer alone).
    @discardableResult
    func start(_ words: [String], master: Double = 100, fadeSeconds: Double = 1, startSilent: Bool = false) throws
        -> Player
    {
        let tokens = words.map { word -> MixToken in
            let parts = word.split(separator: "=")
            return MixToken(name: String(parts[0]), volume: parts.count > 1 ? Double(parts[1])! : 50)
        }
        let entries = try MixSetup.resolve(tokens.map { ($0, $0.name) }, catalog: MixSetup.catalog(environment))
        var options = Player.Options(
            device: "recording", raw: false, fadeSeconds: fadeSeconds, endAfter: nil, silent: words.isEmpty,
            startSilent: startSilent)
        options.openPresence = { [unowned self] _, _ in self.presence }
        options.openAudio = { [unowned self] setup in
            let audio = RecordingAudio(setup, loop: self.loop)
            self.audio = audio
            return audio
        }
        player = try Player(
            environment: environment, loop: loop, mix: Mix(tokens: tokens, master: master), entries: entries,
            options: options)
        return player
    }

    /// Starts `hum focus`: a player that exists for its rounds (it stops with them), silent until the first round
    /// fades in.
    @discardableResult
    func focus(_ words: [String] = ["tone=60"], _ request: FocusRequest) throws -> Player {
        try start(words, startSilent: true)
        try player.startFocus(request, stopsPlayer: true)
        return player
    }

    /// The ledger of the sandbox, opened as another command would.
    func database() throws -> HumDatabase {
        try HumDatabase(
            path: environment.paths.databasePath, calendar: environment.calendar, probe: LinuxProcessProbe())
    }

    /// The focus rounds' status now (nil when none run).
    var rounds: PlayerStatus.Focus? { player.status.focus }

    /// Seconds since the loop's start (the player starts at its zero).
    var now: Double { loop.monotonicSeconds - 1000 }

    /// Moves time to `seconds` after the loop's zero.
    @discardableResult
    func at(_ seconds: Double) -> Int { loop.advance(to: 1000 + seconds) }
}

/// A request for focus rounds, as `hum focus` makes it.
func rounds(
    focus: Double = 1500, shortBreak: Double = 300, longBreak: Double = 900, longEvery: Int = 4, rounds: Int = 4,
    fade: Double = 10, autoAdvance: FocusPlan.AutoAdvance = .all, goal: String? = nil, tags: [String] = [],
    contract: ContractStart? = nil
) throws -> FocusRequest {
    FocusRequest(
        plan: try FocusPlan(
            focus: .seconds(focus), shortBreak: .seconds(shortBreak), longBreak: .seconds(longBreak),
            longBreakEvery: longEvery, rounds: rounds, fade: .seconds(fade), autoAdvance: autoAdvance),
        goal: goal, tags: tags, quiet: true, onEvent: nil, contract: contract)
}
