import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The cache of finished loops (`LoopCache`): a loop built once is stored, mapped from its file, and found again
/// the same to the sample; a file that is not sound is rebuilt, never trusted; a cache that cannot be written
/// leaves the loop in memory.
@Suite struct LoopCacheTests {
    static func samples(_ loop: LoopBuffer) -> [Int16] {
        loop.withSamples { Array($0) }
    }

    /// A user's file of noise (so it gets a seam and is loudness-matched) at 44.1 kHz, played at 48 kHz.
    static func userSound(_ dir: String, seconds: Double = 3, channels: Int = 2) throws -> SoundReference {
        let path = "\(dir)/noise.wav"
        var rng = SplitMix64(seed: 3)
        var y: Float = 0
        let samples = (0..<(Int(44100 * seconds) * channels)).map { _ -> Float in
            y = 0.97 * y + 0.03 * rng.nextSignedUnit()
            return y * 3
        }
        try writeFile(path, samples, rate: 44100, channels: channels, format: .s16)
        return SoundReference(name: "noise", title: "noise", path: path, source: .user, loop: nil, loudnessLUFS: nil)
    }

    static func matching(_ dir: String) -> LoudnessMatching {
        LoudnessMatching(loudness: UserSoundLoudness(cacheDirectory: dir + "/cache"), targetLUFS: -30)
    }

    static func cacheFiles(_ cache: LoopCache) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.directory)) ?? []).sorted()
    }

    @Test(arguments: [SpeakerSize.full, .small])
    func aLoopIsStoredThenFoundTheSameToTheSample(speakers: SpeakerSize) throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir)
        let matching = Self.matching(dir)
        let built = try TrackLoader.load(sound, outputRate: 48000, matching: matching, speakers: speakers)
        let cache = LoopCache(cacheDirectory: dir + "/cache")
        let stored = try TrackLoader.load(
            sound, outputRate: 48000, matching: matching, speakers: speakers, cache: cache)
        #expect(cache.report == LoopCache.Counts(found: 0, stored: 1, problem: nil))
        #expect(Self.cacheFiles(cache).count == 1 && Self.cacheFiles(cache)[0].hasSuffix(".pcm"))
        let found = try TrackLoader.load(
            sound, outputRate: 48000, matching: matching, speakers: speakers, cache: cache)
        #expect(cache.report == LoopCache.Counts(found: 1, stored: 1, problem: nil))
        for track in [stored, found] {
            #expect(track.loop.frames == built.loop.frames && track.loop.channels == built.loop.channels)
            #expect(track.normalization == built.normalization)
            #expect(Self.samples(track.loop) == Self.samples(built.loop))
            // Played from the file: the loop lies in a mapping of it.
            #expect(Self.mapping(of: track.loop)?.contains(cache.directory) == true)
        }
        #expect(Self.mapping(of: built.loop)?.contains(cache.directory) != true)
        // Another rate, other speakers or no loudness matching: another loop.
        _ = try TrackLoader.load(sound, outputRate: 44100, matching: matching, speakers: speakers, cache: cache)
        _ = try TrackLoader.load(sound, outputRate: 48000, matching: nil, speakers: speakers, cache: cache)
        #expect(cache.report.stored == 3 && Self.cacheFiles(cache).count == 3)
    }

    /// Rendering builds on all cores and syncs the files beside (`.fastest`), playing one loop at a time
    /// (`.leanest`): the same loops, every one stored under its name, and found again by either.
    @Test func bothPacesBuildTheSameLoopsAndStoreEveryOne() throws {
        let dir = temporaryDirectory()
        var sounds: [SoundReference] = []
        for (i, channels) in [1, 2, 1, 2, 2].enumerated() {
            let sub = dir + "/s\(i)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            sounds.append(try Self.userSound(sub, seconds: 1 + Double(i) / 3, channels: channels))
        }
        let plain = TrackLoader.loadAll(sounds, outputRate: 48000).map { try? $0.get() }
        for pace in [LoadingPace.fastest, .leanest] {
            let cache = LoopCache(cacheDirectory: dir + "/cache-\(pace)")
            let built = TrackLoader.loadAll(sounds, outputRate: 48000, cache: cache, pace: pace).map { try? $0.get() }
            cache.waitForStores()  // .fastest syncs and renames the files beside
            #expect(cache.report == LoopCache.Counts(found: 0, stored: sounds.count, problem: nil), "\(pace)")
            // Every file under its name, none left temporary.
            #expect(Self.cacheFiles(cache).filter { $0.hasSuffix(".pcm") }.count == sounds.count, "\(pace)")
            #expect(Self.cacheFiles(cache).count == sounds.count, "\(pace)")
            let found = TrackLoader.loadAll(sounds, outputRate: 48000, cache: cache, pace: pace).map { try? $0.get() }
            #expect(cache.report.found == sounds.count, "\(pace)")
            for i in sounds.indices {
                let expected = try #require(plain[i]).loop
                for track in [built[i], found[i]] {
                    #expect(track.map { Self.samples($0.loop) } == Self.samples(expected), "\(pace) \(i)")
                }
            }
        }
    }

    @Test func aChangedSourceFileIsBuiltAgain() throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir, seconds: 2)
        let cache = LoopCache(cacheDirectory: dir + "/cache")
        _ = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        let other = sine(frequency: 300, rate: 44100, frames: 44100 * 2, channels: 2)
        try writeFile(sound.path, other, rate: 44100, channels: 2, format: .s16)
        let again = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        #expect(cache.report.found == 0 && cache.report.stored == 2)
        #expect(Self.samples(again.loop) == Self.samples(try TrackLoader.load(sound, outputRate: 48000).loop))
    }

    /// Damage done to the stored file: the load must not trust it, and builds the loop again.
    enum Damage: CaseIterable {
        case magic, version, channels, shortData, longData, key, empty, directoryInstead
    }

    @Test(arguments: Damage.allCases)
    func aFileThatIsNotSoundIsBuiltAgainNeverTrusted(damage: Damage) throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir, seconds: 2)
        let cache = LoopCache(cacheDirectory: dir + "/cache")
        let built = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        let path = cache.directory + "/" + Self.cacheFiles(cache)[0]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        switch damage {
        case .magic: bytes[0] ^= 0xFF
        case .version: bytes[8] = 99
        case .channels: bytes[12] = 3
        case .shortData: bytes.removeLast(2)
        case .longData: bytes += [0, 0]
        case .key: bytes[40 + 20] ^= 0x01  // the key text: another file's loop under this name
        case .empty: bytes = []
        case .directoryInstead: break
        }
        try FileManager.default.removeItem(atPath: path)
        if damage == .directoryInstead {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } else {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let again = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        #expect(cache.report.found == 0)
        #expect(Self.samples(again.loop) == Self.samples(built.loop))
        if damage != .directoryInstead {
            #expect(cache.report.stored == 2)  // rebuilt, and stored over the bad file
            _ = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
            #expect(cache.report.found == 1)
        }
    }

    @Test func aCacheThatCannotBeWrittenLeavesTheLoopInMemory() throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir, seconds: 2)
        FileManager.default.createFile(atPath: dir + "/file", contents: Data())
        let cache = LoopCache(cacheDirectory: dir + "/file")  // a file where the directory should be
        let track = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        #expect(cache.report.stored == 0)
        #expect(cache.report.problem?.contains("not a directory") == true, "\(cache.report)")
        #expect(Self.samples(track.loop) == Self.samples(try TrackLoader.load(sound, outputRate: 48000).loop))
    }

    @Test func pruningKeepsTheBudgetOldestUsedFirstAndSweepsOldTemporaryFiles() throws {
        let dir = temporaryDirectory()
        let cache = LoopCache(cacheDirectory: dir)
        #expect(LoopCache.makeDirectory(cache.directory) == nil)
        let now = Int(time(nil))
        func make(_ name: String, bytes: Int, usedSecondsAgo: Int) {
            let path = cache.directory + "/" + name
            FileManager.default.createFile(atPath: path, contents: Data(count: bytes))
            var times = [
                timespec(tv_sec: now - usedSecondsAgo, tv_nsec: 0), timespec(tv_sec: now - usedSecondsAgo, tv_nsec: 0),
            ]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        make("a.pcm", bytes: 400, usedSecondsAgo: 50)
        make("b.pcm", bytes: 400, usedSecondsAgo: 10)
        make("c.pcm", bytes: 400, usedSecondsAgo: 90)
        make("d.pcm", bytes: 10, usedSecondsAgo: 31 * 86_400)
        make("x.pcm.1.2.tmp", bytes: 10, usedSecondsAgo: 7200)
        make("y.pcm.1.3.tmp", bytes: 10, usedSecondsAgo: 60)  // perhaps still being written
        make("kept.pcm", bytes: 400, usedSecondsAgo: 1000)
        make("notes.txt", bytes: 10, usedSecondsAgo: 1000)
        cache.prune(keeping: cache.directory + "/kept.pcm", now: now, budget: 1000)
        #expect(Self.cacheFiles(cache) == ["b.pcm", "kept.pcm", "notes.txt", "y.pcm.1.3.tmp"])
    }

    // MARK: The pager

    /// The line of /proc/self/maps of the mapping holding a loop's samples.
    /// Read up to five times: /proc/self/maps is read a page at a time, and while other tests' threads map and
    /// unmap, a read can miss a line.
    static func mapping(of loop: LoopBuffer) -> String? {
        let address = UInt(bitPattern: loop.samples)
        for _ in 0..<5 {
            let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
            let line = maps.split(separator: "\n").first { line in
                let range = line.split(separator: " ")[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
                return range.count == 2 && address >= range[0] && address < range[1]
            }
            if let line { return String(line) }
        }
        return nil
    }

    /// The resident size of a loop's samples, in kB: the Rss of every mapping (/proc/self/smaps) that overlaps them
    /// (locking splits a file's mapping into several).
    static func residentKB(_ loop: LoopBuffer) -> Int {
        let first = UInt(bitPattern: loop.samples)
        let last = first + UInt(loop.frames * loop.channels * 2)
        // Read line by line (a proc file's size is 0, and smaps is long).
        guard let file = fopen("/proc/self/smaps", "r") else { return -1 }
        defer { fclose(file) }
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        var inside = false
        var total = 0
        while getline(&buffer, &capacity, file) > 0, let buffer {
            let l = String(cString: buffer)
            let range = l.split(separator: " ")[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            if range.count == 2, l.split(separator: " ").count >= 5 {
                inside = range[0] < last && range[1] > first
            } else if inside, l.hasPrefix("Rss:") {
                total += Int(l.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
            }
        }
        return total
    }

    /// Minor and major page faults of the calling thread.
    static func faults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD
        return usage.ru_minflt + usage.ru_majflt
    }

    /// A mixer playing `track` for `seconds`, rendered in 1024-frame blocks on this thread, with the pager's pass
    /// (if any) every second; returns the page faults taken while rendering and the largest resident size of the
    /// loop's mapping seen.
    static func play(_ track: Mixer.Track, seconds: Int, pager: Bool) -> (faults: Int, peakKB: Int) {
        let controls = MixerControls(volumes: [50])
        let mixer = Mixer(sampleRate: 48000, tracks: [track], controls: controls, eventSeed: 11)
        let keeper = LoopPager(controls: controls, sampleRate: 48000)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 1024)
        defer { out.deallocate() }
        out.update(repeating: 0, count: 2 * 1024)
        _ = mixer.render(into: out, frames: 1024)  // first block: the mixer's own first touches
        var faults = 0
        var peak = 0
        var rendered = 1024
        while rendered < seconds * 48000 {
            if pager, rendered % 48000 < 1024 { keeper.pass() }
            if rendered % 48000 < 1024 { peak = max(peak, residentKB(track.loop)) }
            let before = Self.faults()
            _ = mixer.render(into: out, frames: 1024)
            faults += Self.faults() - before
            rendered += 1024
        }
        return (faults, max(peak, residentKB(track.loop)))
    }

    @Test func thePagerKeepsAFewSecondsResidentAndTheAudioThreadNeverFaults() throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir, seconds: 40)  // 40 s of stereo: 7.4 MB at 48 kHz
        let cache = LoopCache(cacheDirectory: dir + "/cache")
        let track = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        #expect(cache.report.stored == 1)
        let paged = Self.play(track, seconds: 70, pager: true)
        // 4 s ahead plus the second since the last pass, at 192 kB a second: about 1 MB, not 7.4.
        #expect(paged.faults == 0)
        #expect(paged.peakKB > 0 && paged.peakKB < 1400, "\(paged)")
        // Without the pager the same play faults its pages in, and keeps them.
        let found = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        let unpaged = Self.play(found, seconds: 70, pager: false)
        #expect(unpaged.faults > 0)
        #expect(unpaged.peakKB > 6000, "\(unpaged)")
    }

    @Test func aBedInSegmentsHasItsNextJoinResidentBeforeItComes() throws {
        let dir = temporaryDirectory()
        let sound = try Self.userSound(dir, seconds: 60)
        let cache = LoopCache(cacheDirectory: dir + "/cache")
        var track = try TrackLoader.load(sound, outputRate: 48000, cache: cache)
        track.segments = BedSegments(
            name: "noise", segmentSeconds: 3...6, crossfadeSeconds: 1, sampleRate: 48000)
        let paged = Self.play(track, seconds: 90, pager: true)
        #expect(paged.faults == 0)
        // Where it is up to its next crossfade's end, and the next join for what is left of the 4 s once it comes
        // (in a crossfade, the stretch coming in too): about what a loop played round and round keeps, not 4 s more
        // per place it reads (2.3 MB), nor the 11 MB loop.
        #expect(paged.peakKB > 0 && paged.peakKB < 1400, "\(paged)")
    }
}
