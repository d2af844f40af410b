import ArgumentParser
import Foundation
import MarketUploader

/// The thumbnail service's keys and salts, shared by `serve` and `url`: hex, from `$MARKET_IMAGES_KEY`
/// and `$MARKET_IMAGES_SALT` (several pairs comma-separated, as imgproxy takes them; also from serve's
/// `--config` file) or `--key-file` / `$MARKET_IMAGES_KEY_FILE` (a key line and a salt line per pair). Several pairs let keys be rotated: `serve` accepts any of
/// them, `url` signs with the first. Never printed.
struct ServiceKeyOptions: ParsableArguments {
    @Option(help: "A file with a hex key line and a hex salt line per key (the first signs; serve accepts any); mode 600.")
    var keyFile: String?

    /// The key and salt pairs as bytes; empty when no key is set.
    func load(from sources: SettingSources = .environment()) throws -> [(key: Data, salt: Data)] {
        var keys = sources.secrets("key"), salts = sources.secrets("salt")
        if let keyFile = try sources.value(keyFile, "key-file") {
            let text = try SecretFile.read(keyFile, option: sources.origin(of: "key-file"))
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard lines.count >= 2, lines.count % 2 == 0 else {
                throw ValidationError("--key-file needs a hex key line and a hex salt line for each key")
            }
            keys = stride(from: 0, to: lines.count, by: 2).map { lines[$0] }
            salts = stride(from: 1, to: lines.count, by: 2).map { lines[$0] }
        }
        guard !keys.isEmpty else { return [] }
        guard keys.count == salts.count || (keys.count == 1 && salts.isEmpty) else {
            throw ValidationError("\(keys.count) keys but \(salts.count) salts: give one salt per key (MARKET_IMAGES_SALT, comma-separated)")
        }
        return try zip(keys, salts.isEmpty ? [""] : salts).map { key, salt in
            guard let keyBytes = ThumbnailURLSigner.decodeHex(key), let saltBytes = ThumbnailURLSigner.decodeHex(salt) else {
                throw ValidationError("the keys and the salts must be hex digits, an even number of them "
                    + "(MARKET_IMAGES_KEY, MARKET_IMAGES_SALT or --key-file)")
            }
            return (Data(keyBytes), Data(saltBytes))
        }
    }
}
