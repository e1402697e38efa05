/// The cells of hum's CSV output (`hum ledger --csv`, `hum export --format csv`): RFC 4180, and safe to open in a
/// spreadsheet.
///
/// A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and, in some, a tab or a carriage return) as a
/// formula, and labels can come from anyone, even from another machine by import. So, as OWASP recommends, a
/// **text** cell (what people or imports wrote: labels, reasons, keys, ids, goals, device ids) that starts with one
/// of those characters gets a single quote in front, and is quoted. A text cell that already starts with a single
/// quote gets one more, so the rule can be undone exactly: a reader drops one leading `'` from a text cell that
/// starts with one.
///
/// **Numbers hum writes itself** (amounts like `-300`, balances, seconds) are written as they are: they are
/// produced by hum from integers, never from text, so they cannot hold a formula, and a spreadsheet reads them as
/// numbers. Values hum chose from a fixed set (kinds, statuses, RFC 3339 times, `true`/`false`) cannot start with
/// a formula character and are written as they are.
///
/// **Lists** (a round's tags and its mix) are one cell holding a JSON array (`["writing","deep work"]`,
/// `[{"sound":"rain","volume":40}]`, volumes 0–100), so no tag or sound name can be confused with a separator. The
/// cell starts with `[` and is quoted like any other.
public enum CSVText {
    /// The characters that make a spreadsheet read a cell as a formula (OWASP's list), and the single quote that
    /// marks a neutralised cell.
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "'"]

    /// A cell of text from people or imports: neutralised, then quoted when needed.
    public static func text(_ value: String) -> String {
        guard let first = value.unicodeScalars.first else { return "" }
        if formulaStarts.contains(first) { return quoted("'" + value) }
        return field(value)
    }

    /// A number hum wrote itself, as it is.
    public static func number<I: BinaryInteger>(_ value: I) -> String { String(value) }

    /// An optional number: empty when absent.
    public static func number<I: BinaryInteger>(_ value: I?) -> String { value.map { String($0) } ?? "" }

    /// A list of strings as a JSON array in one cell.
    public static func list(_ items: [String]) throws -> String { try json(items) }

    /// A mix as a JSON array of `{"sound", "volume"}` objects in one cell. Throws for a volume JSON cannot hold
    /// (not finite), rather than write something else.
    public static func mix(_ items: [MixItem]) throws -> String { try json(items) }

    /// One line of cells (already made by the functions above), without the line end.
    public static func row(_ cells: [String]) -> String { cells.joined(separator: ",") }

    /// A field quoted when RFC 4180 requires it: when it holds a comma, a double quote, a line feed or a carriage
    /// return. Inner double quotes are doubled.
    public static func field(_ value: String) -> String {
        value.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) ? quoted(value) : value
    }

    static func quoted(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 4)
        for scalar in value.unicodeScalars {
            if scalar == "\"" { out += "\"\"" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "\""
    }

    private static func json<T: Encodable>(_ value: T) throws -> String {
        field(String(decoding: try CompactJSONEncoder().encode(value), as: UTF8.self))
    }
}
