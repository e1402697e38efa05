import Foundation
import Testing

/// A hum binary copied somewhere alone (`cp hum ~/bin`) finds the built-in sounds where a package or an unpacked
/// release put them: through `$XDG_DATA_DIRS`, and in `../share/hum/sounds` beside itself; never only through the
/// build tree it was built in.
@Suite struct BinaryCopiedAloneTests {
    static let sounds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sounds").path

    /// A folder with the built-in library in it (links to the repository's files).
    func library(at dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.sounds)
        where file == "sounds.json" || file.hasSuffix(".ogg") {
            try FileManager.default.createSymbolicLink(
                atPath: dir + "/" + file, withDestinationPath: Self.sounds + "/" + file)
        }
    }

    /// The copied binary, run with a clean environment of a fresh home and `extra`.
    func builtinPaths(_ binary: String, home: String, _ extra: [String: String]) throws -> (
        paths: [String], err: String
    ) {
        var env = ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(extra) { $1 }
        let run = try runBinary(["sounds", "--json"], environment: env, program: binary)
        let listed = (json(run.out) as? [[String: Any]]) ?? []
        return (listed.filter { $0["source"] as? String == "built-in" }.compactMap { $0["path"] as? String }, run.err)
    }

    @Test func aCopiedBinaryFindsTheLibraryThroughXDGDataDirsAndBesideItself() throws {
        let box = Sandbox()
        let bin = box.root + "/home/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // Copied by cp, in a process of its own: a copy written here could be inherited, still open for writing, by a
        // child another test forks meanwhile, and then running it fails with "Text file busy" (ETXTBSY).
        let copy = try shell("cp '\(humBinary)' '\(bin)/hum'", environment: ProcessInfo.processInfo.environment)
        try #require(copy.code == 0, "cp: \(copy.err)")
        let home = box.root + "/home"

        // Nothing beside it and nothing in the data directories: none, and hum says where it looked.
        let none = try builtinPaths(bin + "/hum", home: home, ["XDG_DATA_DIRS": box.root + "/empty"])
        #expect(none.paths.isEmpty)
        #expect(
            none.err.contains("\(home)/share/hum/sounds") && none.err.contains("\(box.root)/empty/hum/sounds"),
            "\(none.err)")

        // A package's library in a data directory, the second one named.
        try library(at: box.root + "/pkg/share/hum/sounds")
        let xdg = try builtinPaths(
            bin + "/hum", home: home, ["XDG_DATA_DIRS": "\(box.root)/empty:\(box.root)/pkg/share"])
        #expect(xdg.paths.count == 20, "\(xdg.err)")
        #expect(xdg.paths.allSatisfy { $0.hasPrefix(box.root + "/pkg/share/hum/sounds/") }, "\(xdg.paths)")

        // The binary's own ../share/hum/sounds wins over the data directories.
        try library(at: home + "/share/hum/sounds")
        let beside = try builtinPaths(bin + "/hum", home: home, ["XDG_DATA_DIRS": "\(box.root)/pkg/share"])
        #expect(beside.paths.count == 20, "\(beside.err)")
        #expect(beside.paths.allSatisfy { $0.hasPrefix(home + "/share/hum/sounds/") }, "\(beside.paths)")
    }
}
