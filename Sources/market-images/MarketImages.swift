import ArgumentParser
import Foundation
import ImagePipeline

@main
struct MarketImages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "market-images",
        abstract: "Get product photos from a camera roll onto an OpenMarket server.",
        discussion: """
        Photos are made upright, converted to sRGB, stripped of EXIF/GPS and encoded under the server's \
        byte limit at the best quality that fits.

        EXAMPLES:
          market-images prepare photos/ --out ready/
          market-images thumbs photos/ --out thumbs/
          market-images inspect photos/sku-123/IMG_0001.HEIC
          market-images register photos/sku-123 --name "Ceramic mug" \\
              --description "Hand-thrown, 350 ml" --price 12000 --stock 3
          market-images publish products/

        Exit status: 0 all good, 1 some inputs failed, 2 usage error.
        """,
        version: "0.6.0",
        subcommands: [Prepare.self, Thumbs.self, Inspect.self, Register.self, Edit.self, Attach.self, Publish.self, ListProducts.self,
                      Show.self, Delete.self, Preview.self, URLCommand.self, Serve.self]
    )

    /// ArgumentParser exits 64 (EX_USAGE) on usage errors; this tool promises 2, like most Unix tools.
    static func main() async {
        VipsRuntime.tuneAllocatorForBatchWork()
        var parsed: ParsableCommand.Type?
        do {
            var command = try parseAsRoot()
            parsed = type(of: command)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                // A usage error found while running names the usage of the command that was run, as
                // one found while parsing does.
                if let parsed, parsed != MarketImages.self, error is ValidationError {
                    let name = parsed._commandName
                    Terminal.standardError.write("Error: \(message(for: error))\nUsage: \(usageString(for: parsed))\n"
                        + "  See 'market-images \(name) --help' for more information.\n")
                } else {
                    Terminal.standardError.write(fullMessage(for: error) + "\n")
                }
                Foundation.exit(2)
            }
            // Help and explicit exit codes go through ArgumentParser; anything else is this tool's own
            // error, printed like every other error line.
            if code == .success || error is ExitCode { exit(withError: error) }
            Terminal.standardError.error(errorText(error))
            Foundation.exit(1)
        }
    }
}
