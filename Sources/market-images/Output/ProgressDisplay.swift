import Foundation

/// A one-line progress display on standard error: done/total, rate and time left. It draws only on a
/// terminal, at most ten times a second, and clears itself before anything else is printed.
final class ProgressDisplay: @unchecked Sendable {
    private let terminal: Terminal
    private let enabled: Bool
    private let lock = NSLock()
    private var total = 0
    private var done = 0
    private var failed = 0
    private var started = Date()
    private var lastDraw = Date.distantPast

    init(terminal: Terminal = .standardError, enabled: Bool) {
        self.terminal = terminal
        self.enabled = enabled && terminal.isInteractive
    }

    func start(total: Int) {
        lock.withLock {
            self.total = total
            started = Date()
            draw(force: true)
        }
    }

    /// Counts one photo done; `print`, if any, writes its lines with the progress line cleared first
    /// and redrawn after, so results and the display never share a line.
    func advance(failed didFail: Bool, print: (() -> Void)? = nil) {
        lock.withLock {
            done += 1
            if didFail { failed += 1 }
            guard let print else { return draw(force: done == total) }
            if enabled, total > 0 { terminal.emit("\r\u{1B}[2K") }
            print()
            draw(force: true)
        }
    }

    func finish() {
        lock.withLock {
            if enabled, total > 0 { terminal.emit("\r\u{1B}[2K") }
        }
    }

    private func draw(force: Bool) {
        guard enabled, total > 0, force || Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "[\(done)/\(total)] \(String(format: "%.1f", rate)) photos/s"
        if rate > 0, done < total {
            let remaining = Int((Double(total - done) / rate).rounded())
            line += String(format: ", ETA %d:%02d", remaining / 60, remaining % 60)
        }
        if failed > 0 { line += ", " + terminal.styled("\(failed) failed", "31") }
        terminal.emit("\r\u{1B}[2K" + line)
    }
}
