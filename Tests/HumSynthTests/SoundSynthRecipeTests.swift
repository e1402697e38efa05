import HumCore
import Testing

@testable import HumSynth

@Suite struct SoundSynthRecipeTests {
    static let ids = BuiltinSoundRecipes.all.map(\.id)
    static let shortFrames = 12_000

    @Test func theLibraryHasAtLeastTwentyDistinctShortLowercaseIDs() {
        #expect(Self.ids.count >= 20)
        #expect(Set(Self.ids).count == Self.ids.count)
        #expect(Set(BuiltinSoundRecipes.all.map(\.seed)).count == Self.ids.count)
        for id in [
            "white", "pink", "brown", "rain", "storm", "thunder", "wind", "waves", "stream", "boat", "fire", "crickets",
            "birds", "cafe", "city", "fan", "train", "plane", "clock", "heartbeat",
        ] {
            #expect(Self.ids.contains(id), "missing \(id)")
        }
        for r in BuiltinSoundRecipes.all {
            #expect(r.id.allSatisfy { $0.isLowercase && $0.isLetter } && r.id.count <= 10, "\(r.id)")
            #expect((30...120).contains(r.seconds))
            #expect(r.channels == 1 || r.channels == 2)
            #expect(r.recipe.hasPrefix(r.id + "/"))
        }
    }

    /// Same seed, same samples; another seed, other samples (a short render of each recipe).
    @Test(arguments: ids)
    func renderingIsDeterministic(id: String) throws {
        let recipe = try #require(BuiltinSoundRecipes.named(id))
        let a = recipe.render(frames: Self.shortFrames)
        let b = recipe.render(frames: Self.shortFrames)
        #expect(a == b)
        let other = recipe.render(frames: Self.shortFrames, seed: recipe.seed &+ 1)
        #expect(a != other)
        #expect(a.allSatisfy { channel in channel.allSatisfy { $0.isFinite } })
        #expect(a.allSatisfy { Loop.rms($0) > 0 })
    }

    /// Before any codec touches it, a rendered loop's end runs into its start like any two neighbouring frames.
    @Test(arguments: ids)
    func renderedLoopsJoinSeamlessly(id: String) throws {
        let recipe = try #require(BuiltinSoundRecipes.named(id))
        let channels = recipe.render(frames: Self.shortFrames)
        var interleaved = [Float](repeating: 0, count: Self.shortFrames * channels.count)
        for c in channels.indices {
            for f in 0..<Self.shortFrames { interleaved[f * channels.count + c] = channels[c][f] }
        }
        let continuity = LoopContinuity(interleaved: interleaved, channels: channels.count)
        #expect(
            continuity.seamStep <= continuity.ordinaryLargeStep,
            "\(id): seam \(continuity.seamStep), 99.9% of steps under \(continuity.ordinaryLargeStep)")
    }
}
