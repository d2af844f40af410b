import Foundation

/// How requests reach an object store: one request sent once, its whole answer read (at most
/// `maxBytes` of body), nothing followed, stopped when its task is cancelled. The store's client
/// (`ObjectStore`) owns signing, deadlines and what answers mean; tests put a fault the real server
/// cannot produce (a torn body, a stall) at this seam, around the real transport.
protocol ObjectStoreTransport: Sendable {
    func send(_ request: ObjectStoreRequest, maxBytes: Int) async throws(ObjectStoreError) -> ObjectStoreResponse
}

/// One signed request to the store.
struct ObjectStoreRequest: Sendable {
    var method: String
    var url: String
    var headers: [(name: String, value: String)]
    var body: Data
}

/// The store's answer: header names lower-cased.
struct ObjectStoreResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
}
