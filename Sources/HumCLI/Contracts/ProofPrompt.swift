import HumCore
import HumPlayer
import HumStore

/// On a terminal, when a contract's rounds end, hum asks for the proof there and then: a line of text, each
/// criterion done or not, files and links; then it submits it (or leaves the draft for 'hum proof ID').
enum ProofPrompt {
    static func offer(contractID: String, context: CommandContext) {
        guard context.stdinIsTerminal && context.stdoutIsTerminal else { return }
        do {
            let db = try LedgerCLI.open(context)
            let contract = try db.contract(matching: contractID)
            guard contract.status == .completed, contract.attempts == 0 else { return }
            try ask(contract, db: db, context: context)
        } catch let error as any UserFacingError {
            context.stderr.write("hum: \(error.message.visible)\n")
        } catch {}
    }

    static func ask(_ contract: ContractRecord, db: HumDatabase, context: CommandContext) throws {
        let short = ContractText.short(contract.id)
        var out = "\nThe rounds of contract \(short) (\(contract.goal.visible)) are done."
        if let e = contract.evidence { out += " hum found: \(ContractText.evidenceLine(e))." }
        out += "\nWhat did you do? One line; Enter alone leaves the proof for later ('hum proof \(short)').\n> "
        context.stdout.write(out)
        guard let text = readLine()?.trimmingSpaces, !text.isEmpty else {
            context.stdout.write("the proof waits: 'hum proof \(short) --text … --submit'\n")
            return
        }
        var proof = contract.proof
        proof.text = text
        for (i, criterion) in contract.doneWhen.enumerated() {
            context.stdout.write("\(i + 1). \(criterion.visible): done? [y/N] ")
            let answer = (readLine() ?? "").trimmingSpaces.lowercased()
            if answer == "y" || answer == "yes" { proof.checked.append(i + 1) }
        }
        let here = ContractSetup.currentDirectory()
        while proof.files.count + proof.links.count < ContractBounds.listCount {
            context.stdout.write("A file or a link that shows it (Enter alone when done): ")
            guard let item = readLine()?.trimmingSpaces, !item.isEmpty else { break }
            if item.contains("://") {
                proof.links.append(item)
            } else {
                let absolute = item.hasPrefix("/") ? item : here + "/" + item
                proof.files.append(ContractSetup.realPath(absolute) ?? absolute)
            }
        }
        proof.checked = Array(Set(proof.checked)).sorted()
        let saved = try db.saveProof(id: contract.id, proof)
        context.stdout.write("Submit it for review now? [Y/n] ")
        let answer = (readLine() ?? "").trimmingSpaces.lowercased()
        guard answer.isEmpty || answer == "y" || answer == "yes" else {
            context.stdout.write("the proof is saved as a draft: 'hum proof \(short) --submit' when it is ready\n")
            return
        }
        let outcome = try ReviewRunner.submit(saved, db: db, environment: context.runtime, consent: false)
        context.stdout.write(ReviewRunner.describe(outcome))
    }
}
