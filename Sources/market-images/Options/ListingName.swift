import ArgumentParser
import ImagePipeline

/// A `--listing` value: a marketplace of `Marketplace.all`, so `--help`, completions and the error
/// for a typo all list the table's names.
struct ListingName: ExpressibleByArgument {
    let marketplace: Marketplace

    init?(argument: String) {
        guard let marketplace = Marketplace.named(argument) else { return nil }
        self.marketplace = marketplace
    }

    static var allValueStrings: [String] { Marketplace.all.map(\.id) }
}
