import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

#if canImport(Glibc)
    import Glibc
#endif

/// A screen attached to a player of another process shows what the player said last. The player here is scripted
/// bytes on a bare socket, so that an event written before the reply and one written right after it (a sound that
/// finished loading while the screen was slow to read) arrive together, as a busy machine delivers them.
@Suite struct RemotePlayerTests {
    static func status(master: Double) -> PlayerStatus {
        PlayerStatus(
            pid: 1, session: "s", state: .playing, mix: Mix(tracks: [.init(sound: "rain", volume: 75)], master: master))
    }

    /// Listens at a fresh socket path, answers the first request with `lines(id)` in one write, and keeps the
    /// connection open until `done`.
    final class ScriptedPlayer: @unchecked Sendable {
        let path: ControlSocketPath
        private let listener: Int32
        private let finished = DispatchSemaphore(value: 0)
        private let release = DispatchSemaphore(value: 0)

        init(_ lines: @escaping @Sendable (Int64) -> [Data]) throws {
            path = ControlSocketPath(directory: NSTemporaryDirectory() + "hum-remote-" + UUID().uuidString.prefix(8))
            try path.prepare()
            listener = try rawListen(path.socket)
            let listener = listener
            let release = release
            let finished = finished
            Thread {
                let fd = accept(listener, nil, nil)
                var request: [UInt8] = []
                var byte: UInt8 = 0
                while read(fd, &byte, 1) == 1, byte != 10 { request.append(byte) }
                let id = (try? JSONSerialization.jsonObject(with: Data(request)) as? [String: Any])?["id"] as? Int
                var bytes = Data()
                for line in lines(Int64(id ?? 0)) { bytes += line + Data([10]) }
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                release.wait()
                close(fd)
                finished.signal()
            }.start()
        }

        func done() {
            release.signal()
            finished.wait()
            close(listener)
            try? FileManager.default.removeItem(atPath: path.directory)
        }
    }

    /// A screen's link to the scripted player, keeping the masters of the events it was handed, in order.
    final class Watched {
        let client: ControlClient
        let remote: RemotePlayer
        var seen: [Double] = []

        init(_ player: ScriptedPlayer) throws {
            client = try #require(try ControlClient.connect(to: player.path))
            remote = RemotePlayer(client: client)
            remote.onEvents = { [unowned self] events in
                for event in events { self.seen.append(event.status.mix.master) }
            }
        }
    }

    static func encoded(_ value: some Encodable) -> Data { (try? JSONEncoder().encode(value)) ?? Data() }

    @Test func aStatusThatCameAfterTheReplyIsTheOneShown() throws {
        let player = try ScriptedPlayer { id in
            [
                Self.encoded(ControlEvent(what: [.mix], status: Self.status(master: 10))),  // before the reply
                Self.encoded(ControlReply(id: id, status: Self.status(master: 20))),
                Self.encoded(ControlEvent(what: [.mix], status: Self.status(master: 30))),  // after it: newer
            ]
        }
        defer { player.done() }
        let watched = try Watched(player)
        let shown = try watched.remote.send(.master(volume: 20))
        #expect(shown.mix.master == 30)
        #expect(watched.seen == [10, 30])
        #expect(try watched.client.readAvailable().isEmpty)  // nothing left behind for a poll that will not wake
    }

    @Test func aRefusalStillHandsOnTheEventsThatCameWithIt() throws {
        let player = try ScriptedPlayer { id in
            [
                Self.encoded(ControlReply(id: id, error: "no such sound", kind: .usage)),
                Self.encoded(ControlEvent(what: [.mix], status: Self.status(master: 40))),
            ]
        }
        defer { player.done() }
        let watched = try Watched(player)
        #expect(throws: HumError.usage("no such sound")) { try watched.remote.send(.remove(sound: "x")) }
        #expect(watched.seen == [40])
    }
}
