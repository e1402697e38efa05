import HumCore
import HumPlayer

/// How contracts read on a terminal: `hum contract list|show`, `hum proof`, `hum history`, the focus lines. What
/// people or imports wrote (goals, criteria, reasons, paths, commit subjects) is shown with control characters
/// escaped.
enum ContractText {
    static let f = DurationText.format(seconds:)

    static func short(_ id: String) -> String { String(id.prefix(8)).visible }

    static func name(_ path: String) -> String { (path.split(separator: "/").last.map(String.init) ?? path).visible }

    /// `2 files changed (intro.md: modified, +3 lines, +40 words; …), 1 commit (“Cite sources”)`.
    static func evidenceLine(_ e: ContractEvidence) -> String { ContractLines.evidence(e) }

    /// What a contract can earn, before it starts.
    static func terms(_ t: ContractTerms, strict: Bool) -> String {
        var out =
            "\(t.rounds) focus round\(t.rounds == 1 ? "" : "s") of \(f(t.focusSeconds)) can earn up to "
            + "\(f(t.mostSeconds)) at ratio \(LedgerConfigText.ratio(t.ratioMilli)) (the daily cap is "
            + "\(f(t.dailyCapSeconds)); \(f(t.capLeftToday)) of it is left today), paid only when the proof is "
            + "approved (or overridden after a resubmission); stopping early earns nothing"
        if strict {
            out +=
                ". Strict: until its rounds end, settings that loosen the rules, time added by hand and a second "
                + "contract are refused; the emergency reserve stays, after a wait and a confirmation"
        }
        return out
    }

    /// One line of `hum contract list` and of `hum history`.
    static func line(_ c: ContractRecord) -> String {
        var status = c.status.rawValue
        if c.status == .completed {
            status = c.attempts == 0 ? "in review" : "in review (1 resubmission left)"
        }
        var out =
            "\(short(c.id))  \(c.createdAt.localDate) \(c.createdAt.localClock)  \(status.padding(12))"
        if let reward = c.rewardSeconds { out += " earned \(f(reward))" }
        if c.strict { out += " strict" }
        out += "  \(c.goal.visible)"
        return out
    }

    /// Everything `hum contract show` prints.
    static func details(_ c: ContractRecord) -> String {
        var out = "contract \(c.id.visible): \(c.goal.visible)\n"
        out += "  status       \(c.status.rawValue)"
        if c.status == .completed {
            out +=
                " (in proof review: \(ContractRules.attempts - c.attempts) "
                + "submission\(ContractRules.attempts - c.attempts == 1 ? "" : "s") left)"
        }
        out += "\n"
        out += "  made         \(c.createdAt.rfc3339)\(c.strict ? ", strict" : "")\n"
        if let ends = c.endsAt, c.status == .running { out += "  rounds end   about \(ends.rfc3339)\n" }
        if let ended = c.endedAt { out += "  ended        \(ended.rfc3339)\n" }
        out +=
            "  terms        \(c.rounds) round\(c.rounds == 1 ? "" : "s") of \(f(c.focusSeconds)) at ratio "
            + "\(LedgerConfigText.ratio(c.ratioMilli))\n"
        if let reward = c.rewardSeconds {
            out += "  earned       \(f(reward)) (ledger entry \(c.rewardEntryID?.visible ?? "?"))\n"
        }
        for (i, criterion) in c.doneWhen.enumerated() {
            let mark = c.proof.checked.contains(i + 1) ? "x" : " "
            out += "  [\(mark)] \(i + 1). \(criterion.visible)\n"
        }
        if let step = c.firstStep { out += "  first step   \(step.visible)\n" }
        out += "  watch        \(c.watch.isEmpty ? "nothing" : c.watch.map(\.visible).joined(separator: ", "))\n"
        if let e = c.evidence {
            out += "  evidence     \(evidenceLine(e))\n"
            for change in e.files.prefix(20) { out += "               \(change.path.visible): \(change.summary)\n" }
            for commit in e.commits.prefix(20) {
                out +=
                    "               commit \(commit.hash.prefix(7).visible) \(commit.at.localClock) "
                    + "“\(commit.subject.visible)” (+\(commit.insertions) -\(commit.deletions))\n"
            }
            for limit in e.limits { out += "               not checked: \(limit.visible)\n" }
        }
        out += proof(c.proof, label: "proof")
        for review in c.reviews { out += self.review(review) }
        if let o = c.override { out += "  override     \(o.at.rfc3339): \(o.reason.visible)\n" }
        for e in c.events { out += "  \(e.kind.visible.padding(12)) \(e.at.rfc3339)\(detail(e))\n" }
        return out
    }

    static func proof(_ p: ContractProof, label: String) -> String {
        guard !p.isEmpty else { return "  \(label.padding(12)) (empty)\n" }
        var out = ""
        if let text = p.text, !text.isEmpty { out += "  \(label.padding(12)) \(text.visible)\n" }
        for file in p.files { out += "  \("file".padding(12)) \(file.visible)\n" }
        for link in p.links { out += "  \("link".padding(12)) \(link.visible)\n" }
        if !p.checked.isEmpty {
            out += "  \("ticked".padding(12)) \(p.checked.map(String.init).joined(separator: ", "))\n"
        }
        return out
    }

    /// A review: its decision with the reason, what is missing, the question, and what could not be checked.
    static func review(_ r: ContractReviewRecord) -> String {
        let d = r.decision
        var out =
            "  review \(r.attempt)     \(d.status.rawValue) (confidence \(confidence(d.confidence)), "
            + "\(r.reviewer.visible), \(r.at.rfc3339)): \(d.reason.visible)\n"
        for m in d.missing { out += "               missing: \(m.visible)\n" }
        if let q = d.question, !q.isEmpty { out += "               question: \(q.visible)\n" }
        return out
    }

    /// `: DETAIL` after an event's kind, or nothing when it has none (a contract abandoned without a reason).
    static func detail(_ e: ContractEvent) -> String {
        e.detail.allSatisfy(\.isWhitespace) ? "" : ": \(e.detail.visible)"
    }

    static func confidence(_ c: Double) -> String {
        let hundredths = Int((c.isFinite ? min(max(c, 0), 1) : 0) * 100 + 0.5)
        if hundredths == 100 { return "1" }
        if hundredths % 10 == 0 { return "0.\(hundredths / 10)" }
        return "0." + (hundredths < 10 ? "0" : "") + String(hundredths)
    }
}

/// The ratio as `hum config get earn.ratio` prints it.
enum LedgerConfigText {
    static func ratio(_ milli: Int64) -> String {
        var config = LedgerConfig()
        config.earnRatioMilli = milli
        return (try? config.text(for: "earn.ratio")) ?? "\(milli / 1000)"
    }
}

extension ContractText {
    /// The contracts section of `hum history`: each with its status, reward, reviews and override.
    static func history(_ contracts: [ContractRecord]) -> String {
        guard !contracts.isEmpty else { return "" }
        var out = "\ncontracts\n"
        for c in contracts {
            out += line(c) + "\n"
            for r in c.reviews {
                out +=
                    "    review \(r.attempt): \(r.decision.status.rawValue) (confidence "
                    + "\(confidence(r.decision.confidence))): \(r.decision.reason.visible)\n"
            }
            if let o = c.override { out += "    override: \(o.reason.visible)\n" }
            for e in c.events { out += "    \(e.kind.visible)\(detail(e))\n" }
        }
        return out
    }
}
