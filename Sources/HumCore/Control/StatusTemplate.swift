/// The text of `hum status --template`: literal text with fields in braces, `{phase} {round}/{rounds}
/// {remaining}`, and sections in the manner of mustache: `{#phase}…{/phase}` is shown only when the field is not
/// empty, `{^phase}…{/phase}` only when it is. `{{` and `}}` are literal braces. Parsed once, before anything
/// runs, so a misspelt field is a usage error.
public struct StatusTemplate: Equatable, Sendable {
    indirect enum Node: Equatable, Sendable {
        case text(String)
        case field(StatusField)
        case section(StatusField, inverted: Bool, [Node])
    }

    /// Why a template was refused.
    public enum Problem: Error, Equatable, Sendable {
        case unknownField(String)
        case unclosedBrace
        case strayClosingBrace
        case unclosedSection(String)
        case unexpectedEnd(String)
        case tooDeep

        public var message: String {
            switch self {
            case .unknownField(let name): return "{\(name)} is not a field of hum status"
            case .unclosedBrace: return "has a '{' that is not closed; write {{ for a brace"
            case .strayClosingBrace: return "has a '}' that closes nothing; write }} for a brace"
            case .unclosedSection(let name):
                return "opens {#\(name)} (or {^\(name)}) but never closes it with {/\(name)}"
            case .unexpectedEnd(let name): return "closes {/\(name)} where no such section is open"
            case .tooDeep: return "nests sections more than \(StatusTemplate.maximumDepth) deep"
            }
        }
    }

    static let maximumDepth = 16
    let nodes: [Node]

    public init(parsing text: String) throws(Problem) {
        var scalars = Array(text.unicodeScalars)[...]
        nodes = try StatusTemplate.parse(&scalars, closing: nil, depth: 0)
    }

    private static func parse(_ input: inout ArraySlice<Unicode.Scalar>, closing: String?, depth: Int)
        throws(Problem) -> [Node]
    {
        guard depth <= maximumDepth else { throw .tooDeep }
        var nodes: [Node] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty { nodes.append(.text(String(literal))) }
            literal = String.UnicodeScalarView()
        }
        while let c = input.first {
            input.removeFirst()
            if c == "}" {
                guard input.first == "}" else { throw .strayClosingBrace }
                input.removeFirst()
                literal.append("}")
                continue
            }
            guard c == "{" else {
                literal.append(c)
                continue
            }
            if input.first == "{" {
                input.removeFirst()
                literal.append("{")
                continue
            }
            guard let end = input.firstIndex(of: "}") else { throw .unclosedBrace }
            let tag = String(String.UnicodeScalarView(input[input.startIndex..<end]))
            input = input[(end + 1)...]
            flush()
            if tag.hasPrefix("/") {
                let name = String(tag.dropFirst())
                guard name == closing else { throw .unexpectedEnd(name) }
                return nodes
            }
            if tag.hasPrefix("#") || tag.hasPrefix("^") {
                let name = String(tag.dropFirst())
                let field = try StatusTemplate.field(name)
                let inner = try parse(&input, closing: name, depth: depth + 1)
                nodes.append(.section(field, inverted: tag.hasPrefix("^"), inner))
                continue
            }
            nodes.append(.field(try StatusTemplate.field(tag)))
        }
        if let closing { throw .unclosedSection(closing) }
        flush()
        return nodes
    }

    private static func field(_ name: String) throws(Problem) -> StatusField {
        guard let field = StatusField(rawValue: name) else { throw .unknownField(name) }
        return field
    }

    /// The text for a report, with what comes from outside through `escape`.
    public func render(_ report: StatusReport, escape: (String) -> String) -> String {
        var out = ""
        StatusTemplate.render(nodes, report, escape, into: &out)
        return out
    }

    private static func render(
        _ nodes: [Node], _ report: StatusReport, _ escape: (String) -> String, into out: inout String
    ) {
        for node in nodes {
            switch node {
            case .text(let text): out += text
            case .field(let field): out += field.value(in: report, escape: escape)
            case .section(let field, let inverted, let inner):
                if field.value(in: report, escape: { $0 }).isEmpty == inverted {
                    render(inner, report, escape, into: &out)
                }
            }
        }
    }

    /// Every field the template reads, sections included: what decides when its text can change.
    public var fields: Set<StatusField> {
        var out: Set<StatusField> = []
        func walk(_ nodes: [Node]) {
            for node in nodes {
                switch node {
                case .text: break
                case .field(let field): out.insert(field)
                case .section(let field, _, let inner):
                    out.insert(field)
                    walk(inner)
                }
            }
        }
        walk(nodes)
        return out
    }
}
