import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The player's one call to strong mode, `ShieldHelperClient.send`, against a helper played by the test: the line it
/// writes, the reply it reads, a refusal thrown as one line, and no helper at all.
@Suite struct ShieldHelperClientTests {
    /// Listens at a fresh path, answers one connection's line with `reply`, and returns the line it read.
    static func serveOnce(reply: String, _ body: (String) throws -> Void) throws -> String {
        let folder = NSTemporaryDirectory() + "hum-helper-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.sock"
        let listener = try rawListen(path)
        defer { close(listener) }
        let received = Received()
        let server = Thread {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) == 1, byte != 10 { line.append(byte) }
            received.set(String(decoding: line, as: UTF8.self))
            let bytes = Array((reply + "\n").utf8)
            _ = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            close(fd)
        }
        server.start()
        try body(path)
        for _ in 0..<200 where received.get() == nil { usleep(10_000) }
        return received.get() ?? ""
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var line: String?
        func set(_ text: String) { lock.withLock { line = text } }
        func get() -> String? { lock.withLock { line } }
    }

    @Test func sendWritesTheWholeWantedStateAsOneLine() throws {
        let reply =
            #"{"version":1,"ok":true,"uid":1000,"backend":"nftables","refreshSeconds":300,"#
            + #""domains":[{"name":"youtube.com","addresses":["10.0.0.1"],"liftedUntil":1796200000.5}]}"#
        var answer: StrongShieldReply?
        let line = try Self.serveOnce(reply: reply) { path in
            let link: any StrongShieldLink = ShieldHelperClient(path: path, timeoutMilliseconds: 2000)
            answer = try link.send(
                StrongShieldWanted(domains: ["youtube.com", "reddit.com"], lifts: ["youtube.com": 1_796_200_000.5]))
        }
        #expect(
            line
                == #"{"domains":["youtube.com","reddit.com"],"lifts":[{"domain":"youtube.com","until":1796200000.5}],"#
                + #""op":"set","version":1}"#)
        #expect(
            answer?.domains == [
                StrongShieldDomainState(name: "youtube.com", addresses: ["10.0.0.1"], liftedUntil: 1_796_200_000.5)
            ])
        #expect(answer?.uid == 1000)
    }

    @Test func aRefusalIsThrownAsItsOneLine() throws {
        let line = try Self.serveOnce(reply: #"{"version":1,"ok":false,"error":"a.com is lifted twice"}"#) { path in
            #expect(throws: StrongShieldRefusal("a.com is lifted twice")) {
                try ShieldHelperClient(path: path, timeoutMilliseconds: 2000).status()
            }
        }
        #expect(line == #"{"op":"status","version":1}"#)
    }

    @Test func noHelperIsSaidPlainly() {
        let path = NSTemporaryDirectory() + "hum-helper-none-" + UUID().uuidString + "/s.sock"
        #expect(throws: ShieldHelperClient.Problem.absent(path)) { try ShieldHelperClient(path: path).status() }
    }

    @Test func theDoubleRecordsWhatThePlayerSends() throws {
        let link = RecordingStrongShieldLink(uid: 1000)
        let reply = try link.send(StrongShieldWanted(domains: ["a.com"], lifts: ["a.com": 5]))
        #expect(link.sent == [StrongShieldWanted(domains: ["a.com"], lifts: ["a.com": 5])])
        #expect(reply.domains == [StrongShieldDomainState(name: "a.com", addresses: [], liftedUntil: 5)])
        link.refusal = StrongShieldRefusal("no helper")
        #expect(throws: StrongShieldRefusal("no helper")) { try link.status() }
    }
}
