import Foundation
import HumCore
import Testing

@testable import HumCLI

/// The player's refusals keep their kind across the socket, so `hum ctl` exits as the command line would.
@Suite struct PlayerLinkTests {
    @Test(arguments: [
        (FailureKind.usage, HumError.usage("m")), (.failure, .failure("m")), (.refused, .refused("m")),
    ])
    func aRefusalKeepsItsKindOnTheWire(kind: FailureKind, expected: HumError) throws {
        let sent = ControlReply(id: 1, error: "m", kind: kind)
        let wire = try JSONEncoder().encode(sent)
        let received = try JSONDecoder().decode(ControlReply.self, from: wire)
        #expect(throws: expected) { try PlayerLink.status(of: received) }
        #expect(expected.exitCode == [FailureKind.usage: 2, .failure: 1, .refused: 3][kind])
    }

    /// A kind this client does not know (a newer player) is a failure, never a success or a crash.
    @Test func anUnknownKindIsAFailure() {
        var reply = ControlReply(id: 1, error: "m", kind: .failure)
        reply.kind = "sideways"
        #expect(throws: HumError.failure("m")) { try PlayerLink.status(of: reply) }
    }
}
