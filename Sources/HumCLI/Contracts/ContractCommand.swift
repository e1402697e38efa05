import HumCore
import HumStore

/// `hum contract list|show|override|abandon`.
struct ContractCommand: HumCommand {
    static let name = "contract"
    static let abstract = "list focus contracts, show one, override a review or abandon a contract"
    static let discussion = """
        A contract is made by 'hum focus --goal TEXT --done-when TEXT…': its rounds earn nothing by themselves;
        when they end, the contract waits for proof ('hum proof ID'), which a review compares with the files
        changed under the watched paths and the commits made during the session. Approved, it pays once (ledger
        key contract:ID). Two reviews that do not approve it leave it rejected: an override with a written reason
        pays it anyway and stays in the history. Stopping its rounds early interrupts it: it earns nothing.
        A strict contract (--strict), while it runs, refuses what loosens the rules: 'hum config set' of earn.*,
        emergency.weekly, review.command or strict.emergency-wait the loose way, 'hum ledger adjust +…', 'hum
        history record' of a focus round, an override and a second contract. The emergency reserve stays: 'hum
        emergency' waits strict.emergency-wait (10s), then asks for a confirmation on a terminal (off a terminal
        it draws after the wait), and the draw is noted in the contract.
        """
    static let examples = [
        "hum contract list",
        "hum contract show 1a2b3c4d --json",
        "hum contract override 1a2b3c4d --reason \"the reviewer cannot see my paper notebook\"",
    ]
    static var subcommands: [any HumCommand.Type] { [List.self, Show.self, Override.self, Abandon.self] }
    static let arguments: [any Declared] = List.arguments
    static let id = Positional(
        "ID", ValueKind<String>.text.completing(.contracts), help: "the contract (its id or first characters)")

    let list: List
    init(_ arguments: ParsedArguments) throws { list = try List(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    struct List: HumCommand {
        static let name = "list"
        static let abstract = "list every contract, oldest first"
        static let format = Option.format([.text, .json])
        static let ids = Flag("ids", help: "print only the contracts' short ids, one per line (for completions)")
        static let arguments: [any Declared] = [format, ids]
        let json: Bool
        let idsOnly: Bool
        init(_ arguments: ParsedArguments) throws {
            json = try arguments.value(Self.format) == .json
            idsOnly = arguments.flag(Self.ids)
        }
        func run(context: CommandContext) throws -> Int32 {
            let contracts = try LedgerCLI.open(context).contracts()
            if idsOnly {
                context.stdout.write(contracts.map { ContractText.short($0.id) + "\n" }.joined())
                return ExitCode.success
            }
            if json {
                context.stdout.write(try LedgerCLI.json(contracts) + "\n")
                return ExitCode.success
            }
            if contracts.isEmpty {
                context.stdout.write(
                    "no contracts; make one with 'hum focus --goal TEXT --done-when TEXT' (see 'hum contract --help')\n"
                )
            }
            context.stdout.write(contracts.map { ContractText.line($0) + "\n" }.joined())
            return ExitCode.success
        }
    }

    struct Show: HumCommand {
        static let name = "show"
        static let abstract = "show a contract: terms, evidence, proof, reviews, override"
        static let examples = ["hum contract show 1a2b3c4d"]
        static let format = Option.format([.text, .json])
        static let arguments: [any Declared] = [ContractCommand.id, format]
        let id: String
        let json: Bool
        init(_ arguments: ParsedArguments) throws {
            id = try arguments.positional(ContractCommand.id, at: 0)!
            json = try arguments.value(Self.format) == .json
        }
        func run(context: CommandContext) throws -> Int32 {
            let contract = try LedgerCLI.open(context).contract(matching: id)
            context.stdout.write(json ? try LedgerCLI.json(contract) + "\n" : ContractText.details(contract))
            return ExitCode.success
        }
    }

    struct Override: HumCommand {
        static let name = "override"
        static let abstract = "pay a contract the review did not approve, with a written reason kept in the history"
        static let discussion = "Only after the resubmission was not approved either (the contract is rejected).\n"
        static let examples = ["hum contract override 1a2b3c4d --reason \"the work is on paper\""]
        static let reason = Option("reason", .words("TEXT"), required: true, help: "why the review is wrong")
        static let arguments: [any Declared] = [ContractCommand.id, reason]
        let id: String
        let reason: String
        init(_ arguments: ParsedArguments) throws {
            id = try arguments.positional(ContractCommand.id, at: 0)!
            reason = try arguments.required(Self.reason)
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let contract = try db.contract(matching: id)
            let outcome = try db.overrideContract(id: contract.id, reason: reason)
            context.made("the override was recorded", see: "hum contract show \(ContractText.short(contract.id))")
            let amount = outcome.grant?.entry.amount ?? 0
            var line =
                "contract \(ContractText.short(contract.id)) overridden (\(reason.visible)): earned "
                + "\(ContractText.f(amount))"
            if let cut = outcome.grant?.entry.cut, cut > 0 { line += " (\(ContractText.f(cut)) cut by the daily cap)" }
            context.stdout.write(line + "; the override stays in the history\n")
            return ExitCode.success
        }
    }

    struct Abandon: HumCommand {
        static let name = "abandon"
        static let abstract = "give up a contract in review: it earns nothing"
        static let examples = ["hum contract abandon 1a2b3c4d --reason \"plans changed\""]
        static let reason = Option("reason", .words("TEXT"), help: "why (kept in the history)")
        static let arguments: [any Declared] = [ContractCommand.id, reason]
        let id: String
        let reason: String?
        init(_ arguments: ParsedArguments) throws {
            id = try arguments.positional(ContractCommand.id, at: 0)!
            reason = try arguments.value(Self.reason)
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let contract = try db.abandonContract(id: try db.contract(matching: id).id, reason: reason)
            context.made("the contract was abandoned", see: "hum contract show \(ContractText.short(contract.id))")
            context.stdout.write("contract \(ContractText.short(contract.id)) abandoned; it earns nothing\n")
            return ExitCode.success
        }
    }
}
