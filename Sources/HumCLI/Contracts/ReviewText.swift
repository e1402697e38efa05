import HumCore
import HumPlayer
import HumStore

/// How a review's outcome reads on a terminal (`hum proof --submit`, the offer after focus rounds).
extension ReviewRunner {
    /// What a submission says on a terminal: the decision, what is missing, the question, what could not be checked,
    /// and what can be done next.
    static func describe(_ outcome: ContractOutcome) -> String {
        let c = outcome.contract
        let short = ContractText.short(c.id)
        guard let review = c.reviews.last else { return "" }
        let d = review.decision
        var out =
            "review \(review.attempt) of \(ContractRules.attempts): \(d.status.rawValue) (confidence "
            + "\(ContractText.confidence(d.confidence)), \(review.reviewer.visible)): \(d.reason.visible)\n"
        for m in d.missing { out += "  missing: \(m.visible)\n" }
        if let q = d.question, !q.isEmpty { out += "  question: \(q.visible)\n" }
        for note in review.cannotCheck { out += "  not checked: \(note.visible)\n" }
        switch c.status {
        case .approved:
            let amount = outcome.grant?.entry.amount ?? c.rewardSeconds ?? 0
            var line = "earned \(ContractText.f(amount))"
            if let cut = outcome.grant?.entry.cut, cut > 0 { line += " (\(ContractText.f(cut)) cut by the daily cap)" }
            out += line + " (see 'hum bank')\n"
        case .completed:
            out +=
                "one resubmission is left: change the proof ('hum proof \(short) --text … --file … --check N') and "
                + "submit it again with --submit\n"
        case .rejected:
            out +=
                "the review did not approve it twice: 'hum contract override \(short) --reason TEXT' pays it anyway, "
                + "your reason kept in the history; or 'hum contract abandon \(short)'\n"
        default:
            break
        }
        return out
    }
}
