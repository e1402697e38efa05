/// A strict RFC 4180 reader, independent of the writer it checks: records of fields separated by commas, a field
/// quoted with double quotes (inner quotes doubled) may hold commas and line ends; records end with LF or CRLF.
/// Returns nil for text RFC 4180 does not allow (a quote inside an unquoted field, text after a closing quote, an
/// unclosed quote).
public enum CSVReader {
    public static func parse(_ text: String) -> [[String]]? {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let p = pending {
                pending = nil
                return p
            }
            return scalars.next()
        }
        func endRecord() {
            record.append(field)
            records.append(record)
            record = []
            field = ""
            wasQuoted = false
        }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let after = next() {
                        if after == "\"" {
                            field.unicodeScalars.append("\"")
                        } else {
                            quoted = false
                            pending = after
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case ",":
                record.append(field)
                field = ""
                wasQuoted = false
            case "\n":
                endRecord()
            case "\r":
                guard next() == "\n" else { return nil }
                endRecord()
            case "\"":
                guard field.isEmpty, !wasQuoted else { return nil }
                quoted = true
                wasQuoted = true
            default:
                if wasQuoted { return nil }
                field.unicodeScalars.append(c)
            }
        }
        if quoted { return nil }
        if !field.isEmpty || !record.isEmpty || wasQuoted { endRecord() }
        return records
    }
}
