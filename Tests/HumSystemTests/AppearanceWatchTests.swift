import Foundation
import HumSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The inotify watch `hum status --follow` waits on for the next player's socket.
@Suite struct AppearanceWatchTests {
    final class Place {
        let root = NSTemporaryDirectory() + "hum-watch-" + UUID().uuidString.prefix(8)
        init() { mkdir(root, 0o700) }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Turns the loop until the handler has run `count` times in all, or nothing happens for a second. Returns
    /// the turns that woke it.
    @discardableResult
    func wait(_ loop: EventLoop, for calls: () -> Int, toReach count: Int) -> Int {
        var turns = 0
        while calls() < count {
            let ready = loop.turn(timeoutMilliseconds: 1000)
            if ready == 0 { break }
            turns += 1
        }
        return turns
    }

    @Test func aFileThatAppearsInTheDirectoryWakesTheLoopAndOthersDoNot() throws {
        let place = Place()
        let loop = EventLoop()
        var calls = 0
        let watch = try AppearanceWatch(loop: loop, path: place.root + "/control.sock") { calls += 1 }
        // Another name in the same directory: no call.
        close(open(place.root + "/other", O_CREAT | O_WRONLY, 0o600))
        #expect(loop.turn(timeoutMilliseconds: 200) == 1)
        #expect(calls == 0)
        close(open(place.root + "/control.sock", O_CREAT | O_WRONLY, 0o600))
        wait(loop, for: { calls }, toReach: 1)
        #expect(calls == 1)
        // Replaced (removed, made again, as a new player replaces a stale socket): a second call.
        unlink(place.root + "/control.sock")
        rename(place.root + "/other", place.root + "/control.sock")
        wait(loop, for: { calls }, toReach: 2)
        #expect(calls == 2)
        #expect(loop.turn(timeoutMilliseconds: 100) == 0, "nothing more to say")
        _ = watch
    }

    @Test func aMissingDirectoryIsWaitedForThenWatched() throws {
        let place = Place()
        let loop = EventLoop()
        var calls = 0
        let directory = place.root + "/hum"
        let watch = try AppearanceWatch(loop: loop, path: directory + "/control.sock") { calls += 1 }
        mkdir(directory, 0o700)
        wait(loop, for: { calls }, toReach: 1)
        #expect(calls == 1, "the directory appeared: look")
        close(open(directory + "/control.sock", O_CREAT | O_WRONLY, 0o600))
        wait(loop, for: { calls }, toReach: 2)
        #expect(calls == 2)
        // The directory goes away and comes back: followed.
        unlink(directory + "/control.sock")
        rmdir(directory)
        while loop.turn(timeoutMilliseconds: 100) > 0 {}
        mkdir(directory, 0o700)
        close(open(directory + "/control.sock", O_CREAT | O_WRONLY, 0o600))
        wait(loop, for: { calls }, toReach: 4)
        #expect(calls >= 3)
        _ = watch
    }

    @Test func noParentIsAnErrorNamingTheCall() {
        let loop = EventLoop()
        #expect(throws: EventLoopError.self) {
            _ = try AppearanceWatch(loop: loop, path: "/nonexistent/hum/control.sock") {}
        }
    }
}
