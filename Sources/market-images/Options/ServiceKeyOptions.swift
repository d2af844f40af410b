import ArgumentParser
import Foundation
import MarketUploader

/// The thumbnail service's key and salt, shared by `serve` and `url`: hex, from `$MARKET_IMAGES_KEY`
/// and `$MARKET_IMAGES_SALT` or `--key-file`. Never printed.
struct ServiceKeyOptions: ParsableArguments {
    @Option(help: "A file with the hex key on its first line and the hex salt on its second.")
    var keyFile: String?

    /// The key and salt as bytes; nil when no key is set.
    func load() throws -> (key: Data, salt: Data)? {
        let environment = ProcessInfo.processInfo.environment
        var key = environment["MARKET_IMAGES_KEY"], salt = environment["MARKET_IMAGES_SALT"]
        if let keyFile {
            guard let text = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw ValidationError("cannot read --key-file \(Terminal.display(keyFile))")
            }
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard lines.count >= 2 else { throw ValidationError("--key-file needs the hex key on its first line and the hex salt on its second") }
            (key, salt) = (lines[0], lines[1])
        }
        guard let key, !key.isEmpty else { return nil }
        guard let keyBytes = ThumbnailURLSigner.decodeHex(key), let saltBytes = ThumbnailURLSigner.decodeHex(salt ?? "") else {
            throw ValidationError("the key and the salt must be hex digits, an even number of them "
                + "(MARKET_IMAGES_KEY, MARKET_IMAGES_SALT or --key-file)")
        }
        return (Data(keyBytes), Data(saltBytes))
    }
}
