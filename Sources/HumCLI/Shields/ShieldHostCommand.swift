import CLinux
import FoundationEssentials
import HumCore
import HumStore
import HumSystem

/// `hum shield-host`: the browser extension's native messaging host (docs/shields.md "Sites"). The browser starts
/// it (through the wrapper `hum shield install-browser` writes) and talks to it on stdin and stdout in
/// length-prefixed JSON. It answers `state`, `lift` and `usage` messages, and sends the state again by itself when
/// the ledger changes or a lease ends.
struct ShieldHostCommand: HumCommand {
    static let name = "shield-host"
    static let abstract = "the browser extension's native messaging host (started by the browser, not by you)"
    static let discussion = """
        Speaks the browsers' native messaging on stdin and stdout: each message is JSON after its length (32 bits,
        the machine's byte order), at most 1 MB. {"type":"state"} is answered with the shielded sites, the leases
        in force with their absolute ends, and the bank; {"type":"lift","shield":NAME,"minutes":N,"emergency":BOOL}
        does what 'hum pass Nm --on NAME' (or 'hum emergency Nm --reason … --on NAME') does, with the same checks
        and refusals; {"type":"usage",...} is taken and acknowledged. A malformed or oversized message is answered
        with {"type":"error"}. The state is sent again whenever the ledger changes or a lease ends. It notes its
        last contact with a browser for 'hum shield status'.
        """
    static let examples = ["hum shield install-browser    # lets the browsers start it"]
    static let caller = Positional(
        "CALLER", ValueKind<String>.text, variadic: true, required: false,
        help: "what the browser passes: the extension's origin (Chromium) or manifest path and id (Firefox)")
    static let arguments: [any Declared] = [caller]

    let callerWords: [String]
    init(_ arguments: ParsedArguments) throws {
        callerWords = try arguments.positionals(Self.caller)
    }

    func run(context: CommandContext) throws -> Int32 {
        let host = try ShieldHost(context: context, caller: callerWords.joined(separator: " "))
        host.run()
        return ExitCode.success
    }
}
