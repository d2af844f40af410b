import Foundation

/// A file holding a secret (`--key-file`, `--secret-file`, `--password-file`): refused, as ssh refuses
/// a private key, when other users may read or write it, since the point of a file is that only its
/// owner can. Files systemd hands a service (`$CREDENTIALS_DIRECTORY`) are checked by systemd.
public enum SecretFile {
    /// Why a secret file was not read, in a sentence that names it as the caller said it
    /// (`--key-file` or the variable it came from) and says what to do.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Larger than any key, salt or password.
    static let maxBytes = 64 << 10

    /// The file's text; `option` names it in errors, `display` shows its path.
    public static func read(_ path: String, option: String, display: (String) -> String = { $0 }) throws(Problem) -> String {
        let shown = display(path)
        let file: OpenFile
        do { file = try OpenFile(path: path) } catch { throw Problem(description: "\(option) \(shown): \(error)") }
        guard file.size <= maxBytes else { throw Problem(description: "\(option) \(shown) is larger than a key or a password") }
        let mode = file.permissions & 0o777
        if mode & 0o077 != 0, !isSystemdCredential(path) {
            throw Problem(description: "\(option) \(shown) can be read by other users (mode \(String(mode, radix: 8))); "
                + "make it the owner's alone: chmod 600 \(shown)")
        }
        let data: Data
        do { data = try file.read() } catch { throw Problem(description: "\(option) \(shown): \(error)") }
        guard let text = String(data: data, encoding: .utf8) else { throw Problem(description: "cannot read \(option) \(shown) as UTF-8 text") }
        return text
    }

    private static func isSystemdCredential(_ path: String) -> Bool {
        guard let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
              let real = FileStatus.realPath(path), let realDirectory = FileStatus.realPath(directory) else { return false }
        return real.hasPrefix(realDirectory + "/")
    }
}
