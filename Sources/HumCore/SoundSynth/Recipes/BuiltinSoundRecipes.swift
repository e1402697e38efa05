/// Every built-in sound, in the order `hum sounds` lists them.
public enum BuiltinSoundRecipes {
    public static let all: [SoundRecipe] = [
        NoiseRecipes.white, NoiseRecipes.pink, NoiseRecipes.brown,
    ]

    public static func named(_ id: String) -> SoundRecipe? { all.first { $0.id == id } }
}
