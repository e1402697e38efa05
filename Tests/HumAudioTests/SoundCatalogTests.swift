import Foundation
import HumCore
import Testing

@testable import HumAudio

/// The user folder: no file is hidden without a reason, names with `=` stay playable, and what is not a regular
/// file is called what it is.
@Suite struct SoundCatalogTests {
    static let builtins = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sounds").path

    func folder(_ files: [String]) throws -> (SoundCatalog, String) {
        let dir = temporaryDirectory()
        for file in files {
            try writeFile(
                dir + "/" + file, [Float](repeating: 0.1, count: 4800), rate: 48000, channels: 1, format: .s16)
        }
        return (SoundCatalog(builtinDirectory: Self.builtins, userDirectory: dir), dir)
    }

    @Test func namesTakenElsewhereAreListedWithTheirReason() throws {
        let (catalog, dir) = try folder(["rain.wav", "mine.flac", "mine.wav", "a=b.wav", "rain=40.wav", "x=1=2.wav"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(catalog.builtins.contains { $0.name == "rain" })
        let user = catalog.userFolder
        #expect(user.sounds.map(\.name) == ["a=b", "mine", "x=1=2"])
        #expect(user.sounds.first { $0.name == "mine" }?.path.hasSuffix("mine.flac") == true)
        let unnamed = Dictionary(
            uniqueKeysWithValues: user.unnamed.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        #expect(unnamed.keys.sorted() == ["mine.wav", "rain.wav", "rain=40.wav"])
        #expect(unnamed["rain.wav"]?.contains("built-in sound \"rain\"") == true)
        #expect(unnamed["mine.wav"]?.contains("mine.flac") == true)
        #expect(unnamed["rain=40.wav"]?.contains("reads as \"rain\" at volume 40") == true)
        // The mix word keeps its meaning; the `=` names resolve as they are written.
        #expect(catalog.resolve("rain")?.source == .builtin)
        #expect(catalog.resolve("a=b")?.path.hasSuffix("a=b.wav") == true)
    }

    /// hum installed into ~/.local has its library where the user folder is: its own files are not the user's.
    @Test func theLibraryInTheUserFolderIsNotTheUsers() throws {
        let link = temporaryDirectory() + "/sounds"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: Self.builtins)
        defer { try? FileManager.default.removeItem(atPath: (link as NSString).deletingLastPathComponent) }
        let catalog = SoundCatalog(builtinDirectory: Self.builtins, userDirectory: link)
        #expect(catalog.userFolder == SoundCatalog.UserFolder())
        #expect(catalog.all.count == catalog.builtins.count)
        #expect(catalog.resolve("rain")?.source == .builtin)
    }

    /// `$XDG_DATA_DIRS` as the base directory specification reads it, after the places beside the binary.
    @Test func theLibraryIsLookedForInXDGDataDirsAfterTheBinarysOwnPlaces() {
        #expect(SoundCatalog.dataDirectories(environment: [:]) == ["/usr/local/share", "/usr/share"])
        #expect(SoundCatalog.dataDirectories(environment: ["XDG_DATA_DIRS": ""]) == ["/usr/local/share", "/usr/share"])
        #expect(
            SoundCatalog.dataDirectories(environment: ["XDG_DATA_DIRS": "rel:./x"]) == [
                "/usr/local/share", "/usr/share",
            ])
        #expect(SoundCatalog.dataDirectories(environment: ["XDG_DATA_DIRS": "/opt/a/:rel::/b"]) == ["/opt/a", "/b"])
        let places = SoundCatalog.searchedPlaces(environment: ["XDG_DATA_DIRS": "/opt/a:/b"])
        #expect(Array(places.suffix(2)) == ["/opt/a/hum/sounds", "/b/hum/sounds"])
        #expect(places.first?.hasSuffix("/share/hum/sounds") == true && places.first != "/opt/a/hum/sounds")
        #expect(SoundCatalog.searchedPlaces(environment: ["HUM_SOUNDS_DIR": "/x", "XDG_DATA_DIRS": "/b"]) == ["/x"])
    }

    @Test func aFIFOOrADeviceIsNotCalledEmpty() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/pipe.wav", 0o600) == 0)
        for (path, says) in [(dir + "/pipe.wav", "is a FIFO"), ("/dev/zero", "is a device"), (dir, "is a directory")] {
            do {
                _ = try AudioFileReader.info(path: path)
                Issue.record("\(path) was read")
            } catch {
                #expect(error.reason.contains(says), "\(path): \(error.reason)")
                #expect(!error.reason.contains("empty"))
            }
        }
        try Data().write(to: URL(fileURLWithPath: dir + "/empty.wav"))
        #expect(throws: AudioFileError(path: dir + "/empty.wav", reason: "the file is empty")) {
            try AudioFileReader.info(path: dir + "/empty.wav")
        }
    }
}
