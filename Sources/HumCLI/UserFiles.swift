import HumAudio
import HumCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The per-user places where shells and `man` look for hum's completion scripts and manual page, and the one way
/// `--install` writes there: the folders made when missing, the file replaced atomically (`OutputFile`), and a
/// line saying where it went and what the shell still needs.
struct UserFiles {
    /// `$XDG_DATA_HOME` (default `~/.local/share`), `$XDG_CONFIG_HOME` (default `~/.config`).
    let dataHome: String
    let configHome: String

    init(context: CommandContext) throws(HumError) {
        if let problem = context.paths.problem { throw HumError.failure(problem) }
        dataHome = PathText.directory(context.paths.dataDirectory)
        let home = PathText.directory(dataHome)
        if let config = context.environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            configHome = config
        } else if let value = context.environment["HOME"], value.hasPrefix("/") {
            configHome = value + "/.config"
        } else {
            // XDG_DATA_HOME was set and HOME was not: the config folder beside the data folder's parent.
            configHome = home + "/.config"
        }
    }

    /// Where each shell reads a user's completions: bash-completion's per-user folder, a folder for zsh's
    /// `fpath`, fish's own completions folder.
    func completionPath(shell: String) -> String {
        switch shell {
        case "bash": dataHome + "/bash-completion/completions/hum"
        case "zsh": dataHome + "/zsh/site-functions/_hum"
        default: configHome + "/fish/completions/hum.fish"
        }
    }

    /// What the shell needs besides the file, if anything.
    func completionHint(shell: String) -> String? {
        switch shell {
        case "bash": "a new bash reads it through the bash-completion package"
        case "zsh": "add 'fpath+=(\(dataHome)/zsh/site-functions)' before compinit in ~/.zshrc"
        default: nil
        }
    }

    /// The manual page: man-db finds `~/.local/share/man` for a user whose PATH holds `~/.local/bin`.
    var manPagePath: String { dataHome + "/man/man1/hum.1" }

    /// Writes `text` to `path`, making its folders, replacing a file there atomically.
    func install(_ text: String, at path: String, context: CommandContext) throws {
        let folder = PathText.directory(path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw HumError.failure("cannot make the folder \(folder.clippedPath): \(fileErrorText(error))")
        }
        try OutputFile.write(path, newFileMode: OutputFile.ordinary, closed: context.closedDescriptors) { write in
            try write(Array(text.utf8))
        }
        context.made("\(path.clippedPath) was written", see: "ls -l \(path.clippedPath)")
    }
}
