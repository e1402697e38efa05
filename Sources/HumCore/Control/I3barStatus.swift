/// `hum status --i3bar`: one block of i3bar's protocol (i3bar-protocol(7)), the object i3blocks reads from a block
/// with `format=json` and i3bar shows: `full_text` as Waybar's text (or the template's), `short_text` the countdown
/// alone for a crowded bar, a colour for the state (none while a round or a mix plays: the bar's own), and
/// `markup` none, so names are shown as they are.
public struct I3barStatus: Encodable, Sendable, Equatable {
    public var fullText: String
    public var shortText: String
    public var color: String?

    enum CodingKeys: String, CodingKey {
        case name
        case fullText = "full_text"
        case shortText = "short_text"
        case color, markup
    }

    /// Paused, waiting or idle: dimmed; a break: green; playing or focusing: the bar's colour.
    public static let dim = "#808080"
    public static let breakColor = "#80c080"

    public init(_ report: StatusReport, template: StatusTemplate?) {
        let escape: (String) -> String = { VisibleText.escape($0) }
        if let template {
            fullText = template.render(report, escape: escape)
            shortText = fullText
        } else {
            // Waybar's text with nothing escaped for markup: its parts are words and numbers hum writes.
            fullText = WaybarStatus(report, template: nil).text
            shortText = report.countdownSeconds.map { DurationText.clock(seconds: $0) } ?? report.state
        }
        if report.player == nil || report.isPaused || report.isWaiting {
            color = I3barStatus.dim
        } else if let phase = report.player?.focus?.phase, phase != .focus {
            color = I3barStatus.breakColor
        } else {
            color = nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("hum", forKey: .name)
        try container.encode(fullText, forKey: .fullText)
        try container.encode(shortText, forKey: .shortText)
        try container.encodeIfPresent(color, forKey: .color)
        try container.encode("none", forKey: .markup)
    }

    /// The fields the text reads: what decides when a followed block changes with the clock alone.
    public static func fields(template: StatusTemplate?) -> Set<StatusField> {
        template?.fields ?? [.remaining]
    }
}
