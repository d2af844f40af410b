import Foundation
import ImagePipeline
import MarketUploader

/// What the templates show, as plain values: every string here is escaped by the template engine
/// where it is written into the page, so a product named `<script>` shows as text.
enum PreviewViews {
    struct Page {
        var title: String
        var list: Bool
        var grid: Bool
        var summary: String
        var warnings: [String]
        var products: [Card]
    }

    /// Price and stock as the apps show them, the same on a card and on a product's page.
    struct Pricing {
        var price: String
        var sale: String?
        var stock: String
        var soldOut: Bool
    }

    /// A product as a row of the list or a cell of the grid.
    struct Card {
        var folder: String
        var link: String
        var name: String
        var pricing: Pricing
        var thumbnail: Thumbnail?
        var issues: String?
        var state: String?
        var stateKind: String?
    }

    struct Thumbnail {
        var src: String
        var srcset: String
        var size: Int
    }

    struct ProductPage {
        var title: String
        var folder: String
        var name: String
        var pricing: Pricing
        var description: String?
        var publish: Publish?
        var problems: [String]
        var hasProblems: Bool
        var photos: [Photo]
        var failures: [Failure]
        var hasFailures: Bool
    }

    struct Publish {
        var summary: String
        var kind: String
        var changes: [FieldChange]
        var hasChanges: Bool
    }

    struct Photo {
        var number: Int
        var source: String
        var width: Int
        var height: Int
        var bytes: String
        var limit: String
        var percent: Int
        var overBudget: Bool
        var quality: String
        var encodes: String
        var warnings: [String]
        var preparedURL: String
        var originalURL: String
    }

    struct Failure {
        var file: String
        var reason: String
    }
}
