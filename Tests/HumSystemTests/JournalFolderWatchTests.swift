import Foundation
import HumCore
import Testing

@testable import HumSystem

@Suite struct JournalFolderWatchTests {
    @Test func aJournalWrittenOrReplacedWakesTheLoopAndOtherFilesDoNot() throws {
        let root = NSTemporaryDirectory() + "hum-journals-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root + "/aaaa", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let loop = EventLoop()
        var calls = 0
        let watch = try JournalFolderWatch(loop: loop, folder: root) { calls += 1 }
        func settle() { while loop.turn(timeoutMilliseconds: 200) > 0 {} }

        // Syncthing's temporary: no call.
        FileManager.default.createFile(atPath: root + "/aaaa/.syncthing.journal.jsonl.tmp", contents: Data("x\n".utf8))
        settle()
        #expect(calls == 0)
        // Renamed over the journal: a call.
        rename(root + "/aaaa/.syncthing.journal.jsonl.tmp", root + "/aaaa/journal.jsonl")
        settle()
        #expect(calls == 1)
        // Appended to in place: a call.
        let handle = try #require(FileHandle(forWritingAtPath: root + "/aaaa/journal.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("y\n".utf8))
        try handle.close()
        settle()
        #expect(calls == 2)
        // A new device's folder, then its journal.
        mkdir(root + "/bbbb", 0o700)
        settle()
        let before = calls
        FileManager.default.createFile(atPath: root + "/bbbb/journal.jsonl", contents: Data("z\n".utf8))
        settle()
        #expect(calls > before)
        #expect(loop.turn(timeoutMilliseconds: 100) == 0, "nothing more to say")
        _ = watch
    }
}
