import Foundation
import Testing

@testable import HumCore

/// What focus rounds run: the options given over the profile over the settings over hum's defaults.
@Suite struct FocusOptionsTests {
    static let settings = Settings(
        stored: [
            "focus.length": "40m", "focus.rounds": "6", "notify.bell": "off", "focus.on-event": "note.sh",
            "profile.deep": "--focus 50m --short-break 10m --tag deep brown=30",
        ], environment: ["HUM_FOCUS_FADE": "3s"])

    @Test func nothingGivenTakesTheSettingsThenHumsDefaults() throws {
        let plain = try FocusOptions().resolve(settings: Self.settings)
        #expect(plain.plan.focus == .seconds(2400) && plain.plan.rounds == 6 && plain.plan.fade == .seconds(3))
        #expect(plain.plan.shortBreak == .seconds(300) && plain.plan.longBreak == .seconds(900))
        #expect(plain.plan.longBreakEvery == 4 && plain.plan.autoAdvance == .all)
        #expect(!plain.request.bell && plain.request.notify && plain.request.onEvent == ["note.sh"])
        #expect(plain.request.goal == nil && plain.request.tags.isEmpty && plain.request.inhibit == nil)
        #expect(plain.words.isEmpty && !plain.noSound)
        let bare = try FocusOptions().resolve(settings: Settings(stored: [:]))
        #expect(bare.plan == FocusPlan.standard && bare.request.bell && bare.request.onEvent == nil)
    }

    @Test func theProfileWinsOverTheSettingsAndTheOptionsOverTheProfile() throws {
        let deep = try FocusOptions(shortBreak: .seconds(420), profile: "deep").resolve(settings: Self.settings)
        #expect(deep.plan.focus == .seconds(3000) && deep.plan.shortBreak == .seconds(420) && deep.plan.rounds == 6)
        #expect(deep.request.tags == ["deep"] && deep.words == ["brown=30"])
        let mine = try FocusOptions(quiet: true, tags: ["mine"], profile: "deep", words: ["rain=40"])
            .resolve(settings: Self.settings)
        #expect(mine.words == ["rain=40"] && mine.request.tags == ["mine"] && !mine.request.notify)
        #expect(!mine.request.bell)
        let silent = Settings(stored: ["profile.timer": "--no-sound --goal think"])
        let timer = try FocusOptions(profile: "timer").resolve(settings: silent)
        #expect(timer.noSound && timer.words.isEmpty && timer.request.goal == "think")
        // Sounds given win over the profile's --no-sound; a goal given wins over the profile's.
        let loud = try FocusOptions(goal: "write", profile: "timer", words: ["rain=40"]).resolve(settings: silent)
        #expect(!loud.noSound && loud.words == ["rain=40"] && loud.request.goal == "write")
    }

    @Test func anUnknownProfileIsAUsageErrorWithAHint() {
        let error = #expect(throws: FocusOptions.Problem.self) {
            try FocusOptions(profile: "deeep").resolve(settings: Self.settings)
        }
        #expect(
            error?.message
                == "there is no profile \"deeep\"; did you mean deep? save one with 'hum config set profile.deeep "
                + "\"--focus 50m ...\"'")
        #expect(error?.kind == .usage)
    }

    @Test func aPlanThatCannotRunIsAUsageError() {
        let error = #expect(throws: FocusPlan.Problem.self) {
            try FocusOptions(rounds: 0).resolve(settings: Self.settings)
        }
        #expect(error?.kind == .usage)
    }

    /// The saved focus.on-event is split as a shell would: quoted words stay whole; the option's words win.
    @Test func onEventComesFromTheOptionElseTheSetting() throws {
        let given = try FocusOptions(onEvent: ["notify-send", "hum says"]).resolve(settings: Self.settings)
        #expect(given.request.onEvent == ["notify-send", "hum says"])
        let savedQuoted = Settings(stored: ["focus.on-event": "sh -c 'echo $HUM_EVENT >> log'"], environment: [:])
        #expect(
            try FocusOptions().resolve(settings: savedQuoted).request.onEvent == ["sh", "-c", "echo $HUM_EVENT >> log"])
        let byEnvironment = Settings(stored: [:], environment: ["HUM_FOCUS_ON_EVENT": "say \"it is time\""])
        #expect(try FocusOptions().resolve(settings: byEnvironment).request.onEvent == ["say", "it is time"])
    }

    /// The sleep lock: off by default, on by the option, by the setting, or by its environment variable.
    @Test func inhibitIsOnByTheOptionOrTheSetting() throws {
        #expect(try FocusOptions().resolve(settings: Self.settings).request.inhibit == nil)
        #expect(try FocusOptions(inhibit: true).resolve(settings: Self.settings).request.inhibit == true)
        let inhibiting = Settings(stored: ["focus.inhibit": "on"], environment: [:])
        #expect(try FocusOptions().resolve(settings: inhibiting).request.inhibit == true)
        let byEnvironment = Settings(stored: [:], environment: ["HUM_FOCUS_INHIBIT": "on"])
        #expect(try FocusOptions().resolve(settings: byEnvironment).request.inhibit == true)
    }

    /// The request carries the bell and the notification to a player, and an older client's quiet too.
    @Test func theRequestTravelsAndAnOldQuietIsRead() throws {
        let request = try FocusOptions().resolve(settings: Self.settings).request
        let wire = try JSONEncoder().encode(request)
        #expect(try JSONDecoder().decode(FocusRequest.self, from: wire) == request)
        let old =
            #"{"focus_seconds":60,"short_break_seconds":60,"long_break_seconds":60,"long_break_every":4,"rounds":1,"fade_seconds":1,"auto_advance":"all","tags":[],"quiet":true}"#
        let decoded = try JSONDecoder().decode(FocusRequest.self, from: Data(old.utf8))
        #expect(!decoded.bell && !decoded.notify)
    }
}
