import Foundation
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where a playable sound comes from.
public enum SoundSource: String, Sendable, Codable {
    case builtin = "built-in"
    case user
    case file
}

/// A sound that can be played: a built-in one, a user sound, or a path given on the command line.
public struct SoundReference: Sendable, Equatable {
    public var name: String
    public var title: String
    public var path: String
    public var source: SoundSource
    public var loop: SoundManifest.LoopMode?
    /// The loudness recorded in the manifest (built-in sounds), if known.
    public var loudnessLUFS: Double?
}

/// The sounds hum knows: the built-in library (Sounds/ with its manifest) and the user's folder.
public struct SoundCatalog: Sendable {
    public var builtinDirectory: String?
    public var manifest: SoundManifest?
    public var userDirectory: String
    /// A manifest that exists but could not be read, for people.
    public var manifestProblem: String?

    /// File extensions recognised as user sounds.
    public static let audioExtensions: Set<String> = [
        "wav", "flac", "ogg", "oga", "opus", "mp3", "aiff", "aif", "caf", "w64",
    ]

    public init(builtinDirectory: String?, userDirectory: String) {
        self.builtinDirectory = builtinDirectory
        self.userDirectory = userDirectory
        if let dir = builtinDirectory {
            let path = dir + "/sounds.json"
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                manifest = try JSONDecoder().decode(SoundManifest.self, from: data)
            } catch {
                manifestProblem = "cannot read the built-in sound list \(path): \(error.localizedDescription)"
            }
        }
    }

    /// Finds the built-in library: `$HUM_SOUNDS_DIR`, then `../share/hum/sounds` beside the executable (an
    /// installed hum), then the nearest `Sounds/` with a `sounds.json` above the executable (a build in the repo).
    public static func locateBuiltins(environment: [String: String]) -> String? {
        if let dir = environment["HUM_SOUNDS_DIR"], !dir.isEmpty { return dir }
        return searchedPlaces(environment: environment).first {
            FileManager.default.fileExists(atPath: $0 + "/sounds.json")
        }
    }

    /// Where the built-in library is looked for, in order: `$HUM_SOUNDS_DIR`, else next to an installed binary
    /// (`BIN/../share/hum/sounds`, what `make install` makes), then a `Sounds` folder beside the binary or above
    /// it (a build in the source tree).
    public static func searchedPlaces(environment: [String: String]) -> [String] {
        if let dir = environment["HUM_SOUNDS_DIR"], !dir.isEmpty { return [dir] }
        guard let exe = executablePath() else { return [] }
        var dir = (exe as NSString).deletingLastPathComponent
        var places = [
            ((dir as NSString).deletingLastPathComponent as NSString).appendingPathComponent("share/hum/sounds")
        ]
        while dir != "/" && !dir.isEmpty {
            places.append(dir + "/Sounds")
            dir = (dir as NSString).deletingLastPathComponent
        }
        return places
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var builtins: [SoundReference] {
        guard let manifest, let dir = builtinDirectory else { return [] }
        return manifest.sounds.map {
            SoundReference(
                name: $0.id, title: $0.title, path: dir + "/" + $0.file, source: .builtin,
                loop: $0.loop, loudnessLUFS: $0.loudnessLUFS)
        }
    }

    /// User sounds: every audio file in the user folder, named by its file name without extension, sorted.
    /// A built-in name wins over a user file of the same name.
    public var userSounds: [SoundReference] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: userDirectory) else { return [] }
        let builtinNames = Set(builtins.map(\.name))
        var seen = Set<String>()
        return names.sorted().compactMap { file in
            let ext = (file as NSString).pathExtension.lowercased()
            let name = (file as NSString).deletingPathExtension
            guard SoundCatalog.audioExtensions.contains(ext), !name.isEmpty, !name.hasPrefix("."),
                !builtinNames.contains(name), seen.insert(name).inserted
            else { return nil }
            return SoundReference(
                name: name, title: name, path: userDirectory + "/" + file, source: .user,
                loop: nil, loudnessLUFS: nil)
        }
    }

    public var all: [SoundReference] { builtins + userSounds }

    /// Whether a name on the command line means a file path rather than a library name.
    public static func looksLikePath(_ name: String) -> Bool {
        name.contains("/") || audioExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// Resolves a name to a sound: a library name first, then a path. Nil when it is neither.
    public func resolve(_ name: String) -> SoundReference? {
        if let known = all.first(where: { $0.name == name }) { return known }
        if SoundCatalog.looksLikePath(name) || FileManager.default.fileExists(atPath: name) {
            let base = ((name as NSString).lastPathComponent as NSString).deletingPathExtension
            return SoundReference(name: name, title: base, path: name, source: .file, loop: nil, loudnessLUFS: nil)
        }
        return nil
    }
}
