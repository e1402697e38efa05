import HumCore

/// How a command prints: for people (`text`) or for scripts. One option, `--format`, chooses it on every command
/// that has more than one way to print; `--json`, `--jsonl` and `--csv` are its short forms. `ical` is
/// iCalendar (RFC 5545), `hum export`'s calendar.
public enum OutputFormat: String, CaseIterable, Sendable {
    case text, json, jsonl, csv, ical
}

extension Option where Value == OutputFormat {
    /// `--format` over `formats` (the first is the default), with a short flag for each machine format.
    static func format(_ formats: [OutputFormat]) -> Option<OutputFormat> {
        let words = formats.map(\.rawValue)
        let kind = ValueKind<OutputFormat>(ValueKind<String>.shown(words, "FORMAT"), completion: .words(words)) {
            text in
            guard let format = OutputFormat(rawValue: text), formats.contains(format) else {
                return .failure(.init(ValueKind<String>.notOneOf(text, words)))
            }
            return .success(format)
        }
        let help =
            formats.count == 1
            ? "print as \(words[0]) (the only format)"
            : "print as \(ValueKind<String>.list(words.enumerated().map { $0 == 0 ? "\($1) (the default)" : $1 }))"
        return Option(
            "format", flagAliases: formats.filter { $0 != .text }.map { ("\($0.rawValue)", $0.rawValue) }, kind,
            help: help)
    }
}
