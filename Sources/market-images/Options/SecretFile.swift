import ArgumentParser
import Foundation
import ImagePipeline

/// A file holding a secret (`--key-file`, `--secret-file`, `--password-file`): refused, as ssh refuses
/// a private key, when other users may read or write it, since the point of a file is that only its
/// owner can. Files systemd hands a service (`$CREDENTIALS_DIRECTORY`) are checked by systemd.
enum SecretFile {
    /// Larger than any key, salt or password.
    static let maxBytes = 64 << 10

    /// The file's text; `option` names it in errors (`--key-file` or the variable it came from).
    static func read(_ path: String, option: String) throws -> String {
        let file: OpenFile
        do { file = try OpenFile(path: path) } catch { throw ValidationError("\(option) \(Terminal.display(path)): \(error)") }
        guard file.size <= maxBytes else { throw ValidationError("\(option) \(Terminal.display(path)) is larger than a key or a password") }
        let mode = file.permissions & 0o777
        if mode & 0o077 != 0, !isSystemdCredential(path) {
            throw ValidationError("\(option) \(Terminal.display(path)) can be read by other users (mode \(String(mode, radix: 8))); "
                + "make it the owner's alone: chmod 600 \(Terminal.display(path))")
        }
        let data: Data
        do { data = try file.read() } catch { throw ValidationError("\(option) \(Terminal.display(path)): \(error)") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("cannot read \(option) \(Terminal.display(path)) as UTF-8 text")
        }
        return text
    }

    private static func isSystemdCredential(_ path: String) -> Bool {
        guard let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
              let real = FileStatus.realPath(path), let realDirectory = FileStatus.realPath(directory) else { return false }
        return real.hasPrefix(realDirectory + "/")
    }
}
