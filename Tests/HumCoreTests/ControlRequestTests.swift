import Foundation
import Testing

@testable import HumCore

/// Requests as a client may send them: every number is checked where it enters, against the range docs/control.md
/// gives, and a wrong one is refused with what is wanted and what came.
@Suite struct ControlRequestTests {
    /// The refusal a line gets (nil when it decodes).
    func refusal(_ line: String) -> ControlRequest.Refusal? {
        do {
            _ = try JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8))
            return nil
        } catch let refusal as ControlRequest.Refusal {
            return refusal
        } catch {
            return ControlRequest.Refusal(message: ControlRequest.describe(error))
        }
    }

    func decode(_ line: String) throws -> PlayerCommand {
        try JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)).command
    }

    static let extendWanted = "\"seconds\" must be a whole number of seconds from 1 to 86400 (24 h); got "

    @Test(arguments: [
        (#"{"id":2,"cmd":"extend","seconds":-5}"#, extendWanted + "-5"),
        (#"{"id":2,"cmd":"extend","seconds":0}"#, extendWanted + "0"),
        (#"{"id":2,"cmd":"extend","seconds":86401}"#, extendWanted + "86401"),
        (#"{"id":2,"cmd":"extend","seconds":9223372036854775807}"#, extendWanted + "9223372036854775807"),
        (#"{"id":2,"cmd":"extend","seconds":92233720368547758070}"#, extendWanted + "9.223372036854776e+19"),
        (#"{"id":2,"cmd":"extend","seconds":1.5}"#, extendWanted + "1.5"),
        (#"{"id":2,"cmd":"volume","sound":"rain","volume":-1}"#, "\"volume\" must be a number from 0 to 100; got -1"),
        (#"{"id":2,"cmd":"master","volume":100.5}"#, "\"volume\" must be a number from 0 to 100; got 100.5"),
        (#"{"id":2,"cmd":"add","sound":"rain","volume":1000}"#, "\"volume\" must be a number from 0 to 100; got 1000"),
        (
            #"{"id":2,"cmd":"play","mix":{"tracks":[{"sound":"rain","volume":40},{"sound":"fan","volume":300}]}}"#,
            "\"mix.tracks[1].volume\" must be a number from 0 to 100; got 300"
        ),
        (
            #"{"id":2,"cmd":"play","mix":{"tracks":[{"sound":"rain","volume":40}],"master":-3}}"#,
            "\"mix.master\" must be a number from 0 to 100; got -3"
        ),
        (
            #"{"id":2,"cmd":"play","mix":{"tracks":[{"sound":"","volume":40}]}}"#,
            "\"mix.tracks[0].sound\" must name a sound in 1 to 4096 bytes"
        ),
    ])
    func aNumberOutOfItsRangeIsRefusedWithTheRequestsID(line: String, message: String) {
        #expect(refusal(line) == ControlRequest.Refusal(message: message, id: 2))
    }

    @Test func theEdgesOfEachRangeAreTaken() throws {
        #expect(try decode(#"{"cmd":"extend","seconds":1}"#) == .extend(seconds: 1))
        #expect(try decode(#"{"cmd":"extend","seconds":86400}"#) == .extend(seconds: 86400))
        #expect(try decode(#"{"cmd":"extend"}"#) == .extend(seconds: nil))
        #expect(try decode(#"{"cmd":"extend","seconds":null}"#) == .extend(seconds: nil))
        #expect(try decode(#"{"cmd":"master","volume":0}"#) == .master(volume: 0))
        #expect(try decode(#"{"cmd":"master","volume":100}"#) == .master(volume: 100))
        #expect(try decode(#"{"cmd":"add","sound":"rain"}"#) == .add(sound: "rain", volume: Volume.default))
    }

    /// A relative step is its own request (`by`), so the player computes it from where the volume is.
    @Test func aRelativeStepIsItsOwnRequest() throws {
        #expect(try decode(#"{"cmd":"volume","sound":"rain","by":-5}"#) == .volumeBy(sound: "rain", step: -5))
        #expect(try decode(#"{"cmd":"master","by":12.5}"#) == .masterBy(step: 12.5))
        #expect(
            refusal(#"{"id":2,"cmd":"master","by":101}"#)
                == ControlRequest.Refusal(message: "\"by\" must be a number from -100 to 100; got 101", id: 2))
        #expect(
            refusal(#"{"id":2,"cmd":"volume","sound":"rain","by":5,"volume":40}"#)?.message.contains("not both") == true
        )
        for command in [PlayerCommand.volumeBy(sound: "rain", step: 5), .masterBy(step: -10)] {
            let line = try JSONEncoder().encode(ControlRequest(id: 3, command: command))
            #expect(try JSONDecoder().decode(ControlRequest.self, from: line).command == command)
        }
    }

    @Test func anIDThatIsNotAnIntegerIsSaidToBeSo() {
        #expect(refusal(#"{"id":1.5,"cmd":"status"}"#)?.message == "\"id\" must be an integer; got 1.5")
        #expect(refusal(#"{"id":"7","cmd":"status"}"#)?.message == "not a request: \"id\" must be an integer")
        #expect(refusal(#"{"id":1e30,"cmd":"status"}"#)?.message == "\"id\" must be an integer; got 1e+30")
        #expect(
            refusal(#"{"v":1.5,"id":4,"cmd":"status"}"#) == .init(message: "\"v\" must be an integer; got 1.5", id: 4))
        #expect(refusal(#"{"id":-4,"cmd":"status"}"#) == nil, "any 64-bit integer is an id")
    }

    @Test func aMixOfMoreSoundsThanAMixHoldsIsSaidToBeSo() {
        let tracks = Array(repeating: #"{"sound":"rain","volume":1}"#, count: 70).joined(separator: ",")
        let refused = refusal(#"{"id":9,"cmd":"play","mix":{"tracks":["# + tracks + "]}}")
        #expect(refused == .init(message: "\"mix.tracks\" has 70 sounds; a mix has at most 64", id: 9))
        let full = Array(repeating: #"{"sound":"rain","volume":1}"#, count: 64).joined(separator: ",")
        #expect(refusal(#"{"id":9,"cmd":"play","mix":{"tracks":["# + full + "]}}") == nil)
    }

    @Test func aMissingOrMistypedFieldIsNamedByItsPath() {
        #expect(refusal(#"{"id":5,"cmd":"master"}"#) == .init(message: "not a request: missing \"volume\"", id: 5))
        #expect(
            refusal(#"{"id":5,"cmd":"master","volume":"loud"}"#)
                == .init(message: "not a request: \"volume\" must be a number", id: 5))
        #expect(
            refusal(#"{"id":5,"cmd":"play","mix":{"tracks":[{"volume":3}]}}"#)
                == .init(message: "not a request: missing \"mix.tracks[0].sound\"", id: 5))
        #expect(refusal("{not json")?.message == "not a request: invalid JSON")
        #expect(refusal("[1]")?.message.hasPrefix("not a request: a request is a JSON object") == true)
    }

    /// Every number of a focus request is checked against what a plan takes (FocusPlan), not clamped into it.
    @Test(arguments: [
        (
            "focus_seconds", "0",
            "\"focus.focus_seconds\" must be a number of seconds from 1 to 31622400 (a year); got 0"
        ),
        (
            "short_break_seconds", "1e12",
            "\"focus.short_break_seconds\" must be a number of seconds from 1 to 31622400 (a year); got 1000000000000"
        ),
        (
            "long_break_seconds", "-60",
            "\"focus.long_break_seconds\" must be a number of seconds from 1 to 31622400 (a year); got -60"
        ),
        (
            "fade_seconds", "-1",
            "\"focus.fade_seconds\" must be a number of seconds from 0 to 31622400 (a year); got -1"
        ),
        ("rounds", "0", "\"focus.rounds\" must be a whole number from 1 to 1000; got 0"),
        ("rounds", "2.5", "\"focus.rounds\" must be a whole number from 1 to 1000; got 2.5"),
        ("long_break_every", "-1", "\"focus.long_break_every\" must be a whole number from 0 to 1000; got -1"),
        (
            "auto_advance", "\"sometimes\"",
            "\"focus.auto_advance\" must be one of all, none, to-break, to-focus; got \"sometimes\""
        ),
    ])
    func aFocusRequestOutOfRangeIsRefused(field: String, value: String, message: String) throws {
        var fields: [String: String] = [
            "focus_seconds": "1500", "short_break_seconds": "300", "long_break_seconds": "900",
            "long_break_every": "4", "rounds": "4", "fade_seconds": "10", "auto_advance": "\"all\"", "tags": "[]",
        ]
        let good = "{" + fields.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        guard case .focus = try decode(#"{"cmd":"focus","focus":"# + good + "}") else {
            Issue.record("the good request did not decode")
            return
        }
        fields[field] = value
        let bad = "{" + fields.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        #expect(refusal(#"{"id":3,"cmd":"focus","focus":"# + bad + "}") == .init(message: message, id: 3))
    }

    /// −0 is read as 0 wherever a volume enters, so it is never shown as `-0`.
    @Test func negativeZeroIsReadAsZero() throws {
        guard case .master(let master) = try decode(#"{"cmd":"master","volume":-0.0}"#) else {
            Issue.record("not a master request")
            return
        }
        #expect(master.sign == .plus)
        guard
            case .play(let mix) = try decode(
                #"{"cmd":"play","mix":{"tracks":[{"sound":"a","volume":-0}],"master":-0}}"#)
        else {
            Issue.record("not a play request")
            return
        }
        #expect(mix.master.sign == .plus && mix.tracks[0].volume.sign == .plus)
        let reply = String(
            decoding: try JSONEncoder().encode(mix), as: UTF8.self)
        #expect(!reply.contains("-0"), "\(reply)")

        var playing = Mix(tracks: [.init(sound: "rain", volume: 40)])
        try playing.setMaster(-0.0)
        try playing.setVolume(-0.0, of: "rain")
        #expect(playing.master.sign == .plus && playing.tracks[0].volume.sign == .plus)
        #expect(try MixSpec.parse("rain=-0").volume.sign == .plus)
        #expect(MixSpec.formatVolume(-0.0) == "0")
        #expect(MixSpec.formatVolume(1e300) == "1e+300", "no crash on a number an Int cannot hold")
        #expect(String(decoding: try CompactJSONEncoder().encode([-0.0]), as: UTF8.self) == "[0]")
    }
}
