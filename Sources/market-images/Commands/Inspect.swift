import ArgumentParser
import Foundation
import ImagePipeline

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a photo is and what prepare would make of it.",
        discussion: """
        Reads each file's header (format, dimensions, EXIF orientation, colour profile, metadata such as \
        GPS, progressive or interlaced) and runs prepare in memory to report the exact output: \
        dimensions, quality and bytes, and at most how much memory decoding it takes (the estimate \
        serve admits renders by). Nothing is written.

        EXAMPLES:
          market-images inspect IMG_0001.HEIC
          market-images inspect photos/*.jpg --max-bytes 200000 --json
        """
    )

    @Argument(help: "Photo files.")
    var files: [String]

    @OptionGroup var image: ImageOptions

    @Flag(help: "Print the findings as JSON on standard output.")
    var json = false

    @Flag(help: "Also encode at every quality in the range and show the bytes of each (slow).")
    var curve = false

    struct Finding: Encodable {
        var file: String
        var header: ImageHeader?
        var plan: [String]?
        /// At most this many bytes held while it is decoded and fitted (`DecodeCost`).
        var decodeMemory: Int?
        var output: Output?
        /// How the result looks to a buyer, and what a seller should hear about it.
        var look: PhotoLook?
        var warnings: [String]?
        /// Bytes at each quality, on the pixels of the result (with --curve).
        var curve: [String: Int]?
        var error: String?

        struct Output: Encodable {
            var format: OutputFormat
            var width: Int
            var height: Int
            var quality: Int?
            var bytes: Int
            var encodes: Int
        }
    }

    func run() throws {
        let preparer = try ImagePreparer(options: image.prepareOptions)
        var findings: [Finding] = []
        for file in files {
            let finding = inspect(file, preparer)
            findings.append(finding)
            guard !json else { continue }
            // Findings on stdout as each file is done; errors on stderr, like every command's.
            if finding.header != nil { Terminal.standardOutput.write(Self.render(finding)) }
            if let error = finding.error { Terminal.standardError.error("\(Terminal.display(file)): \(error)") }
        }
        if json { try printJSON(findings) }
        if findings.contains(where: { $0.error != nil }) { throw ExitCode.failure }
    }

    private func inspect(_ file: String, _ preparer: ImagePreparer) -> Finding {
        var finding = Finding(file: file)
        do {
            let header = try ImageHeader.read(file: file)
            finding.header = header
            finding.plan = preparer.options.steps(for: header)
            finding.decodeMemory = DecodeCost.bytes(header: header, box: preparer.options.renderSpec.decodeBox(
                uprightWidth: header.uprightWidth, uprightHeight: header.uprightHeight))
            let decoded = try preparer.decode(file: file)
            let encoded = try preparer.encode(decoded, stem: URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent)
            if curve {
                finding.curve = Dictionary(uniqueKeysWithValues: try preparer.qualityCurve(decoded, for: encoded).map { (String($0.key), $0.value) })
            }
            finding.output = .init(format: encoded.format, width: encoded.width, height: encoded.height,
                                   quality: encoded.quality, bytes: encoded.byteCount, encodes: encoded.encodes)
            (finding.look, finding.warnings) = (encoded.look, encoded.warnings)
        } catch {
            finding.error = error.message
        }
        return finding
    }

    static func render(_ finding: Finding) -> String {
        var lines = [finding.file]
        if let header = finding.header {
            lines.append("  format:      \(header.format) (\(header.loader)), \(header.bitsPerSample)-bit, \(header.bands) bands\(header.hasAlpha ? " with alpha" : "")")
            lines.append("  dimensions:  \(header.width)×\(header.height)\(header.pages > 1 ? ", \(header.pages) pages" : "")")
            lines.append("  orientation: \(header.orientation)\(header.orientation == 1 ? "" : " (shown as \(header.uprightWidth)×\(header.uprightHeight))")")
            lines.append("  colour:      \(header.interpretation)\(header.iccProfile.map { ", profile \"\($0)\"" } ?? ", no profile")")
            lines.append("  metadata:    \(header.metadata.isEmpty ? "none" : header.metadata.names.joined(separator: ", "))\(header.metadata.gps ? "  ← GPS location!" : "")")
            lines.append("  prepare:     \(finding.plan?.joined(separator: "; ") ?? "")")
            if let memory = finding.decodeMemory { lines.append("  memory:      at most \(max(1, memory >> 20)) MB to decode and fit") }
        }
        if let output = finding.output {
            let quality = output.quality.map { " at Q\($0)" } ?? ""
            lines.append("  result:      \(output.format.rawValue.uppercased()) \(output.width)×\(output.height)\(quality), \(output.bytes) bytes, \(output.encodes) encode\(output.encodes == 1 ? "" : "s")")
        }
        if let look = finding.look {
            let sharpness = look.detailStrength < PhotoLook.Thresholds.detailStrength
                ? String(format: "no sharp detail (strongest edges %.1f levels a pixel)", look.detailStrength)
                : look.edgeStrength < PhotoLook.Thresholds.minEdgeStrength ? "edges too few to judge their width"
                : String(format: "edges %.2f px wide", look.blurWidth)
            lines.append("  looks:       \(sharpness); brightest 1% at \(look.highlights), median \(look.median), darkest 1% at \(look.shadows); "
                + String(format: "%.1f%% highlights clipped", look.clippedHighlights * 100))
        }
        for warning in finding.warnings ?? [] { lines.append("  warning:     \(warning)") }
        if let curve = finding.curve {
            let points = curve.compactMap { key, bytes in Int(key).map { ($0, bytes) } }.sorted { $0.0 < $1.0 }
            lines.append("  bytes by Q:  " + points.map { "Q\($0.0) \($0.1)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
