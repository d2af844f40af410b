extension Duration {
    /// The duration in seconds, fractions included: for C and Foundation APIs that take a `double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
