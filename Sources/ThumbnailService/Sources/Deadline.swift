/// One deadline for a whole exchange with a server: every hop, the headers and the body. A
/// per-read timeout alone let a server sending a byte a second hold the request (and its slot) for
/// as long as it liked; at the deadline `work` is cancelled (its connection dropped) and `expired`
/// is thrown instead.
enum Deadline {
    static func run<T: Sendable, Failure: Error>(within duration: Duration, expired: @escaping @Sendable () -> Failure, cancelled: @escaping @Sendable () -> Failure,
                                                 _ work: @escaping @Sendable () async throws(Failure) -> T) async throws(Failure) -> T {
        let outcome = await withTaskGroup(of: Result<T, Failure>?.self) { group in
            group.addTask {
                do throws(Failure) { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: duration)
                return Task.isCancelled ? nil : .failure(expired())
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let result = next { return result }
            }
            return .failure(cancelled())
        }
        return try outcome.get()
    }
}
