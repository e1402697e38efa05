import HumCore
import HumPlayer
import HumStore

/// `hum proof ID …`: the proof of a contract, editable until it is submitted for review.
struct ProofCommand: HumCommand {
    static let name = "proof"
    static let abstract = "give or change a contract's proof, and submit it for review"
    static let discussion = """
        Without --submit the proof is a draft: change it as often as needed (--text replaces the text, --file and
        --link add, --check N ticks criterion N off, --uncheck N unticks it, --clear starts over). --submit sends
        the draft to the reviewer: hum's own (local, deterministic: see docs/contracts.md), or the command set with
        'hum config set review.command CMD' (it gets the contract and the proof as JSON on its stdin; before its
        first use hum shows what it would send and asks, or needs --consent off a terminal). Approved, the reward
        is granted at once. Otherwise one resubmission is left, for a changed proof; after that 'hum contract
        override ID --reason'. An empty proof, a proof submitted again unchanged, or a reviewer's answer that is
        malformed or late, uses no attempt. ID is the contract's id or its first characters (see 'hum contract
        list').
        """
    static let examples = [
        "hum proof 1a2b3c4d --text \"three paragraphs, sources cited\" --check 1 --check 2 --submit",
        "hum proof 1a2b3c4d --file intro.md --link https://example.com/review",
        "hum proof 1a2b3c4d --json",
    ]
    static let id = ContractCommand.id
    static let text = Option("text", .text, help: "what was done, in words (replaces the text)")
    static let file = Option(
        "file", ValueKind<String>.file.named("PATH"), repeatable: true, help: "a file that shows it")
    static let link = Option(
        "link", ValueKind<String>.text.named("URL"), repeatable: true, help: "a link that shows it")
    static let check = Option("check", .count(1...64), repeatable: true, help: "tick criterion N off (1 is the first)")
    static let uncheck = Option("uncheck", .count(1...64), repeatable: true, help: "untick criterion N")
    static let clear = Flag("clear", help: "start the draft over (before the other changes)")
    static let submit = Flag("submit", help: "submit the proof for review")
    static let consent = Flag(
        "consent", help: "send it to the configured review.command without asking (what is sent is shown first)")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [id, text, file, link, check, uncheck, clear, submit, consent, format]

    let contractID: String
    let text: String?
    let files: [String]
    let links: [String]
    let checks: [Int]
    let unchecks: [Int]
    let clear: Bool
    let submit: Bool
    let consent: Bool
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        contractID = try arguments.positional(Self.id, at: 0)!
        text = try arguments.value(Self.text)
        files = try arguments.values(Self.file)
        links = try arguments.values(Self.link)
        checks = try arguments.values(Self.check)
        unchecks = try arguments.values(Self.uncheck)
        clear = arguments.flag(Self.clear)
        submit = arguments.flag(Self.submit)
        consent = arguments.flag(Self.consent)
        json = try arguments.value(Self.format) == .json
        for link in links where !link.contains("://") && !link.hasPrefix("mailto:") {
            throw HumError.usage("--link \(link.quoted) is not a link; write it in full, like https://example.com/page")
        }
    }

    var edits: Bool { text != nil || !files.isEmpty || !links.isEmpty || !checks.isEmpty || !unchecks.isEmpty || clear }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        var contract = try db.contract(matching: contractID)
        if edits {
            var proof = clear ? ContractProof() : contract.proof
            if let text { proof.text = text }
            let here = ContractSetup.currentDirectory()
            for file in files {
                let absolute = file.hasPrefix("/") ? file : here + "/" + file
                let resolved = ContractSetup.realPath(absolute)
                if resolved == nil {
                    context.warn("--file \(file.clippedPath) does not exist; it is kept, and the review will say so")
                }
                let path = resolved ?? absolute
                if !proof.files.contains(path) { proof.files.append(path) }
            }
            for link in links where !proof.links.contains(link) { proof.links.append(link) }
            for n in checks where n > contract.doneWhen.count {
                throw HumError.usage(
                    "--check \(n): contract \(ContractText.short(contract.id)) has \(contract.doneWhen.count) criteria")
            }
            proof.checked = Array(Set(proof.checked).union(checks).subtracting(unchecks)).sorted()
            contract = try db.saveProof(id: contract.id, proof)
            context.made("the proof was saved", see: "hum contract show \(ContractText.short(contract.id))")
        }
        if submit {
            let outcome = try ReviewRunner.submit(contract, db: db, environment: context.runtime, consent: consent)
            context.made("the review was recorded", see: "hum contract show \(ContractText.short(contract.id))")
            if json {
                context.stdout.write(try LedgerCLI.json(outcome.contract) + "\n")
            } else {
                context.stdout.write(ReviewRunner.describe(outcome))
            }
            return ExitCode.success
        }
        if json {
            context.stdout.write(try LedgerCLI.json(contract) + "\n")
            return ExitCode.success
        }
        var out =
            "contract \(ContractText.short(contract.id)) (\(contract.goal.visible)), \(contract.status.rawValue)\n"
        for (i, criterion) in contract.doneWhen.enumerated() {
            out += "  [\(contract.proof.checked.contains(i + 1) ? "x" : " ")] \(i + 1). \(criterion.visible)\n"
        }
        out += ContractText.proof(contract.proof, label: "proof")
        if let e = contract.evidence { out += "  evidence     \(ContractText.evidenceLine(e))\n" }
        switch contract.status {
        case .completed:
            out +=
                "  the draft is saved; submit it with 'hum proof \(ContractText.short(contract.id)) --submit' "
                + "(\(ContractRules.attempts - contract.attempts) "
                + "submission\(ContractRules.attempts - contract.attempts == 1 ? "" : "s") left)\n"
        case .running:
            out += "  the draft is saved; it can be submitted when the rounds end\n"
        default:
            break
        }
        context.stdout.write(out)
        return ExitCode.success
    }
}
