import HumCore

/// The three noise colours.
enum NoiseRecipes {
    static let white = SoundRecipe(
        id: "white", title: "White noise", category: "noise",
        description: "Equal energy at every frequency: a bright, even hiss.",
        seconds: 30, channels: 2, seed: 0x5748_4954_4531,
        recipe: "white/1: independent uniform white noise per channel, flat 20 Hz-24 kHz"
    ) { ctx in
        [ctx.noise(), ctx.noise()]
    }

    static let pink = SoundRecipe(
        id: "pink", title: "Pink noise", category: "noise",
        description: "Equal energy per octave: a softer, fuller hiss, like steady rain on a roof.",
        seconds: 30, channels: 2, seed: 0x50_494E_4B31,
        recipe: "pink/1: white noise through a -3 dB/octave pole-zero cascade from 10 Hz, independent per channel"
    ) { ctx in
        [ctx.pinkNoise(), ctx.pinkNoise()]
    }

    static let brown = SoundRecipe(
        id: "brown", title: "Brown noise", category: "noise",
        description: "Falling 6 dB per octave: a deep, soft rumble, like a distant waterfall.",
        seconds: 30, channels: 2, seed: 0x42_524F_574E,
        recipe:
            "brown/1: white noise through a one-pole low-pass at 20 Hz and a 16 Hz high-pass; channels 50% correlated"
    ) { ctx in
        let common = ctx.brownNoise()
        let left = ctx.brownNoise()
        let right = ctx.brownNoise()
        return ctx.blend(common: common, left: left, right: right, correlation: 0.5)
    }
}
