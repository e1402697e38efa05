import Foundation
import Testing

@testable import HumAudio
@testable import HumCore
@testable import HumPlayer

/// The sounds of a playing session change (add, remove, replace) through the API the player calls, on ALSA's
/// `null` device (which hum paces by the clock as a device would: the engine's releases come once a fade is over).
@Suite(.serialized) struct PlaybackSessionTests {
    final class Setup {
        let box = Sandbox()
        let environment: PlayerEnvironment
        let errors = Buffer()
        let released = DispatchSemaphore(value: 0)
        var paths: [String: String] = [:]

        init() throws {
            environment = box.environment(stderr: errors)
            var rng = SplitMix64(seed: 4)
            for (name, frequency) in [("a", 220.0), ("b", 330.0), ("c", 440.0)] {
                let tone = sine(frequency: frequency, frames: 24000).map { $0 + rng.nextSignedUnit() * 0.01 }
                paths[name] = try box.writeSound("\(name).wav", tone)
            }
        }

        /// The entries for words like `a=40` (the name is the file's).
        func entries(_ words: [String]) throws -> [MixEntry] {
            let resolved = words.map { word in
                let parts = word.split(separator: "=")
                return parts.count == 2 ? "\(paths[String(parts[0])] ?? String(parts[0]))=\(parts[1])" : word
            }
            return try MixSetup.resolve(
                words: resolved, catalog: MixSetup.catalog(environment), environment: environment
            ).entries
        }

        func session(_ words: [String]) throws -> PlaybackSession {
            let released = released
            return try PlaybackSession(
                entries: entries(words), device: "null", master: 100, fadeSeconds: 0, raw: true,
                environment: environment,
                onReleased: { released.signal() })
        }

        func loaded(_ session: PlaybackSession, _ entries: [MixEntry]) throws -> SoundLoad.Result {
            let done = DispatchSemaphore(value: 0)
            let load = session.load(entries) { done.signal() }
            #expect(done.wait(timeout: .now() + 20) == .success)
            return try #require(load.result)
        }

        func name(_ sound: String) -> String { paths[sound]! }
    }

    func stopped(_ session: PlaybackSession) {
        session.engine.abort()
        session.engine.wait(timeout: 5)
    }

    @Test func aSoundIsAddedWhilePlayingAndARemovedOneIsFreedOnceTheEngineLetGo() throws {
        let setup = try Setup()
        let session = try setup.session(["a=40"])
        defer { stopped(session) }
        let before = session.memoryBytes
        let wanted = try setup.entries(["a=40", "b=60"])
        let toLoad = session.toLoad(wanted)
        #expect(toLoad.map(\.sound.path) == [setup.name("b")])  // a plays already
        let result = try setup.loaded(session, toLoad)
        #expect(result.problems.isEmpty)
        try session.add(result.loaded[0], volume: 60)
        #expect(session.entries.map(\.sound.path) == [setup.name("a"), setup.name("b")])
        #expect(session.memoryBytes > before)
        #expect(throws: PlayerError.self) { try session.add(result.loaded[0], volume: 10) }  // already there

        try session.remove(setup.name("a"))
        #expect(session.entries.map(\.sound.path) == [setup.name("b")])
        #expect(setup.released.wait(timeout: .now() + 20) == .success)
        #expect(session.reclaim() == 1)
        #expect(session.memoryBytes < before + result.loaded[0].track.loop.memoryBytes)
        #expect(throws: PlayerError.usage("\"nothing\" is not playing; the mix has \(setup.name("b"))")) {
            try session.remove("nothing")
        }
        #expect(setup.errors.text.isEmpty)
    }

    @Test func aReplacedMixKeepsItsSharedSoundsInTheirSlotsAndLeavesOutWhatCouldNotLoad() throws {
        let setup = try Setup()
        let session = try setup.session(["a=40", "b=30"])
        defer { stopped(session) }
        let slotOfB = try #require(session.slot(of: setup.name("b")))
        let missing = setup.box.path("missing.wav")
        try setup.box.writeSound("missing.wav", [0.1, 0.2])
        let entries = try setup.entries(["b=20", "c=70", "\(missing)=50"])
        unlink(missing)  // resolved, then gone: it fails to load
        let toLoad = session.toLoad(entries)
        #expect(toLoad.map(\.sound.path) == [setup.name("c"), missing])
        let result = try setup.loaded(session, toLoad)
        #expect(result.loaded.map(\.entry.sound.path) == [setup.name("c")])
        #expect(result.problems.count == 1)
        let mix = Mix(tokens: entries.map(\.token), master: 80, name: "night")
        let playing = try session.replace(with: mix, entries: entries, loaded: result.loaded)
        #expect(playing.tracks.map(\.sound) == [setup.name("b"), setup.name("c")])
        #expect(playing.tracks.map(\.volume) == [20, 70])
        #expect(playing.name == nil)  // not the saved mix any more: a sound is missing
        #expect(session.slot(of: setup.name("b")) == slotOfB)
        #expect(session.controls.volume(track: slotOfB) == 20)
        #expect(session.controls.masterVolume == 80)
        #expect(setup.released.wait(timeout: .now() + 20) == .success)
        #expect(session.reclaim() == 1)  // a
        #expect(session.entries.map(\.sound.path) == [setup.name("b"), setup.name("c")])
    }

    @Test func aSoundAskedForAgainWhileItFadesOutIsBroughtBackNotLoadedAgain() throws {
        let setup = try Setup()
        let session = try setup.session(["a=40"])
        defer { stopped(session) }
        let slot = try #require(session.slot(of: setup.name("a")))
        try session.remove(setup.name("a"), fadeSeconds: 20_000)  // hours: it is still fading out below
        #expect(session.entries.isEmpty)
        let result = try setup.loaded(session, session.toLoad(try setup.entries(["a=55"])))
        try session.add(result.loaded[0], volume: 55)
        #expect(session.slot(of: setup.name("a")) == slot)
        #expect(session.controls.volume(track: slot) == 55)
        #expect(session.mixer.slots.playing == [slot])
        #expect(session.reclaim() == 0)
    }

    @Test func applyingTheMixTouchesOnlyWhatChanged() throws {
        let setup = try Setup()
        let session = try setup.session(["a=40", "b=30"])
        defer { stopped(session) }
        let entries = try setup.entries(["a=40", "b=10"])
        _ = try session.replace(
            with: Mix(tokens: entries.map(\.token)), entries: entries, loaded: [], fadeSeconds: 60)
        // The player applies its mix after the change: b's move over the crossfade must not be cut short.
        let b = try #require(session.slot(of: setup.name("b")))
        var mix = Mix(tokens: entries.map(\.token))
        session.apply(mix)
        #expect(session.controls.volume(track: b) == 10)
        #expect(session.controls.targetGain(track: b).rampFrames == 60 * session.mixer.sampleRate)
        mix.tracks[0].muted = true
        session.apply(mix)
        #expect(session.controls.isMuted(track: try #require(session.slot(of: setup.name("a")))))
    }
}
