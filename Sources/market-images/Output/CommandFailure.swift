/// An input that cannot be used (a photo that will not prepare, a broken product.json): printed as an
/// error and exit status 1. `ValidationError` is kept for the command line itself (exit status 2).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
