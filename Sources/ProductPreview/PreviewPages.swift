import Foundation
import ImagePipeline
import MarketUploader
import Mustache

/// Turns the catalogue into pages: the list/grid of products and one page per product. Thumbnails
/// and the originals for comparison are URLs of the thumbnail service in the same process; each
/// carries the source's fingerprint (`cb:`), so a photo changed in the folder is a new URL.
struct PreviewPages: Sendable {
    let library: MustacheLibrary
    let catalogue: PreviewCatalogue
    let maxBytes: Int

    init(catalogue: PreviewCatalogue, maxBytes: Int) throws {
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in PreviewTemplates.all { templates[name] = try MustacheTemplate(string: text) }
        library = MustacheLibrary(templates: templates)
        self.catalogue = catalogue
        self.maxBytes = maxBytes
    }

    var title: String { "Preview of " + (URL(fileURLWithPath: catalogue.productsFolder).standardizedFileURL.lastPathComponent) }

    func index(grid: Bool) -> String {
        let (products, warnings) = catalogue.products()
        let photoCount = products.reduce(0) { $0 + ($1.prepared?.outputs.count ?? 0) }
        let problemCount = products.reduce(0) { $0 + problems(of: $1).count }
        let page = PreviewViews.Page(
            title: title, list: !grid, grid: grid,
            summary: "\(NumberText.count(products.count, "product")) · \(NumberText.count(photoCount, "prepared photo")) · \(NumberText.count(problemCount, "problem"))",
            warnings: warnings, products: products.map { card($0, grid: grid) })
        return library.render(page, withTemplate: "index") ?? ""
    }

    /// Nil when there is no product folder of that name.
    func product(named name: String) -> String? {
        guard let product = catalogue.product(named: name) else { return nil }
        let prepared = product.prepared
        let photos = (prepared?.outputs ?? []).enumerated().map { index, output in
            PreviewViews.Photo(
                number: index + 1, source: (output.source as NSString).lastPathComponent, width: output.width, height: output.height,
                bytes: NumberText.grouped(Int64(output.bytes)), limit: NumberText.grouped(Int64(maxBytes)), percent: output.bytes * 100 / max(maxBytes, 1),
                overBudget: output.bytes > maxBytes,
                quality: (output.quality.map { "quality \($0)" } ?? "\(output.format.rawValue.uppercased()), lossless")
                    + (output.score.map { ", looks \(Int($0.rounded(.down)))/100" } ?? ""),
                encodes: NumberText.count(output.encodes, "encode"), warnings: output.warnings ?? [],
                preparedURL: preparedURL(product, output),
                originalURL: serviceURL("rs:force:\(output.width):\(output.height)/f:png", source: output.source, fingerprint: output.sourceFingerprint))
        }
        let failures = (prepared?.report.failed ?? []).map {
            PreviewViews.Failure(file: ($0.source as NSString).lastPathComponent, reason: message($0))
        }
        let problems = product.problems + product.warnings
        let page = PreviewViews.ProductPage(
            title: "\(product.fields?.name ?? product.name) · \(title)", folder: product.name, name: product.fields?.name ?? product.name,
            pricing: pricing(product.fields), description: product.fields?.description,
            publish: product.publish.map { .init(summary: $0.summary, kind: $0.kind, changes: $0.changes, hasChanges: !$0.changes.isEmpty) },
            problems: problems, hasProblems: !problems.isEmpty, photos: photos, failures: failures, hasFailures: !failures.isEmpty)
        return library.render(page, withTemplate: "product")
    }

    private func card(_ product: PreviewCatalogue.Product, grid: Bool) -> PreviewViews.Card {
        let issues = problems(of: product).count
        let thumbnail = product.prepared?.outputs.first.map { first in
            let preset = grid ? "grid" : "list", size = grid ? 200 : 80
            let urls = (1...3).map { scale in
                serviceURL("pr:\(preset)" + (scale == 1 ? "" : "/dpr:\(scale)"), source: first.source, fingerprint: first.sourceFingerprint)
            }
            return PreviewViews.Thumbnail(src: urls[0], srcset: "\(urls[0]) 1x, \(urls[1]) 2x, \(urls[2]) 3x", size: size)
        }
        return PreviewViews.Card(
            folder: product.name, link: "/product/" + Self.pathEscaped(product.name), name: product.fields?.name ?? product.name,
            pricing: pricing(product.fields), thumbnail: thumbnail, issues: issues == 0 ? nil : NumberText.count(issues, "problem"),
            state: product.publish?.summary, stateKind: product.publish?.kind)
    }

    /// Everything a seller should fix, each once: the fields, the folder and each photo's warnings (the
    /// run's warnings include every photo's), and each failed photo.
    private func problems(of product: PreviewCatalogue.Product) -> [String] {
        product.problems + product.warnings + (product.prepared?.report.failed.map(message) ?? [])
    }

    private func pricing(_ fields: ProductChange?) -> PreviewViews.Pricing {
        let stock = fields?.stock.map { $0 == 0 ? "Sold out" : "\($0) in stock" } ?? "no stock given"
        let soldOut = fields?.stock == 0
        guard let price = fields?.price else { return .init(price: "no price", sale: nil, stock: stock, soldOut: soldOut) }
        let currency = fields?.currency ?? .KRW
        let sale = SalePrice.effective(price: price, salePrice: fields?.salePrice).map(currency.format)
        return .init(price: currency.format(price), sale: sale, stock: stock, soldOut: soldOut)
    }

    /// A URL of the in-process thumbnail service for a photo under the products folder.
    private func serviceURL(_ options: String, source: String, fingerprint: String) -> String {
        let root = URL(fileURLWithPath: catalogue.productsFolder).standardizedFileURL.path + "/"
        let path = URL(fileURLWithPath: source).standardizedFileURL.path
        let relative = path.hasPrefix(root) ? String(path.dropFirst(root.count)) : (path as NSString).lastPathComponent
        let encoded = Data("local:///\(relative)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "/insecure/\(options)/cb:\(Fingerprint.hex(fingerprint).prefix(16))/\(encoded)"
    }

    private func preparedURL(_ product: PreviewCatalogue.Product, _ output: Manifest.Output) -> String {
        "/prepared/\(Self.pathEscaped(product.name))/" + output.output.split(separator: "/").map { Self.pathEscaped(String($0)) }.joined(separator: "/")
            + "?v=" + Fingerprint.hex(output.sourceFingerprint + output.settingsFingerprint).prefix(16)
    }

    static func pathEscaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#%"))) ?? text
    }

    /// A failed photo as the host words its errors.
    private func message(_ failure: Manifest.Failure) -> String {
        failure.cause.map(catalogue.configuration.describe) ?? failure.error
    }
}
