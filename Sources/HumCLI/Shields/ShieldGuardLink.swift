import HumControl
import HumCore
import HumPlayer

/// The way from `hum shield …` to the guard in the running player: told to read the shields again after a change is
/// committed, and started (a silent player in the background) when a shield is added and no player runs.
enum ShieldGuardLink {
    /// The running player's status after it read the shields again; nil when no player runs. A player that does not
    /// take the request is warned about: the change is saved, and applies when it reads the shields next.
    @discardableResult
    static func tell(_ context: CommandContext) -> PlayerStatus? {
        guard let client = try? PlayerLink.connectLive(context) else { return nil }
        do {
            return try PlayerLink.send(.shields, to: client)
        } catch {
            let reason = (error as? any UserFacingError)?.message ?? "\(error)"
            context.warn("the running player did not read the shields again (\(reason)); the change is saved")
            return nil
        }
    }

    /// After a change the guard applies by itself from then on (a schedule's edges): the running player reads the
    /// rules again; when none runs, a note says that nothing applies `what` until a player starts.
    static func tellOrNote(_ context: CommandContext, what: String) {
        guard tell(context) == nil else { return }
        context.warn(
            "no player runs, so nothing applies \(what) until one starts ('hum daemon --no-sound' guards the shields "
                + "without sound)")
    }

    /// After `hum shield add`: the running player guards the shield now; when none runs, a silent player is started
    /// in the background to guard it (as `hum play --detach` starts one).
    static func ensureGuard(_ context: CommandContext) throws {
        if tell(context) != nil { return }
        do {
            _ = try Detached.start(
                daemonWords: ["daemon", "--no-sound"], environment: context.runtime, announce: false)
        } catch is Detached.AnotherPlayerStarting {
            _ = try PlayerLink.awaitStarting(context)
        }
        let pid = tell(context).map { " (pid \($0.pid))" } ?? ""
        context.stderr.write(
            "hum: shield: a silent player guards the shields in the background\(pid); 'hum ctl stop' stops it and "
                + "thaws what it froze\n")
    }
}
