import HumCore
import HumPlayer
import HumTerminal

/// `hum ui` (and bare `hum` on a terminal): the full screen, a calm desk companion over the player.
struct UICommand: HumCommand {
    static let name = "ui"
    static let abstract = "a calm full screen: a big clock, the focus countdown, the mixer and the bank"
    static let discussion = """
        The full screen is one more view of the player: when one runs (hum play --detach, hum daemon, another
        terminal), it attaches to it; otherwise it starts one in the background (its messages in
        $XDG_STATE_HOME/hum/player.log) with the sounds given, else the default mix. Bare 'hum' on a terminal is
        'hum ui'; 'hum play' keeps the one-line screen.

        Keys: ↑/↓ select a sound, ←/→ its volume by 5, 0–9 its volume 0–90, m mute, +/- master, a add a sound
        (type to filter; it comes in at 75), x remove it, f start or end focus rounds (the plan of the settings, as 'hum focus'),
        space pause, s skip, e extend by 5 minutes, S save the mix as, l load a saved mix, ? every key,
        q leave (focus rounds under way run on in the player; otherwise a player started for this screen stops,
        unless another client watches it), Q stop the player.
        A click on a volume bar sets it. After a few seconds without a key only the clock and one summary line
        remain; any key brings the rest back. NO_COLOR and TERM=dumb are respected. See docs/ui.md.
        """
    static let examples = ["hum", "hum ui", "hum ui rain=70 brown=40"]
    static let arguments: [any Declared] = [PlayCommand.sounds, PlayCommand.device]

    let play: PlayCommand

    init(_ arguments: ParsedArguments) throws { play = try PlayCommand(arguments) }

    func run(context: CommandContext) throws -> Int32 {
        guard context.stdinIsTerminal && context.stdoutIsTerminal else {
            throw HumError.usage("hum ui needs a terminal; 'hum play' plays without one")
        }
        if context.environment["TERM"] == "dumb" || !CursesScreen.canShow() {
            let term = context.environment["TERM"].map { "TERM=\($0)" } ?? "TERM is not set"
            throw HumError.usage(
                "this terminal (\(term)) cannot show the full screen; 'hum play' shows one line")
        }
        var startedHere = false
        var client = try PlayerLink.connectLive(context)
        if client == nil {
            do {
                _ = try play.startDetached(context: context, announce: false)
                startedHere = true
                client = try PlayerLink.connect(context)
            } catch is Detached.AnotherPlayerStarting {
                client = try PlayerLink.awaitStarting(context)
            }
        }
        if let client, !startedHere, !play.words.isEmpty {
            let catalog = MixSetup.catalog(context.runtime)
            let requested = try MixSetup.resolve(words: play.words, catalog: catalog, environment: context.runtime)
            let mix = Mix(
                tokens: requested.entries.map(\.token), master: requested.master ?? 100, name: requested.name)
            _ = try PlayerLink.send(.play(mix), to: client)
        }
        guard let client else { throw PlayerLink.noPlayer }
        do {
            return try DeskSetup.run(client: client, context: context, startedHere: startedHere)
        } catch {
            // The screen could not start: a player started for it does not stay behind.
            if startedHere { _ = try? PlayerLink.send(.stop, to: client) }
            throw error
        }
    }
}
