import Foundation

/// Debian's Chromium, headless, as a user's browser: it fetches the page and everything on it over
/// real HTTP, runs its script, and shows what it rendered as the final DOM or a screenshot.
public enum HeadlessChromium {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed; run scripts/setup --tests" }
    }

    static var executable: String {
        get throws {
            guard let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
                                  "/Applications/Chromium.app/Contents/MacOS/Chromium", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"]
                .first(where: FileManager.default.isExecutableFile(atPath:)) else { throw Missing() }
            return path
        }
    }

    /// The DOM after the page loaded and its script ran, at a window size and device scale; with
    /// `screenshot`, also a PNG of the page as rendered (`width`×`height` CSS pixels at `scale`)
    /// from the same visit. `resolving` names a host the browser resolves to 127.0.0.1, as a
    /// rebound DNS name would.
    public static func dom(_ url: URL, width: Int = 1280, height: Int = 900, scale: Int = 1, resolving host: String? = nil,
                           screenshot: String? = nil) throws -> String {
        let rules = host.map { ["--host-resolver-rules=MAP \($0) 127.0.0.1"] } ?? []
        let picture = screenshot.map { ["--screenshot=\($0)"] } ?? []
        return String(decoding: try run(["--dump-dom"] + rules + picture, url: url, width: width, height: height, scale: scale), as: UTF8.self)
    }

    private static func run(_ arguments: [String], url: URL, width: Int, height: Int, scale: Int) throws -> Data {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        // --no-sandbox: the tests run as root in CI. The virtual time budget lets the page's images
        // and script finish before the DOM or the screenshot is taken.
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                     "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "--force-device-scale-factor=\(scale)",
                     "--virtual-time-budget=15000"]
        return try ProcessOutput.run(try executable, flags + arguments + [url.absoluteString], directory: NSTemporaryDirectory())
    }
}
