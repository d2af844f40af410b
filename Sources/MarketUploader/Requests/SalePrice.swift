import Foundation

/// What a buyer pays, and the one place where it becomes each server's `discounted_price` and back.
/// Sellers, `product.json`, flags and every screen speak of the sale price; on market-training and
/// openmarket `discounted_price` is the amount taken off (the server answers `bargain_price = price −
/// discounted_price`), so sending the sale price there lists the product at the difference.
public enum SalePrice {
    /// A discount deeper than this share of the price is worth a second look before it is listed.
    public static let warningShare = 0.5

    /// The sale price when it is a discount at all: below the price (the apps strike the price through
    /// only then). A sale price equal to the price means no sale.
    public static func effective(price: Double, salePrice: Double?) -> Double? {
        salePrice.flatMap { $0 < price ? $0 : nil }
    }

    /// "₩10,800 (was ₩12,000)", or "₩12,000" without a sale: how the command line shows a price.
    public static func text(price: Double, salePrice: Double?, currency: Currency) -> String {
        guard let sale = effective(price: price, salePrice: salePrice) else { return currency.format(price) }
        return "\(currency.format(sale)) (was \(currency.format(price)))"
    }

    /// A warning when the sale takes more than `warningShare` off the price.
    public static func warning(price: Double, salePrice: Double?, currency: Currency) -> String? {
        guard let sale = effective(price: price, salePrice: salePrice), price > 0, (price - sale) / price > warningShare else { return nil }
        let share = Int(((price - sale) / price * 100).rounded())
        return "sale_price \(currency.format(sale)) is \(share)% off the price \(currency.format(price)): "
            + "buyers will pay \(currency.format(sale)); check that is meant"
    }
}

extension Dialect {
    /// The `discounted_price` that makes a buyer pay `salePrice`. G2/G3: the amount off, so the price
    /// must be known, in whole cents (39.99 − 29.99 is not sent as 10.000000000000004); no sale is 0
    /// off. G1: the 2021 clients read its `discounted_price` as the price after the discount
    /// (unverified, and kept here so it can change), so no sale is the price itself: sent as 0 it
    /// would list the product for nothing under that reading.
    func discountedPrice(price: Double?, salePrice: Double) -> Double? {
        switch self {
        case .items:
            guard let price else { return salePrice }
            return SalePrice.effective(price: price, salePrice: salePrice) ?? price
        case .marketTraining, .openmarket:
            guard let price else { return nil }
            return SalePrice.effective(price: price, salePrice: salePrice).map { ((price - $0) * 100).rounded() / 100 } ?? 0
        }
    }

    /// What a buyer pays for `product` as this server answers it; nil without a sale. A G1
    /// `discounted_price` of 0 (what older clients sent for no sale) is no sale, not a free product.
    /// G2/G3: `price − discounted_price`, the API's definition, never `bargain_price` taken on trust
    /// (a server may leave it stale after an edit); it stands in only when `discounted_price` is absent.
    public func salePrice(of product: ProductResponse) -> Double? {
        guard let price = product.price else { return nil }
        switch self {
        case .items:
            return SalePrice.effective(price: price, salePrice: product.discountedPrice.flatMap { $0 > 0 ? $0 : nil })
        case .marketTraining, .openmarket:
            let bargain = product.discountedPrice.map { ((price - $0) * 100).rounded() / 100 } ?? product.bargainPrice
            return SalePrice.effective(price: price, salePrice: bargain)
        }
    }

    /// Where the server's price fields disagree with each other (`bargain_price` is not `price −
    /// discounted_price`): said by the commands that show a product and by the publish plan, which show the definition's.
    public func priceDisagreement(of product: ProductResponse) -> String? {
        guard self != .items, let price = product.price, let off = product.discountedPrice, let bargain = product.bargainPrice,
              abs(bargain - (price - off)) >= 0.005 else { return nil }
        let text = { (amount: Double) in ProductText.amount(amount, of: product) }
        return "the server's bargain_price \(text(bargain)) is not price − discounted_price (\(text(price)) − \(text(off)) = \(text(price - off))); "
            + "a buyer is taken to pay \(text(price - off)), as the API defines it"
    }
}
