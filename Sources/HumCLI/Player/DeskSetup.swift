import HumAudio
import HumControl
import HumCore
import HumPlayer
import HumSystem
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// What the full screen gets from a command's context: the catalogue's sounds, the ui.blink setting, the bank and
/// the saved mixes through the ledger, the focus plan of the settings, ncurses. Warnings its work would print are
/// held for the screen's message line.
enum DeskSetup {
    /// Shows the full screen over the player `client` reaches until `q`, `Q`, a signal or the player's end; the
    /// terminal is given back in every case.
    static func run(client: ControlClient, context: CommandContext, startedHere: Bool) throws -> Int32 {
        let held = HeldOutput()
        var quiet = context
        quiet.stderr = held
        let loop = EventLoop()
        let screen = DeskScreen(
            loop: loop, player: RemotePlayer(client: client), startedHere: startedHere, color: context.useColor,
            services: services(quiet, held: held, say: { context.stdout.write($0 + "\n") }))
        try screen.start()
        loop.run()
        screen.finish()
        return ExitCode.success
    }

    static func services(_ context: CommandContext, held: HeldOutput, say: @escaping (String) -> Void)
        -> DeskServices
    {
        let bank = BankReader(context: context)
        return DeskServices(
            sounds: sounds(MixSetup.catalog(context.runtime)),
            blink: (try? SettingsReader.read(context.runtime))?.isOn(SettingCatalog.uiBlink) ?? false,
            calendar: LocalCalendar.system,
            readBank: { readBank(context, bank) },
            focusRequest: {
                let settings = try SettingsReader.read(context.runtime, required: true)
                return try FocusOptions().resolve(settings: settings).request
            },
            saveMix: { mix, name in try LedgerCLI.open(context).saveMix(mix, as: name) },
            savedMixes: {
                try LedgerCLI.open(context).savedMixes().map { DeskMix(name: $0.name, summary: $0.mix.summary) }
            },
            mixNamed: { name in try LedgerCLI.open(context).mix(named: name) },
            heldMessage: { held.take() },
            openDisplay: { color in
                do {
                    return try CursesScreen(color: color)
                } catch let problem as CursesProblem {
                    throw HumError.failure(problem.message)
                }
            },
            say: say)
    }

    /// The bank's figures for the screen; a ledger not made yet is an empty bank (none is made to say so), one that
    /// cannot be read nil.
    static func readBank(_ context: CommandContext, _ bank: BankReader) -> DeskBank? {
        guard access(context.paths.databasePath, F_OK) == 0 else {
            let config = LedgerConfig()
            return DeskBank(
                balanceSeconds: 0, earnedTodaySeconds: 0, dailyCapSeconds: config.dailyCapSeconds,
                emergencyLeftSeconds: config.emergencyWeeklySeconds,
                emergencyWeeklySeconds: config.emergencyWeeklySeconds)
        }
        guard let status = bank.status() else { return nil }
        return DeskBank(
            balanceSeconds: status.balance, earnedTodaySeconds: status.earnedToday, dailyCapSeconds: status.dailyCap,
            emergencyLeftSeconds: status.emergencyLeft, emergencyWeeklySeconds: status.emergencyWeekly,
            pass: status.openPass.map { DeskBank.Pass(label: $0.label, deadlineEpoch: $0.deadline.epochSeconds) })
    }

    /// The sounds that can be added: built-in ones with the manifest's description, then the user's.
    static func sounds(_ catalog: SoundCatalog) -> [DeskSound] {
        let descriptions = Dictionary(
            (catalog.manifest?.sounds ?? []).map { ($0.id, $0.description) }, uniquingKeysWith: { a, _ in a })
        return catalog.builtins.map { DeskSound(name: $0.name, description: descriptions[$0.name] ?? $0.title) }
            + catalog.userSounds.map { DeskSound(name: $0.name, description: "your sound (\($0.path))") }
    }
}
