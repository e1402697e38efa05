import HumCore
import HumPlayer
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The contract options of `hum focus` (`--done-when`, `--first-step`, `--watch`, `--strict`) and what happens before
/// the rounds start: the watched paths resolved where the command runs, the terms shown.
enum ContractSetup {
    static let doneWhen = Option(
        "done-when", .words("TEXT"), repeatable: true,
        help: "a criterion that says the goal is done: makes a contract whose reward waits for proof (repeatable)")
    static let firstStep = Option("first-step", .words("TEXT"), help: "the contract's first step")
    static let watch = Option(
        "watch", ValueKind<String>.file.named("PATH"), repeatable: true,
        help: "a file or folder whose changes are the contract's evidence (repeatable; default: this git repository)")
    static let strict = Flag(
        "strict", help: "while the contract runs, refuse what loosens the rules (see 'hum contract --help')")
    /// What the command line asked for.
    struct Asked {
        var doneWhen: [String]
        var firstStep: String?
        var watch: [String]
        var strict: Bool
    }

    /// Reads the options; nil without `--done-when` (rounds then earn as they always did).
    static func read(_ arguments: ParsedArguments, goal: String?) throws -> Asked? {
        let doneWhen = try arguments.values(Self.doneWhen)
        let firstStep = try arguments.value(Self.firstStep)
        let watch = try arguments.values(Self.watch)
        let strict = arguments.flag(Self.strict)
        guard !doneWhen.isEmpty else {
            let others: [any Declared] = [Self.firstStep, Self.watch, Self.strict]
            if let other = others.first(where: { arguments.given($0) }) {
                throw HumError.usage(
                    "--\(other.info.name) belongs to a contract: add --done-when TEXT (what says the goal is done)")
            }
            return nil
        }
        guard let goal, !goal.isEmpty else {
            throw HumError.usage("a contract needs its goal: add --goal TEXT, for example --goal \"draft the intro\"")
        }
        let asked = Asked(doneWhen: doneWhen, firstStep: firstStep, watch: watch, strict: strict)
        if let problem = ContractStart(
            id: "x", goal: goal, doneWhen: doneWhen, firstStep: firstStep, watch: [], strict: strict
        ).validationProblem() {
            throw HumError.usage(problem)
        }
        return asked
    }

    /// The contract to ask the player for: watched paths made absolute and resolved here (the default is the git
    /// repository of the current folder, if any); a strict contract running already refuses it.
    static func start(_ asked: Asked, goal: String, context: CommandContext) throws -> ContractStart {
        let gatherer = EvidenceGatherer(searchPath: context.environment["PATH"])
        let here = currentDirectory()
        var watch: [String] = []
        for path in asked.watch {
            let absolute = path.hasPrefix("/") ? path : here + "/" + path
            let resolved = realPath(absolute) ?? absolute
            if !watch.contains(resolved) { watch.append(resolved) }
        }
        if asked.watch.isEmpty, let repository = gatherer.repository(of: here) { watch = [repository] }
        for path in watch where realPath(path) == nil {
            context.warn("--watch \(path) does not exist (yet): changes there count only if it appears")
        }
        var rng = SystemRandomNumberGenerator()
        let start = ContractStart(
            id: Identifier.make(using: &rng), goal: goal, doneWhen: asked.doneWhen, firstStep: asked.firstStep,
            watch: watch, strict: asked.strict)
        if let problem = start.validationProblem() { throw HumError.usage(problem) }
        return start
    }

    /// Shows the contract and what it can earn before anything begins (stderr: stdout keeps one line per phase
    /// change). A strict contract running already refuses a second one here, before any sound.
    static func announce(_ start: ContractStart, plan: FocusPlan, context: CommandContext) throws {
        let db = try LedgerCLI.open(context)
        if let strict = try db.runningStrictContract() {
            throw StrictRules.Refusal(
                contractID: strict.id, goal: strict.goal, until: strict.endsAt, what: .secondContract)
        }
        let config = try db.config()
        let bank = try db.bankStatus()
        let terms = ContractTerms(
            rounds: plan.rounds, focusSeconds: Int64(FocusTime.seconds(plan.focus).rounded()),
            ratioMilli: config.earnRatioMilli, dailyCapSeconds: config.dailyCapSeconds,
            capLeftToday: max(0, config.dailyCapSeconds - bank.earnedToday))
        var out = "hum: contract \(ContractText.short(start.id)): \(start.goal.visible)\n"
        for (i, criterion) in start.doneWhen.enumerated() { out += "hum:   done when \(i + 1). \(criterion.visible)\n" }
        if let step = start.firstStep { out += "hum:   first step: \(step.visible)\n" }
        out +=
            "hum:   evidence: "
            + "\(start.watch.isEmpty ? "nothing is watched (no --watch, and not in a git repository): the review will rest on your word" : "changes and commits under " + start.watch.map(\.visible).joined(separator: ", "))\n"
        out += "hum:   \(ContractText.terms(terms, strict: start.strict))\n"
        context.stderr.write(out)
    }

    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path with symbolic links resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? { EvidenceGatherer.realPath(path) }
}
