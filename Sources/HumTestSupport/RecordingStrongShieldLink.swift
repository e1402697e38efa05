import HumCore

/// A `StrongShieldLink` that keeps every wanted state sent and answers as a helper would (or refuses, when told
/// to): the player's wiring tested without root or a socket.
public final class RecordingStrongShieldLink: StrongShieldLink {
    public private(set) var sent: [StrongShieldWanted] = []
    /// When set, every call throws this refusal (a helper that says no, or none at all).
    public var refusal: StrongShieldRefusal?
    public var uid: UInt32

    public init(uid: UInt32 = 1000) { self.uid = uid }

    public func send(_ wanted: StrongShieldWanted) throws -> StrongShieldReply {
        if let refusal { throw refusal }
        sent.append(wanted)
        return reply()
    }

    public func status() throws -> StrongShieldReply {
        if let refusal { throw refusal }
        return reply()
    }

    private func reply() -> StrongShieldReply {
        let wanted = sent.last ?? StrongShieldWanted(domains: [])
        return StrongShieldReply(
            ok: true, uid: uid, backend: "nftables", refreshSeconds: StrongShield.refreshSeconds,
            domains: wanted.domains.map {
                StrongShieldDomainState(name: $0, addresses: [], liftedUntil: wanted.lifts[$0])
            })
    }
}
