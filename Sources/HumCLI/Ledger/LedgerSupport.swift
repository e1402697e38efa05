import FoundationEssentials
import HumCore
import HumPlayer
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What the ledger commands share: opening the database, parsing amounts and dates, and printing. Their errors
/// reach the frontend as they are: every error of the store is a `UserFacingError`.
enum LedgerCLI {
    /// Opens the ledger for a command (`LedgerAccess.open`: settled first; `reading` may open it read-only).
    static func open(_ context: CommandContext, reading: Bool = false) throws -> HumDatabase {
        try LedgerAccess.open(context.runtime, reading: reading)
    }

    static func format(_ seconds: Int64) -> String { DurationText.format(seconds: seconds) }
    static func signed(_ seconds: Int64) -> String { seconds > 0 ? "+" + format(seconds) : format(seconds) }

    /// The width of the terminal for tables: `COLUMNS`, then the terminal, then 80.
    static func width(_ context: CommandContext) -> Int {
        if let columns = context.environment["COLUMNS"].flatMap({ Int($0) }), columns >= 40 { return min(columns, 400) }
        if context.stdoutIsTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        }
        return 80
    }

    static func json<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    /// A text cut to `width` terminal columns with an ellipsis, or padded to them.
    static func fit(_ text: String, _ width: Int) -> String {
        DisplayWidth.padded(DisplayWidth.fit(text, columns: width), to: width)
    }

    static func rightAligned(_ text: String, _ width: Int) -> String {
        DisplayWidth.rightAligned(text, to: width)
    }
}
