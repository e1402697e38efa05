import HumCore

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The loudness of user sounds (files dropped into `$XDG_DATA_HOME/hum/sounds/`), measured once and remembered in
/// `$XDG_CACHE_HOME/hum/loudness.json`, keyed by path, size and modification time: a file that changes is
/// measured again, one that does not is never decoded twice just to learn its loudness.
///
/// The cache only remembers measurements; it never decides what exists. An entry whose file went missing stays
/// (it costs a line) and nothing here deletes or renames a user's file.
public struct UserSoundLoudness: Sendable {
    /// The cache file, e.g. `~/.cache/hum/loudness.json`.
    public let cachePath: String
    let measure: @Sendable (String) throws -> LoudnessMeasurement

    public init(cacheDirectory: String) {
        self.init(cacheDirectory: cacheDirectory, measure: UserSoundLoudness.measureFile)
    }

    /// The cache under `HumPaths(environment:).cacheDirectory`.
    public init(environment: [String: String]) {
        self.init(cacheDirectory: HumPaths(environment: environment).cacheDirectory)
    }

    init(cacheDirectory: String, measure: @escaping @Sendable (String) throws -> LoudnessMeasurement) {
        self.cachePath = cacheDirectory + "/loudness.json"
        self.measure = measure
    }

    /// The linear gain that brings `path` to `targetLUFS`, measuring it only if the cache has no measurement of
    /// this very file (same path, size and modification time). The gain is held down where reaching the target
    /// would lift the file's true peak above -1 dBTP, and a silent file gets 1 (nothing to bring up).
    public func gain(forFile path: String, targetLUFS: Double) throws -> Float {
        let m = try measurement(forFile: path)
        return Self.gain(for: m, targetLUFS: targetLUFS)
    }

    static func gain(for m: LoudnessMeasurement, targetLUFS: Double) -> Float {
        guard m.integratedLUFS.isFinite else { return 1 }
        var db = targetLUFS - m.integratedLUFS
        if m.truePeakDBTP.isFinite { db = min(db, peakCeilingDBTP - m.truePeakDBTP) }
        return Float(pow(10, db / 20))
    }

    /// The highest true peak a user sound is lifted to.
    public static let peakCeilingDBTP = -1.0

    /// The gain for a file the loader decoded to 16-bit samples (full scale 32768): a cache miss measures these
    /// samples instead of decoding the file a second time.
    func gain(
        forFile path: String, samples: UnsafeBufferPointer<Int16>, channels: Int, sampleRate: Int,
        targetLUFS: Double
    ) throws -> Float {
        let m = try measurement(forFile: path) { _ in
            let meter = try LoudnessMeter(channels: channels, sampleRate: sampleRate, histogram: true)
            // As float, a block at a time (the values are exactly those of the file decoded to float).
            let block = 65536 * channels
            var floats = [Float](repeating: 0, count: min(block, samples.count))
            var done = 0
            while done < samples.count {
                let n = min(block, samples.count - done)
                try floats.withUnsafeMutableBufferPointer { (f) throws(LoudnessError) in
                    for i in 0..<n { f[i] = Float(samples[done + i]) / 32768 }
                    try meter.add(UnsafeBufferPointer(rebasing: f[..<n]))
                }
                done += n
            }
            return try meter.measurement()
        }
        return Self.gain(for: m, targetLUFS: targetLUFS)
    }

    /// The measurement of `path`, from the cache when it knows this version of the file.
    public func measurement(forFile path: String) throws -> LoudnessMeasurement {
        try measurement(forFile: path, onMiss: measure)
    }

    func measurement(forFile path: String, onMiss measure: (String) throws -> LoudnessMeasurement) throws
        -> LoudnessMeasurement
    {
        let key = try FileKey(path: path)
        var cache = load()
        if let hit = cache.files.first(where: { $0.path == key.path }), hit.size == key.size,
            hit.modifiedNanoseconds == key.modifiedNanoseconds
        {
            return hit.measurement
        }
        let m = try measure(key.path)
        cache.files.removeAll { $0.path == key.path }
        cache.files.append(CacheFile.Entry(key: key, measurement: m))
        cache.files.sort { $0.path < $1.path }
        // A cache that cannot be written only costs a measurement next time: not worth failing playback for.
        try? save(cache)
        return m
    }

    /// Decodes and measures a whole file (mono as dual mono).
    @Sendable static func measureFile(_ path: String) throws -> LoudnessMeasurement {
        let audio = try AudioFileReader.decode(path: path)
        let meter = try LoudnessMeter(channels: audio.channels, sampleRate: audio.sampleRate, histogram: true)
        try meter.add(audio.samples)
        return try meter.measurement()
    }

    // MARK: - The cache file

    struct FileKey: Equatable {
        var path: String
        var size: Int64
        var modifiedNanoseconds: Int64

        init(path: String) throws(AudioFileError) {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw AudioFileError(
                    path: path, reason: errno == ENOENT ? "no such file" : String(cString: strerror(errno)))
            }
            self.path = path
            self.size = Int64(st.st_size)
            self.modifiedNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        }
    }

    struct CacheFile: Codable {
        static let currentSchema = "hum.loudness-cache/1"
        var schema = CacheFile.currentSchema
        var files: [Entry] = []

        struct Entry: Codable {
            var path: String
            var size: Int64
            var modifiedNanoseconds: Int64
            /// nil for silence (JSON has no infinity).
            var loudnessLUFS: Double?
            var truePeakDBTP: Double?
            var samplePeakDBFS: Double?

            init(key: FileKey, measurement m: LoudnessMeasurement) {
                path = key.path
                size = key.size
                modifiedNanoseconds = key.modifiedNanoseconds
                loudnessLUFS = m.integratedLUFS.isFinite ? m.integratedLUFS : nil
                truePeakDBTP = m.truePeakDBTP.isFinite ? m.truePeakDBTP : nil
                samplePeakDBFS = m.samplePeakDBFS.isFinite ? m.samplePeakDBFS : nil
            }

            var measurement: LoudnessMeasurement {
                LoudnessMeasurement(
                    integratedLUFS: loudnessLUFS ?? -.infinity, truePeakDBTP: truePeakDBTP ?? -.infinity,
                    samplePeakDBFS: samplePeakDBFS ?? -.infinity)
            }

            enum CodingKeys: String, CodingKey {
                case path, size
                case modifiedNanoseconds = "mtime_ns"
                case loudnessLUFS = "loudness_lufs"
                case truePeakDBTP = "true_peak_dbtp"
                case samplePeakDBFS = "sample_peak_dbfs"
            }
        }
    }

    /// The cache as stored; an unreadable or foreign file counts as empty (it is rebuilt on the next save).
    func load() -> CacheFile {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: cachePath)),
            let cache = try? JSONDecoder().decode(CacheFile.self, from: data),
            cache.schema == CacheFile.currentSchema
        else { return CacheFile() }
        return cache
    }

    func save(_ cache: CacheFile) throws {
        let directory = String(cachePath[..<(cachePath.lastIndex(of: "/") ?? cachePath.endIndex)])
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(cache).write(to: URL(fileURLWithPath: cachePath), options: .atomic)
    }
}
