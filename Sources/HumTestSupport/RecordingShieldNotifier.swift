import HumCore

/// A `ShieldNotifier` and `NudgeNotifier` (the bus's one sender stands for both) that keeps every notice shown and
/// presses buttons as a person would: the shields' guard and the nudges tested in process, without a bus.
public final class RecordingShieldNotifier: ShieldNotifier, NudgeNotifier {
    public private(set) var shown: [ShieldNotice] = []
    public var onAction: ((String, ShieldNotice.Action) -> Void)?
    public private(set) var nudges: [NudgeNotice] = []
    public var onVerdict: ((HourVerdict) -> Void)?

    public init() {}

    public func show(_ notice: ShieldNotice) { shown.append(notice) }

    /// Presses `action` on the notice of `shield` (as the server's ActionInvoked would).
    public func press(_ action: ShieldNotice.Action, on shield: String) { onAction?(shield, action) }

    public func show(_ nudge: NudgeNotice) { nudges.append(nudge) }

    /// Presses the button of `verdict` on the nudge shown (as the server's ActionInvoked would).
    public func press(_ verdict: HourVerdict) { onVerdict?(verdict) }
}
