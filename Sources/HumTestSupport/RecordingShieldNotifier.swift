import HumCore

/// A `ShieldNotifier` that keeps every notice shown and presses buttons as a person would: the shields' guard
/// tested in process, without a bus.
public final class RecordingShieldNotifier: ShieldNotifier {
    public private(set) var shown: [ShieldNotice] = []
    public var onAction: ((String, ShieldNotice.Action) -> Void)?

    public init() {}

    public func show(_ notice: ShieldNotice) { shown.append(notice) }

    /// Presses `action` on the notice of `shield` (as the server's ActionInvoked would).
    public func press(_ action: ShieldNotice.Action, on shield: String) { onAction?(shield, action) }
}
