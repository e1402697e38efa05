import Testing

@testable import HumCore

@Suite struct ShieldNoticeTests {
    @Test func theHeldNoticeSaysWhatIsShieldedWhatIsBankedAndTheWayOut() {
        let notice = ShieldNotice.held(shield: "social", programs: ["Telegram"], banked: 42 * 60 + 59)
        #expect(notice.summary == "Telegram is shielded")
        #expect(notice.body == "42 min banked · hum pass 15m --on social")
        #expect(notice.actions == [.spend, .emergency])
        #expect(notice.actions.map(\.label) == ["Spend 15 min", "Emergency 5 min"])
        // Several programs; the bank unknown (the ledger could not be read): the way out alone.
        let two = ShieldNotice.held(shield: "games", programs: ["steam", "minecraft"], banked: nil)
        #expect(two.summary == "steam and minecraft are shielded")
        #expect(two.body == "hum pass 15m --on games")
        let many = ShieldNotice.held(shield: "games", programs: ["a", "b", "c", "d"], banked: 0)
        #expect(many.summary == "a, b and 2 more are shielded")
        #expect(many.body == "0 min banked · hum pass 15m --on games")
    }

    @Test func theButtonsAskWhatTheCommandsAsk() {
        #expect(
            ShieldNotice.Action.spend.request(shield: "games")
                == ShieldLiftRequest(shield: "games", seconds: 900, forfeit: false))
        let emergency = ShieldNotice.Action.emergency.request(shield: "games")
        #expect(emergency.seconds == 300 && !emergency.forfeit && emergency.emergency == ShieldNotice.emergencyReason)
        #expect(ShieldNotice.Action.spend.command(shield: "games") == "hum pass 15m --on games")
    }

    @Test func refusedAndLiftedNotices() {
        let refused = ShieldNotice.refused(
            shield: "games", programs: ["fakegame"], action: .spend, reason: "too little banked; nothing was held")
        #expect(refused.summary == "fakegame stays shielded: Spend 15 min was not possible")
        #expect(refused.body == "too little banked; nothing was held")
        #expect(refused.actions == [.spend, .emergency])
        let lifted = ShieldNotice.lifted(shield: "games", programs: ["fakegame"], action: .emergency, until: "14:32")
        #expect(lifted.summary == "fakegame is free until 14:32")
        #expect(lifted.body == "5 min from the emergency reserve · hum pass end shields it again early")
        #expect(lifted.actions == [])
    }

    @Test func aProgramIsNamedAsPeopleKnowIt() {
        func process(comm: String, exe: String? = nil, cmdline: [String] = [], desktopID: String? = nil)
            -> ProcessFacts
        {
            ProcessFacts(
                pid: 9, ppid: 1, pgid: 9, sid: 9, uid: 1000, comm: comm, exe: exe, cmdline: cmdline,
                desktopID: desktopID, start: 1)
        }
        #expect(
            ShieldNotice.programName(process(comm: "telegram-deskto", desktopID: "org.telegram.desktop")) == "Telegram")
        #expect(ShieldNotice.applicationName(desktopID: "org.mozilla.firefox") == "Firefox")
        #expect(ShieldNotice.applicationName(desktopID: "com.valvesoftware.Steam") == "Steam")
        #expect(ShieldNotice.applicationName(desktopID: "code") == "Code")
        #expect(ShieldNotice.programName(process(comm: "steam")) == "steam")
        // The kernel cuts the command name to 15 bytes: the whole name comes from the executable or argv[0].
        #expect(
            ShieldNotice.programName(process(comm: "fakegame-abcdef", exe: "fakegame-abcdef12")) == "fakegame-abcdef12")
        #expect(
            ShieldNotice.programName(process(comm: "minecraft-launc", cmdline: ["/opt/minecraft-launcher"]))
                == "minecraft-launcher")
        #expect(ShieldNotice.programName(process(comm: "python3-script1", exe: "python3.11")) == "python3-script1")
        #expect(ShieldNotice.programNames([process(comm: "a"), process(comm: "b"), process(comm: "a")]) == ["a", "b"])
    }

    @Test func anEpisodeIsToldOnceUntilItsProgramsAreNoLongerFrozen() {
        let a = ProcessIdentity(pid: 10, start: 1)
        let b = ProcessIdentity(pid: 11, start: 1)
        var episodes = ShieldEpisodes()
        // Nothing held: nothing begins.
        #expect(episodes.update(newlyHeld: [:], frozen: [], up: ["games"]) == [])
        // The first freeze begins an episode; a second program frozen in it, and looks with nothing new, do not.
        #expect(episodes.update(newlyHeld: ["games": [a]], frozen: [a], up: ["games"]) == ["games"])
        #expect(episodes.update(newlyHeld: [:], frozen: [a], up: ["games"]) == [])
        #expect(episodes.update(newlyHeld: ["games": [b]], frozen: [a, b], up: ["games"]) == [])
        // The first program ends: the episode goes on with the second.
        #expect(episodes.update(newlyHeld: [:], frozen: [b], up: ["games"]) == [])
        // A lift thaws it: the episode ends; frozen again after the lift, a new one begins.
        #expect(episodes.update(newlyHeld: [:], frozen: [], up: []) == [])
        #expect(episodes.held.isEmpty)
        #expect(episodes.update(newlyHeld: ["games": [b]], frozen: [b], up: ["games"]) == ["games"])
        // A shield that is not up begins nothing, whatever the plan says; one shield's episode is not another's.
        #expect(episodes.update(newlyHeld: ["social": [a]], frozen: [a, b], up: ["games"]) == [])
        #expect(episodes.update(newlyHeld: ["social": [a]], frozen: [a, b], up: ["games", "social"]) == ["social"])
        // A freeze that did not happen (not in `frozen`) begins nothing.
        var fresh = ShieldEpisodes()
        #expect(fresh.update(newlyHeld: ["games": [a]], frozen: [], up: ["games"]) == [])
    }
}
