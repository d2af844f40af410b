import Foundation

/// A yes/no question for a destructive step. Asked only when a person is at a terminal; scripts
/// must say `--yes`, so nothing is ever deleted because a pipe happened to answer.
enum Confirmation {
    /// True for "y" or "yes"; nil when there is no terminal to ask on.
    static func ask(_ question: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1, Terminal.standardError.isInteractive else { return nil }
        Terminal.standardError.write(question + " [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
