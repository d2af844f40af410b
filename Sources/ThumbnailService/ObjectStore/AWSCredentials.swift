import Foundation

/// The key an object store is signed for: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
/// `AWS_SESSION_TOKEN` (the service's settings, from the environment or the `--config` file), else
/// the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`, profile
/// `AWS_PROFILE` or `default`). Roles fetched over the network (EC2's instance metadata, ECS task
/// roles, EKS web identity) are not read: a pod gets keys in its environment from a Secret.
/// Never printed: its description shows the key's ID only.
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        (self.accessKeyID, self.secretAccessKey, self.sessionToken) = (accessKeyID, secretAccessKey, sessionToken)
    }

    public var description: String { "AWS key \(accessKeyID) (secret not shown)" }

    /// The `[profile]` section's keys in an AWS shared credentials file (INI: `name = value`
    /// lines, `#` and `;` comments), or nil when the file has no such section or lacks a key.
    static func sharedFile(_ text: String, profile: String) -> AWSCredentials? {
        var section: String?
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == profile, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"], !id.isEmpty, !secret.isEmpty else { return nil }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The shared credentials file's keys, read as the AWS tools read it, or nil.
    static func fromSharedFile(environment: [String: String]) -> AWSCredentials? {
        let (path, profile) = sharedFileLocation(environment: environment)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return sharedFile(text, profile: profile)
    }

    /// Where the AWS tools look for the shared credentials file, and the profile they read in it.
    static func sharedFileLocation(environment: [String: String]) -> (path: String, profile: String) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.aws/credentials"
        return (path, environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default")
    }

    /// Where credentials were looked for, when none were found: names and a path, never a value.
    static func notFound(environment: [String: String]) -> String {
        let (path, profile) = sharedFileLocation(environment: environment)
        let named = environment["AWS_PROFILE"].map { _ in " (AWS_PROFILE)" } ?? ""
        let file = FileManager.default.isReadableFile(atPath: path)
            ? "\(path) has no profile [\(profile)]\(named) with aws_access_key_id and aws_secret_access_key"
            : "there is no \(path) (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials)"
        return "no AWS credentials found: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set neither in the environment nor in the --config file, and \(file)"
    }
}
