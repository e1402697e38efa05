import HumControl
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// `hum shield strong status`: whether strong mode's root helper (`hum-shieldd`) answers, and what it holds for
/// this user (docs/shields.md, "Strong mode"). Bare `hum shield strong` is the same.
struct ShieldStrongCommand: HumCommand {
    static let name = "strong"
    static let abstract = "strong mode: the root helper that shields sites with the firewall"
    static let discussion = """
        Strong mode is optional: a root helper, hum-shieldd (installed by 'sudo make install-shield'), rejects this
        user's connections to the shielded sites' addresses with nftables, and lifts them for exactly a pass's
        minutes; the kernel itself relocks when a lift ends, even with no hum running. It listens on
        /run/hum-shieldd.sock (or $HUM_SHIELDD_SOCKET) and acts only for the uid of the process that asks. Where
        nftables is missing it falls back to a section of /etc/hosts, which is weak: it covers the whole machine,
        DNS-over-HTTPS and DNS caches get past it, and a lift ends only while the helper runs.
        """
    static let examples = ["hum shield strong status", "hum shield strong status --json"]
    static var subcommands: [any HumCommand.Type] { [Status.self] }
    static let arguments: [any Declared] = Status.arguments

    let status: Status
    init(_ arguments: ParsedArguments) throws { status = try Status(arguments) }
    func run(context: CommandContext) throws -> Int32 { try status.run(context: context) }

    struct Status: HumCommand {
        static let name = "status"
        static let abstract = "say whether the strong-mode helper runs, and what it holds for you"
        static let discussion = """
            Prints the helper's socket and then each domain it shields for you, with the addresses it resolved
            (names are resolved again every few minutes, since the system's resolver gives no lifetimes) and the end
            of its lift when one is in force. Fails (exit 1) when no helper answers.
            """
        static let examples = ["hum shield strong status"]
        static let format = Option.format([.text, .json])
        static let arguments: [any Declared] = [format]

        let json: Bool
        init(_ arguments: ParsedArguments) throws { json = try arguments.value(Self.format) == .json }

        func run(context: CommandContext) throws -> Int32 {
            let link = ShieldHelperClient(path: ShieldHelperClient.socketPath(environment: context.environment))
            let reply = try link.status()
            if json {
                context.stdout.write(try LedgerCLI.json(reply) + "\n")
                return ExitCode.success
            }
            context.stdout.write(Self.text(reply, path: link.path, now: Double(time(nil))))
            return ExitCode.success
        }

        /// The reply as lines: the helper, then one line per domain. The hosts backend is said to be weak, and why.
        static func text(_ reply: StrongShieldReply, path: String, now: Double) -> String {
            let domains = reply.domains ?? []
            let hosts = reply.backend == "hosts"
            var out =
                "strong mode: helper at \(path) (\(reply.backend ?? "?")), uid \(reply.uid.map(String.init) ?? "?")"
            out += domains.isEmpty ? ", shielding nothing for you\n" : "\n"
            if hosts {
                out +=
                    "  weak: nftables is missing, so the helper lists the names in /etc/hosts for the whole machine; "
                out += "DNS-over-HTTPS and DNS caches get past it, and a lift's end needs the helper running\n"
            }
            for domain in domains {
                let addresses =
                    hosts
                    ? "" : domain.addresses.isEmpty ? "(does not resolve)" : domain.addresses.joined(separator: " ")
                var state = "shielded"
                if let until = domain.liftedUntil {
                    state = "lifted, \(DurationText.format(seconds: max(0, Int64((until - now).rounded(.up))))) left"
                }
                out += "  \(domain.name)  \(state)" + (addresses.isEmpty ? "\n" : "  \(addresses)\n")
            }
            return out
        }
    }
}
