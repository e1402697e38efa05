import Dispatch
import HumControl
import HumCore

/// Tells strong mode's root helper (`hum-shieldd`, docs/shields.md) what this user's shields want, whenever the
/// guard's shields or their state change: the sites as domains, and which are lifted until when. Sent off the
/// player's loop (the helper resolves new names before it answers), in order, each send replacing the last, and only
/// when what is wanted changed. Where no helper runs the send fails at connect and nothing else happens: the
/// browser extension holds the sites, and `hum shield strong status` says the helper is absent.
final class StrongShieldSync: @unchecked Sendable {
    // @unchecked: `link` and `sentLast` are touched only on `queue`; `wanted` only on the player's loop.
    private let link: any StrongShieldLink
    private let queue = DispatchQueue(label: "hum.strong-shield")
    private var wanted: StrongShieldWanted?
    private var sentLast: StrongShieldWanted?
    /// Called on the queue after each send: nil when the helper took it, else what went wrong.
    var onSent: @Sendable (String?) -> Void = { _ in }

    init(link: any StrongShieldLink) { self.link = link }

    /// The helper of this environment: `HUM_SHIELDD_SOCKET` or /run/hum-shieldd.sock, with a short timeout.
    convenience init(variables: [String: String]) {
        self.init(
            link: ShieldHelperClient(
                path: ShieldHelperClient.socketPath(environment: variables), timeoutMilliseconds: 5000))
    }

    /// The guard's shields and their state at `now` (epoch seconds). Nothing is sent while no shield names a site and
    /// nothing was sent before.
    func update(shields: [Shield], states: [String: ShieldStatus], now: Double) {
        let next = StrongShieldWanted.from(shields: shields, states: states, now: now)
        guard next != wanted, !(wanted == nil && next.domains.isEmpty) else { return }
        wanted = next
        queue.async { [self] in
            guard next != sentLast else { return }
            do {
                _ = try link.send(next)
                sentLast = next
                onSent(nil)
            } catch {
                onSent((error as? any UserFacingError)?.message ?? "\(error)")
            }
        }
    }

    /// Waits until every send asked for so far is done (tests, and the player's stop).
    func drain() { queue.sync {} }
}
