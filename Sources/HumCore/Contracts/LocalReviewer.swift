/// The default reviewer: local and deterministic. It ties each criterion to what hum checked itself (files changed
/// under the watch list, commits made during the session) and to what the user says (the text, the ticked
/// criteria), and says plainly what it could not check. docs/contracts.md gives its rules as a table.
///
/// - An empty proof needs more.
/// - A criterion that names a watched file which did not change during the session, or was deleted, is contradicted:
///   the proof is rejected.
/// - Every criterion backed by a change hum checked: approved. Every criterion backed by a checked change or by the
///   user's word (ticked, or described in the text), at least one by a checked change: approved, less sure.
/// - Otherwise it needs more: its reason names the first criterion nothing shows (and what could not be checked
///   about it: a link, a file outside the watch list, a watched path that does not exist), and it asks one question.
public struct LocalReviewer: ContractReviewer {
    public let name = "local"

    public init() {}

    enum Support: Equatable {
        case verified([String])
        case contradicted(String)
        case claimed
        case unverifiable([String])
        case none
    }

    public func review(_ request: ReviewRequest) -> ReviewDecision {
        let criteria = request.contract.doneWhen
        let quoted = criteria.map { "“\($0)”" }
        if request.proof.isEmpty {
            return ReviewDecision(
                status: .needsMore, confidence: 0.9,
                reason: "the proof is empty: no text, file, link or ticked criterion",
                missing: quoted.map { "anything that shows \($0)" },
                question: "What did you do toward \(quoted.first ?? "the goal"), and which file or commit shows it?")
        }
        let supports = criteria.indices.map { support(criterion: $0, request) }
        let evidence = request.evidence
        let missingWatch = (evidence?.watch ?? []).filter { $0.kind == .missing }.map(\.path)
        let watchNote =
            missingWatch.isEmpty
            ? ""
            : " (the watched path \(missingWatch.joined(separator: ", ")) does not exist, so nothing was checked there)"

        if let (i, why) = supports.enumerated().lazy.compactMap({ i, s -> (Int, String)? in
            if case .contradicted(let why) = s { return (i, why) }
            return nil
        }).first {
            return ReviewDecision(
                status: .rejected, confidence: 0.8, reason: "the evidence contradicts \(quoted[i]): \(why)",
                missing: ["a change that shows \(quoted[i])"],
                question: "\(why.prefix(1).uppercased() + why.dropFirst()): where is the work that shows \(quoted[i])?")
        }

        var verified: [Int] = []
        var claimed: [Int] = []
        var open: [Int] = []
        for (i, s) in supports.enumerated() {
            switch s {
            case .verified: verified.append(i)
            case .claimed: claimed.append(i)
            default: open.append(i)
            }
        }
        let n = criteria.count
        if open.isEmpty && claimed.isEmpty {
            let backing = supports.compactMap { s -> String? in
                if case .verified(let why) = s { return why.first }
                return nil
            }
            return ReviewDecision(
                status: .approved, confidence: 0.9,
                reason: "every criterion is backed by a change hum checked: \(backing.joined(separator: "; "))")
        }
        if open.isEmpty && !verified.isEmpty {
            let share = Double(verified.count) / Double(n)
            return ReviewDecision(
                status: .approved, confidence: ((0.6 + 0.3 * share) * 100).rounded() / 100,
                reason:
                    "\(verified.count) of \(n) criteria are backed by changes hum checked; "
                    + "\(claimed.map { quoted[$0] }.joined(separator: ", ")) by your word only"
            )
        }
        if open.isEmpty {
            // Every criterion claimed, none tied to anything hum checked.
            let first = quoted[claimed[0]]
            let reason: String
            if let evidence, evidence.hasCheckable {
                reason =
                    "hum saw \(evidence.files.count + evidence.moreFiles) changed file(s) and "
                    + "\(evidence.commits.count) commit(s) during the session, but none it could tie to a criterion"
            } else {
                reason =
                    "nothing changed under the watch list and no commit was made during the session, so the proof "
                    + "rests on your word alone\(watchNote)"
            }
            return ReviewDecision(
                status: .needsMore, confidence: 0.7, reason: reason,
                missing: claimed.map { "a file or commit that shows \(quoted[$0])" },
                question: "Which file or commit shows \(first)?")
        }
        let first = open[0]
        let reason: String
        switch supports[first] {
        case .unverifiable(let notes):
            reason = "hum cannot check what shows \(quoted[first]): \(notes.joined(separator: "; "))"
        default:
            let text = request.proof.text ?? ""
            let vague =
                ReviewWords.stems(text).count < 3 && request.proof.files.isEmpty && request.proof.links.isEmpty
                && request.proof.checked.isEmpty
            reason =
                vague
                ? "the proof is too vague to tell whether \(quoted[first]) is met\(watchNote)"
                : "nothing in the proof or in the evidence shows \(quoted[first])\(watchNote)"
        }
        let watch = request.contract.watch
        let question: String
        if case .unverifiable = supports[first], !watch.isEmpty {
            question =
                "Can you show \(quoted[first]) with a file under \(watch.joined(separator: ", ")) that changed during "
                + "the session, or a commit?"
        } else {
            question = "What shows that \(quoted[first]) is done?"
        }
        return ReviewDecision(
            status: .needsMore, confidence: 0.7, reason: reason,
            missing: open.map { "evidence for \(quoted[$0])" }, question: question)
    }

    /// What backs criterion `i` (0-based).
    func support(criterion i: Int, _ request: ReviewRequest) -> Support {
        let text = request.contract.doneWhen[i]
        let names = ReviewWords.fileNames(text)
        let stems = ReviewWords.stems(text)
        let need = min(2, stems.count)
        let evidence = request.evidence
        let changes = evidence?.files ?? []
        var verified: [String] = []
        var unverifiable: [String] = []

        for name in names {
            let matching = changes.filter { ReviewWords.path($0.path, is: name) }
            if matching.contains(where: { $0.change != .deleted }) {
                for c in matching where c.change != .deleted { verified.append("\(name): \(c.summary)") }
                continue
            }
            if !matching.isEmpty { return .contradicted("\(name) was deleted during the session") }
            let found = evidence?.mentions.first { $0.criterion == i + 1 && $0.name == name }?.found ?? []
            if !found.isEmpty { return .contradicted("\(name) did not change during the session") }
            for check in request.checks where ReviewWords.path(check.item, is: name) {
                if check.finding == .outsideWatch || check.finding == .missing {
                    unverifiable.append("\(check.item) \(check.note)")
                }
            }
        }
        if !stems.isEmpty {
            for c in changes where c.change != .deleted && !ReviewWords.nameStems(c.path).isDisjoint(with: stems) {
                let name = c.path.split(separator: "/").last.map(String.init) ?? c.path
                verified.append("\(name): \(c.summary)")
            }
        }
        for commit in evidence?.commits ?? [] {
            let overlap = ReviewWords.stems(commit.subject).intersection(stems).count
            let touches = names.contains { name in commit.files.contains { ReviewWords.path($0, is: name) } }
            if (need > 0 && overlap >= need) || touches {
                verified.append("commit \(commit.hash.prefix(7)) “\(commit.subject)”")
            }
        }
        if !verified.isEmpty { return .verified(verified) }

        for check in request.checks where check.finding == .outsideWatch {
            let name = check.item.split(separator: "/").last.map(String.init) ?? check.item
            if names.isEmpty && !ReviewWords.nameStems(check.item).isDisjoint(with: stems) {
                unverifiable.append("\(check.item) \(check.note)")
            } else if names.contains(name), !unverifiable.contains(where: { $0.hasPrefix(check.item + " ") }) {
                unverifiable.append("\(check.item) \(check.note)")
            }
        }
        let textStems = ReviewWords.stems(request.proof.text ?? "")
        let claimed =
            request.proof.checked.contains(i + 1) || (need > 0 && textStems.intersection(stems).count >= need)
        if !unverifiable.isEmpty { return .unverifiable(unverifiable) }
        if claimed { return .claimed }
        let links = request.checks.filter { $0.finding == .link }
        if !links.isEmpty { return .unverifiable(links.map { "\($0.item) is \($0.note)" }) }
        return .none
    }
}
