import HumCore

/// Every built-in sound, in the order `hum sounds` lists them.
public enum BuiltinSoundRecipes {
    public static let all: [SoundRecipe] = [
        NoiseRecipes.white, NoiseRecipes.pink, NoiseRecipes.brown,
        WeatherRecipes.rain, WeatherRecipes.storm, ThunderRecipes.thunder, WeatherRecipes.wind,
        WaterRecipes.waves, WaterRecipes.stream, BoatRecipes.boat, FireRecipes.fire,
        CreatureRecipes.crickets, BirdRecipes.birds, CafeRecipes.cafe, CityRecipes.city,
        MachineRecipes.fan, MachineRecipes.train, MachineRecipes.plane,
        PulseRecipes.clock, PulseRecipes.heartbeat,
    ]

    public static func named(_ id: String) -> SoundRecipe? { all.first { $0.id == id } }
}
