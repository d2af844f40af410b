import Foundation
import NIOCore
import ServiceLifecycle

/// A listener that could not open its address, named by its setting (`--bind`, `--metrics-bind`) with
/// what to do, instead of the socket call's own words: another process holds the port (a second
/// instance left at the same ports), the address is not this machine's, or the port is privileged.
public struct ListenFailure: Error, CustomStringConvertible, Sendable {
    public let setting: String
    public let address: ServiceAddress
    let errno: Int32

    public var description: String {
        let reason = switch errno {
        case EADDRINUSE: "the port is in use by another process; give each instance its own port"
        case EADDRNOTAVAIL: "the address is not one of this machine's"
        default: "ports under 1024 need privileges this process lacks; use a higher port behind the proxy"
        }
        return "cannot listen on \(address) (--\(setting)): \(reason)"
    }

    /// Runs `listener`, turning its failure to open `address` into a `ListenFailure`.
    struct Guarded: Service {
        let listener: any Service
        let setting: String
        let address: ServiceAddress

        func run() async throws {
            do { try await listener.run() } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
                throw ListenFailure(setting: setting, address: address, errno: error.errnoCode)
            }
        }
    }
}
