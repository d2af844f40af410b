import Foundation
import MarketUploader
import TestSupport
import XCTest
@testable import ImagePipeline
@testable import ThumbnailService

/// `serve`'s settings from flags, `MARKET_IMAGES_*` variables and a `--config` file, as a unit file or a
/// container passes them: a flag wins over the environment, which wins over the file. Resolved by
/// `ServiceSettings` from the one table (`ServiceSetting.all`), and the service run in process.
final class ServiceSettingsTests: FolderTestCase {
    private static let key = "656e762d6b6579", salt = "656e762d73616c74"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try copy("photos/jolla.jpg", to: "sku-1/IMG_1.jpg")
    }

    private func configFile(_ lines: [String]) throws -> String {
        let path = root + "/serve.env"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testSettingsComeFromFlagsThenTheEnvironmentThenTheFile() async throws {
        let file = try configFile([
            "# as systemd's EnvironmentFile reads it",
            "MARKET_IMAGES_ROOT=\(input)",
            "MARKET_IMAGES_MAX_AGE=30",
            "MARKET_IMAGES_PRESET=tile=rs:fill:100:100,wide=rs:fit:300:100",
            "MARKET_IMAGES_KEY=\(Self.key)",
            "MARKET_IMAGES_SALT=\(Self.salt)",
        ])
        let environment = ["MARKET_IMAGES_MAX_AGE": "60", "MARKET_IMAGES_ONLY_PRESETS": "true", "MARKET_IMAGES_CACHE": root + "/cache",
                           "MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": "", "MARKET_IMAGES_CAHCE": "/var/cache/misspelt"]

        let signer = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let tile = signer.signedPath(options: ["pr:tile"], source: "local:///sku-1/IMG_1.jpg")
        let ownSize = signer.signedPath(options: ["rs:fit:50:50"], source: "local:///sku-1/IMG_1.jpg")

        // The key from the file, since the environment's is empty (unset).
        let fromEnvironment = try await startService(["--config", file], environment: environment, secrets: [Self.key, Self.salt])
        let answer = try await fromEnvironment.get(tile, headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(answer.status, 200, fromEnvironment.logText)
        XCTAssertEqual(answer.header("Cache-Control"), "public, max-age=60, immutable", "the environment's 60 over the file's 30")
        let header = try ImageHeader.read(.data(answer.body))
        XCTAssertEqual([header.width, header.height], [100, 100], "the file's preset")
        let refused = try await fromEnvironment.get(ownSize, headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(refused.status, 400, "MARKET_IMAGES_ONLY_PRESETS=true")
        XCTAssertTrue(fromEnvironment.logText.contains("warning: MARKET_IMAGES_CAHCE is not a setting of serve (did you mean MARKET_IMAGES_CACHE?) and is ignored"), fromEnvironment.logText)
        XCTAssertFalse(fromEnvironment.logText.contains("MARKET_IMAGES_ROOT is not"), "the file's names are known")
        let cached = try FileManager.default.subpathsOfDirectory(atPath: root + "/cache").filter { !$0.hasPrefix(".") }
        XCTAssertFalse(cached.isEmpty, "MARKET_IMAGES_CACHE is the cache folder")
        await fromEnvironment.terminate()
        let exited = await fromEnvironment.waitForExit()
        XCTAssertEqual(exited, 0)

        let fromFlags = try await startService(["--config", file, "--max-age", "120", "--no-only-presets"], environment: environment,
                                         secrets: [Self.key, Self.salt])
        let own = try await fromFlags.get(ownSize, headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(own.status, 200, "--no-only-presets over MARKET_IMAGES_ONLY_PRESETS=true")
        XCTAssertEqual(own.header("Cache-Control"), "public, max-age=120, immutable", "--max-age over both")
        for overridden in ["MARKET_IMAGES_MAX_AGE", "MARKET_IMAGES_ONLY_PRESETS"] {
            XCTAssertFalse(fromFlags.logText.contains("\(overridden) is not a setting"), "a flag over a variable does not make it unknown: \(fromFlags.logText)")
        }
        XCTAssertTrue(fromFlags.logText.contains("MARKET_IMAGES_CAHCE is not a setting"), fromFlags.logText)
    }

    /// The file is read by systemd's rules: quotes, escapes, continued lines, `;` comments, CRLF and
    /// spaces around `=`. What systemd would ignore is named: `export` stops the service with the line,
    /// a name that is not a variable's is a warning.
    func testTheFileIsReadAsSystemdReadsIt() async throws {
        let file = root + "/serve.env"
        let text = [
            "; a comment, as systemd allows",
            "MARKET_IMAGES_ROOT=\"\(input)\"",
            "MARKET_IMAGES_MAX_AGE = '45'\r",
            "MARKET_IMAGES_PRESET=tile=rs:fill:100:100,\\",
            "wide=rs:fit:300:100   ",
            "",
            "MARKET_IMAGES_INSECURE_UNSIGNED=tr\\ue",
            "NOT A NAME=1",
        ].joined(separator: "\n") + "\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let service = try await startService(["--config", file], environment: ["MARKET_IMAGES_KEY": ""])
        let answer = try await service.get("/insecure/pr:tile/plain/local:///sku-1/IMG_1.jpg", headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(answer.status, 200, service.logText)
        XCTAssertEqual(answer.header("Cache-Control"), "public, max-age=45, immutable", "the quoted value")
        let header = try ImageHeader.read(.data(answer.body))
        XCTAssertEqual([header.width, header.height], [100, 100], "the continued preset line")
        let wide = try await service.get("/insecure/pr:wide/plain/local:///sku-1/IMG_1.jpg", headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(wide.status, 200, "the continuation's second half, its trailing spaces dropped: \(service.logText)")
        XCTAssertTrue(service.logText.contains("line 8: NOT A NAME is not a variable name"), service.logText)

        try "MARKET_IMAGES_ROOT=\(input)\nexport MARKET_IMAGES_QUALITY=70\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(LiveService.refusal(["--config", file, "--insecure-unsigned"], environment: ["MARKET_IMAGES_KEY": ""]),
                       "\(file) line 2: systemd's EnvironmentFile does not read \"export\"; write MARKET_IMAGES_QUALITY=… without it")

        // An unclosed quote takes the lines after it as its value, as systemd reads it: said at start
        // (the bind below it went unread without a word, and the service took the default port).
        try "MARKET_IMAGES_ROOT=\(input)\nAWS_ACCESS_KEY_ID=AKIA\nAWS_SECRET_ACCESS_KEY=\"s3cr3t\nMARKET_IMAGES_BIND=127.0.0.1:8090\nMARKET_IMAGES_MAX_AGE=60\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let quoted = try ServiceSettings(arguments: ["--config", file, "--insecure-unsigned"], environment: ["MARKET_IMAGES_KEY": ""])
        XCTAssertTrue(quoted.warnings.contains("\(file) line 3: the quoted value of AWS_SECRET_ACCESS_KEY runs over 3 lines, to line 5, "
                                               + "as systemd reads it; close its quote on line 3 if those lines are settings of their own"), "\(quoted.warnings)")
        XCTAssertFalse(quoted.warnings.joined().contains("s3cr3t"), "the secret is never shown")
    }

    /// Every setting is read from its variable: a bad value in each is one error that names the
    /// variable (and the file, when one is given), and the service does not start.
    func testEverySettingHasAVariableAndABadValueNamesIt() throws {
        let bad: [String: String] = [
            "root": "/no/such/folder", "allow-source": "ftp://example.com/", "allow-private-sources": "maybe",
            "max-source-bytes": "lots", "download-timeout": "0", "max-downloads": "0", "max-downloads-per-origin": "9", "source-ttl": "-1",
            "source-stale-if-error": "soon", "source-cache-size": "0", "fallback-image": "/no/such/file.jpg",
            "fallback-status": "99", "fallback-max-age": "-5", "bind": "everywhere", "key-file": "/no/such/key.hex",
            "insecure-unsigned": "perhaps", "only-presets": "2", "preset-dprs": "2x", "signature-size": "33", "cache-size": "0",
            "memory-cache": "-1", "workers": "abc", "queue": "-1", "max-output-edge": "8", "max-pixels": "0", "max-render-memory": "1000", "render-memory": "many", "render-timeout": "0", "quality": "500",
            "fast-decode": "fast", "baseline-jpeg": "jpeg", "avif-effort": "10", "auto-avif": "auto", "jxl-effort": "2", "auto-jxl": "yes please", "preset": "card",
            "max-age": "-1", "grace": "-1", "idle-timeout": "0", "max-connections": "0", "metrics-bind": "nowhere",
            "config": "/no/such/serve.env", "format-quality": "webp=good", "allow-security-options": "sometimes",
            "watermark": "/no/such/logo.png", "watermark-opacity": "2", "max-animation-frames": "0", "max-animation-frame-resolution": "0",
            "auto-quality": "dssim:0.02", "auto-quality-max-resolution": "-1", "key": "not-hex", "salt": "not-hex",
            "preferred-formats": "jpeg,bmp", "path-prefix": "/img/../x", "metrics-namespace": "image-proxy",
            "use-s3": "maybe", "s3-allowed-bucket": "Photos_1", "s3-denied-bucket": "x", "s3-endpoint": "ftp://store.example", "s3-region": "Mars Base", "s3-path-style": "sideways", "cache-timeout": "0",
        ]
        // Set by a good value elsewhere (the test above).
        let covered: Set<String> = ["cache"]
        XCTAssertEqual(Set(ServiceSetting.all.map(\.name)).subtracting(covered).subtracting(bad.keys).sorted(), [], "settings without a bad-value case")

        // The rest of a working setup comes from the file, the lowest of the three, so each variable is read.
        let file = try configFile(["MARKET_IMAGES_ROOT=\(input)", "MARKET_IMAGES_INSECURE_UNSIGNED=true",
                                   "MARKET_IMAGES_BIND=127.0.0.1:0", "MARKET_IMAGES_METRICS_BIND=off"])
        for (name, value) in bad.sorted(by: { $0.key < $1.key }) {
            let variable = ServiceSetting.variable(name)
            let error = LiveService.refusal(name == "config" ? [] : ["--config", file], environment: ["MARKET_IMAGES_KEY": ""].merging([variable: value]) { $1 })
            XCTAssertEqual(error?.split(separator: "\n").count, 1, "\(variable)=\(value): \(error ?? "started")")
            XCTAssertTrue(error?.contains(variable) ?? false, "\(variable)=\(value) gave: \(error ?? "no error")")
        }
    }

    /// A key file others can read is refused, as ssh refuses such a private key; the owner's alone
    /// starts the service with its key.
    func testAKeyFileOthersCanReadIsRefused() async throws {
        let keyFile = root + "/key.hex"
        try "\(Self.key)\n\(Self.salt)\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        for mode: mode_t in [0o644, 0o640, 0o604] {
            chmod(keyFile, mode)
            let error = LiveService.refusal(["--root", input, "--key-file", keyFile], environment: ["MARKET_IMAGES_KEY": ""]) ?? "started"
            XCTAssertTrue(error.contains("can be read by other users (mode \(String(mode, radix: 8)))") && error.contains("chmod 600"), error)
            XCTAssertFalse(error.contains(Self.key) || error.contains(Self.salt), error)
        }
        chmod(keyFile, 0o600)
        let service = try await startService(["--root", input, "--key-file", keyFile], secrets: [Self.key, Self.salt])
        let signer = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt)
        let answer = try await service.get(signer.signedPath(options: ["rs:fit:50:50"], source: "local:///sku-1/IMG_1.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(answer.status, 200, service.logText)
    }

    /// The deployment files and the README follow the table: every `MARKET_IMAGES_*` name in deploy/
    /// (the unit's environment file, the container, Kubernetes) is one serve reads, so none is ignored
    /// in every deployment made from it; `deploy/serve.env` shows each default it states as the table
    /// has it; every imgproxy name the table reads is in the README's "Moving from imgproxy" table, and
    /// every one that table names is read or answered (`ImgproxyFixedSettings`).
    func testTheDeploymentFilesAndTheREADMEFollowTheTable() throws {
        let known = Set(ServiceSetting.all.map(\.variable))
        let repository = Fixture.root.deletingLastPathComponent().deletingLastPathComponent()
        let deploy = repository.appendingPathComponent("deploy")
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: deploy.path)).filter { !$0.hasSuffix("/") }
        var named = 0
        for file in files {
            guard let text = try? String(contentsOf: deploy.appendingPathComponent(file), encoding: .utf8) else { continue }
            for match in text.matches(of: /MARKET_IMAGES_[A-Z][A-Z0-9_]*/) {
                named += 1
                XCTAssertTrue(known.contains(String(match.output)), "deploy/\(file) names \(match.output), which serve does not read")
            }
        }
        XCTAssertGreaterThan(named, 20)
        // serve.env sets or shows every setting, a shown one with its default.
        let env = try String(contentsOf: deploy.appendingPathComponent("serve.env"), encoding: .utf8).split(separator: "\n").map(String.init)
        for setting in ServiceSetting.all where ![.secret].contains(setting.form) && !["config", "key-file"].contains(setting.name) {
            let shown = "# \(setting.variable)=" + (setting.shownDefault == nil ? setting.defaultText ?? "" : "")
            XCTAssertTrue(env.contains { $0.hasPrefix(setting.variable + "=") } || env.contains(shown), "deploy/serve.env lacks the line \(shown)")
        }
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let migration = try XCTUnwrap(readme.components(separatedBy: "#### Moving from imgproxy").dropFirst().first?.components(separatedBy: "\n### ").first)
        let rows = migration.split(separator: "\n").filter { $0.hasPrefix("| `IMGPROXY_") }.joined(separator: "\n")
        let listed = Set(rows.matches(of: /IMGPROXY_[A-Z0-9_]+/).map { String($0.output) })
        // The AWS SDK's variables imgproxy reads (AWS_REGION) are read as its names.
        let readNames = listed.union(rows.matches(of: /AWS_[A-Z0-9_]+/).map { String($0.output) })
        for name in ServiceSetting.all.flatMap(\.imgproxy).map(\.variable) + ImgproxyFixedSettings.table.keys {
            XCTAssertTrue(readNames.contains(name), "\(name) is read but not in the README's imgproxy table")
        }
        // The options table of the serve section: every setting with a flag, and its default where it is a number.
        let serve = try XCTUnwrap(readme.components(separatedBy: "### serve: the thumbnail service").dropFirst().first?.components(separatedBy: "\n### ").first)
        let options = serve.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let flags = options.flatMap { row in row[0].matches(of: /--([a-z0-9-]+)/).map { String($0.output.1) } }
        let defaults = options.flatMap { row in zip(row[0].matches(of: /--([a-z0-9-]+)/).map { String($0.output.1) }, row[1].components(separatedBy: " / ")) }
        for setting in ServiceSetting.all where setting.form != .secret {
            XCTAssertTrue(flags.contains(setting.name), "--\(setting.name) is not in the README's table of serve's options")
        }
        for flag in flags { XCTAssertNotNil(ServiceSetting.named(flag), "the README's table names --\(flag), which serve does not have") }
        for (flag, shown) in defaults where shown.allSatisfy(\.isNumber) && !shown.isEmpty {
            XCTAssertEqual(ServiceSetting.named(flag)?.defaultText, shown, "the README's default of --\(flag)")
        }
        for name in listed {
            XCTAssertNotNil(ImgproxyFixedSettings.warning(name, value: "true").map { $0.contains("no equivalent") || $0.contains("not one of") ? nil : $0 } ?? "read",
                            "the README names \(name), which serve neither reads nor answers")
        }
        // Every open-source imgproxy setting is read, fixed or answered with why, and the README's
        // second table is the code's.
        let read = Set(ServiceSetting.all.flatMap(\.imgproxy).map(\.variable)).union(ImgproxyFixedSettings.table.keys)
        for name in ImgproxyNames.openSource where !read.contains(name) {
            XCTAssertNotNil(ImgproxyFixedSettings.reason(name), "\(name) is imgproxy's, but serve neither reads it nor says why not")
        }
        for (names, reason) in ImgproxyFixedSettings.unhonoured {
            let row = "| " + names.map { "`\($0.hasSuffix("_") ? $0 + "*" : $0)`" }.joined(separator: ", ") + " | \(reason) |"
            XCTAssertTrue(migration.contains(row + "\n"), "the README's table of settings not read lacks the row\n\(row)")
        }
    }

    /// An operator's imgproxy environment (names and units from imgproxy's configuration page) starts
    /// the service with those settings; a `MARKET_IMAGES_*` name wins over its imgproxy synonym; an
    /// imgproxy name serve has no equivalent for, or a switch it cannot honour, is named at start.
    func testAnImgproxyEnvironmentStartsTheServiceWithItsSettings() async throws {
        let file = try configFile([
            "IMGPROXY_KEY=\(Self.key)", "IMGPROXY_SALT=\(Self.salt)", "IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(input)",
            "IMGPROXY_TTL=600", "IMGPROXY_QUALITY=90", "MARKET_IMAGES_QUALITY=40", "IMGPROXY_PRESETS=tile=rs:fill:100:100,wide=rs:fit:300:100",
            "IMGPROXY_MAX_SRC_RESOLUTION=1", "IMGPROXY_ALLOW_SECURITY_OPTIONS=true", "IMGPROXY_USE_ETAG=true",
            "IMGPROXY_ENABLE_WEBP_DETECTION=true", "IMGPROXY_STRIP_METADATA=false", "IMGPROXY_LOG_LEVEL=debug",
            "IMGPROXY_AUTO_JXL=true", "IMGPROXY_JXL_EFFORT=1", "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION=0.01",
            "IMGPROXY_PREFERRED_FORMATS=png,jpeg",
        ])
        let service = try await startService(["--config", file], environment: ["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_SALT": ""],
                                       secrets: [Self.key, Self.salt])
        let signer = try ThumbnailURLSigner(hexKey: Self.key, hexSalt: Self.salt)
        try copy("photos/DSCN0010.jpg", to: "sku-1/small.jpg")
        let tile = try await service.get(signer.signedPath(options: ["pr:tile"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(tile.status, 200, service.logText)
        XCTAssertEqual(tile.header("Cache-Control"), "public, max-age=600, immutable", "IMGPROXY_TTL")
        let header = try ImageHeader.read(.data(tile.body))
        XCTAssertEqual([header.width, header.height], [100, 100], "IMGPROXY_PRESETS")
        let q90 = try await service.get(signer.signedPath(options: ["pr:tile", "q:90"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        let q40 = try await service.get(signer.signedPath(options: ["pr:tile", "q:40"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(tile.body, q40.body, "MARKET_IMAGES_QUALITY=40 over IMGPROXY_QUALITY=90")
        XCTAssertNotEqual(tile.body, q90.body)
        let jxl = try await service.get(signer.signedPath(options: ["pr:tile"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jxl,*/*"])
        XCTAssertEqual([jxl.status], [200], "IMGPROXY_JXL_EFFORT=1 is libvips' lowest, 3")
        XCTAssertEqual(jxl.header("Content-Type"), "image/jxl", "IMGPROXY_AUTO_JXL")
        try copy("metadata/everything.webp", to: "sku-1/small.webp")
        let webp = try await service.get(signer.signedPath(options: ["w:50"], source: "local:///sku-1/small.webp"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(webp.header("Content-Type"), "image/png", "IMGPROXY_PREFERRED_FORMATS: the first listed, for a WebP not listed")
        let large = try await service.get(signer.signedPath(options: ["w:100"], source: "local:///sku-1/IMG_1.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(large.status, 413, "IMGPROXY_MAX_SRC_RESOLUTION=1 megapixel: the 8-megapixel photo is refused")
        let lowered = try await service.get(signer.signedPath(options: ["w:100", "msr:0.1"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual(lowered.status, 413, "IMGPROXY_ALLOW_SECURITY_OPTIONS: msr lowers the limit below the 640×480 photo")
        let scored = try await service.get(signer.signedPath(options: ["pr:tile", "aq:ssimulacra2:80"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        let unscored = try await service.get(signer.signedPath(options: ["w:200", "aq:ssimulacra2:80"], source: "local:///sku-1/small.jpg"), headers: ["Accept": "image/jpeg"])
        XCTAssertEqual([scored.header("X-Quality") != nil, unscored.header("X-Quality") != nil], [true, false],
                       "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION=0.01 megapixels: 100×100 is scored, 200×150 is not")
        let log = service.logText
        XCTAssertTrue(log.contains("warning: IMGPROXY_LOG_LEVEL is imgproxy's and is ignored: the service logs one line per request"), log)
        XCTAssertTrue(log.contains("warning: IMGPROXY_STRIP_METADATA=false is ignored: metadata is always stripped"), log)
        for quiet in ["IMGPROXY_USE_ETAG", "IMGPROXY_ENABLE_WEBP_DETECTION", "IMGPROXY_TTL", "IMGPROXY_KEY", "IMGPROXY_AUTO_JXL", "IMGPROXY_JXL_EFFORT",
                      "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION", "IMGPROXY_PREFERRED_FORMATS"] {
            XCTAssertFalse(log.contains(quiet), "\(quiet) is read or honoured: nothing to say")
        }
        await service.terminate()
        let exited = await service.waitForExit()
        XCTAssertEqual(exited, 0)
    }

    /// A value in the file is named with the file; a flag's problem keeps the flag's name.
    func testAnErrorNamesWhereTheValueCameFrom() throws {
        let file = try configFile(["MARKET_IMAGES_QUALITY=500"])
        let arguments = ["--root", input, "--insecure-unsigned", "--config", file]
        XCTAssertEqual(LiveService.refusal(arguments, environment: ["MARKET_IMAGES_KEY": ""]), "MARKET_IMAGES_QUALITY (\(file) line 1): takes 1 to 100")
        XCTAssertEqual(LiveService.refusal(arguments, environment: ["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_QUALITY": "0"]), "$MARKET_IMAGES_QUALITY: takes 1 to 100")
        XCTAssertEqual(LiveService.refusal(arguments + ["--quality", "0"], environment: ["MARKET_IMAGES_KEY": "", "MARKET_IMAGES_QUALITY": "70"]), "--quality: takes 1 to 100")
        XCTAssertEqual(LiveService.refusal(arguments + ["--quality"], environment: [:]), "--quality needs a value")
        XCTAssertEqual(LiveService.refusal(arguments + ["--qualty", "70"], environment: [:]), "unknown option \"--qualty\" (did you mean --quality?); see market-images serve --help")
        XCTAssertEqual(LiveService.refusal(arguments + ["--only-presets=yes"], environment: [:]), "--only-presets is a switch and takes no value (--no-only-presets turns it off)")
    }
}
