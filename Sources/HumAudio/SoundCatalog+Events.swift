import HumCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Sounds with one-shot events among the user's own: a folder `NAME/` holding `bed.EXT` (the steady loop) and
/// `events/*.EXT` (the one-shots), with an optional `sound.json` giving the events' rate and spread in the
/// manifest's words; and any sound played as events alone, `NAME~N`.
extension SoundCatalog {
    /// Why a user folder cannot play, for people.
    public struct FolderProblem: Error, Equatable, Sendable {
        public var reason: String
    }

    /// The events of a user sound when its `sound.json` does not say: about 30 an hour, at least 10 s apart,
    /// −6 to 0 dB, within half of the stereo field either side.
    public static func userEvents(files: [String], perHour: Double = 30) -> SoundManifest.EventBank {
        SoundManifest.EventBank(
            files: files, perHour: perHour, minGapSeconds: min(10, 900 / perHour), gainDBMin: -6, gainDBMax: 0,
            panMin: -0.5, panMax: 0.5)
    }

    /// `sound.json` in a user folder: any of the manifest's event fields (the others keep their defaults), and
    /// the bed's `segments` as the manifest gives them.
    struct FolderSettings: Decodable {
        var segments: SoundManifest.Segments?
        var perHour: Double?
        var minGapSeconds: Double?
        var gainDBMin: Double?
        var gainDBMax: Double?
        var panMin: Double?
        var panMax: Double?

        enum CodingKeys: String, CodingKey {
            case segments
            case perHour = "per_hour"
            case minGapSeconds = "min_gap_seconds"
            case gainDBMin = "gain_db_min"
            case gainDBMax = "gain_db_max"
            case panMin = "pan_min"
            case panMax = "pan_max"
        }

        /// The bank with these settings over `bank`'s, or why they cannot be.
        func applied(to bank: SoundManifest.EventBank) -> Result<SoundManifest.EventBank, FolderProblem> {
            var b = bank
            if let perHour {
                guard perHour > 0, perHour <= MixSpec.maximumEventsPerHour else {
                    return .failure(.init(reason: "sound.json: per_hour must be above 0 and at most 3600"))
                }
                b.perHour = perHour
                b.minGapSeconds = min(b.minGapSeconds, 900 / perHour)
            }
            if let minGapSeconds {
                guard minGapSeconds >= 0, minGapSeconds <= 86400 else {
                    return .failure(.init(reason: "sound.json: min_gap_seconds must be from 0 to 86400"))
                }
                b.minGapSeconds = minGapSeconds
            }
            b.gainDBMin = gainDBMin ?? b.gainDBMin
            b.gainDBMax = gainDBMax ?? b.gainDBMax
            b.panMin = panMin ?? b.panMin
            b.panMax = panMax ?? b.panMax
            guard b.gainDBMin <= b.gainDBMax, b.gainDBMin >= -60, b.gainDBMax <= 12 else {
                return .failure(.init(reason: "sound.json: gain_db_min … gain_db_max must lie within -60 … 12"))
            }
            guard b.panMin <= b.panMax, b.panMin >= -1, b.panMax <= 1 else {
                return .failure(.init(reason: "sound.json: pan_min … pan_max must lie within -1 … 1"))
            }
            return .success(b)
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The audio files of a folder, sorted (hidden ones left out).
    static func audioFiles(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted().filter {
            !$0.hasPrefix(".") && audioExtensions.contains(PathText.extension($0).lowercased())
                && !isDirectory(directory + "/" + $0)
        }
    }

    /// The sound a folder of the user folder makes, or why it cannot play; nil for what is not a folder (or a
    /// hidden one).
    func userFolderSound(_ name: String) -> Result<SoundReference, FolderProblem>? {
        let directory = userDirectory + "/" + name
        guard !name.hasPrefix("."), SoundCatalog.isDirectory(directory) else { return nil }
        let bed = SoundCatalog.audioFiles(in: directory).first { PathText.removingExtension($0) == "bed" }
        let events = SoundCatalog.audioFiles(in: directory + "/events").map { directory + "/events/" + $0 }
        if bed == nil, events.isEmpty {
            return .failure(
                .init(reason: "holds no bed.EXT and no audio files in events/; see 'man hum' or docs/sounds.md"))
        }
        var settings: FolderSettings? = nil
        let settingsPath = directory + "/sound.json"
        if FileManager.default.fileExists(atPath: settingsPath) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: settingsPath))
                settings = try JSONDecoder().decode(FolderSettings.self, from: data)
            } catch {
                return .failure(.init(reason: "sound.json cannot be read: \(fileErrorText(error))"))
            }
        }
        var bank: SoundManifest.EventBank? = nil
        if !events.isEmpty {
            bank = SoundCatalog.userEvents(files: events)
            if let settings, let made = bank {
                switch settings.applied(to: made) {
                case .success(let b): bank = b
                case .failure(let problem): return .failure(problem)
                }
            }
        }
        if let problem = settings?.segments?.problem { return .failure(.init(reason: "sound.json: " + problem)) }
        return .success(
            SoundReference(
                name: name, title: name, path: bed.map { directory + "/" + $0 } ?? events[0], source: .user,
                loop: nil, loudnessLUFS: nil, events: bank, segments: bed == nil ? nil : settings?.segments,
                bedless: bed == nil))
    }

    /// `NAME~N`: the sound's events (or its file, when it has none) as one-shots alone, about N an hour.
    static func eventsAlone(_ sound: SoundReference, name: String, perHour: Double) -> SoundReference {
        var alone = sound
        alone.name = name
        alone.title = sound.title + "~" + MixSpec.formatVolume(perHour)  // told apart from the sound as a bed
        var bank = sound.events ?? userEvents(files: [sound.path])
        bank.minGapSeconds = min(bank.minGapSeconds, 900 / perHour)
        bank.perHour = perHour
        alone.events = bank
        alone.bedless = true
        alone.segments = nil
        return alone
    }
}
