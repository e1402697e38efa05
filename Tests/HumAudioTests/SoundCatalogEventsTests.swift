import Foundation
import HumCore
import Testing

@testable import HumAudio

/// User folders with events, `sound.json`, and `NAME~N`, as the catalog reads them (files are named, not played).
@Suite struct SoundCatalogEventsTests {
    func touch(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: path))
    }

    @Test func aFolderWithABedAndEventsIsOneSoundWithItsSettings() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for file in [
            "storm/bed.flac", "storm/events/02.wav", "storm/events/01.ogg", "storm/events/notes.txt",
            "birds/events/a.wav", "empty/readme.txt", "bad/bed.wav", "bad/events/1.wav", ".hidden/bed.wav",
        ] {
            try touch(dir + "/" + file)
        }
        try Data(#"{"per_hour": 12, "gain_db_min": -9}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/storm/sound.json"))
        try Data(#"{"pan_min": -2}"#.utf8).write(to: URL(fileURLWithPath: dir + "/bad/sound.json"))
        let catalog = SoundCatalog(builtinDirectory: nil, userDirectory: dir)
        let folder = catalog.userFolder
        #expect(folder.sounds.map(\.name) == ["birds", "storm"])
        let storm = try #require(folder.sounds.first { $0.name == "storm" })
        #expect(storm.path == dir + "/storm/bed.flac")
        #expect(!storm.bedless)
        let events = try #require(storm.events)
        #expect(events.files == [dir + "/storm/events/01.ogg", dir + "/storm/events/02.wav"])
        #expect(events.perHour == 12 && events.minGapSeconds == 10)
        #expect(events.gainDBMin == -9 && events.gainDBMax == 0 && events.panMin == -0.5 && events.panMax == 0.5)
        let birds = try #require(folder.sounds.first { $0.name == "birds" })
        #expect(birds.bedless && birds.path == dir + "/birds/events/a.wav" && birds.events?.perHour == 30)
        let reasons = Dictionary(uniqueKeysWithValues: folder.unnamed.map { ($0.name, $0.reason) })
        #expect(reasons["empty"]?.contains("bed.EXT") == true)
        #expect(reasons["bad"]?.contains("pan_min") == true)
        #expect(reasons.count == 2)
    }

    @Test func aMarkedNamePlaysTheSoundAsEventsAlone() throws {
        let catalog = SoundCatalog(builtinDirectory: nil, userDirectory: temporaryDirectory())
        let sound = try #require(catalog.resolve("/tmp/owl.wav~6"))
        #expect(sound.name == "/tmp/owl.wav~6" && sound.title == "owl~6" && sound.path == "/tmp/owl.wav")
        #expect(sound.bedless && sound.events?.files == ["/tmp/owl.wav"])
        #expect(sound.events?.perHour == 6 && sound.events?.minGapSeconds == 10)
        // A high rate keeps the gap under a quarter of the mean time between events.
        #expect(catalog.resolve("/tmp/owl.wav~3600")?.events?.minGapSeconds == 0.25)
        // As a bed and as events: two sounds.
        #expect(catalog.resolve("/tmp/owl.wav")?.identity != sound.identity)
        #expect(catalog.resolve("nothing~6") == nil)
    }
}
